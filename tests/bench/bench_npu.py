"""Benchmark of the Ethos-U estimates: export + quantize + lower + Vela per model, each in a fresh interpreter.

Run: ``python tests/bench/bench_npu.py --host-python PY [--target ethos-u55-128 ...] [--repeat R]`` (prints
figures, asserts nothing).  PY is a venv holding executorch, tosa-tools, ml_dtypes and ethos-u-vela.  Each
figure is the wall time of one :func:`bot.modelrun.npu.lower` call (a new ``PYTHON -c`` process: importing
torch and executorch is part of it): "cold" is the first call of the run (the venv's files not yet in the
page cache, when nothing read them before), "warm" the median of the later ones; "suite" lowers every model
in one process, as ``npu-estimate`` does per target.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent.parent), str(HERE.parent / "worlds")]

from bot.modelrun import npu  # noqa: E402


def _once(python: str, tmp: Path, target: str, models: tuple) -> float:
    t = time.perf_counter()
    out = npu.lower(python, Path(tempfile.mkdtemp(dir=tmp)), target, label="bench", models=models)
    secs = time.perf_counter() - t
    bad = [e.model for e in out if e.status != "lowered"]
    if bad:
        raise SystemExit(f"not lowered: {bad}: {[e.error for e in out]}")
    return secs


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--host-python", required=True)
    ap.add_argument("--target", action="append", default=[])
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    targets = args.target or ["ethos-u55-128", "ethos-u85-256"]
    with tempfile.TemporaryDirectory(prefix="bench-npu-") as t:
        tmp = Path(t)
        print("| target | lowered | cold (s) | warm median (s) | runs |")
        print("| --- | --- | ---: | ---: | ---: |")
        for target in targets:
            for models in [(m,) for m in npu.MODELS] + [npu.MODELS]:
                times = [_once(args.host_python, tmp, target, models) for _ in range(max(args.repeat, 2))]
                name = models[0] if len(models) == 1 else "suite (" + ", ".join(models) + ")"
                print(f"| {target} | {name} | {times[0]:.1f} | {statistics.median(times[1:]):.1f} | {len(times)} |",
                      flush=True)


if __name__ == "__main__":
    main()
