"""Per-version branches (``branch: ...-{version}``): the bot's PRs found among all, the superseded ones closed
with a comment; the refusal notice of a publish that did not push; the body stamp; and the template's
repository read from the push remote (docs/publishing.md).
"""

from __future__ import annotations

import hashlib

import pytest

from bot.errors import UsageError
from bot.github.publish import PublishResult, body_stamp, parse_stamp, refusal_notice, remote_repo, repo_full_name
from bot.github.publish import stamp_marker
from fakegithub import TEMPLATE, git
from publishcase import OTHER_FP, PR_API, PublishCase, proposal, published_body

TRACK = "executorch-pack-bot/executorch-{version}"
URL = "https://github.com/acme/fw-template/pull/{}"


@pytest.fixture
def case(fake, tmp_path):
    return PublishCase(fake, tmp_path, branch=TRACK)


def test_a_new_version_opens_its_own_pr_and_closes_the_superseded_one(case):
    first = case.publish()
    assert first.result == PublishResult("created", 1, URL.format(1), pushed=True)
    mark = len(case.fake.requests)
    out = case.publish(version="1.5.2", title="Bump ExecuTorch to 1.5.2", body=proposal("new", OTHER_FP),
                       fingerprint=OTHER_FP)
    body = published_body(proposal("new", OTHER_FP), "Bump ExecuTorch to 1.5.2", version="1.5.2")
    assert (out.result, out.writes, out.progress) == (
        PublishResult("created", 2, URL.format(2), pushed=True, closed=[1]),
        [("POST", f"{PR_API}/pulls", {"base": "main", "head": "executorch-pack-bot/executorch-1.5.2",
                                      "title": "Bump ExecuTorch to 1.5.2", "body": body, "draft": False}),
         ("POST", f"{PR_API}/issues/1/comments", {"body": "Superseded by #2: closing."}),
         ("PATCH", f"{PR_API}/pulls/1", {"state": "closed"})],
        ["pushed executorch-pack-bot/executorch-1.5.2", "closed #1"])
    assert case.head("executorch-pack-bot/executorch-1.5.1") and case.head("executorch-pack-bot/executorch-1.5.2")
    # the PRs of the track are listed once, without a head filter; the version's own with one
    lists = [(s.query.get("state"), s.query.get("head")) for s in case.fake.requests[mark:]
             if s.method == "GET" and s.path == f"{PR_API}/pulls"]
    assert lists == [("open", "acme:executorch-pack-bot/executorch-1.5.2"),
                     ("closed", "acme:executorch-pack-bot/executorch-1.5.2"), ("open", None)]


def test_a_rerun_of_the_same_version_closes_nothing(case):
    case.publish()
    out = case.publish()
    assert (out.result, out.writes) == (PublishResult("unchanged", 1, URL.format(1)), [])


def test_close_obsolete_when_the_base_is_already_on_the_version(case):
    case.publish()
    case.fake.add_pull(TEMPLATE, head="executorch-pack-bot/executorch-1.4.9", title="older", body=proposal("o", "d" * 64))
    case.fake.add_pull(TEMPLATE, head="executorch-pack-bot/executorch-1.5.0", title="a person's", body="no marker")
    case.fake.add_pull(TEMPLATE, head="executorch-pack-bot/executorch-1.5.0", title="fork", body=proposal(),
                       head_repo="alice/fw-template", base="develop")
    case.fake.add_pull(TEMPLATE, head="executorch-pack-bot/executorch-", title="no version", body=proposal())
    case.fake.add_pull(TEMPLATE, head="other/executorch-1.5.0", title="other track", body=proposal())
    mark = case.mark()
    assert case.pub.close_obsolete("1.5.1", keep=1) == [2]
    assert case.writes_since(mark) == [
        ("POST", f"{PR_API}/issues/2/comments",
         {"body": "The base branch already is on ExecuTorch 1.5.1; nothing left to do, closing."}),
        ("PATCH", f"{PR_API}/pulls/2", {"state": "closed"})]
    assert case.progress == ["closed #2"]
    assert case.pub.close_obsolete("1.5.1") == [1]
    assert [p["number"] for p in case.fake.open_pulls(TEMPLATE)] == [3, 4, 5, 6]


