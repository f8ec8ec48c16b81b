"""The composite action refuses ``version`` and ``dry-run: true`` for a command that would ignore
them without a word (exit 2, the bot never started); the commands that take them still get them."""

from __future__ import annotations

import pytest

from test_action import ActionRun


@pytest.mark.parametrize("command", ["publish", "previous-pack", "command", "dashboard"])
def test_version_is_refused_where_it_means_nothing(tmp_path, command):
    run = ActionRun(tmp_path)
    _sid, proc, _o = run.run({"command": command, "version": "1.5.1"})[-1]
    assert (proc.returncode, proc.stdout.strip()) == (2, (
        "::error title=executorch-pack-bot::version applies to check, update, run, fetch-pack, build-pack and "
        f"verify-pack, not {command}"))
    assert run.calls() == []


@pytest.mark.parametrize("command", ["check", "fetch-pack", "previous-pack", "build-pack", "verify-pack",
                                     "command", "dashboard"])
def test_dry_run_is_refused_where_it_means_nothing(tmp_path, command):
    run = ActionRun(tmp_path)
    _sid, proc, _o = run.run({"command": command, "dry-run": "true"})[-1]
    assert (proc.returncode, proc.stdout.strip()) == (
        2, f"::error title=executorch-pack-bot::dry-run applies to update, publish and run, not {command}")
    assert run.calls() == []


@pytest.mark.parametrize("command, argv", [
    ("fetch-pack", ["fetch-pack", "--upstream", "github:pytorch/executorch", "--version", "1.5.1"]),
    ("verify-pack", ["verify-pack", "--version", "1.5.1"]),
])
def test_version_still_reaches_the_commands_that_take_it(tmp_path, command, argv):
    run = ActionRun(tmp_path)
    run.run({"command": command, "version": "1.5.1"})
    assert [c["argv"] for c in run.calls()] == [argv]


def test_dry_run_still_reaches_publish(tmp_path):
    run = ActionRun(tmp_path)
    run.run({"command": "publish", "dry-run": "true"})
    assert [c["argv"] for c in run.calls()] == [["publish", "--repo", ".", "--dry-run"]]
