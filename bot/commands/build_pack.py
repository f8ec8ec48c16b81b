"""``build-pack``: the schema headers from the release's flatc (or CMake), the trap guard, build_pack.sh, the proof.

The steps and their facts are in :mod:`bot.pack.build` and :mod:`bot.pack.wheel_flatc` (ExecuTorch's backends/arm/cmsis_pack/scripts/build_pack.sh at v1.4.1; ExecuTorch's backends/arm/cmsis_pack/README.md at v1.4.1).  The version is validated with :func:`bot.versions.parse_pack_version`
(a workflow_dispatch input reaches this command verbatim): SemVer with any
pre-release label (``1.5.1``, ``1.5.1-rc1``, a local build ``1.5.1-local``),
written to the pack as given.  In GitHub Actions the pack path is written to
``$GITHUB_OUTPUT`` as ``pack``.  Exit codes: 0 the pack was written; 1 the trap guard
failed or no pack appeared; 2 bad input or a missing tool; otherwise the exit
code of the failing step.
"""

from __future__ import annotations

import argparse
import os
import sys

NAME = "build-pack"
HELP = "build the PyTorch::ExecuTorch pack: the release's flatc (or CMake), build_pack.sh, compile check"
DESCRIPTION = (
    "Generate the two flatc headers the pack needs (program_generated.h, scalar_type_generated.h) with the "
    "flatc of the release's executorch wheel (executorch/data/bin/flatc of the --python venv; without "
    "--python, the wheel of the tree's version.txt fetched from the package index with pip download "
    "--no-deps), after checking that flatc --version equals the tree's third-party/flatbuffers version "
    "(include/flatbuffers/base.h), and copy them and third-party/flatbuffers/include/flatbuffers where "
    "build_pack.sh reads them: nothing is compiled for the host. When the versions differ or no wheel "
    "exists (a nightly, a local version), or with --cmake-targets, configure ExecuTorch with the documented "
    "CMake cross-compile settings (executor runner off, flatc on) and build only the CMake targets the pack "
    "takes (program_schema, flatbuffers_ep); the log says why. --full-build runs the documented full build. "
    "Then check that the build tree holds those headers, run "
    "backends/arm/cmsis_pack/scripts/build_pack.sh with its four arguments, then prove the pack with "
    "verify-pack's checks and its compile check (the Runtime sources compiled with arm-none-eabi-g++). "
    "With ccache on PATH it is the compiler launcher of the CMake build (CMAKE_<LANG>_COMPILER_LAUNCHER) and "
    "of the compile check, and the hit rates are reported. Refused before anything is written: a tree "
    "without the flatbuffers submodule, a --python without an executorch package, a flatc that fails, a build directory left from another ExecuTorch "
    "version; on the CMake paths a tree whose folder is not named executorch. "
    "The version may carry a label: --version 1.5.1-local builds PyTorch.ExecuTorch.1.5.1-local.pack. "
    "Each step's output is streamed (inside ::group:: blocks in GitHub Actions) and timed. "
    "Exit 0: pack written and verified; 1: the trap guard or a check failed; 2: bad input or a missing tool; "
    "otherwise the failing step's exit code.")
ORDER = 14


def register(parser: argparse.ArgumentParser) -> None:
    """Add the build-pack arguments (see the module docstring)."""
    parser.add_argument("--executorch-root", required=True, metavar="DIR",
                        help="ExecuTorch checkout at the release tag, with submodules")
    parser.add_argument("--build-dir", required=True, metavar="DIR", help="CMake build tree (created if missing)")
    parser.add_argument("--version", required=True, metavar="V",
                        help="pack version, written verbatim into the pack: X.Y.Z (vX.Y.Z), X.Y.Z-rcN, or a "
                             "local build X.Y.Z-local (any SemVer pre-release label, e.g. 1.5.1-local.2)")
    parser.add_argument("--output-dir", required=True, metavar="DIR", help="where the .pack is written")
    parser.add_argument("--python", metavar="PY", default=None,
                        help="the template's venv python: its executorch package's flatc makes the schema "
                             "headers, and it is PYTHON_EXECUTABLE on the CMake paths (default: this "
                             "interpreter, with flatc from the release's wheel on the package index)")
    parser.add_argument("--toolchain-file", metavar="F", default=None,
                        help="CMake toolchain file (default: examples/arm/ethos-u-setup/arm-none-eabi-gcc.cmake)")
    parser.add_argument("-j", "--jobs", type=int, default=None, metavar="N",
                        help="parallel build jobs (default: CPU count)")
    parser.add_argument("--full-build", action="store_true",
                        help="run the documented full build (cmake --build without --target) instead of only "
                             "the targets the pack takes (program_schema, flatbuffers_ep)")
    parser.add_argument("--cmake-targets", action="store_true",
                        help="compile flatc and build the pack's CMake targets (program_schema, flatbuffers_ep) "
                             "instead of using the release's flatc")
    parser.add_argument("--cmake-arg", action="append", default=[], dest="cmake_args", metavar="NAME=VALUE",
                        help="extra CMake setting for the configure step, after the documented ones (repeatable): "
                             "--cmake-arg NAME=VALUE or --cmake-arg=-DNAME=VALUE, e.g. "
                             "--cmake-arg EXECUTORCH_BUILD_ARM_BAREMETAL=OFF on a runner that cannot download "
                             "the Ethos-U driver; the build log names them")
    parser.add_argument("--no-ccache", action="store_true",
                        help="do not use ccache even when it is on PATH (a cold build)")
    parser.add_argument("--cxx", metavar="COMPILER", default=None,
                        help="compiler of the compile check (default arm-none-eabi-g++)")
    parser.add_argument("--no-compile-check", action="store_true",
                        help="skip verifying the written pack (verify-pack checks and compile check)")