def test_the_bots_prs_of_a_track_are_matched_by_branch_repository_and_marker(case):
    case.fake.add_pull(TEMPLATE, head="executorch-pack-bot/executorch-1.5.0", title="mine", body=proposal())
    case.fake.add_pull(TEMPLATE, head="executorch-pack-bot/executorch-1.5.0", title="fork", body=proposal(),
                       head_repo="alice/fw-template", base="develop")
    case.fake.add_pull(TEMPLATE, head="executorch-pack-bot/executorch-1.5.0", title="person", body="mine",
                       base="next")
    case.fake.add_pull(TEMPLATE, head="executorch-pack-bot/executorch-1.5.0/x", title="deeper", body=proposal(),
                       base="x")
    case.fake.add_pull(TEMPLATE, head="executorch-pack-bot/executorch-1.5.0", title="MINE", body=proposal(),
                       head_repo="ACME/FW-TEMPLATE", base="upper")
    mine, others = case.pub._pulls("open")
    assert ([p.number for p in mine], [p.number for p in others]) == ([5, 1], [3])
    assert [p.number for p in case.pub.bot_pulls("open")] == [5, 1]


def test_a_person_opening_a_pr_from_another_versions_branch_does_not_stop_this_one(case):
    case.fake.add_pull(TEMPLATE, head="executorch-pack-bot/executorch-1.5.0", title="person", body="mine")
    out = case.publish()
    assert out.result == PublishResult("created", 2, URL.format(2), pushed=True)


# ------------------------------------------------------------------ notice
@pytest.mark.parametrize("result,notice", [
    (PublishResult("foreign-commits", 3, message="branch b has commits by others (x); not pushing"),
     "executorch-pack-bot did not push (#3): branch b has commits by others (x); not pushing"),
    (PublishResult("foreign-commits", None, message="m"), "executorch-pack-bot did not push: m"),
    (PublishResult("foreign-pr", 7, message="m"), "executorch-pack-bot did not push (#7): m"),
    (PublishResult("created", 1, message="m"), None),
    (PublishResult("closed-before", 1, message="m"), None),
    (PublishResult("unchanged", 1), None),
])
def test_the_refusal_notice_is_for_a_publish_that_kept_someones_work(result, notice):
    assert refusal_notice(result) == notice


def test_a_result_starts_with_nothing_done():
    r = PublishResult("unchanged")
    assert (r.number, r.url, r.pushed, r.closed, r.message, r.refusals) == (None, None, False, [], "", [])
    assert r.closed is not PublishResult("x").closed


# ------------------------------------------------------------------ stamp
def test_the_body_stamp_is_sha256_of_title_and_body_and_the_last_one_counts():
    digest = hashlib.sha256(b"T\n\nB").hexdigest()
    assert body_stamp("T", "B") == digest
    assert stamp_marker(digest) == f"<!-- executorch-pack-bot:body={digest} -->"
    other = "0" * 64
    assert parse_stamp(f"x\n{stamp_marker(other)}\ny\n<!--  executorch-pack-bot:body={digest}  -->\n") == digest
    assert (parse_stamp(None), parse_stamp(""), parse_stamp("<!-- executorch-pack-bot:body=abc -->")) == \
        (None, None, None)


# ------------------------------------------------------------------ repository
def remote_at(tmp_path, url, name="origin"):
    if not (tmp_path / ".git").exists():
        git(tmp_path, "init", "-q")
    git(tmp_path, "remote", "add", name, url)
    return tmp_path


@pytest.mark.parametrize("url,env,expected", [
    ("http://github.com/acme/fw.git", {}, "acme/fw"),
    ("git://github.com/acme/fw", {}, "acme/fw"),
    ("ftp://github.com/acme/fw", {}, None),
    ("https://GitHub.com/acme/fw", {}, "acme/fw"),
    ("git@github.com:/acme/fw.git", {}, "acme/fw"),
    ("git@github.com:acme/fw/", {}, "acme/fw"),
    ("https://ghe.example.com/acme/fw.git", {"GITHUB_SERVER_URL": "https://GHE.example.com"}, "acme/fw"),
    ("https://github.com/acme/fw.git", {"GITHUB_SERVER_URL": "https://ghe.example.com"}, None),
    ("git@ghe.example.com:acme/fw.git", {"GITHUB_SERVER_URL": "https://ghe.example.com/"}, "acme/fw"),
    ("https://github.com/acme", {}, None),
    ("https://[::1/acme/fw", {}, None),
    ("https://github.com/acme/fw", {"GITHUB_SERVER_URL": "no-scheme"}, "acme/fw"),    # no host: github.com
    ("https:///acme/fw", {"GITHUB_SERVER_URL": "https://xxxx"}, None),                  # a URL without a host
    ("/srv/git/fw.git", {}, None),
])
def test_the_repository_named_by_the_remote_url(tmp_path, url, env, expected):
    assert remote_repo(remote_at(tmp_path, url), env=env) == expected


