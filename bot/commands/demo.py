"""``demo``: the whole bump, offline, on the sample the project ships.

Builds a small upstream ExecuTorch git repository with release tags from
``bot/sample/upstream`` in a temporary folder, copies the sample template
``bot/sample/template`` next to it, prints the unified diff and the summary
of the bump to the newest stable tag, applies it and audits the result.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

NAME = "demo"
ORDER = 1
HELP = "run a complete bump offline on the shipped sample template (prints the diff and the summary)"

SAMPLE = Path(__file__).resolve().parent.parent / "sample"


def copy_template(dest: Path) -> Path:
    """Copy the sample template to ``dest`` (``dot-github`` becomes ``.github``); return ``dest``."""
    shutil.copytree(SAMPLE / "template", dest)
    dot = dest / "dot-github"
    if dot.exists():
        dot.rename(dest / ".github")
    return dest


def register(p: argparse.ArgumentParser) -> None:
    p.add_argument("--keep", type=Path, metavar="DIR",
                   help="build the sample in DIR (must not exist) and keep it, instead of a temporary folder")


def run(args: argparse.Namespace) -> int:
    from bot import engine
    from bot.errors import UsageError
    from bot.sample import build_upstream_repo
    from bot.textreport import plan_summary
    from bot.upstream.source import GitSource

    if args.keep is not None and args.keep.exists():
        raise UsageError(f"--keep {args.keep}: already exists; name a new folder")
    work = args.keep or Path(tempfile.mkdtemp(prefix="executorch-pack-bot-demo-"))
    try:
        work.mkdir(parents=True, exist_ok=True)
        upstream = build_upstream_repo(work / "executorch.git")
        template = copy_template(work / "template")
        print(f"# upstream: {upstream} (a local git repository with release tags)")
        print(f"# template: {template} (the shipped sample, on ExecuTorch 1.4.0)")
        print(f"# equivalent command: executorch-pack-bot update --repo {template} --upstream {upstream} --dry-run")
        print()
        plan = engine.plan(template, GitSource(upstream),
                           progress=lambda m: print(f"# {m}", file=sys.stderr))
        sys.stdout.write(plan.diff())
        print()
        sys.stdout.write(plan_summary(plan))
        engine.apply(plan)
        audit = engine.audit(template)
        print()
        print(f"Applied {len(plan.edits)} edits to {len(plan.contents)} files; audit: "
              + ("every ExecuTorch pin is " + audit.versions[0] if audit.agree else "PINS DISAGREE"))
        return 0 if audit.agree else 1
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)
