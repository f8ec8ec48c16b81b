"""Every cell of the branch lifecycle table of docs/publishing.md, on two later runs.

The first run opens #1 on ``executorch-pack-bot/executorch`` (ExecuTorch
1.5.1).  Then the pull request ends (stays open, is closed by a person, is
closed by deleting its branch after a person's push, or is squash-merged),
the branch is left as the bot made it, deleted, or gets a person's commit,
and upstream has the same target or a newer one (1.5.2).  Each cell asserts
what the next run does (pull requests, branch head) and the line it prints,
and that the run after it prints the same state again.
"""

from __future__ import annotations

import pytest

from fakegitdata import add_event
from fakegithub import TEMPLATE, git
from publishworld import BRANCH, World

HUMAN = "Human <human@example.invalid>"


@pytest.fixture
def world(tmp_path, monkeypatch):
    w = World(tmp_path, monkeypatch)
    yield w
    w.fake.stop()


def person_pushes(world) -> str:
    """A person's commit on the bot's branch; returns its SHA."""
    co = world.checkout()
    git(co, "checkout", "-q", BRANCH)
    (co / "NOTES.md").write_text("my notes\n")
    git(co, "add", "NOTES.md")
    git(co, "commit", "-q", f"--author={HUMAN}", "-m", "notes")
    git(co, "push", "-q", "origin", BRANCH)
    return git(co, "rev-parse", "HEAD")


def delete_branch(world) -> None:
    world.git("update-ref", "-d", f"refs/heads/{BRANCH}")


def close_by_person(world, n: int) -> None:
    pr = world.fake.repo(TEMPLATE).pulls[n]
    pr["state"] = "closed"
    add_event(world.fake.repo(TEMPLATE), n, "closed")


def close_by_deleting_branch(world, n: int) -> None:
    """What GitHub does when the head branch of an open pull request is deleted."""
    delete_branch(world)
    pr = world.fake.repo(TEMPLATE).pulls[n]
    pr["state"] = "closed"
    add_event(world.fake.repo(TEMPLATE), n, "head_ref_deleted")
    add_event(world.fake.repo(TEMPLATE), n, "closed", actor="github-actions[bot]")


def squash_merge(world, n: int) -> None:
    """'Squash and merge': main gets one commit with the branch's tree; the branch keeps its own commits."""
    co = world.checkout()
    git(co, "merge", "-q", "--squash", f"origin/{BRANCH}")
    git(co, "commit", "-q", "-m", f"Bump ExecuTorch (#{n})")
    git(co, "push", "-q", "origin", "main")
    pr = world.fake.repo(TEMPLATE).pulls[n]
    pr.update(state="closed", merged=True, merged_at="2026-11-02T00:00:00Z")
    add_event(world.fake.repo(TEMPLATE), n, "merged")
    add_event(world.fake.repo(TEMPLATE), n, "closed")


def _last_line(capsys) -> str:
    return capsys.readouterr().out.strip().splitlines()[-1]


# (PR end, branch, target) -> (line printed by the next run and the one after it, ...)
# "{person}" is the person's commit as the bot names it; "{sha}" a pull request number is formatted in.
FOREIGN_OPEN = ("pull request #1: foreign-commits (branch executorch-pack-bot/executorch has commits by others "
                "({person} Human <human@example.invalid>); not pushing)")
FOREIGN_NONE = ("foreign-commits: branch executorch-pack-bot/executorch has commits by others ({person} Human "
                "<human@example.invalid>); not pushing; no pull request is open from it: delete the branch to let "
                "the bot propose again")
CLOSED_BEFORE = ("pull request #1: closed-before (#1 proposed the same pins and was closed unmerged; not "
                 "proposing them again)")
CELLS = {
    ("open", "as-left", "same"): ("pull request #1: unchanged", "pull request #1: unchanged"),
    ("open", "as-left", "newer"): ("pull request #1: updated", "pull request #1: unchanged"),
    ("open", "deleted", "same"): ("pull request #1: updated", "pull request #1: unchanged"),
    ("open", "deleted", "newer"): ("pull request #1: updated", "pull request #1: unchanged"),
    ("open", "person", "same"): (FOREIGN_OPEN, FOREIGN_OPEN),
    ("open", "person", "newer"): (FOREIGN_OPEN, FOREIGN_OPEN),
    ("closed", "as-left", "same"): (CLOSED_BEFORE, CLOSED_BEFORE),
    ("closed", "as-left", "newer"): ("pull request #2: created", "pull request #2: unchanged"),
    ("closed", "deleted", "same"): (CLOSED_BEFORE, CLOSED_BEFORE),
    ("closed", "deleted", "newer"): ("pull request #2: created", "pull request #2: unchanged"),
    ("closed", "person", "same"): (CLOSED_BEFORE, CLOSED_BEFORE),
    ("closed", "person", "newer"): (FOREIGN_NONE, FOREIGN_NONE),
    ("branch-deleted", "deleted", "same"): ("pull request #2: created", "pull request #2: unchanged"),
    ("branch-deleted", "deleted", "newer"): ("pull request #2: created", "pull request #2: unchanged"),
    ("merged", "as-left", "same"): ("up to date", "up to date"),
    ("merged", "as-left", "newer"): ("pull request #2: created", "pull request #2: unchanged"),
    ("merged", "deleted", "same"): ("up to date", "up to date"),
    ("merged", "deleted", "newer"): ("pull request #2: created", "pull request #2: unchanged"),
    ("merged", "person", "same"): ("up to date", "up to date"),
    ("merged", "person", "newer"): ("pull request #2: created", "pull request #2: unchanged"),
}


