"""The base branch moves while the bot runs: the bump goes onto the new base and never reverts a person's line.

A maintainer pushes to ``main`` after the runner cloned it: ``run`` plans
again on the new base; ``publish`` (its plan came from ``update`` in another
job) applies the plan's line changes to the new base's files, and refuses
(exit 1, naming the file) when the maintainer changed a line the bump edits.
A push after the bot's fetch leaves the bot's commit on the base it fetched
(nothing of the maintainer's is in its diff); the next run moves it onto the
new base.
"""

from __future__ import annotations

import pytest

from bot.cli import main
from bot.github.publish import Publisher
from fakegithub import TEMPLATE, git
from publishworld import World

README = "README.md"


@pytest.fixture
def world(tmp_path, monkeypatch):
    w = World(tmp_path, monkeypatch)
    yield w
    w.fake.stop()


def _maintainer_readme(world, adjacent: bool = True) -> bytes:
    """The sample README with line 3 reworded and (``adjacent``) a line inserted right between two lines the bump edits."""
    lines = world.blob("main", README).split(b"\n")
    assert lines[11] == b"cpackget add PyTorch::ExecuTorch@1.4.0"
    if adjacent:
        lines.insert(12, b"cpackget add ARM::CMSIS@6.1.0")
    lines[2] = b"A sample firmware template (maintained) that runs a PyTorch model on an Arm Cortex-M55 with an"
    return b"\n".join(lines)


def _bumped(text: bytes) -> bytes:
    """What the bump makes of the README lines it edits (1.4.0 -> 1.5.1 on the four ExecuTorch lines)."""
    return (text.replace(b"ExecuTorch 1.4.0:", b"ExecuTorch 1.5.1:")
            .replace(b"| ExecuTorch | 1.4.0   |", b"| ExecuTorch | 1.5.1   |")
            .replace(b"PyTorch::ExecuTorch@1.4.0", b"PyTorch::ExecuTorch@1.5.1")
            .replace(b"executorch==1.4.0", b"executorch==1.5.1"))


def _changed_paths(world, a: str, b: str) -> list[str]:
    return world.git("diff", "--name-only", a, b).split()


@pytest.fixture(scope="module")
def plain_paths(tmp_path_factory):
    """The files the bump changes when nothing moves."""
    with pytest.MonkeyPatch.context() as mp:
        w = World(tmp_path_factory.mktemp("plain"), mp)
        try:
            assert w.run()[0] == 0
            return _changed_paths(w, "main", w.head())
        finally:
            w.fake.stop()


def _push_during_fetch(monkeypatch, world, text: bytes, *, after: bool):
    """Make the maintainer push ``text`` as README.md when the bot fetches the base: before or after that fetch."""
    real = Publisher._fetch
    done = []

    def fetch(self, branch, local):
        if branch == "main" and not done and not after:
            done.append(world.commit_to_main({README: text}))
        real(self, branch, local)
        if branch == "main" and not done and after:
            done.append(world.commit_to_main({README: text}))
    monkeypatch.setattr(Publisher, "_fetch", fetch)
    return done


def test_run_plans_again_on_a_base_pushed_to_after_the_clone(world, monkeypatch, plain_paths):
    text = _maintainer_readme(world)
    pushed = _push_during_fetch(monkeypatch, world, text, after=False)
    assert world.run()[0] == 0
    head = world.head()
    assert world.git("rev-parse", f"{head}^") == pushed[0] == world.git("rev-parse", "main")
    assert world.blob(head, README) == _bumped(text)
    assert _changed_paths(world, "main", head) == plain_paths


def test_a_push_after_the_fetch_is_not_reverted_and_the_next_run_moves_onto_it(world, monkeypatch, plain_paths):
    # not next to an edited line: git (and GitHub's merge) would call adjacent changes a conflict, never a revert
    text = _maintainer_readme(world, adjacent=False)
    fetched = world.git("rev-parse", "main")
    pushed = _push_during_fetch(monkeypatch, world, text, after=True)
    assert world.run()[0] == 0
    head = world.head()
    assert world.git("rev-parse", f"{head}^") == fetched != pushed[0]
    assert _changed_paths(world, fetched, head) == plain_paths          # only the bump: nothing to revert
    merged = world.git("merge-tree", "--write-tree", "main", head)      # what merging the PR would give
    assert world.blob(merged, README) == _bumped(text)
    monkeypatch.undo()
    monkeypatch.setenv("GITHUB_API_URL", world.fake.url)
    for k, v in {"EXECUTORCH_PACK_BOT_INDEX_URL": world.fake.url, "EXECUTORCH_PACK_BOT_MAX_WAIT": "0",
                 "EXECUTORCH_PACK_BOT_WRITE_PAUSE": "0", "GITHUB_REPOSITORY": TEMPLATE,
                 "GITHUB_TOKEN": "ghs_TESTSECRET0123456789"}.items():
        monkeypatch.setenv(k, v)
    assert world.run()[0] == 0
    again = world.head()
    assert world.git("rev-parse", f"{again}^") == pushed[0]
    assert world.blob(again, README) == _bumped(text)
    assert len(world.fake.open_pulls(TEMPLATE)) == 1


