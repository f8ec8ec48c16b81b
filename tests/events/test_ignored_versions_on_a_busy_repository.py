"""An ignored version stays ignored however many pull requests the repository gets.

Without a dashboard and with one branch per version (``branch:
bot/executorch-{version}``), the ignored list lives in the hidden state of
the bot's pull requests (:mod:`bot.events.ignored`).  GitHub lists pull
requests newest first, at most 100 a page (REST docs, "List pull requests",
"Using pagination in the REST API"), so once people open 100 more, the bot's
closed PR holding the list is on page 2: every page must be read
(:mod:`bot.github.pages`), or ``ignore`` silently stops holding and the
ignored version is proposed again.
"""

from __future__ import annotations

import itertools
import json

import pytest

from bot.cli import main
from eventworld import read_outputs
from fakegithub import TEMPLATE, UPSTREAM, add_sample_release, fresh_checkout, git, make_template_remote, pypi_json
from fakegithub_events import FakeGitHubEvents
from webhook_payloads import comment_event

TOKEN = "ghs_BUSYSECRET0123456789"
CONFIG = "branch: bot/executorch-{version}\n"


@pytest.fixture
def world(tmp_path, monkeypatch):
    fake = FakeGitHubEvents()
    url = fake.start()
    add_sample_release(fake, "v1.4.0", created_at="2026-06-01T00:00:00Z")
    add_sample_release(fake, "v1.5.1", created_at="2026-09-01T00:00:00Z")
    fake.repo(TEMPLATE)
    fake.roles["alice"] = "write"
    fake.pypi[("executorch", "1.5.1")] = pypi_json("executorch", "1.5.1", requires_dist=["torch>=2.14.0a0", "numpy"])
    remote = make_template_remote(tmp_path)
    seed = fresh_checkout(remote, tmp_path / "seed-config")
    (seed / ".github").mkdir(exist_ok=True)
    (seed / ".github/executorch-pack-bot.yml").write_text(CONFIG, encoding="utf-8")
    git(seed, "add", "-A")
    git(seed, "commit", "-q", "-m", "bot config: one branch per version")
    git(seed, "push", "-q", "origin", "main")
    for k, v in {"GITHUB_API_URL": url, "EXECUTORCH_PACK_BOT_INDEX_URL": url, "EXECUTORCH_PACK_BOT_MAX_WAIT": "0",
                 "EXECUTORCH_PACK_BOT_WRITE_PAUSE": "0", "GITHUB_REPOSITORY": TEMPLATE, "GITHUB_TOKEN": TOKEN,
                 "GITHUB_OUTPUT": str(tmp_path / "out")}.items():
        monkeypatch.setenv(k, v)
    for k in ("GITHUB_STEP_SUMMARY", "GITHUB_ACTIONS", "EXECUTORCH_PACK_BOT_CACHE"):
        monkeypatch.delenv(k, raising=False)
    n = itertools.count()

    class W:
        pass

    w = W()
    w.fake = fake

    def checkout():
        return fresh_checkout(remote, tmp_path / f"run{next(n)}")

    def run(*extra):
        return main(["run", "--repo", str(checkout()), "--upstream", f"github:{UPSTREAM}", *extra])

    def check(*extra):
        (tmp_path / "out").unlink(missing_ok=True)
        code = main(["check", "--repo", str(checkout()), "--upstream", f"github:{UPSTREAM}", *extra])
        return code, read_outputs(tmp_path / "out")

    def comment(body, number):
        path = tmp_path / f"event{next(n)}.json"
        path.write_text(json.dumps(comment_event(TEMPLATE, number, body, login="alice")))
        (tmp_path / "out").unlink(missing_ok=True)
        code = main(["command", "--event-name", "issue_comment", "--event-path", str(path), "--repo", str(checkout())])
        return code, read_outputs(tmp_path / "out")

    w.run, w.check, w.comment = run, check, comment
    yield w
    fake.stop()


def people_open(fake, count: int) -> None:
    for _ in range(count):
        fake.add_pull(TEMPLATE, head=f"feature/change-{fake.repo(TEMPLATE).next_number}", title="A change",
                      body="mine", user="bob")


@pytest.mark.needs("webhooks")
@pytest.mark.parametrize("others", [99, 100, 250])
def test_ignore_holds_when_the_bots_pull_request_is_past_the_first_page(world, capsys, others):
    assert world.run("--respect-ignored") == 0
    [pr] = world.fake.open_pulls(TEMPLATE)
    assert pr["head"]["ref"] == "bot/executorch-1.5.1"
    assert world.comment("/executorch-pack-bot ignore", pr["number"]) == (0, {
        "action": "ignore", "version": "1.5.1", "pr": str(pr["number"])})
    assert pr["state"] == "closed"
    people_open(world.fake, others)   # 100 others: 101 pull requests, the bot's closed one alone on page 2

    world.fake.requests.clear()
    capsys.readouterr()
    code, out = world.check("--respect-ignored")
    assert (code, out["update-needed"], out["target"]) == (0, "false", "1.4.0")
    assert "# ignored by reviewers: 1.5.1" in capsys.readouterr().err
    # the ignored versions: every page of all pull requests, each of 100 (the open ones are listed apart, to recheck
    # the release an open bot pull request proposes)
    listed = [s for s in world.fake.requests if s.method == "GET" and s.path == f"/repos/{TEMPLATE}/pulls"
              and s.query.get("state") == "all"]
    assert len(listed) == -(-(others + 1) // 100)

    before = len(world.fake.writes())
    assert world.run("--respect-ignored") == 0
    assert world.fake.open_pulls(TEMPLATE) == [t for t in world.fake.open_pulls(TEMPLATE) if t["user"]["login"] == "bob"]
    assert len(world.fake.writes()) == before   # 1.5.1 is not proposed again
