"""What ``publish`` checks before it pushes: the plan file (present, an object, paths inside the
checkout, written by ``update``, not stale), the pack report, the config; what ``--dry-run``
prints.
"""

from __future__ import annotations

import json

import pytest

from fakegithub import TEMPLATE, UPSTREAM
from github_world import checkout, cli, planned_checkout, remote_head, run_bot


def test_publish_with_a_missing_pack_report_is_a_clear_error(world, capsys):
    co, plan = planned_checkout(world, capsys)
    code, out = cli(capsys, "publish", "--repo", str(co), "--plan-file", str(plan),
                    "--pack-report", str(world.tmp / "nope.md"))
    assert code == 2 and "nope.md: cannot read the pack report" in out.err
    assert remote_head(world) is None


def test_publish_with_a_stale_plan_opens_no_empty_pr(world, capsys):
    """The checkout was reset after `update`: publishing would push a commit without the bump under its title."""
    from fakegithub import TEMPLATE, git
    co, plan = planned_checkout(world, capsys)
    git(co, "checkout", "-q", "--", ".")
    code, out = cli(capsys, "publish", "--repo", str(co), "--plan-file", str(plan))
    assert code == 2 and "does not carry the plan's edit" in out.err and str(plan) in out.err
    assert world.open_pulls(TEMPLATE) == [] and remote_head(world) is None


@pytest.mark.parametrize("bad", ["/etc/hostname", "../outside.txt", ".git/config", "a/../README.md", 7])
def test_publish_refuses_plan_paths_outside_the_checkout(world, capsys, bad):
    co, plan = planned_checkout(world, capsys)
    data = json.loads(plan.read_text())
    data["files"].append(bad)
    plan.write_text(json.dumps(data))
    code, out = cli(capsys, "publish", "--repo", str(co), "--plan-file", str(plan))
    assert code == 2 and "not a path inside the template checkout" in out.err
    assert remote_head(world) is None


def test_publish_names_a_plan_that_is_not_an_object(world, capsys):
    co, plan = planned_checkout(world, capsys)
    plan.write_text("[1, 2]")
    code, out = cli(capsys, "publish", "--repo", str(co), "--plan-file", str(plan))
    assert code == 2 and "expected a JSON object" in out.err


@pytest.mark.parametrize("dry", [True, False])
def test_publish_refuses_a_plan_update_did_not_write(world, capsys, dry):
    """update --dry-run (or blocked by flagged items) writes the plan with "written": false and no file."""
    co = checkout(world)
    plan = world.tmp / "plan.json"
    assert cli(capsys, "update", "--repo", str(co), "--upstream", f"github:{UPSTREAM}", "--plan-file",
               str(plan), "--dry-run")[0] == 0
    assert json.loads(plan.read_text())["written"] is False
    code, out = cli(capsys, "publish", "--repo", str(co), "--plan-file", str(plan), *(["--dry-run"] if dry else []))
    assert code == 2
    assert "was not written to the checkout" in out.err and "without --dry-run" in out.err
    assert world.open_pulls(TEMPLATE) == [] and remote_head(world) is None


def test_publish_dry_run_refuses_a_bad_config_like_the_real_publish(world, capsys):
    co, plan = planned_checkout(world, capsys)
    (co / ".github").mkdir(exist_ok=True)
    (co / ".github/executorch-pack-bot.yml").write_text("labels: [deps]\nreviewrs: [alice]\n")
    dry = cli(capsys, "publish", "--repo", str(co), "--plan-file", str(plan), "--dry-run")
    real = cli(capsys, "publish", "--repo", str(co), "--plan-file", str(plan))
    assert dry[0] == real[0] == 2
    assert dry[1].err == real[1].err and ".github/executorch-pack-bot.yml:2: unknown setting 'reviewrs'" in dry[1].err
    assert remote_head(world) is None


def test_publish_dry_run_prints_what_it_would_use(world, capsys):
    co, plan = planned_checkout(world, capsys)
    (co / ".github").mkdir(exist_ok=True)
    (co / ".github/executorch-pack-bot.yml").write_text(
        "branch: bot/executorch-{version}\nlabels: [deps, executorch]\nreviewers: [alice]\ndraft: always\n")
    code, out = cli(capsys, "publish", "--repo", str(co), "--plan-file", str(plan), "--dry-run")
    assert code == 0
    assert "branch: bot/executorch-1.5.1\n" in out.out
    assert "base: main\n" in out.out
    assert "labels: deps, executorch\n" in out.out and "reviewers: alice\n" in out.out
    assert "draft: yes\n" in out.out
    assert world.open_pulls(TEMPLATE) == [] and remote_head(world, "bot/executorch-1.5.1") is None


def test_publish_writes_the_output_names_action_yml_mirrors(world, capsys, monkeypatch):
    """action.yml exposes steps.bot.outputs.pr-number / pr-url: publish and run must write those names."""
    out_file = world.tmp / "out.txt"
    monkeypatch.setenv("GITHUB_OUTPUT", str(out_file))
    co, plan = planned_checkout(world, capsys)
    assert cli(capsys, "publish", "--repo", str(co), "--plan-file", str(plan))[0] == 0
    text = out_file.read_text()
    assert "pr-number<<" in text and "pr-url<<" in text and "https://github.com/acme/fw-template/pull/1" in text
    out_file.write_text("")
    assert run_bot(world, capsys) == 0
    text = out_file.read_text()
    assert "pr-number<<" in text and "\n1\n" in text and "pr-url<<" in text
