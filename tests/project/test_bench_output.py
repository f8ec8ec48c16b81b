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

import pytest

ROOT = Path(__file__).resolve().parents[2]
FIGURE = r" +median +\d+\.\d ms"
RATIO = r"  ratio +\d+\.\d\dx"
CPU = r"  \| cpu +\d+\.\d ms"


@pytest.mark.parametrize("before", [False, True])
def test_bench_plan_prints_figures_and_ratios_only(before):
    # --before runs a second bot in the same rounds: this checkout again, for the shape of the output
    proc = subprocess.run([sys.executable, str(ROOT / "tests" / "bench" / "bench_plan.py"), "--files", "20",
                           "--repeat", "1"] + (["--before", str(ROOT)] if before else []),
                          capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert proc.returncode == 0, proc.stderr
    lines = [line for line in proc.stdout.splitlines() if line]
    per_tree = 6 if before else 4
    assert len(lines) == 3 + 2 * per_tree, lines
    assert lines[0].startswith("machine: ") and lines[-1].startswith("machine after: ")
    assert re.fullmatch(r"bot: .+" + (r"; before: .+" if before else "") + r"; 1 interleaved runs each, medians",
                        lines[1])
    for at, tree in ((2, "plan tree"), (2 + per_tree, "vendored template")):
        assert re.fullmatch(tree + r": \d+ files \(ready in \d+\.\d s\)", lines[at])
        assert re.fullmatch(r"git grep -n ExecuTorch \(reference\)" + FIGURE + CPU, lines[at + 1])
        rows = lines[at + 2:at + per_tree]
        labels = ((["update --dry-run, before"] if before else []) + ["update --dry-run (whole process)"]
                  + (["engine.plan in-process, before"] if before else []) + ["engine.plan in-process"])
        for label, line in zip(labels, rows, strict=True):
            assert re.fullmatch(re.escape(label) + FIGURE + RATIO + CPU + RATIO, line), line
    assert not any(word in proc.stdout for word in ("met", "OK", "SLOW", "target"))
