"""Benchmark: the readers of upstream and pack text on hostile inputs of growing size.

For each input shape (a requirement file whose lines are runs of spaces, an
``install_requirements.py`` of long string constants, a PDSC whose
``<RTE_Components_h>`` is a block of blank lines) prints, at sizes n and 4n,
the best-of-three time and its ratio to a pure-Python scan of the same input.
Linear code keeps the ratio flat as n grows; a quadratic pattern multiplies it
by about 4 at each step.

Run: ``python tests/bench/bench_hostile_inputs.py``
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bot.pack.pdsc import parse_pdsc  # noqa: E402
from bot.upstream.pinfiles import MAX_REQUIREMENT, parse_python, parse_requirement_file  # noqa: E402


def best(fn, repeat: int = 3) -> float:
    out = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        out = min(out, time.perf_counter() - t)
    return out


def scan(data: bytes) -> int:
    return sum(1 for b in data if b == 32)


def requirements(n: int) -> bytes:
    pad = " " * (MAX_REQUIREMENT // 2 - 50)
    return "".join(f"pkg{i}{pad}==1.{i}{pad}# note\n" for i in range(n)).encode()


def python_constants(n: int) -> bytes:
    pad = " " * (MAX_REQUIREMENT - 20)
    return ("".join(f'C{i} = "torch{pad}x"\nS{i} = "{" " * 40_000}"\n' for i in range(n))).encode()


def pdsc(n: int) -> bytes:
    return ('<?xml version="1.0" encoding="UTF-8"?>\n<package schemaVersion="1.7"><components><component '
            'Cclass="Machine Learning" Cgroup="ExecuTorch" Csub="Runtime"><RTE_Components_h>'
            + "\n" * n + "/* end */\n#define A 1\n</RTE_Components_h></component></components></package>\n").encode()


CASES = [
    ("requirement lines of spaces", requirements, 10,
     lambda d: parse_requirement_file(d, "backends/arm/requirements-arm-tosa.txt", "v1.5.1")),
    ("install_requirements.py constants", python_constants, 5,
     lambda d: parse_python(d, "install_requirements.py", "v1.5.1")),
    ("RTE_Components_h blank lines", pdsc, 50_000, lambda d: parse_pdsc(d, "PyTorch.ExecuTorch.pdsc")),
]


def main() -> None:
    print(f"{'input':36} {'size':>10} {'seconds':>9} {'scans':>7}")
    for name, make, n, fn in CASES:
        for k in (n, 4 * n):
            data = make(k)
            took, ref = best(lambda: fn(data)), best(lambda: scan(data))
            print(f"{name:36} {len(data):>10} {took:>9.4f} {took / ref:>7.1f}")


if __name__ == "__main__":
    main()
