"""When GitHub refuses one of the publisher's requests, the error names the operation and the pull request:
one case per request the publisher sends, compared whole (the message and the error class).
"""

from __future__ import annotations

import pytest

from bot.errors import PlatformError, TransientError
from fakegithub import TEMPLATE, Fault
from publishcase import BRANCH, OTHER_FP, PublishCase, proposal

REFUSED = {"message": "Nope"}


def refusal(case, method, path):
    case.fake.faults.append(Fault(method, path, 422, REFUSED))


def newer(case):
    return case.publish(version="1.5.2", files={"README.md": b"1.5.2\n"}, title="Bump ExecuTorch to 1.5.2",
                        body=proposal("new", OTHER_FP), fingerprint=OTHER_FP).result


def failure(exc):
    assert isinstance(exc, PlatformError) and not isinstance(exc, TransientError), exc
    return str(exc)


def test_listing_the_prs_of_a_fixed_branch(fake, tmp_path):
    case = PublishCase(fake, tmp_path)
    refusal(case, "GET", r"/pulls$")
    assert failure(case.publish().result) == "GitHub refused to list pull requests of acme/fw-template: HTTP 422: Nope"


def test_listing_the_prs_of_a_version_track(fake, tmp_path):
    case = PublishCase(fake, tmp_path, branch="executorch-pack-bot/executorch-{version}")
    case.publish()
    refusal(case, "GET", r"/pulls$")
    with pytest.raises(PlatformError) as ei:
        case.pub.bot_pulls("open")
    assert failure(ei.value) == "GitHub refused to list pull requests of acme/fw-template: HTTP 422: Nope"


@pytest.mark.parametrize("method,path,what", [("POST", r"/issues/1/comments$", "comment on #1"),
                                              ("PATCH", r"/pulls/1$", "close #1")])
def test_closing_an_obsolete_pr(fake, tmp_path, method, path, what):
    case = PublishCase(fake, tmp_path)
    case.publish()
    refusal(case, method, path)
    with pytest.raises(PlatformError) as ei:
        case.pub.close_obsolete("1.5.1")
    assert failure(ei.value) == f"GitHub refused to {what}: HTTP 422: Nope"


def test_updating_the_pr(fake, tmp_path):
    case = PublishCase(fake, tmp_path)
    case.publish()
    refusal(case, "PATCH", r"/pulls/1$")
    assert failure(newer(case)) == "GitHub refused to update #1: HTTP 422: Nope"


def test_updating_the_notes_of_the_pr(fake, tmp_path):
    from dataclasses import replace
    case = PublishCase(fake, tmp_path)
    case.publish()
    case.pub.config = replace(case.config, labels=("executorch",))
    refusal(case, "PATCH", r"/pulls/1$")
    assert failure(case.publish().result) == "GitHub refused to update the notes of #1: HTTP 422: Nope"


@pytest.mark.parametrize("method,path,what,before", [
    ("GET", r"/issues/1/comments$", "list comments of #1", 0),
    ("POST", r"/issues/1/comments$", "comment on #1", 0),
    ("PATCH", r"/issues/comments/\d+$", "update the comment on #1", 1),
])
def test_the_comment_about_commits_by_others(fake, tmp_path, method, path, what, before):
    case = PublishCase(fake, tmp_path)
    case.publish()
    case.commit_by(BRANCH, "Alice", "alice@example.com")
    if before:
        newer(case)
        case.commit_by(BRANCH, "Bob", "bob@example.com", path="BOB.md")
    refusal(case, method, path)
    assert failure(newer(case)) == f"GitHub refused to {what}: HTTP 422: Nope"


def test_a_pr_of_another_repository_on_a_version_track_is_left_alone(fake, tmp_path):
    case = PublishCase(fake, tmp_path, branch="executorch-pack-bot/executorch-{version}")
    fake.add_pull(TEMPLATE, head="executorch-pack-bot/executorch-1.5.0", title="fork", body=proposal(),
                  head_repo="alice/fw-template", base="develop")
    assert case.pub.close_obsolete("1.5.1") == []