def _update(world, co, plan):
    assert main(["update", "--repo", str(co), "--upstream", "github:pytorch/executorch",
                 "--plan-file", str(plan)]) == 0


def test_publish_applies_the_plans_line_changes_to_the_new_base(world, plain_paths):
    co, plan = world.checkout(), world.tmp / "plan.json"
    _update(world, co, plan)
    text = _maintainer_readme(world)
    pushed = world.commit_to_main({README: text})
    assert main(["publish", "--repo", str(co), "--plan-file", str(plan)]) == 0
    head = world.head()
    assert world.git("rev-parse", f"{head}^") == pushed
    assert world.blob(head, README) == _bumped(text)
    assert _changed_paths(world, pushed, head) == plain_paths


def test_publish_refuses_when_the_new_base_changed_an_edited_line(world, capsys):
    co, plan = world.checkout(), world.tmp / "plan.json"
    _update(world, co, plan)
    text = world.blob("main", README).replace(b"PyTorch::ExecuTorch@1.4.0", b"PyTorch::ExecuTorch@1.4.0  # pinned")
    world.commit_to_main({README: text})
    capsys.readouterr()
    code = main(["publish", "--repo", str(co), "--plan-file", str(plan)])
    err = capsys.readouterr().err
    assert code == 1
    assert err.splitlines()[-1] == (
        "executorch-pack-bot: error: README.md changed on main since the plan was made, on a line the bump "
        "edits; run `update --plan-file` again on a fresh checkout, then publish")
    assert world.head() is None and world.fake.open_pulls(TEMPLATE) == []


def test_run_plans_again_when_the_new_base_changed_an_edited_line(world, monkeypatch):
    text = world.blob("main", README).replace(b"PyTorch::ExecuTorch@1.4.0", b"PyTorch::ExecuTorch@1.4.0  # pinned")
    _push_during_fetch(monkeypatch, world, text, after=False)
    code, co = world.run()
    assert code == 0
    assert world.blob(world.head(), README) == _bumped(text)
    assert b"@1.5.1  # pinned" in world.blob(world.head(), README)
    assert git(co, "worktree", "list", "--porcelain").count("worktree ") == 1     # the temporary worktree is gone


def test_rebase_text_cases():
    from bot.github.rebase import rebase_text
    o = b"a\nv1\nb\nv1\nc\n"
    p = b"a\nv2\nb\nv2\nc\n"
    assert rebase_text(o, p, o) == p
    assert rebase_text(o, p, b"a\nv1\nNEW\nb\nv1\nc\nd\n") == b"a\nv2\nNEW\nb\nv2\nc\nd\n"
    assert rebase_text(o, p, b"a\nv1 changed\nb\nv1\nc\n") is None
    assert rebase_text(b"a\r\nv1\r\n", b"a\r\nv2\r\n", b"x\r\na\r\nv1\r\n") == b"x\r\na\r\nv2\r\n"


def test_run_proposes_nothing_when_the_new_base_already_carries_the_bump(world, monkeypatch, capsys):
    real = Publisher._fetch

    def fetch(self, branch, local):
        if branch == "main" and not getattr(fetch, "done", False):
            fetch.done = True
            co = world.checkout()
            _update(world, co, world.tmp / "maintainer-plan.json")     # a maintainer bumps by hand meanwhile
            git(co, "commit", "-q", "-a", "-m", "bump by hand")
            git(co, "push", "-q", "origin", "main")
        real(self, branch, local)
    monkeypatch.setattr(Publisher, "_fetch", fetch)
    capsys.readouterr()
    assert world.run()[0] == 0
    assert capsys.readouterr().out.strip().splitlines()[-1] == (
        "base-has-bump: main already carries the bump (it moved while the bot ran); nothing to propose")
    assert world.head() is None and world.fake.open_pulls(TEMPLATE) == []