def run(args: argparse.Namespace) -> int:
    """Build the pack; print the pack path and the per-step timings. Returns the exit code."""
    from bot import inert
    from bot.logstream import write_command
    from bot.errors import UsageError
    from bot.pack.build import BuildConfig, build_pack, timing_table
    from bot.versions import parse_pack_version

    from bot.pack import build

    version = parse_pack_version(args.version, what="--version").text
    if args.jobs is not None and args.jobs < 1:
        raise UsageError(f"-j: expected a positive number of jobs, got {args.jobs}")
    if args.full_build and args.cmake_targets:
        raise UsageError("--full-build and --cmake-targets: choose one (--full-build builds every target)")
    if args.cxx and args.no_compile_check:
        raise UsageError("--cxx names the compiler of the compile check; it cannot go with --no-compile-check")
    cfg = BuildConfig.create(executorch_root=args.executorch_root, build_dir=args.build_dir, version=version,
                             output_dir=args.output_dir, python=args.python or sys.executable,
                             toolchain_file=args.toolchain_file, jobs=args.jobs, full_build=args.full_build,
                             cmake_args=args.cmake_args, ccache=None if args.no_ccache else build.find_ccache(),
                             flatc_from="cmake" if args.cmake_targets else "python" if args.python else "index")
    if not args.no_compile_check:
        from bot.pack.compile import find_compiler
        find_compiler(args.cxx)   # before an hour-long build, not after it
    # what CMake and build_pack.sh may write when they run as a user of their own (bot.contain.guest_user):
    # the build and output folders, the upstream tree, and ccache's folder (ccache 4.x: $CCACHE_DIR, else
    # $XDG_CACHE_HOME/ccache, else ~/.cache/ccache), which the guest's own HOME would otherwise hide
    from bot import contain
    if os.environ.get(contain.SEPARATE_VAR) == "1":
        ccache_dir = None
        if cfg.ccache:
            ccache_dir = os.environ.get("CCACHE_DIR") or os.path.join(
                os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "ccache")
            os.environ["CCACHE_DIR"] = ccache_dir
        contain.hand_to_guests(cfg.build_dir, cfg.output_dir, cfg.executorch_root, ccache_dir)
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
    _write_output("build-path", outcome.path)
    if outcome.ccache is not None:
        _write_output("ccache-hit-rate", "" if outcome.ccache.rate is None else f"{outcome.ccache.rate:.3f}")
    if args.no_compile_check:
        return 0
    from bot.pack.verify import verify_pack

    print("==> verify: verify-pack checks and the compile check of the Runtime sources", flush=True)
    before = build.ccache_counters(cfg.ccache) if cfg.ccache else None
    report = verify_pack(outcome.pack, version, compile_check=True, cxx=args.cxx, compile_jobs=cfg.jobs,
                         ccache=cfg.ccache)
    sys.stdout.write(report.to_text())
    proof = build.ccache_delta(before, build.ccache_counters(cfg.ccache)) if cfg.ccache else None
    if proof is not None:
        print(f"compile check {proof.line()}", flush=True)
        _write_output("compile-ccache-hit-rate", "" if proof.rate is None else f"{proof.rate:.3f}")
    return 1 if report.failed else 0


def _write_output(name: str, value: str) -> None:
    """Step output ``name`` (GitHub Actions, ``$GITHUB_OUTPUT``) through the one writer, :func:`bot.actions.set_outputs`."""
    from bot import actions

    actions.set_outputs({name: value})