@pytest.mark.parametrize("end,branch,target", sorted(CELLS))
def test_lifecycle_cell(world, capsys, end, branch, target):
    assert world.run()[0] == 0
    assert _last_line(capsys) == "pull request #1: created"
    first_head = world.head()
    person = None
    if branch == "person" or end == "branch-deleted":      # the story: a person pushes, then deletes
        person = person_pushes(world)
    if end == "closed":
        close_by_person(world, 1)
    elif end == "branch-deleted":
        close_by_deleting_branch(world, 1)
    elif end == "merged":
        squash_merge(world, 1)
    if branch == "deleted" and end != "branch-deleted":
        delete_branch(world)
    if target == "newer":
        world.release("v1.5.2")
    expect = [line.format(person=(person or "")[:7]) for line in CELLS[(end, branch, target)]]

    heads, opened = [], []
    for want in expect:
        assert world.run()[0] == 0
        assert _last_line(capsys) == want
        heads.append(world.head())
        opened.append(sorted((p["number"], p["title"]) for p in world.fake.open_pulls(TEMPLATE)))
    assert heads[0] == heads[1] and opened[0] == opened[1]           # the later run changes nothing more

    version = "1.5.2" if target == "newer" else "1.5.1"
    if want.startswith("pull request #2: created") or want == "pull request #2: unchanged":
        assert opened[1] == [(2, f"Bump ExecuTorch to {version}")]
        assert world.git("rev-parse", f"{heads[1]}^") == world.git("rev-parse", "main")
        assert world.git("log", "-1", "--format=%ae", heads[1]) == \
            "41898282+github-actions[bot]@users.noreply.github.com"
    elif want.startswith("pull request #1: updated") or (end == "open" and branch != "person"):
        assert opened[1] == [(1, f"Bump ExecuTorch to {version}")]
        if target == "same" and branch == "as-left":
            assert heads[1] == first_head
    elif "foreign-commits" in want:
        assert heads[1] == person                                      # the person's work is never overwritten
        assert opened[1] == ([(1, "Bump ExecuTorch to 1.5.1")] if end == "open" else [])
        if end == "open":
            comments = world.fake.repo(TEMPLATE).comments[1]
            assert len(comments) == 1 and "delete the branch" in comments[0]["body"]
    elif want == CLOSED_BEFORE:
        assert opened[1] == [] and world.fake.repo(TEMPLATE).next_number == 2
    else:                                                               # up to date: main carries the bump
        assert want == "up to date" and opened[1] == [] and world.fake.repo(TEMPLATE).next_number == 2


def test_the_hand_back_comment_shows_the_persons_name_inert_and_its_advice_works(world):
    """A commit author's name is foreign text: in a code span, it mentions nobody; deleting the branch hands it back."""
    assert world.run()[0] == 0
    co = world.checkout()
    git(co, "checkout", "-q", BRANCH)
    (co / "NOTES.md").write_text("x\n")
    git(co, "add", "NOTES.md")
    git(co, "commit", "-q", "--author=@octocat #12 <o@example.invalid>", "-m", "notes")
    git(co, "push", "-q", "origin", BRANCH)
    sha = git(co, "rev-parse", "--short=7", "HEAD")
    assert world.run()[0] == 0
    body = world.fake.repo(TEMPLATE).comments[1][0]["body"]
    assert f"(`{sha} @octocat #12 <o@example.invalid>`)" in body
    close_by_deleting_branch(world, 1)                     # what the comment advises
    assert world.run()[0] == 0
    assert [p["number"] for p in world.fake.open_pulls(TEMPLATE)] == [2]


@pytest.mark.parametrize("events,rejection", [
    ([("head_ref_deleted", "2026-11-01T00:00:00Z"), ("closed", "2026-11-01T00:00:00Z")], False),
    ([("closed", "2026-11-01T00:00:00Z"), ("head_ref_deleted", "2026-11-01T00:00:00Z")], False),   # same second
    ([("closed", "2026-11-01T00:00:00Z"), ("head_ref_deleted", "2026-11-01T00:05:00Z")], True),    # closed, then deleted
    ([("closed", "2026-11-01T00:00:00Z")], True),
])
def test_closed_by_deleting_the_branch_is_read_from_the_event_times(world, capsys, events, rejection):
    assert world.run()[0] == 0
    world.fake.repo(TEMPLATE).pulls[1]["state"] = "closed"
    for event, when in events:
        add_event(world.fake.repo(TEMPLATE), 1, event, when=when)
    if any(e == "head_ref_deleted" for e, _ in events):
        delete_branch(world)
    capsys.readouterr()
    assert world.run()[0] == 0
    assert _last_line(capsys) == (CLOSED_BEFORE if rejection else "pull request #2: created")
