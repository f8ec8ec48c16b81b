"""Publishing never loses a human's work: a branch without the bot's fingerprint is never pushed
to, a reviewer's edit is kept, a refused push is a warning, a failed publish puts the checkout
back.
"""

from __future__ import annotations

import pytest

from bot.cli import main
from fakegithub import UPSTREAM, Fault, add_sample_release, git
from github_world import checkout, cli, planned_checkout, remote_head, run_bot


def subprocess_env_commit(co):
    import subprocess
    subprocess.run(["git", "-c", "user.name=Alice", "-c", "user.email=alice@example.com", "commit", "-q", "-m",
                    "mine"], cwd=co, check=True, capture_output=True)


def _foreign_commit_on_the_branch(w):
    from fakegithub import fresh_checkout
    co = fresh_checkout(w.remote, w.tmp / "human")
    git(co, "fetch", "-q", "origin", "executorch-pack-bot/executorch")
    git(co, "checkout", "-q", "-b", "mine", "FETCH_HEAD")
    (co / "NOTE.md").write_text("mine\n")
    git(co, "add", "NOTE.md")
    subprocess_env_commit(co)
    git(co, "push", "-q", "origin", "HEAD:executorch-pack-bot/executorch")


@pytest.mark.parametrize("who", ["human-opened", "marker-removed"])
def test_an_open_pr_without_the_fingerprint_on_the_bot_branch_is_never_pushed_to(world, capsys, who):
    """Before: the bot pushed the new bump under that PR, then failed with a bare '422 Validation Failed'."""
    from fakegithub import TEMPLATE
    assert run_bot(world, capsys) == 0
    pr = world.open_pulls(TEMPLATE)[0]
    if who == "human-opened":
        world.repo(TEMPLATE).pulls.clear()
        pr = world.add_pull(TEMPLATE, head="executorch-pack-bot/executorch", title="my take", body="mine",
                            user="human")
    else:
        pr["body"] = "I rewrote the description."
    head = remote_head(world)
    add_sample_release(world, "v1.5.2", source_tag="v1.5.1", created_at="2026-10-01T00:00:00Z")
    before = len([s for s in world.requests if s.method != "GET"])
    code, out = cli(capsys, "run", "--repo", str(checkout(world)), "--upstream", f"github:{UPSTREAM}")
    assert code == 0 and f"#{pr['number']} is open from branch executorch-pack-bot/executorch" in out.out
    assert remote_head(world) == head                                           # nothing pushed
    assert len([s for s in world.requests if s.method != "GET"]) == before      # no PR, edit or comment
    assert [p["number"] for p in world.open_pulls(TEMPLATE)] == [pr["number"]]


def test_a_reviewers_edit_to_an_unchanged_proposal_is_kept(world, capsys):
    """Ticking a checkbox or adding a note must survive the next scheduled run (and the run sends nothing)."""
    from fakegithub import TEMPLATE
    assert run_bot(world, capsys) == 0
    pr = world.open_pulls(TEMPLATE)[0]
    pr["body"] = pr["body"].replace("_Opened by", "Reviewed on hardware: OK.\n\n_Opened by")
    pr["title"] = "Bump ExecuTorch to 1.5.1 (tested)"
    before = len([s for s in world.requests if s.method != "GET"])
    assert run_bot(world, capsys) == 0
    assert "Reviewed on hardware: OK." in pr["body"] and pr["title"].endswith("(tested)")
    assert len([s for s in world.requests if s.method != "GET"]) == before
    add_sample_release(world, "v1.5.2", source_tag="v1.5.1", created_at="2026-10-01T00:00:00Z")
    assert run_bot(world, capsys) == 0                      # a new proposal does replace title and body
    assert pr["title"] == "Bump ExecuTorch to 1.5.2" and "1.5.2" in pr["body"]


@pytest.mark.parametrize("command", ["publish", "run"])
def test_a_refused_push_is_a_warning_and_a_summary_line(world, capsys, monkeypatch, command):
    assert cli(capsys, "run", "--repo", str(checkout(world)), "--upstream", f"github:{UPSTREAM}")[0] == 0
    _foreign_commit_on_the_branch(world)
    summary = world.tmp / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    if command == "publish":
        co, plan = planned_checkout(world, capsys)
        code = main(["publish", "--repo", str(co), "--plan-file", str(plan)])
    else:
        code = main(["run", "--repo", str(checkout(world)), "--upstream", f"github:{UPSTREAM}"])
    out = capsys.readouterr()
    assert code == 0
    warnings = [ln for ln in (out.out + out.err).splitlines() if ln.startswith("::warning")]
    assert len(warnings) == 1 and "has commits by others" in warnings[0] and "not pushing" in warnings[0]
    text = summary.read_text()
    assert "not pushed" in text and "commits by others" in text


def test_a_failed_publish_in_run_puts_the_checkout_back(world, capsys):
    world.faults.append(Fault("POST", r"/pulls$", 422, {"message": "Validation Failed",
                                                       "errors": [{"message": "base is protected"}]}))
    co = checkout(world)
    code, out = cli(capsys, "run", "--repo", str(co), "--upstream", f"github:{UPSTREAM}")
    assert code == 2 and "base is protected" in out.err
    assert git(co, "status", "--porcelain") == ""          # every file the plan wrote has its original bytes
    assert "checkout was put back as it was before run" in out.err
    assert remote_head(world) is None                      # and the branch this run pushed was deleted
