"""``tests/bench/bench_mentions.py`` prints figures and one ratio (run on a tiny tree; only the shape is asserted)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FIGURE = r"cpu best +\d+\.\d ms  median +\d+\.\d ms"


def test_bench_mentions_prints_figures_and_a_ratio():
    proc = subprocess.run([sys.executable, str(ROOT / "tests" / "bench" / "bench_mentions.py"), "--files", "20",
                           "--repeat", "1"], capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert len(lines) == 5, lines
    assert re.fullmatch(r"tree: 20 files; mentions of 1\.4\.0: \d+ moved, \d+ history, \d+ other versions?, "
                        r"\d+ for review", lines[0])
    assert re.fullmatch(r"engine\.plan with the accounting +: " + FIGURE, lines[1])
    assert re.fullmatch(r"engine\.plan without the accounting +: " + FIGURE, lines[2])
    assert re.fullmatch(r"the accounting alone +: " + FIGURE, lines[3])
    assert re.fullmatch(r"ratio with/without: \d+\.\d{3}", lines[4])
