"""Versions reviewers ignore: the scheduled run skips them and proposes the next newer release; unignore undoes it.

End to end against the fake GitHub: ``run`` opens the bump PR, a writer
comments ``/executorch-pack-bot ignore`` (the PR closes), ``run
--respect-ignored`` proposes nothing while 1.5.1 is the newest release and
the next newer release once it comes; ``unignore`` lets 1.5.1 be proposed
again even though its PR was closed unmerged.
"""

from __future__ import annotations

import itertools
import json

import pytest

from bot.cli import main
from bot.events import state as hidden
from bot.upstream.releases import select_target
from eventworld import read_outputs
from fakegithub import (TEMPLATE, UPSTREAM, add_sample_release, fresh_checkout, make_template_remote, pypi_json)
from fakegithub_events import FakeGitHubEvents
from webhook_payloads import comment_event

TOKEN = "ghs_IGNORESECRET0123456789"


class Tags:
    def __init__(self, *tags):
        self._tags = list(tags)

    def tags(self):
        return self._tags

    def prereleases(self):
        return []

    def describe(self):
        return "test tags"


@pytest.mark.parametrize("ignored,want", [((), "v1.6.0"), (("1.6.0",), "v1.5.1"), (("1.5.1", "1.6.0"), "v1.4.0"),
                                          (("1.4.0", "1.5.1", "1.6.0"), "v1.4.0"), (("v1.6.0",), "v1.5.1")])
def test_the_newest_release_that_is_not_ignored_is_chosen(ignored, want):
    src = Tags("v1.4.0", "v1.5.1", "v1.6.0", "v1.6.1-rc1")
    assert select_target(src, to=None, current="1.4.0", ignored=ignored) == want


def test_an_explicit_version_is_not_affected_by_the_ignore_list():
    assert select_target(Tags("v1.4.0", "v1.5.1"), to="1.5.1", current="1.4.0", ignored=("1.5.1",)) == "v1.5.1"


@pytest.fixture
def world(tmp_path, monkeypatch, capsys):
    fake = FakeGitHubEvents()
    url = fake.start()
    add_sample_release(fake, "v1.4.0", created_at="2026-06-01T00:00:00Z")
    add_sample_release(fake, "v1.5.1", created_at="2026-09-01T00:00:00Z")
    fake.repo(TEMPLATE)
    fake.roles["alice"] = "write"
    for v in ("1.5.1", "1.5.2"):
        fake.pypi[("executorch", v)] = pypi_json("executorch", v, requires_dist=["torch>=2.14.0a0", "numpy"])
    remote = make_template_remote(tmp_path)
    for k, v in {"GITHUB_API_URL": url, "EXECUTORCH_PACK_BOT_INDEX_URL": url, "EXECUTORCH_PACK_BOT_MAX_WAIT": "0",
                 "EXECUTORCH_PACK_BOT_WRITE_PAUSE": "0", "GITHUB_REPOSITORY": TEMPLATE, "GITHUB_TOKEN": TOKEN,
                 "GITHUB_OUTPUT": str(tmp_path / "out")}.items():
        monkeypatch.setenv(k, v)
    for k in ("GITHUB_STEP_SUMMARY", "GITHUB_ACTIONS", "EXECUTORCH_PACK_BOT_CACHE"):
        monkeypatch.delenv(k, raising=False)
    counter = itertools.count()

    class W:
        pass

    w = W()
    w.fake, w.tmp = fake, tmp_path

    def run(*extra):
        co = fresh_checkout(remote, tmp_path / f"run{next(counter)}")
        return main(["run", "--repo", str(co), "--upstream", f"github:{UPSTREAM}", *extra])

    def comment(body, number):
        path = tmp_path / f"event{next(counter)}.json"
        path.write_text(json.dumps(comment_event(TEMPLATE, number, body, login="alice")))
        (tmp_path / "out").unlink(missing_ok=True)
        (tmp_path / "nothing").mkdir(exist_ok=True)   # a checkout without a config file
        code = main(["command", "--event-name", "issue_comment", "--event-path", str(path),
                     "--repo", str(tmp_path / "nothing")])
        return code, read_outputs(tmp_path / "out")

    def check(*extra):
        co = fresh_checkout(remote, tmp_path / f"run{next(counter)}")
        (tmp_path / "out").unlink(missing_ok=True)
        code = main(["check", "--repo", str(co), "--upstream", f"github:{UPSTREAM}", *extra])
        return code, read_outputs(tmp_path / "out")

    w.run, w.comment, w.check = run, comment, check
    yield w
    fake.stop()


@pytest.mark.needs("webhooks")
def test_ignore_then_a_newer_release_then_unignore(world, capsys):
    assert world.run("--respect-ignored") == 0
    [pr] = world.fake.open_pulls(TEMPLATE)
    assert world.comment("/executorch-pack-bot ignore", pr["number"]) == (0, {
        "action": "ignore", "version": "1.5.1", "pr": str(pr["number"])})
    assert pr["state"] == "closed"

    # 1.5.1 is the newest release and ignored: check says nothing to do, run proposes nothing
    code, out = world.check("--respect-ignored")
    assert (code, out["update-needed"], out["target"]) == (0, "false", "1.4.0")
    assert world.check()[1]["target"] == "1.5.1"   # without the flag the list is not read
    before = len(world.fake.writes())
    assert world.run("--respect-ignored") == 0
    assert world.fake.open_pulls(TEMPLATE) == [] and len(world.fake.writes()) == before

    # unignore on the closed PR: the next run proposes 1.5.1 again (the PR closed by ignore does not block it)
    assert world.comment("/executorch-pack-bot unignore 1.5.1", pr["number"])[1]["action"] == "unignore"
    assert world.run("--respect-ignored") == 0
    [again] = world.fake.open_pulls(TEMPLATE)
    assert again["number"] != pr["number"] and again["title"] == "Bump ExecuTorch to 1.5.1"


@pytest.mark.needs("webhooks")
def test_the_next_newer_release_is_proposed_when_it_comes(world):
    assert world.run("--respect-ignored") == 0
    [pr] = world.fake.open_pulls(TEMPLATE)
    world.comment("/executorch-pack-bot ignore", pr["number"])
    add_sample_release(world.fake, "v1.5.2", source_tag="v1.5.1", created_at="2026-10-01T00:00:00Z")
    code, out = world.check("--respect-ignored")
    assert (out["update-needed"], out["target"]) == ("true", "1.5.2")


@pytest.mark.needs("webhooks")
def test_ignore_of_another_version_survives_a_body_refresh(world):
    """The ignore list kept in an open PR's body is carried over when the bot rewrites that body."""
    assert world.run("--respect-ignored") == 0
    [pr] = world.fake.open_pulls(TEMPLATE)
    world.comment("/executorch-pack-bot ignore 1.7.0", pr["number"])
    pr["body"] = pr["body"].replace("executorch-pack-bot:body=", "executorch-pack-bot:body=0")  # force an edit
    assert world.run("--respect-ignored") == 0
    assert hidden.load(pr["body"])["ignored"] == [{"version": "1.7.0", "pr": pr["number"]}]
    assert "executorch-pack-bot:body=0" not in pr["body"]


@pytest.mark.needs("webhooks")
def test_respect_ignored_needs_the_repository(world, monkeypatch, capsys):
    monkeypatch.delenv("GITHUB_REPOSITORY")
    code, _ = world.check("--respect-ignored")
    assert code == 2 and "--respect-ignored needs the template repository" in capsys.readouterr().err
