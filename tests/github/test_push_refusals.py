"""A refused push shows git's reason (every ``remote:`` line), the bot's hint for the known kinds, exits 1.

Push rules are ``pre-receive`` hooks on the local bare remote speaking
GitHub's texts (tests/worlds/publishworld.py).  Each refusal leaves the checkout as
it was (``git status`` clean, same HEAD), pushes nothing and opens no PR.
"""

from __future__ import annotations

import pytest

from bot.github.pushrefusal import PushRefused, hint, is_refusal, kind_of
from fakegithub import TEMPLATE, git
from publishworld import (BRANCH, TOKEN, World, echo_in_hook, refuse_workflow_changes, require_signed_commits,
                          restrict_branch_creation)


@pytest.fixture
def world(tmp_path, monkeypatch):
    w = World(tmp_path, monkeypatch)
    yield w
    w.fake.stop()


def _error_lines(err: str) -> list[str]:
    """stderr from the first 'error:' line on (the refusal text)."""
    lines = err.splitlines()
    first = next(i for i, ln in enumerate(lines) if ln.startswith("executorch-pack-bot: error: "))
    return lines[first:]


def _assert_nothing_changed(world, co, head_before):
    assert git(co, "status", "--porcelain") == ""
    assert git(co, "rev-parse", "HEAD") == head_before
    assert world.head() is None
    assert world.fake.open_pulls(TEMPLATE) == []


def test_signed_commit_rule_shows_gh013_lines_and_the_commit_api_hint(world, capsys):
    require_signed_commits(world.remote)
    co = world.checkout()
    before = git(co, "rev-parse", "HEAD")
    code, _ = world.run(checkout=co)
    err = capsys.readouterr().err
    assert code == 1
    lines = _error_lines(err)
    assert lines[0] == f"executorch-pack-bot: error: git push of {BRANCH} was refused; git said:"
    remote = [ln.strip() for ln in lines if ln.strip().startswith("remote:")]
    assert remote[:2] == [f"remote: error: GH013: Repository rule violations found for refs/heads/{BRANCH}.",
                          f"remote: Review all repository rules at https://github.com/{TEMPLATE}/rules?ref=refs/"
                          f"heads/{BRANCH}"]
    assert "remote: - Commits must have verified signatures." in remote
    rejected = [ln.strip() for ln in lines if "[remote rejected]" in ln]
    assert rejected == [f"! [remote rejected] {_short(lines)} -> {BRANCH} (pre-receive hook declined)"]
    assert lines[-2] == "hint: " + hint("verified-signatures", BRANCH)
    assert lines[-1] == "Nothing was pushed and the checkout is as it was."
    assert "Traceback" not in err
    _assert_nothing_changed(world, co, before)


def _short(lines):
    """The pushed commit as git printed it in the rejected line (the full SHA the bot pushed)."""
    ln = next(ln for ln in lines if "[remote rejected]" in ln)
    return ln.split("]", 1)[1].split("->")[0].strip()


def test_workflow_file_without_the_workflows_permission_hints_the_permission_or_exclude(world, capsys):
    # the bump edits the sample's .github/workflows/build.yml
    refuse_workflow_changes(world.remote)
    co = world.checkout()
    before = git(co, "rev-parse", "HEAD")
    code, _ = world.run(checkout=co)
    lines = _error_lines(capsys.readouterr().err)
    assert code == 1
    assert ("  remote: refusing to allow a GitHub App to create or update workflow `.github/workflows/build.yml` "
            "without `workflows` permission") in lines
    assert lines[-2] == "hint: " + hint("workflow-permission", BRANCH)
    _assert_nothing_changed(world, co, before)
    # the hint works: leaving the workflows out, the same run succeeds
    code, _ = world.run("--exclude", ".github/workflows")
    assert code == 0 and len(world.fake.open_pulls(TEMPLATE)) == 1
    assert world.blob(world.head(), ".github/workflows/build.yml") == world.blob("main", ".github/workflows/build.yml")


