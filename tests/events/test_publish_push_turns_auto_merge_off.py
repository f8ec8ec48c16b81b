"""A push to an open pull request turns its auto-merge off (an approval covers what the approver saw), and
only a push does: compared whole, the GraphQL request, the comment, the progress lines (bot.events.automerge).
"""

from __future__ import annotations

import pytest

from bot.github.publish import PublishResult
from fakegithub_events import FakeGitHubEvents
from publishcase import BRANCH, OTHER_FP, PR_API, TOKEN, PublishCase, proposal

URL = "https://github.com/acme/fw-template/pull/1"
NOTE = "The bot pushed a new commit, so auto-merge is off until this pull request is approved again."


@pytest.fixture
def case(tmp_path, monkeypatch):
    fake = FakeGitHubEvents()
    url = fake.start()
    for k, v in {"GITHUB_API_URL": url, "EXECUTORCH_PACK_BOT_MAX_WAIT": "0", "EXECUTORCH_PACK_BOT_WRITE_PAUSE": "0",
                 "GITHUB_TOKEN": TOKEN}.items():
        monkeypatch.setenv(k, v)
    yield PublishCase(fake, tmp_path)
    fake.stop()


def auto_merge_on(case):
    case.repo.pulls[1]["auto_merge"] = {"merge_method": "squash", "enabled_by": case.fake._user("alice"),
                                        "commit_title": "t", "commit_message": ""}


def test_a_push_to_a_pr_with_auto_merge_turns_it_off_and_says_so(case):
    case.publish()
    auto_merge_on(case)
    out = case.publish(version="1.5.2", files={"README.md": b"1.5.2\n"}, body=proposal("new", OTHER_FP),
                       fingerprint=OTHER_FP)
    assert out.result == PublishResult("updated", 1, URL, pushed=True)
    assert [w[:2] for w in out.writes] == [("PATCH", f"{PR_API}/pulls/1"), ("POST", "/graphql"),
                                           ("POST", f"{PR_API}/issues/1/comments")]
    assert "disablePullRequestAutoMerge" in out.writes[1][2]["query"]
    assert out.writes[1][2]["variables"] == {"id": "PR_node1"}
    assert out.writes[2][2] == {"body": NOTE}
    assert out.progress == [f"pushed {BRANCH}", "auto-merge turned off on #1 (new push)"]
    assert case.repo.pulls[1]["auto_merge"] is None


def test_a_new_text_without_a_push_leaves_auto_merge_on(case):
    case.publish()
    auto_merge_on(case)
    out = case.publish(body=proposal("new text"))
    assert out.result == PublishResult("updated", 1, URL)
    assert [w[:2] for w in out.writes] == [("PATCH", f"{PR_API}/pulls/1")]
    assert case.repo.pulls[1]["auto_merge"] is not None


def test_a_push_to_a_pr_without_auto_merge_sends_nothing_more(case):
    case.publish()
    out = case.publish(version="1.5.2", files={"README.md": b"1.5.2\n"}, body=proposal("new", OTHER_FP),
                       fingerprint=OTHER_FP)
    assert [w[:2] for w in out.writes] == [("PATCH", f"{PR_API}/pulls/1")]
    assert out.progress == [f"pushed {BRANCH}"]
