"""``verify-pack``: every check of a ``PyTorch.ExecuTorch.<V>.pack`` (the list: :mod:`bot.pack.verify`).

Prints a table of named checks (pass / warn / fail, one line of detail
each), or the same as JSON with ``--json``; ``--markdown FILE`` writes the
PR-body section.  Exit 0 when nothing failed, 1 when a check failed, 2 for
bad usage or an unreadable file.  Heavy imports happen inside :func:`run`.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

NAME = "verify-pack"
HELP = "verify a PyTorch::ExecuTorch CMSIS pack (archive, manifest, headers, components, compile)"
DESCRIPTION = (
    "Verify a PyTorch.ExecuTorch.<V>.pack: zip safety, the .pdsc manifest (version, file name, URL), "
    "the flatbuffers and generated schema headers a quiet failed build leaves out, file references, "
    "components and kernel registrations; optionally against a baseline pack and a template's layers, "
    "with upstream's validate_pack.py, cpackget and a real compile of the Runtime sources. "
    "Exit 0: passed; 1: a check failed; 2: bad usage or unreadable input.")
ORDER = 12


def register(parser: argparse.ArgumentParser) -> None:
    """Add the arguments of ``verify-pack``: the pack, its version, and the optional checks' inputs."""
    parser.add_argument("pack", type=Path, metavar="PACK",
                        help="the .pack file, or a folder holding PyTorch.ExecuTorch.<V>.pack for --version V")
    parser.add_argument("--version", required=True, dest="pack_version", metavar="V",
                        help="pack version expected, checked exactly as written against the file name, <release>, "
                             "every Cversion and <url>: X.Y.Z (vX.Y.Z), X.Y.Z-rcN, or a locally built "
                             "X.Y.Z-local (any SemVer pre-release label)")
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--url", help="expected <url>, exactly (default: the GitHub release download location of the "
                                     "tag; upstream's own form .../download/X.Y.Z/ for tag vX.Y.Z is a warning; a "
                                     "local build's url ends in its label: .../download/X.Y.Z-local/)")
    where.add_argument("--tag", help="release tag of the download location (default vX.Y.Z)")
    parser.add_argument("--baseline", type=Path, metavar="OLD",
                        help="the previous version's pack (a .pack, an unpacked pack folder, or the folder "
                             "previous-pack wrote): list the operator components added, removed and changed "
                             "(the Operators section of the PR body)")
    parser.add_argument("--template", type=Path, metavar="PATH",
                        help="template checkout: components its *.clayer.yml and *.cproject.yml select must be in "
                             "the pack (one that is gone fails the check: a blocking item of the PR)")
    parser.add_argument("--executorch-root", type=Path, metavar="DIR",
                        help="run DIR/backends/arm/cmsis_pack/test/validate_pack.py on the pack")
    parser.add_argument("--compile-check", action="store_true", help="compile the Runtime component's sources")
    parser.add_argument("--cxx", metavar="COMPILER", help="compiler for --compile-check (default arm-none-eabi-g++)")
    parser.add_argument("--ccache", action="store_true",
                        help="with --compile-check: compile through the ccache on PATH, so that a warm runner's cache "
                             "serves the compiles (CCACHE_BASEDIR is the check's temporary folder)")
    parser.add_argument("--cpackget", action="store_true",
                        help="install into a temporary pack root with cpackget and check `cpackget list`")
    parser.add_argument("--installed", type=Path, metavar="PACK_ROOT",
                        help="a CMSIS pack root the pack was installed into: PACK_ROOT/PyTorch/ExecuTorch/<V> must "
                             "hold exactly the pack's files, byte for byte")
    parser.add_argument("--allow-flagged", action="store_true",
                        help="exit 0 when only template-components failed (a component the template selects is "
                             "gone: a blocking item of the pull request, which the report lists), as update's "
                             "--allow-flagged")
    parser.add_argument("--json", action="store_true", help="print the report as JSON instead of a table")
    parser.add_argument("--markdown", type=Path, metavar="FILE", help="write the PR-body Markdown section to FILE")
    parser.add_argument("--compile-result", type=Path, metavar="FILE",
                        help="with --compile-check: write the compile check's pass/fail and one inert line to FILE "
                             "(JSON) for `publish --compile-result`, after every check has finished")


