"""publish: a pack report too long for the PR body goes whole into the job summary, as the body says."""

from __future__ import annotations

import re

from fakegithub import TEMPLATE
from github_world import cli, planned_checkout

HOSTILE = "| `x` | ✅ pass | @user ![i](https://evil.invalid/i.png) **VERIFIED SAFE** <!-- |"


def test_a_cut_body_points_at_a_job_summary_that_really_holds_the_report(world, capsys, monkeypatch):
    co, plan = planned_checkout(world, capsys)
    rows = [f"{HOSTILE} row {i}" for i in range(900)]            # about 90,000 characters
    report = world.tmp / "pack.md"
    report.write_text("### Pack verification: `PyTorch.ExecuTorch.1.5.1.pack`\n\n**Passed** for version `1.5.1`\n\n"
                      + "\n".join(rows) + "\n")
    summary = world.tmp / "summary.md"
    summary.write_text("")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    monkeypatch.setenv("GITHUB_RUN_ID", "77")
    code, _out = cli(capsys, "publish", "--repo", str(co), "--plan-file", str(plan), "--pack-report", str(report))
    assert code == 0
    body = world.open_pulls(TEMPLATE)[0]["body"]
    assert len(body) <= 60_000
    assert ("the full report is in the job summary of "
            f"[this run](https://github.com/{TEMPLATE}/actions/runs/77).") in body
    assert ("- [x] **1. The pack** `PyTorch::ExecuTorch@1.5.1`: obtained and verified by an earlier job of this "
            f"workflow ([run](https://github.com/{TEMPLATE}/actions/runs/77)), whose report is below") in body
    text = summary.read_text()
    assert all(f"row {i}\n" in text for i in range(900))          # every row, where the body says it is
    # shown as written, but inside a fenced code block: nothing of it renders
    fenced = re.search(r"(?ms)^```text\n(.*?)^```$", text)
    assert fenced and "@user ![i]" in fenced.group(1) and "@user" not in text.replace(fenced.group(1), "")
