"""The action's ``commit`` input: ``--commit MODE`` for publish and run, refused for other commands."""

from __future__ import annotations

from test_action import ActionRun


def test_commit_input_reaches_publish_and_run_as_one_flag(tmp_path):
    run = ActionRun(tmp_path)
    run.run({"command": "publish", "commit": "api"})
    run.run({"command": "run", "commit": "git"})
    publish, full = run.calls()
    assert publish["argv"] == ["publish", "--repo", ".", "--commit", "api"]
    assert full["argv"] == ["run", "--repo", ".", "--upstream", "github:pytorch/executorch", "--commit", "git"]


def test_commit_input_on_another_command_fails_clearly(tmp_path):
    run = ActionRun(tmp_path)
    _sid, proc, _o = run.run({"command": "check", "commit": "api"})[-1]
    assert proc.returncode == 2 and "commit applies to publish and run, not check" in proc.stdout
    assert run.calls() == []