def test_no_such_remote_names_no_repository(tmp_path):
    git(tmp_path, "init", "-q")
    assert remote_repo(tmp_path, env={}) is None
    remote_at(tmp_path, "https://github.com/acme/fw", "upstream")
    assert remote_repo(tmp_path, "upstream", env={}) == "acme/fw"


def test_the_repository_from_the_argument_the_environment_or_the_remote(tmp_path):
    git(tmp_path, "init", "-q")
    with pytest.raises(UsageError) as ei:
        repo_full_name(tmp_path, None, env={})
    assert str(ei.value) == ("cannot tell the template's GitHub repository; pass --github-repo OWNER/NAME or set "
                             "GITHUB_REPOSITORY")
    assert repo_full_name(tmp_path, "acme/fw", env={"GITHUB_REPOSITORY": "other/x"}) == "acme/fw"
    assert repo_full_name(tmp_path, None, env={"GITHUB_REPOSITORY": "other/x", "x": ""}) == "other/x"
    remote_at(tmp_path, "/srv/git/fw.git")            # not GitHub: nothing to compare with
    assert repo_full_name(tmp_path, None, env={"GITHUB_REPOSITORY": "other/x"}) == "other/x"


def test_a_named_repository_must_be_the_push_remotes(tmp_path):
    remote_at(tmp_path, "https://github.com/acme/fw.git")
    with pytest.raises(UsageError) as ei:
        repo_full_name(tmp_path, "other/x", env={})
    assert str(ei.value) == ("--github-repo names other/x but git remote 'origin' of the checkout is acme/fw; the "
                             "branch and the pull request must be in the same repository")
    assert repo_full_name(tmp_path, "ACME/FW", env={}) == "ACME/FW"


def test_the_server_of_the_environment_decides_which_remote_is_github(tmp_path):
    remote_at(tmp_path, "https://ghe.example.com/acme/fw.git")
    with pytest.raises(UsageError) as ei:
        repo_full_name(tmp_path, "other/x", env={"GITHUB_SERVER_URL": "https://ghe.example.com"})
    assert str(ei.value).startswith("--github-repo names other/x but git remote 'origin' of the checkout is acme/fw")
    assert repo_full_name(tmp_path, None, env={"GITHUB_SERVER_URL": "https://ghe.example.com"}) == "acme/fw"


def test_a_pr_whose_head_repository_is_gone_is_nobodys(case):
    """GitHub answers ``head.repo: null`` when the fork the PR came from was deleted (its REST description
    says otherwise for the listing, so the answer is exempt from the contract check)."""
    case.fake.off_contract = True
    gone = case.fake.add_pull(TEMPLATE, head="executorch-pack-bot/executorch-1.5.0", title="gone", body=proposal())
    gone["head"]["repo"] = None
    case.fake.add_pull(TEMPLATE, head="executorch-pack-bot/executorch-1.5.0", title="gone", body="no marker",
                       base="develop")["head"]["repo"] = None
    assert case.pub._pulls("open") == ([], [])


def test_close_obsolete_on_a_fixed_branch_closes_its_open_pr(fake, tmp_path):
    case = PublishCase(fake, tmp_path)
    case.publish()
    mark = case.mark()
    assert case.pub.close_obsolete("1.5.1") == [1]
    assert case.writes_since(mark) == [
        ("POST", f"{PR_API}/issues/1/comments",
         {"body": "The base branch already is on ExecuTorch 1.5.1; nothing left to do, closing."}),
        ("PATCH", f"{PR_API}/pulls/1", {"state": "closed"})]
    assert [(s.query.get("state"), s.query.get("head")) for s in case.fake.requests[mark:] if s.method == "GET"] == \
        [("open", "acme:executorch-pack-bot/executorch")]
