"""``build-pack``: cross-compile ExecuTorch, guard against the trap, run build_pack.sh.

The steps and their facts are in :mod:`bot.pack.build` (FORMATS.md sections 3
and 4).  The version is validated with :func:`bot.versions.parse_user_version`
(a workflow_dispatch input reaches this command verbatim) and written to the
pack in SemVer form.  In GitHub Actions the pack path is written to
``$GITHUB_OUTPUT`` as ``pack``.  Exit codes: 0 the pack was written; 1 the trap guard
failed or no pack appeared; 2 bad input or a missing tool; otherwise the exit
code of the failing step.
"""

from __future__ import annotations

import argparse
import sys

NAME = "build-pack"
HELP = "build the PyTorch::ExecuTorch pack: documented cross-compile, trap guard, build_pack.sh"
DESCRIPTION = (
    "Run the documented CMake cross-compile of ExecuTorch (executor runner off, flatc on), "
    "check that the build tree holds the flatc-generated headers and the flatbuffers headers, "
    "then run backends/arm/cmsis_pack/scripts/build_pack.sh with its four arguments. "
    "Each step's output is streamed (inside ::group:: blocks in GitHub Actions) and timed.")
ORDER = 40


def register(parser: argparse.ArgumentParser) -> None:
    """Add the build-pack arguments (see the module docstring)."""
    parser.add_argument("--executorch-root", required=True, metavar="DIR",
                        help="ExecuTorch checkout at the release tag, with submodules")
    parser.add_argument("--build-dir", required=True, metavar="DIR", help="CMake build tree (created if missing)")
    parser.add_argument("--version", required=True, metavar="V",
                        help="ExecuTorch release version: X.Y.Z, vX.Y.Z or X.Y.Z-rcN")
    parser.add_argument("--output-dir", required=True, metavar="DIR", help="where the .pack is written")
    parser.add_argument("--python", metavar="PY", default=None,
                        help="PYTHON_EXECUTABLE for CMake (the template's venv python; default: this interpreter)")
    parser.add_argument("--toolchain-file", metavar="F", default=None,
                        help="CMake toolchain file (default: examples/arm/ethos-u-setup/arm-none-eabi-gcc.cmake)")
    parser.add_argument("-j", "--jobs", type=int, default=None, metavar="N",
                        help="parallel build jobs (default: CPU count)")


def run(args: argparse.Namespace) -> int:
    """Build the pack; print the pack path and the per-step timings. Returns the exit code."""
    from bot import inert
    from bot.logstream import write_command
    from bot.errors import UsageError
    from bot.pack.build import BuildConfig, build_pack, timing_table
    from bot.versions import parse_user_version, to_semver

    version = to_semver(parse_user_version(args.version, what="--version"))
    if args.jobs is not None and args.jobs < 1:
        raise UsageError(f"-j: expected a positive number of jobs, got {args.jobs}")
    cfg = BuildConfig.create(executorch_root=args.executorch_root, build_dir=args.build_dir, version=version,
                             output_dir=args.output_dir, python=args.python or sys.executable,
                             toolchain_file=args.toolchain_file, jobs=args.jobs)
    steps = []

    def emit(line: str) -> None:
        # a line of upstream's CMake / build_pack.sh output: foreign text
        print(inert.line(line, cap=4000), flush=True)

    try:
        outcome = build_pack(cfg, emit=emit, on_step=steps.append,
                             command=lambda text: write_command(sys.stdout, text))
    finally:
        if steps:
            for line in timing_table(steps):
                print(line, flush=True)
    print(f"pack: {outcome.pack}", flush=True)
    _write_output("pack", str(outcome.pack))
    return 0


def _write_output(name: str, value: str) -> None:
    """Append ``name=value`` to ``$GITHUB_OUTPUT`` when set (GitHub Actions step outputs)."""
    import os

    target = os.environ.get("GITHUB_OUTPUT")
    if target and "\n" not in value:
        with open(target, "a", encoding="utf-8") as f:
            f.write(f"{name}={value}\n")
