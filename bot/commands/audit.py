"""``audit``: do all of the template's ExecuTorch pins agree?  Which prose names another version?"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

NAME = "audit"
ORDER = 8
HELP = "check that every ExecuTorch pin of a template agrees (exit 1 when they disagree or an item is blocking)"


def register(p: argparse.ArgumentParser) -> None:
    p.add_argument("--repo", default=".", type=Path, help="the template checkout (default: .)")
    p.add_argument("--json", action="store_true", help="print the audit as JSON")
    from bot.commands._options import add_exclude_argument
    add_exclude_argument(p)


def run(args: argparse.Namespace) -> int:
    from bot import engine, inert
    from bot.textreport import audit_mentions_line, flag_lines, plural, table

    from bot.config import load_config
    load_config(args.repo)   # every setting checked, as check and run do (file and line, exit 2)
    result = engine.audit(args.repo, exclude=tuple(args.exclude))
    if args.json:
        print(json.dumps(result.to_json(), indent=2))
        return 0 if result.ok else 1
    rows = [[f"{p.path}:{p.line}", p.kind, p.text or p.version or ""] for p in result.pins]
    print(table(["where", "kind", "pin"], rows) if rows else "No ExecuTorch pin found.")
    print()
    blocking = len(result.blocking_flags)
    if result.ok:
        print(f"OK: every ExecuTorch pin is {result.versions[0]}.")
    if result.local_build:
        print(result.local_build + ".")
    elif result.ok:
        pass
    elif result.agree:
        print(f"FAIL: {result.headline()}{'; ' if result.left_behind else ', but '}{plural(blocking, 'blocking item')} "
              f"{'is' if blocking == 1 else 'are'} flagged below (marked !).")
    elif result.pins:
        print(f"FAIL: the ExecuTorch pins disagree:{result.disagreement()}")
    else:
        print("FAIL: no exact ExecuTorch pin found.")
    if result.mentions is not None:
        print("\n" + audit_mentions_line(result.mentions))
    if result.stale_mentions:
        print("\nProse mentioning another ExecuTorch version (history, or left behind):")
        for f in result.stale_mentions:
            print(f"  {inert.line(f.path, cap=300)}:{f.line}: {inert.line(f.text or f.version, cap=300)}")
    if result.flags:
        print("\nFlagged items:")
        print("\n".join(flag_lines(result.flags)))
    if result.not_scanned:
        print(f"\nnot scanned: {', '.join(d + '/' for d in result.not_scanned)} (vendored, build and "
              "generated folders are never read; pins in them are not checked)")
    return 0 if result.ok else 1
