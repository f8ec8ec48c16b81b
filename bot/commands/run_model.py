"""``run-model``: run a ``.pte`` on a pack's runtime in QEMU's simulated Cortex-M55 and compare with the host.

Stages (:data:`bot.modelrun.STAGES`): select, compile, link, boot, load,
execute, compare; a failure names its stage and shows the tool's or
runtime's own error.  Exit 0: the outputs match, or the program is delegated
(an NPU QEMU lacks: "not runnable in QEMU", not a failure); 1: a mismatch, a
load failure, a crash or any other failed stage; 2: bad usage or unreadable
input (with ``--template``: a bad settings file or ``model:``).
Heavy imports happen inside :func:`run`.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

NAME = "run-model"
HELP = "run a .pte on a pack's runtime in QEMU's simulated Cortex-M55 (mps3-an547) and compare with the host runtime"
DESCRIPTION = (
    "Read the operators MODEL.pte needs, select exactly those operator components from the pack's PDSC, "
    "build a bare-metal Cortex-M55 image from the pack's sources and the bot's runner with arm-none-eabi-gcc, "
    "run it in qemu-system-arm -M mps3-an547 under a time limit, and compare its outputs with ExecuTorch's host "
    "runtime (bit-exact unless --tolerance). Reports the instructions of one inference. "
    "Exit 0: match (or a delegated program, not runnable in QEMU); 1: mismatch, load failure, crash or another "
    "failed stage; 2: bad usage or unreadable input (with --template: a bad settings file or model).")
ORDER = 16


def register(parser: argparse.ArgumentParser) -> None:
    """Add the arguments of ``run-model``."""
    parser.add_argument("pack", type=Path, metavar="PACK", help="the .pack file, or an unpacked pack folder")
    what = parser.add_mutually_exclusive_group(required=True)
    what.add_argument("--pte", type=Path, metavar="MODEL.pte", help="the ExecuTorch program to run")
    what.add_argument("--suite", type=Path, metavar="DIR",
                      help="run the bot's model suite: export it into DIR with --host-python first unless DIR "
                           "already holds it (so the old pack's run takes the very .pte files the new one did)")
    parser.add_argument("--template", type=Path, metavar="REPO",
                        help="with --suite: also run the template's own model, the .pte its settings file "
                             "(.github/executorch-pack-bot.yml) names with model: (a delegated program is "
                             "reported as not runnable in QEMU, not as a failure)")
    parser.add_argument("--results", type=Path, metavar="DIR",
                        help="with --suite: write one result per model to DIR/<model>.json")
    ref = parser.add_mutually_exclusive_group()
    ref.add_argument("--host-python", metavar="PYTHON",
                     help="python of a venv holding the executorch wheel of the pack's version: runs the same "
                          ".pte with the same fixed inputs as the reference")
    ref.add_argument("--expected", type=Path, metavar="FILE",
                     help="reference outputs recorded earlier: the JSON --write-expected writes, a list with "
                          "one object per output of the program, in order: {\"scalar_type\": ExecuTorch's "
                          "ScalarType number (6 float32), \"sizes\": [dims], \"hex\": the tensor's bytes, "
                          "little-endian, as hex}")
    parser.add_argument("--write-expected", type=Path, metavar="FILE",
                        help="with --host-python: also write the host runtime's outputs to FILE")
    parser.add_argument("--tolerance", type=float, default=0.0, metavar="X",
                        help="largest absolute difference accepted per element (default 0: bit-exact, as the "
                             "portable kernels must be)")
    parser.add_argument("--timeout", type=float, default=60.0, metavar="SECONDS", help="QEMU time limit (default 60)")
    parser.add_argument("--name", help="the model's name in the report (default: the .pte file name)")
    parser.add_argument("--label", help="the pack's name in the report (default: the pack file name)")
    parser.add_argument("--runner", choices=("auto", "executorch", "sample"), default="auto",
                        help="the runner's main(): ExecuTorch's runtime API, or the sample packs' runtime "
                             "(default: from the pack's Runtime sources)")
    parser.add_argument("--work-dir", type=Path, metavar="DIR", help="build here and keep it: a new or empty folder, "
                        "or one an earlier run-model made (emptied first; default: a temporary folder, removed)")
    parser.add_argument("--cache-dir", type=Path, metavar="DIR", help="ccache's folder (default: ccache's own)")
    deps = parser.add_argument_group("packs a selected component requires (CMSIS-NN's CMSIS:NN Lib)")
    deps.add_argument("--dep-pack", type=Path, action="append", default=[], metavar="PACK",
                      help="a local pack providing a required component (ARM.CMSIS-NN.V.pack or an unpacked folder); "
                           "used before the pack index (offline)")
    deps.add_argument("--cbuild-pack", type=Path, metavar="FILE",
                      help="the template's *.cbuild-pack.yml lock file, or the template's folder (its lock files "
                           "at the top or one folder down): the version it pins (resolved-pack: ARM::CMSIS-NN@V) is "
                           "fetched; default: the newest the pack index lists")
    deps.add_argument("--pack-index-url", metavar="URL",
                      help="the CMSIS pack index (index.pidx) a required pack is found in, or 'off' "
                           "(default: $EXECUTORCH_PACK_BOT_PACK_INDEX_URL, else the public index)")
    deps.add_argument("--pack-cache", type=Path, metavar="DIR",
                      help="keep downloaded packs here (default: $EXECUTORCH_PACK_BOT_CACHE/packs, else not kept)")
    parser.add_argument("--json", type=Path, metavar="FILE",
                        help="write the result (outputs, differences, instruction count, stage and error) to FILE "
                             "for the pull-request job")


def run(args: argparse.Namespace) -> int:
    """Run the model; print a summary; write ``--json``; return 0, 1 or 2."""
    import math

    from bot.errors import UsageError
    from bot.modelrun.result import write_result
    from bot.modelrun.run import run_model

    if not math.isfinite(args.tolerance) or args.tolerance < 0:
        raise UsageError(f"--tolerance: {args.tolerance} is not a number >= 0")
    if not math.isfinite(args.timeout) or args.timeout <= 0:
        raise UsageError(f"--timeout: {args.timeout} is not a positive number of seconds")
    if args.write_expected and not args.host_python:
        raise UsageError("--write-expected needs --host-python")
    if args.host_python is not None and not _runnable(args.host_python):
        raise UsageError(f"--host-python: {args.host_python}: no such program")
    if args.suite is not None:
        _check_suite_folder(args.suite)
    if args.json and args.json.is_dir():
        raise UsageError(f"--json: cannot write {args.json}: a directory")
    args.deps = _dep_options(args)
    if args.suite is not None:
        return _suite(args)
    if args.results is not None:
        raise UsageError("--results needs --suite (one model: --json FILE)")
    if args.template is not None:
        raise UsageError("--template needs --suite (one model: --pte FILE)")
    expected = args.expected
    if expected is None and args.host_python is None:
        raise UsageError("--pte needs a reference to compare with: --expected FILE (outputs recorded earlier) "
                         "or --host-python PYTHON (a venv holding the executorch wheel)")
    if expected is not None and not expected.is_file():
        raise UsageError(f"--expected: {expected}: no such file")
    result = run_model(args.pack, args.pte, name=args.name, label=args.label, host_python=args.host_python,
                       expected=expected, tolerance=args.tolerance, timeout=args.timeout, work_dir=args.work_dir,
                       cache_dir=args.cache_dir, flavour=args.runner, keep_host=args.write_expected,
                       deps=args.deps)
    if args.json:
        write_result(result, args.json)
    sys.stdout.write(summary(result))
    return _exit(result)


def _check_suite_folder(suite: Path) -> None:
    """Raise :class:`UsageError` when ``suite`` is not a folder and cannot become one (it, or the nearest of its
    parents that exists, is a file)."""
    from bot.errors import UsageError

    if suite.exists() and not suite.is_dir():
        raise UsageError(f"--suite: {suite}: not a folder")
    for parent in suite.absolute().parents:
        if parent.exists():
            if not parent.is_dir():
                raise UsageError(f"--suite: {suite}: cannot be made, {parent} is not a folder")
            return


def _runnable(program: str) -> bool:
    """True when ``program`` (a path, or a name looked up on PATH) names an executable file."""
    import os
    import shutil

    if os.sep in program or (os.altsep and os.altsep in program):
        return os.path.isfile(program) and os.access(program, os.X_OK)
    return shutil.which(program) is not None


def _exit(result) -> int:
    """0 for a match or a program QEMU cannot run (delegated: not a failure), else 1."""
    from bot.modelrun.result import NOT_RUNNABLE

    return 0 if result.status in ("match", NOT_RUNNABLE) else 1


def _dep_options(args):
    """The :class:`~bot.modelrun.packdeps.DepOptions` of the command line; :class:`UsageError` for bad input."""
    from bot.errors import UsageError
    from bot.github.releases import cache_dir
    from bot.modelrun.packdeps import DepOptions, lock_pins
    from bot.pack.public_index import pack_index_url

    for p in args.dep_pack:
        if not p.exists():
            raise UsageError(f"--dep-pack: {p}: no such pack file or folder")
        if not (p.is_file() or p.is_dir()):   # a FIFO or a device would block the read or never end
            raise UsageError(f"--dep-pack: {p}: not a pack file or folder")
    pins = None
    if args.cbuild_pack is not None:
        if not (args.cbuild_pack.is_file() or args.cbuild_pack.is_dir()):
            raise UsageError(f"--cbuild-pack: {args.cbuild_pack}: no such lock file or template folder")
        files = [args.cbuild_pack]
        if args.cbuild_pack.is_dir():   # a template checkout: its lock files (csolution folder, one level down)
            files = sorted(p for pattern in ("*.cbuild-pack.yml", "*/*.cbuild-pack.yml")
                           for p in args.cbuild_pack.glob(pattern) if p.is_file())
            top = args.cbuild_pack.resolve()
            for f in files:   # the template is foreign: a link must not make the bot read a file outside it
                if not f.resolve().is_relative_to(top):
                    raise UsageError(f"--cbuild-pack: {f} is a symbolic link leading outside {args.cbuild_pack}")
        pins, where = {}, {}
        for f in files:
            try:
                found = lock_pins(f.read_text(encoding="utf-8"))
            except OSError as exc:
                raise UsageError(f"--cbuild-pack: cannot read {f}: {exc.strerror or exc}") from None
            except (ValueError, UnicodeDecodeError) as exc:
                raise UsageError(f"--cbuild-pack: {f} is not a cbuild-pack lock file (YAML): "
                                 f"{str(exc).splitlines()[0] if str(exc) else type(exc).__name__}") from None
            for pack, version in found.items():
                if pack in pins and pins[pack] != version:   # two lock files of one template disagree
                    raise UsageError(f"--cbuild-pack: {where[pack]} pins {pack}@{pins[pack]} but {f} pins "
                                     f"{pack}@{version}; which one to fetch is not clear")
                pins.setdefault(pack, version)
                where.setdefault(pack, f)
    cache = args.pack_cache if args.pack_cache is not None else cache_dir()
    return DepOptions(local=tuple(args.dep_pack), pins=pins, index_url=pack_index_url(args.pack_index_url),
                      cache=Path(cache) / "packs" if cache is not None and args.pack_cache is None else cache)


def _suite(args: argparse.Namespace) -> int:
    """``--suite``: export (when needed) and run every model of :mod:`bot.modelrun.suite`; 0 when all match."""
    from bot.errors import UsageError
    from bot.modelrun.result import write_result
    from bot.modelrun.run import run_model
    from bot.modelrun.result import ModelResult
    from bot.modelrun.suite import MODELS, TOLERANCES, export_error, export_suite, reference
    from bot.modelrun.template import RESULT_NAME, template_model

    if args.json or args.expected or args.write_expected:
        raise UsageError("--suite takes --results DIR, not --json, --expected or --write-expected")
    if not args.host_python:
        raise UsageError("--suite needs --host-python (the venv that exports the models and runs them on the host)")
    # the template's model is read first: a bad settings file or model is exit 2 before anything is written
    own = template_model(args.template) if args.template is not None else None
    paths = [args.suite / f"{m}.pte" for m in MODELS]
    if not all(p.is_file() or export_error(p) is not None for p in paths):
        paths = export_suite(args.host_python, args.suite)
    runs = [(p, None, p.stem) for p in paths] + ([(own.pte, own.name, RESULT_NAME)] if own else [])
    if args.results is not None:
        try:
            args.results.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise UsageError(f"--results: cannot create {args.results}: {exc.strerror}") from None
    code = 0
    for pte, name, stem in runs:
        work = args.work_dir / stem if args.work_dir else None
        suite_model = name is None   # the template's own model has no export error file and no stored reference
        why = export_error(pte) if suite_model and not pte.is_file() else None
        ref = reference(pte) if suite_model else None   # one the host runtime cannot run (Cortex-M int8)
        if why is not None:
            result = ModelResult(model=pte.stem, pack=args.label or Path(args.pack).name, status="fail",
                                 stage="export", error=f"not exported: {why}")
        else:
            tolerance = max(args.tolerance, TOLERANCES.get(pte.stem, 0.0)) if suite_model else args.tolerance
            result = run_model(args.pack, pte, name=name, label=args.label,
                               host_python=None if ref else args.host_python, expected=ref, tolerance=tolerance,
                               timeout=args.timeout, work_dir=work, cache_dir=args.cache_dir, flavour=args.runner,
                               deps=args.deps)
        if args.results is not None:
            write_result(result, args.results / f"{stem}.json")
        sys.stdout.write(summary(result))
        code = code or _exit(result)
    return code


def summary(result) -> str:
    """The lines ``run-model`` prints for one :class:`~bot.modelrun.result.ModelResult`.

    Every foreign string (the model and pack names, the ``.pte``'s operator names, a tool's or the
    runtime's error) goes through :func:`bot.inert.line`: one line each, control characters (ANSI
    escapes) replaced, no workflow command (``::error::``, ``##[error]``), capped.
    """
    from bot.inert import line
    from bot.modelrun.result import NOT_RUNNABLE

    head = f"{NAME}: {line(result.model, cap=200)} on {line(result.pack, cap=200)}: "
    if result.status == "match":
        how = "bit-exact" if all(o.get("exact") for o in result.outputs) else \
            f"max difference {result.max_abs_diff:g} <= tolerance {result.tolerance:g}"
        head += f"match ({how}, {len(result.outputs)} output(s))"
    elif result.status == "mismatch":
        head += f"MISMATCH at compare: {line(result.error)}"
    elif result.status == NOT_RUNNABLE:
        head += f"{line(result.error)} (not a failure)"
    else:
        head += f"FAILED at {line(result.stage or '?', cap=40)}: {line(result.error)}"
    lines = [head]
    for o in result.outputs[:8]:
        if o.get("device") or o.get("host"):   # the numbers a match or a mismatch rests on
            n = o.get("elements")
            more = ", …" if isinstance(n, int) and n > len(o.get("device") or ()) else ""
            lines.append(f"  output {o.get('index')}" + (f" ({n} values)" if isinstance(n, int) else "")
                         + f": device {line(', '.join(o.get('device') or ()), cap=300)}{more}; "
                         f"host {line(', '.join(o.get('host') or ()), cap=300)}{more}")
    if result.operators:
        lines.append("  operators: " + line(", ".join(result.operators), cap=2000))
    if result.packs:
        lines.append("  required packs: " + line(", ".join(result.packs), cap=600))
    if result.instructions is not None:
        lines.append(f"  instructions per inference: {result.instructions} ({result.ticks} SysTick ticks at 32 MHz "
                     "under -icount shift=0, 31.25 instructions each)")
    if result.build_seconds is not None:
        lines.append(f"  image build {result.build_seconds:.2f} s"
                     + (f", QEMU run {result.qemu_seconds:.2f} s" if result.qemu_seconds is not None else ""))
    for ln in result.error_lines if result.status == "fail" else []:
        lines.append(f"  | {line(ln)}")
    return "\n".join(lines) + "\n"
