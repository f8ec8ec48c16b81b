"""``tests/bench/bench_plan.py`` prints figures and ratios only, never a verdict on a target (the
targets are stated in docs/performance.md, where a reader compares them).

``bench_plan.py`` is run on tiny trees (20 files, one repeat): only the shape of its output is
asserted, never a time.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FIGURE = r" +median +\d+\.\d ms"
RATIO = r"  ratio +\d+\.\d\dx"
CPU = r"  \| cpu +\d+\.\d ms"


def test_bench_plan_prints_figures_and_ratios_only():
    proc = subprocess.run([sys.executable, str(ROOT / "tests" / "bench" / "bench_plan.py"), "--files", "20",
                           "--repeat", "1"], capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert proc.returncode == 0, proc.stderr
    lines = [line for line in proc.stdout.splitlines() if line]
    assert len(lines) == 11, lines
    assert lines[0].startswith("machine: ") and lines[-1].startswith("machine after: ")
    assert re.fullmatch(r"bot: .+; 1 interleaved runs each, medians", lines[1])
    for at, tree in ((2, "plan tree"), (6, "vendored template")):
        assert re.fullmatch(tree + r": \d+ files \(ready in \d+\.\d s\)", lines[at])
        assert re.fullmatch(r"git grep -n ExecuTorch \(reference\)" + FIGURE + CPU, lines[at + 1])
        assert re.fullmatch(r"update --dry-run \(whole process\)" + FIGURE + RATIO + CPU + RATIO, lines[at + 2])
        assert re.fullmatch(r"engine\.plan in-process \(best of 3\)" + FIGURE + RATIO, lines[at + 3])
    assert not any(word in proc.stdout for word in ("met", "OK", "SLOW", "target"))
