"""A whole plan against a local upstream git repository spawns two git processes.

``git for-each-ref refs/tags`` (run when the source is opened: it lists the
tags and proves the repository readable, git's own message naming the
failure) and one long-lived ``git cat-file --batch`` for every file read at
every tag.  Counted by recording each ``subprocess.Popen`` the bot starts.
"""

from __future__ import annotations

import subprocess

import pytest

from bot import engine
from bot.commands.demo import copy_template
from bot.errors import UpstreamError
from bot.sample import build_upstream_repo
from bot.sources import open_source


@pytest.fixture()
def spawned(monkeypatch):
    """The argument lists of every process started through subprocess.Popen while the test runs."""
    started: list[list[str]] = []
    real = subprocess.Popen.__init__

    def record(self, args, *a, **kw):
        started.append([str(x) for x in args])
        real(self, args, *a, **kw)

    monkeypatch.setattr(subprocess.Popen, "__init__", record)
    return started


def git_commands(started: list[list[str]]) -> list[str]:
    """The git subcommand of each process started on the upstream repository (the word after
    ``--git-dir=...``); the template's own ``git grep`` (bot.quietfiles) is not one of them."""
    return [argv[2] for argv in started if argv[0] == "git" and argv[1].startswith("--git-dir=")]


@pytest.mark.parametrize("bare", [False, True])
def test_a_plan_reads_upstream_with_one_tag_listing_and_one_batch_reader(tmp_path, spawned, bare):
    upstream = build_upstream_repo(tmp_path / "executorch", bare=bare)
    tpl = copy_template(tmp_path / "template")
    spawned.clear()
    source = open_source(str(upstream))
    assert git_commands(spawned) == ["for-each-ref"]
    plan = engine.plan(tpl, source)
    source.close()
    assert plan.bump is not None and (plan.bump.old_tag, plan.bump.new_tag) == ("v1.4.0", "v1.5.1")
    assert git_commands(spawned) == ["for-each-ref", "cat-file"]
    assert [argv[3:] for argv in spawned if argv[2:3] == ["cat-file"]] == [["--batch"]]


def test_an_unreadable_repository_is_refused_when_opened_with_git_s_message(tmp_path, spawned):
    upstream = build_upstream_repo(tmp_path / "executorch", bare=True)
    (upstream / "objects").rename(tmp_path / "objects-moved")   # still looks like a repository, git refuses it
    (upstream / "objects").mkdir()
    (upstream / "HEAD").write_text("not a ref\n")
    spawned.clear()
    with pytest.raises(UpstreamError) as exc:
        open_source(str(upstream))
    assert str(exc.value).startswith(f"upstream source {upstream} is not a readable git repository: ")
    assert exc.value.exit_code == 2
    assert git_commands(spawned) == ["for-each-ref"]
