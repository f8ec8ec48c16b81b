"""``recreate`` (a writer's ``/executorch-pack-bot recreate``) replaces the bot branch even over commits by others.

The workflow passes ``publish --recreate``; the world is the PR lifecycle
world (fake GitHub, a local bare template remote).
"""

from __future__ import annotations

import pytest

from bot.cli import main
from fakegithub import TEMPLATE, fresh_checkout, git
from test_github_lifecycle import branch_head, world  # noqa: F401 - the fixture


def _foreign_commit(w):
    co = fresh_checkout(w.remote, w.tmp / "human")
    git(co, "checkout", "-q", "executorch-pack-bot/executorch")
    (co / "NOTES.md").write_text("human work\n")
    git(co, "add", "NOTES.md")
    git(co, "commit", "-q", "--author=Human <human@example.invalid>", "-m", "mine")
    git(co, "push", "-q", "origin", "executorch-pack-bot/executorch")
    return branch_head(w)


def _publish(w, name, *extra):
    co = fresh_checkout(w.remote, w.tmp / name)
    plan = w.tmp / f"{name}.json"
    assert main(["update", "--repo", str(co), "--upstream", f"github:{w.upstream}", "--plan-file", str(plan)]) == 0
    return main(["publish", "--repo", str(co), "--plan-file", str(plan), *extra])


@pytest.fixture
def w(world):  # noqa: F811
    from fakegithub import UPSTREAM
    world.upstream = UPSTREAM
    return world


def test_recreate_replaces_commits_by_others_and_plain_publish_does_not(w):
    assert w.run()[0] == 0
    human = _foreign_commit(w)
    assert _publish(w, "plain") == 0
    assert branch_head(w) == human                        # without recreate: never overwritten
    assert _publish(w, "recreate", "--recreate") == 0
    head = branch_head(w)
    assert head != human
    author = git(w.tmp, "--git-dir", str(w.remote), "log", "-1", "--format=%ae %P", head)
    base = git(w.tmp, "--git-dir", str(w.remote), "rev-parse", "refs/heads/main")
    assert author == f"41898282+github-actions[bot]@users.noreply.github.com {base}"   # one bot commit on the base
    assert [p["number"] for p in w.fake.open_pulls(TEMPLATE)] == [1]
