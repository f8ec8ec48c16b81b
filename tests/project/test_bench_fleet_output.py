"""``tests/bench/bench_fleet_plan.py`` prints figures per template for each fleet size, never a verdict (run here on
tiny fleets, one repeat: only the shape of its output is asserted, never a time)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_bench_fleet_plan_prints_requests_and_time_per_template_for_each_size():
    proc = subprocess.run([sys.executable, str(ROOT / "tests" / "bench" / "bench_fleet_plan.py"), "--sizes", "4,8",
                           "--repeat", "1"], capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert len(lines) == 8, lines
    for at, n in ((0, 4), (4, 8)):
        assert re.fullmatch(rf"{n} templates: \d+ pack jobs, \d+ pull-request jobs", lines[at])
        assert re.fullmatch(r"  cold \(empty cache\): \d+\.\d\d requests per template, \d+\.\d ms per template",
                            lines[at + 1])
        assert re.fullmatch(r"  warm \(ETag cache\):  \d+\.\d\d requests per template \(\d+ conditional\), "
                            r"\d+\.\d ms per template \(best of 1\)", lines[at + 2])
        assert re.fullmatch(r"  bare requests\.get of one tree \(reference\): \d+\.\d ms; warm ratio per template "
                            r"\d+\.\dx", lines[at + 3])