def _a_zip_archive(pack: Path) -> None:
    """Refuse as bad input (exit 2, as ``--help`` says) a PACK that is not a zip archive at all: a CMSIS pack is
    a zip file (Open-CMSIS-Pack, "Pack file format"), so a README or a folder is the wrong argument, not a
    pack that failed a check.  A zip that is damaged inside is still a pack: its ``archive`` check fails (exit 1).
    A file that cannot be opened is left to :func:`bot.pack.verify.verify_pack`, which names it (exit 2)."""
    import zipfile

    from bot.errors import UsageError
    try:
        if not pack.is_file() or zipfile.is_zipfile(pack):
            return
    except OSError:
        return
    raise UsageError(f"PACK: {pack}: not a pack (not a zip archive); give the .pack file of the release "
                     "(PyTorch.ExecuTorch.X.Y.Z.pack)")


def run(args: argparse.Namespace) -> int:
    """Run the checks, print the report, write ``--markdown``; return 0, 1 (a check failed) or 2."""
    from bot.errors import UsageError
    from bot.pack.verify import verify_pack

    if args.cxx and not args.compile_check:
        raise UsageError("--cxx needs --compile-check")
    args.pack = pack_in(args.pack, args.pack_version)
    _a_zip_archive(args.pack)
    installed = None
    if args.installed is not None:
        from bot.pack.verify import pack_version
        installed = args.installed / "PyTorch" / "ExecuTorch" / pack_version(args.pack_version)[0]
    if args.compile_result and not args.compile_check:
        raise UsageError("--compile-result needs --compile-check")
    ccache = None
    if args.ccache:
        import shutil
        if not args.compile_check:
            raise UsageError("--ccache needs --compile-check")
        ccache = shutil.which("ccache")
        if ccache is None:
            raise UsageError("--ccache: no ccache on PATH (Debian: apt-get install ccache), or leave --ccache out")
    if args.markdown:
        _check_markdown_target(args.markdown, [p for p in (args.pack, args.baseline) if p])
    if args.compile_result:   # a result left there before (by anyone) must not survive a run that stops early
        from bot.pack.compile_result import write_compile_result
        write_compile_result(None, args.compile_result)
    report = verify_pack(args.pack, args.pack_version, url=args.url, tag=args.tag, baseline=args.baseline,
                         template=args.template, executorch_root=args.executorch_root,
                         compile_check=args.compile_check, cxx=args.cxx, cpackget=args.cpackget,
                         installed=installed, ccache=ccache)
    if args.markdown:
        try:
            args.markdown.write_text(report.to_markdown(), encoding="utf-8")
        except OSError as exc:
            raise UsageError(f"--markdown: cannot write {args.markdown}: {exc.strerror}") from exc
    if args.compile_result:   # written by the bot, after every upstream process (validator, compiler) has exited
        from bot.pack.compile_result import write_compile_result
        write_compile_result(report.check("compile"), args.compile_result)
    if args.json:
        import json

        json.dump(report.to_json(), sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(report.to_text())
    return 1 if (report.pack_failed if args.allow_flagged else report.failed) else 0


def pack_in(path: Path, version: str) -> Path:
    """``path`` itself, or for a folder ``path/PyTorch.ExecuTorch.<pack version of version>.pack``.

    Raises :class:`~bot.errors.UsageError` for a version that is not X.Y.Z, vX.Y.Z or X.Y.Z-rcN.
    """
    if Path(path).is_dir():
        from bot.pack.verify import pack_version
        return Path(path) / f"PyTorch.ExecuTorch.{pack_version(version)[0]}.pack"
    return Path(path)


def _check_markdown_target(target: Path, inputs: list) -> None:
    """Refuse a ``--markdown`` FILE that is one of the inputs (it would be overwritten) or cannot be created.

    Checked before any check runs, so a long ``--compile-check`` is not wasted.
    Raises :class:`~bot.errors.UsageError` (exit 2).
    """
    import os

    from bot.errors import UsageError

    for inp in inputs:
        try:
            if os.path.samefile(target, inp):
                raise UsageError(f"--markdown: {target} is the pack being verified; choose another file")
        except OSError:
            continue  # the target does not exist yet
    parent = target.parent if str(target.parent) else Path(".")
    if target.is_dir() or not parent.is_dir():
        what = f"{target} is a directory" if target.is_dir() else f"{parent} is not a directory"
        raise UsageError(f"--markdown: cannot write {target}: {what}")
