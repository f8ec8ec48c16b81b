"""``tests/bench/bench_plan.py`` prints figures and ratios only, never a verdict on a target (the
targets are stated in docs/architecture.md, where a reader compares them).

``bench_plan.py`` is run on a tiny tree (20 files, one repeat): only the shape of its output is
asserted, never a time.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FIGURE = r"best +\d+\.\d ms  median +\d+\.\d ms"


def test_bench_plan_prints_figures_and_ratios_only():
    proc = subprocess.run([sys.executable, str(ROOT / "tests" / "bench" / "bench_plan.py"), "--files", "20",
                           "--repeat", "1"], capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert len(lines) == 4, lines
    assert re.fullmatch(r"tree: \d+ files \(built in \d+\.\d s\)", lines[0])
    assert re.fullmatch(r"git grep -n ExecuTorch +: " + FIGURE, lines[1])
    assert re.fullmatch(r"update --dry-run \(process\) +: " + FIGURE + r"  ratio +\d+\.\d\dx", lines[2])
    assert re.fullmatch(r"engine\.plan \(in-process\) +: " + FIGURE + r"  ratio +\d+\.\d\dx", lines[3])
