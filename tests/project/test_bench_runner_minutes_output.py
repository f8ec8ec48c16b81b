"""``tests/bench/bench_runner_minutes.py`` bills each job as GitHub does: rounded up to a whole minute, per job.

GitHub docs, "Viewing job execution time": each job's time is rounded up to the nearest whole minute.  The
benchmark adds its stated real-runner overhead (``OVERHEAD``) to each job's seconds under act, counts the Arm
job apart, and an event whose jobs were all skipped costs nothing.  Checked here on hand-made act results; the
benchmark itself runs the act scenarios (minutes), so it is not run by the test suite.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))

from actworld import ActRun  # noqa: E402
from bench_runner_minutes import OVERHEAD, billed, row, table  # noqa: E402


def _run(jobs: dict, seconds: dict) -> ActRun:
    return ActRun(0, jobs, "", "", 0.0, [], seconds)


def test_each_job_is_rounded_up_to_a_whole_minute_with_its_overhead():
    base = OVERHEAD["*"]
    assert billed("watch", 0) == 1
    assert billed("watch", 60 - base) == 1 and billed("watch", 61 - base) == 2
    assert billed("run-model", 0) == -(-(base + OVERHEAD["run-model"]) // 60)


def test_a_run_whose_jobs_were_all_skipped_costs_nothing():
    assert row("push", _run({}, {})) == ("push", "none (no runner)", 0, 0)
    assert row("push", _run({"approval": "skipped"}, {})) == ("push", "none (no runner)", 0, 0)


def test_the_arm_job_is_counted_apart_and_the_table_shows_every_job():
    r = row("no asset", _run({"watch": "success", "build-pack": "success", "pull-request": "failure"},
                             {"watch": 10, "build-pack": 100, "pull-request": 30}))
    assert r == ("no asset", "watch 10s, build-pack 100s, pull-request 30s", 2, billed("build-pack", 100))
    assert table([r]).splitlines()[2] == f"| no asset | watch 10s, build-pack 100s, pull-request 30s | 2 + {r[3]} Arm |"
