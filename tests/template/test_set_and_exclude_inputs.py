"""``--set`` and ``--exclude`` from the workflow input through action.yml to ``run``: every update
step receives them, the bot validates them, and they take effect.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from fakegithub import UPSTREAM
from github_world import checkout, cli

ROOT = Path(__file__).resolve().parents[2]


ACTION = yaml.safe_load((ROOT / "action.yml").read_text())


ACTION_DOC = (ROOT / "docs" / "action.md").read_text()


WORKFLOW = yaml.safe_load((ROOT / ".github/workflows/executorch-pack-bot.yml").read_text())


def _update_steps():
    return [(job, s.get("with", {})) for job, spec in WORKFLOW["jobs"].items() for s in spec["steps"]
            if s.get("uses") == "./.executorch-pack-bot" and s.get("with", {}).get("command") == "update"]


def _run(capsys, co, *extra):
    return cli(capsys, "run", "--repo", str(co), "--upstream", f"github:{UPSTREAM}", *extra)


def test_workflow_jobs_after_watch_wait_for_the_index():
    jobs = WORKFLOW["jobs"]
    assert jobs["watch"]["outputs"]["index-ready"] == "${{ steps.check.outputs.index-ready }}"
    for name in ("fetch-pack", "build-pack", "pull-request"):
        assert "needs.watch.outputs.index-ready == 'true'" in jobs[name]["if"], name
    assert ACTION["outputs"]["index-ready"]["value"] == "${{ steps.bot.outputs.index-ready }}"
    assert "`index-ready`" in ACTION_DOC


def test_workflow_set_input_reaches_every_update_step_through_the_action_input():
    spec = WORKFLOW[True]["workflow_call"]["inputs"]["set"]   # PyYAML reads the key `on` as True
    assert spec["type"] == "string" and spec["default"] == ""
    steps = _update_steps()
    assert [job for job, _ in steps] == ["build-pack", "ai-layer", "run-model", "pull-request"]
    for job, with_ in steps:
        assert with_.get("set") == "${{ inputs.set }}", job
    assert ACTION["inputs"]["set"]["default"] == ""


def test_action_passes_set_items_as_repeated_set_options(tmp_path):
    from test_action import ActionRun
    run = ActionRun(tmp_path)
    run.run({"command": "update", "set": "torchao=0.20.0\n  ethos-u-vela=5.3.0 *"})
    (call,) = run.calls()
    assert call["argv"][-6:] == ["--set", "torchao=0.20.0", "--set", "ethos-u-vela=5.3.0", "--set", "*"]


def test_action_run_command_passes_upstream_version_and_set(tmp_path):
    from test_action import ActionRun
    run = ActionRun(tmp_path)
    run.run({"command": "run", "upstream": "github:acme/executorch", "version": "1.5.1", "dry-run": "true",
             "set": "torchao=0.20.0"})
    (call,) = run.calls()
    assert call["argv"] == ["run", "--repo", ".", "--upstream", "github:acme/executorch", "--version", "1.5.1",
                            "--dry-run", "--set", "torchao=0.20.0"]


def test_action_refuses_set_for_a_command_that_takes_none(tmp_path):
    from test_action import ActionRun
    run = ActionRun(tmp_path)
    results = run.run({"command": "check", "set": "torchao=0.20.0"})
    assert results[-1][1].returncode == 2 and "set applies to update and run" in results[-1][1].stdout
    assert run.calls() == []


def test_the_bot_validates_a_set_item_given_through_the_action(tmp_path, upstream_repo):
    from test_action import ActionRun

    from bot.commands.demo import copy_template
    copy_template(tmp_path / "template")
    run = ActionRun(tmp_path, bot="real")
    results = run.run({"command": "update", "repo-path": "template", "upstream": str(upstream_repo),
                       "version": "1.5.1", "dry-run": "true", "set": "torchao"})
    proc = results[-1][1]
    assert proc.returncode == 2 and "--set 'torchao': expected NAME=VERSION" in proc.stderr


def test_run_set_supplies_a_pin(world, capsys):
    code, out = _run(capsys, checkout(world), "--dry-run", "--set", "torchao=0.20.0")
    assert code == 0
    assert "| torchao | 0.18.0 | 0.20.0 | --set |" in out.out.replace("`", "")


def test_run_set_is_validated(world, capsys):
    code, out = _run(capsys, checkout(world), "--dry-run", "--set", "torchao")
    assert code == 2 and "expected NAME=VERSION" in out.err
    assert world.count("GET", "/pypi/") == 0


def test_run_exclude_leaves_a_path_alone(world, capsys):
    co = checkout(world)
    code, out = _run(capsys, co, "--dry-run")
    assert code == 0 and "requirements.txt" in out.out
    code, out = _run(capsys, co, "--dry-run", "--exclude", "requirements*.txt")
    assert code == 0 and "requirements.txt" not in out.out
