"""``npu-estimate``: the suite's models lowered for an Ethos-U with a venv's exporter and Vela; Vela's estimates.

The lowering and the reading of Vela's CSV files are :mod:`bot.modelrun.npu`'s.  With ``--old-python`` (a
venv of the old release's executorch and Vela) or ``--old-vela-python`` (a venv holding only the old Vela: it
compiles the new exporter's TOSA, labelled so), the two sides are compared and the review items printed.
Exit 0: every model lowered and no review item; 1: a model did not lower or a review item; 2: bad usage (an
unknown ``--target``, a venv without the Ethos-U lowering, named by its option).  Heavy imports happen
inside :func:`run`.
"""

from __future__ import annotations

import argparse
from pathlib import Path

NAME = "npu-estimate"
HELP = "lower the model suite for an Ethos-U with a venv's exporter and Vela, and compare Vela's estimates old " \
       "against new (no NPU is run)"
DESCRIPTION = (
    "Quantize each model of the suite with the Arm backend's EthosUQuantizer, lower it with EthosUPartitioner "
    "for --target with the --host-python venv's executorch and Vela (in a subprocess), and read Vela's "
    "out_summary and per-layer CSV files (one Vela output folder per delegate) and the operators the lowered "
    "ExecuTorch graph leaves to the CPU. The numbers are Vela's estimates for its system config and memory "
    "mode, not a run. Exit 0: every model lowered, no review item; 1: a model did not lower or a review item "
    "(a CPU fallback, cycles worse than --threshold, over a budget); 2: bad usage.")
ORDER = 17


def register(parser: argparse.ArgumentParser) -> None:
    """The command's options (argparse)."""
    parser.add_argument("--host-python", required=True, metavar="PYTHON",
                        help="the new side: a venv's python holding executorch, tosa-tools and ethos-u-vela")
    parser.add_argument("--target", required=True, metavar="TARGET",
                        help="the Ethos-U configuration, e.g. ethos-u55-128, ethos-u85-256")
    parser.add_argument("--model", action="append", default=[], metavar="NAME",
                        help="a suite model (repeatable; default: all of conv_relu_linear, linear_relu_add)")
    old = parser.add_mutually_exclusive_group()
    old.add_argument("--old-python", metavar="PYTHON", help="the old side: the old release's exporter and Vela")
    old.add_argument("--old-vela-python", metavar="PYTHON",
                     help="the old side where the old exporter cannot be installed: its Vela on the new TOSA")
    parser.add_argument("--label", default="new", help="the new side's name (default: new)")
    parser.add_argument("--old-label", default="old", help="the old side's name (default: old)")
    parser.add_argument("--system-config", default="", metavar="NAME",
                        help="Vela's system config (default: the Arm backend's for the target)")
    parser.add_argument("--memory-mode", default="", metavar="NAME",
                        help="Vela's memory mode (default: the Arm backend's for the target)")
    parser.add_argument("--threshold", type=float, default=0.10, metavar="FRACTION",
                        help="cycles worse by more than this make a review item (default 0.10: 10%%)")
    parser.add_argument("--sram-budget", type=float, metavar="KIB", help="SRAM over this is a review item")
    parser.add_argument("--flash-budget", type=float, metavar="KIB", help="flash over this is a review item")
    parser.add_argument("--out", type=Path, metavar="DIR",
                        help="keep the programs, TOSA files and Vela's output folders here (default: a temporary "
                             "folder)")
    parser.add_argument("--json", type=Path, metavar="FILE", help="write the estimates and review items as JSON")


def run(args: argparse.Namespace) -> int:
    """Lower, read, compare, print; returns the exit code (module docstring)."""
    import json
    import shutil
    import tempfile

    from bot import inert
    from bot.errors import UsageError
    from bot.modelrun import npu
    from bot.report.npu import table

    npu.check_target(args.target, "--target")
    for m in args.model:
        if m not in npu.MODELS:
            raise UsageError(f"--model: {m!r} is not a suite model ({', '.join(npu.MODELS)})")
    if not (args.threshold >= 0):
        raise UsageError(f"--threshold: {args.threshold} is not a fraction >= 0")
    if args.json is not None and args.json.is_dir():
        raise UsageError(f"--json: cannot write {args.json}: a directory")
    for opt, py in (("--host-python", args.host_python), ("--old-python", args.old_python),
                    ("--old-vela-python", args.old_vela_python)):
        if py is not None:
            if shutil.which(py) is None:
                raise UsageError(f"{opt}: {py}: no such program")
    npu.has_vela(args.host_python, "--host-python")
    if args.old_python:
        npu.has_vela(args.old_python, "--old-python")
    if args.old_vela_python:
        npu.has_vela(args.old_vela_python, "--old-vela-python", vela_only=True)
    models = tuple(args.model) or npu.MODELS
    tmp = None
    if args.out is None:
        tmp = tempfile.TemporaryDirectory(prefix="npu-estimate-")
        out = Path(tmp.name)
    else:
        out = args.out
    try:
        new = npu.lower(args.host_python, out / "new", args.target, label=args.label, models=models,
                        system_config=args.system_config, memory_mode=args.memory_mode)
        old: list = [None] * len(new)
        if args.old_python:
            old = npu.lower(args.old_python, out / "old", args.target, label=args.old_label, models=models,
                            system_config=args.system_config, memory_mode=args.memory_mode)
        elif args.old_vela_python:
            old = [npu.vela_on_tosa(args.old_vela_python, out / "new", out / "old", e, label=args.old_label)
                   for e in new]
    finally:
        if tmp is not None:
            tmp.cleanup()
    items = []
    for o, n in zip(old, new):
        items += npu.compare(o, n, threshold=args.threshold, sram_budget_kib=args.sram_budget,
                             flash_budget_kib=args.flash_budget)
        print(table(o, n))
        print()
    for it in items:
        print(inert.line("review: " + it, cap=600))
    if args.json is not None:
        args.json.write_text(json.dumps({"schema": 1, "new": [e.to_json() for e in new],
                                         "old": [e.to_json() for e in old if e is not None],
                                         "items": items}, indent=1) + "\n", encoding="utf-8")
    return 1 if items or any(e.status != "lowered" for e in new) else 0
