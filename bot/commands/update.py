"""``update``: plan the bump of a template to an ExecuTorch release, and write it (or only show it)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

# the shared options, defined in bot/commands/_options.py; still importable from here
from bot.commands._options import (add_exclude_argument, add_flagged_arguments,  # noqa: F401
                                  add_set_argument, add_source_arguments)

NAME = "update"
ORDER = 10
HELP = "bump a template checkout to an ExecuTorch release (every pin, the lock file, prose)"
DESCRIPTION = (
    "Plan every edit that moves the template to the target ExecuTorch release and write them "
    "all-or-nothing. Exit 0 when done or nothing to do, 1 when a blocking item is flagged (nothing "
    "is written unless --allow-flagged; non-blocking items never change the exit code), 2 for bad "
    "usage or bad input.")


def register(p: argparse.ArgumentParser) -> None:
    p.add_argument("--repo", default=".", type=Path, help="the template checkout (default: .)")
    add_source_arguments(p)
    add_set_argument(p)
    p.add_argument("--dry-run", action="store_true", help="print the diff and the summary; write nothing")
    p.add_argument("--json", action="store_true", help="print the plan as JSON (its keys: docs/bumping.md, '--json: the plan as data')")
    add_flagged_arguments(p, default=False,
                          allowed="write even when a blocking item is flagged (the flags stay in the report)",
                          stopped="write nothing when a blocking item is flagged (exit 1)")
    add_exclude_argument(p)
    p.add_argument("--plan-file", type=Path, metavar="FILE",
                   help="also write the bump record as JSON to FILE (for `publish`): the plan with its edits, the "
                        "mentions accounting, the upstream changes between the tags and what the template holds "
                        "(docs/pr-body.md)")
    p.add_argument("--pack", type=Path, metavar="FILE|DIR",
                   help="with --plan-file: the target's pack (or the folder holding it), whose PDSC <file> lists map "
                        "the template's components to the upstream files behind them (otherwise: the naming convention)")


def run(args: argparse.Namespace) -> int:
    from bot import quietfiles
    # git looks for the files the plan need not open (bot.quietfiles) while this command imports
    quietfiles.prestart(args.repo)
    try:
        return _run(args)
    finally:
        quietfiles.discard(args.repo)   # only when the command stopped before reading the template


def _run(args: argparse.Namespace) -> int:
    from bot import engine, inert
    from bot.sources import offline_hint, open_source
    from bot.textreport import blocked_line, plan_summary, plural

    def progress(msg: str) -> None:
        if not args.json:
            print(f"# {inert.line(msg, cap=1000)}", file=sys.stderr)

    if args.plan_file is not None:
        _check_plan_file(args.plan_file)
    if args.to:   # a bad --to is bad usage (exit 2) before any request, not a network fault after them
        from bot.versions import parse_user_version
        parse_user_version(args.to, what="--version")
    from bot.config import load_config
    load_config(args.repo)   # every setting checked here, as check and run do: a typo fails now, not in CI
    source = open_source(args.upstream)
    with offline_hint(args.upstream):
        plan = engine.plan(args.repo, source, to=args.to, sets=engine.parse_sets(args.sets),
                           allow_prerelease=args.allow_prerelease, progress=progress,
                           exclude=tuple(args.exclude))
    blocked = bool(plan.blocking_flags) and not args.allow_flagged
    write = not args.dry_run and not blocked and not plan.nothing_to_do
    # The JSON (its fingerprint hashes the pins) only when it is printed or written to a plan file.
    if args.plan_file:
        data = bump_record(plan, source, args)
    else:
        data = plan.to_json() if args.json else {}
    data["written"] = write
    if args.plan_file:
        # Written before the template: a plan file that cannot be written leaves the checkout as it was.
        _write_plan_file(args.plan_file, data)
    if write:
        try:
            engine.apply(plan)
        except BaseException:
            data["written"] = False
            _write_plan_file(args.plan_file, data, quiet=True)
            raise
    if args.json:
        import json

        print(json.dumps(data, indent=2))
    else:
        if args.dry_run:
            sys.stdout.write(inert.log_safe(plan.diff()))
            print()
        sys.stdout.write(plan_summary(plan))
        if blocked:
            print("\n" + blocked_line(plan.flags))
        elif write:
            print(f"\nWrote {plural(len(plan.contents), 'file')}.")
        elif args.dry_run and not plan.nothing_to_do:
            print("\nDry run: nothing written.")
    return 1 if blocked else 0


def bump_record(plan, source, args) -> dict:
    """The bump record (:mod:`bot.report.record`) of ``plan``: the ``update`` stage, with upstream access.

    The upstream changes between the tags, ``version.txt``, the newer tags skipped and ``requires-python`` come
    from ``source``; the template's selected components, boards, measured numbers and stated Pythons from the
    checkout before the bump is written.  Raises UsageError naming ``--pack`` when it cannot be read.
    """
    from bot.report.evidence import gather
    from bot.report.record import record_of

    if plan.bump is None:
        return record_of(plan)
    pdsc = None
    if args.pack is not None:
        from bot.commands.publish import pack_sha256
        from bot.commands.verify_pack import pack_in
        from bot.github.flow import pack_pdsc
        pack_sha256(args.pack, plan.bump.new_pack)   # unreadable: bad usage naming --pack
        pdsc = pack_pdsc(pack_in(args.pack, plan.bump.new_pack))
    name = getattr(source, "full_name", None) or "pytorch/executorch"
    spec = args.upstream if args.upstream.startswith("github:") else None
    evidence = gather(plan, source, upstream=name, upstream_spec=spec, pdsc=pdsc, exclude=tuple(args.exclude),
                      env={})
    return record_of(plan, evidence, upstream_spec=args.upstream, upstream_ran=True, pdsc=pdsc is not None)


def _check_plan_file(path: Path) -> None:
    """Refuse (UsageError, exit 2) a ``--plan-file`` that cannot be written, before anything is planned."""
    from bot.errors import UsageError

    if path.is_dir():
        raise UsageError(f"--plan-file {path}: is a directory")
    if not path.parent.is_dir():
        raise UsageError(f"--plan-file {path}: the folder {path.parent} does not exist")


def _write_plan_file(path, data: dict, quiet: bool = False) -> None:
    """Write the plan JSON to ``path`` (None: nothing); an OSError becomes a UsageError unless ``quiet``."""
    from bot.errors import UsageError

    if path is None:
        return
    import json

    try:
        path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    except OSError as exc:
        if not quiet:
            raise UsageError(f"--plan-file {path}: cannot write: {exc.strerror}") from None
