"""``demo``: the whole bump, offline, on the sample the project ships.

Builds a small upstream ExecuTorch git repository with release tags from
``bot/sample/upstream`` in a temporary folder, copies the sample template
``bot/sample/template`` next to it, prints the unified diff and the summary
of the bump to the newest stable tag, applies it and audits the result
(``--dry-run``: applies nothing; with ``--keep DIR`` the pristine sample and
the upstream repository stay in DIR and the follow-up commands are printed).
"""

from __future__ import annotations

import argparse
import shlex
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


def follow_up(template: Path, upstream: Path, applied: bool) -> str:
    """The commands a user can run next on a kept demo folder (``--keep``), one a line."""
    t, u = shlex.quote(str(template)), shlex.quote(str(upstream))
    lines = ["", "Kept. Try the commands yourself:"]
    if applied:
        lines += [f"  executorch-pack-bot audit  --repo {t}",
                  f"  executorch-pack-bot update --repo {t} --upstream {u} --dry-run   # nothing left to do"]
    else:
        lines += [f"  executorch-pack-bot audit  --repo {t}",
                  f"  executorch-pack-bot update --repo {t} --upstream {u} --dry-run",
                  f"  executorch-pack-bot update --repo {t} --upstream {u}",
                  f"  executorch-pack-bot audit  --repo {t}"]
    return "\n".join(lines)


def register(p: argparse.ArgumentParser) -> None:
    p.add_argument("--keep", type=Path, metavar="DIR",
                   help="build the sample in DIR (must not exist) and keep it, instead of a temporary folder")
    p.add_argument("--dry-run", action="store_true",
                   help="print the diff and the summary, apply nothing (with --keep: DIR keeps the pristine "
                        "1.4.0 sample and the upstream repository to try update/audit on)")


def run(args: argparse.Namespace) -> int:
    from bot import engine
    from bot.errors import UsageError
    from bot.sample import build_upstream_repo
    from bot.textreport import plan_summary
    from bot.upstream.source import GitSource

    if args.keep is not None:
        if args.keep.exists() or args.keep.is_symlink():
            raise UsageError(f"--keep {args.keep}: already exists; name a new folder")
        try:
            args.keep.mkdir(parents=True)
        except OSError as exc:
            raise UsageError(f"--keep {args.keep}: cannot create the folder: {exc.strerror}") from None
    work = args.keep or Path(tempfile.mkdtemp(prefix="executorch-pack-bot-demo-"))
    try:
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
        print()
        if args.dry_run:
            print(f"Dry run: {len(plan.edits)} edits to {len(plan.contents)} files planned, nothing applied.")
            code = 0
        else:
            engine.apply(plan)
            audit = engine.audit(template)
            print(f"Applied {len(plan.edits)} edits to {len(plan.contents)} files; audit: "
                  + ("every ExecuTorch pin is " + audit.versions[0] if audit.agree else "PINS DISAGREE"))
            code = 0 if audit.agree else 1
        if args.keep is not None:
            print(follow_up(template, upstream, applied=not args.dry_run))
        return code
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)
