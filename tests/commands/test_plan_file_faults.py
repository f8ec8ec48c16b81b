"""``publish --plan-file`` given something that is not a plan file: exit 2 naming it, never a hang or an internal error."""

from __future__ import annotations

import os

import pytest

from bot.cli import main


@pytest.mark.parametrize("kind, message", [
    ("fifo", "not a regular file (expected the plan `update --plan-file` wrote)"),
    ("folder", "not a regular file (expected the plan `update --plan-file` wrote)"),
    ("deep", "not a plan written by `update --plan-file` (JSON nested too deeply)"),
])
def test_a_plan_file_that_is_not_a_plan_is_bad_input(tmp_path, capsys, kind, message):
    repo = tmp_path / "repo"
    repo.mkdir()
    plan = tmp_path / "plan.json"
    if kind == "fifo":
        os.mkfifo(plan)
    elif kind == "folder":
        plan.mkdir()
    else:
        plan.write_text("[" * 100_000 + "]" * 100_000)
    capsys.readouterr()
    code = main(["publish", "--repo", str(repo), "--plan-file", str(plan), "--dry-run"])
    assert (code, capsys.readouterr().err) == (2, f"executorch-pack-bot: error: {plan}: {message}\n")
    assert sorted(os.listdir(repo)) == []