def test_branch_name_ruleset_hints_the_branch_setting(world, capsys):
    restrict_branch_creation(world.remote, "executorch-pack-bot/*")
    co = world.checkout()
    before = git(co, "rev-parse", "HEAD")
    code, _ = world.run(checkout=co)
    lines = _error_lines(capsys.readouterr().err)
    assert code == 1
    assert "  remote: - Cannot create ref due to creations being restricted." in lines
    assert lines[-2] == "hint: " + hint("branch-rule", BRANCH)
    _assert_nothing_changed(world, co, before)
    # the hint works: a branch name the ruleset allows
    world.commit_to_main({".github/executorch-pack-bot.yml": b"branch: deps/executorch\n"})
    assert world.run()[0] == 0
    assert world.head("deps/executorch") is not None


def test_unknown_refusal_shows_every_line_without_a_hint_and_masks_the_token(world, capsys):
    echo_in_hook(world.remote, f"denied: secret scanning found {TOKEN} in the push")
    co = world.checkout()
    before = git(co, "rev-parse", "HEAD")
    code, _ = world.run(checkout=co)
    err = capsys.readouterr().err
    lines = _error_lines(err)
    assert code == 1 and TOKEN not in err
    assert "  remote: denied: secret scanning found *** in the push" in lines
    assert not any(ln.startswith("hint:") for ln in lines)
    _assert_nothing_changed(world, co, before)


def test_publish_command_refusal_exits_1_and_leaves_the_checkout(world, capsys):
    from helpers import snapshot
    require_signed_commits(world.remote)
    co = world.checkout()
    plan = world.tmp / "plan.json"
    from bot.cli import main
    assert main(["update", "--repo", str(co), "--upstream", "github:pytorch/executorch",
                 "--plan-file", str(plan)]) == 0
    before = snapshot(co)
    capsys.readouterr()
    code = main(["publish", "--repo", str(co), "--plan-file", str(plan)])
    lines = _error_lines(capsys.readouterr().err)
    assert code == 1
    assert lines[-2] == "hint: " + hint("verified-signatures", BRANCH)
    assert snapshot(co) == before and world.head() is None


@pytest.mark.parametrize("stderr,kind", [
    ("remote: error: GH006: Protected branch update failed for refs/heads/x.\n"
     "remote: error: Commits must have verified signatures.\n", "verified-signatures"),
    (" ! [remote rejected] abc -> x (refusing to allow an OAuth App to create or update workflow "
     "`.github/workflows/a.yml` without `workflow` scope)\n", "workflow-permission"),
    (" ! [remote rejected] abc -> x (refusing to allow a Personal Access Token to create or update workflow "
     "`.github/workflows/a.yml` without `workflow` scope)\n", "workflow-permission"),
    ("remote: - Cannot update this protected ref.\n", "branch-rule"),
    (" ! [rejected]        abc -> x (stale info)\n", "branch-moved"),
    ("remote: error: GH013: Repository rule violations found for refs/heads/x.\n"
     "remote: - Push cannot contain secrets\n", None),
])
def test_refusal_kinds_from_githubs_texts(stderr, kind):
    assert is_refusal(stderr)
    assert kind_of(stderr) == kind
    err = PushRefused("x", stderr)
    assert err.exit_code == 1 and err.kind == kind and err.hint == hint(kind, "x")


def test_a_push_that_never_reached_a_server_is_not_a_refusal():
    assert not is_refusal("fatal: 'origin' does not appear to be a git repository\n"
                          "fatal: Could not read from remote repository.\n")


def test_in_actions_the_refusal_is_one_error_annotation_with_every_line_and_exit_1(world, capsys, monkeypatch):
    require_signed_commits(world.remote)
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    summary = world.tmp / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    code, _ = world.run()
    err = capsys.readouterr().err
    assert code == 1
    annotations = [ln for ln in err.splitlines() if ln.startswith("::error")]
    assert len(annotations) == 1
    parts = annotations[0].split("::", 2)[2].split("%0A")
    assert parts[0] == f"git push of {BRANCH} was refused; git said:"
    assert "  remote: - Commits must have verified signatures." in parts
    assert parts[-2:] == ["hint: " + hint("verified-signatures", BRANCH),
                          "Nothing was pushed and the checkout is as it was."]
