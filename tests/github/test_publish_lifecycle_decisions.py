"""What the publisher decides on each state of the bot's branch and pull requests, compared whole: the result
(action, number, URL, pushed, closed, message), every write request to GitHub with its JSON, the progress
lines, and the branch on the remote (docs/publishing.md, "The branch lifecycle").
"""

from __future__ import annotations

import pytest

from bot.github.publish import PublishResult
from fakegithub import TEMPLATE
from publishcase import (BOT_EMAIL, BRANCH, FP, OTHER_FP, PR_API, TITLE, PublishCase, fp_marker, proposal,
                         published_body)

URL = "https://github.com/acme/fw-template/pull/{}"
NEW_TITLE = "Bump ExecuTorch to 1.5.2"
NEW_BODY = proposal("Pins move to 1.5.2.", OTHER_FP)


@pytest.fixture
def case(fake, tmp_path):
    return PublishCase(fake, tmp_path)


def create(body=None, draft=False, title=TITLE, version="1.5.1"):
    return ("POST", f"{PR_API}/pulls", {"base": "main", "head": BRANCH, "title": title,
                                         "body": published_body(body or proposal(), title, version=version),
                                         "draft": draft})


def newer(case, **kw):
    """Publish the 1.5.2 proposal (another fingerprint, title, body and file content)."""
    return case.publish(version="1.5.2", files={"README.md": b"bumped to 1.5.2\n"}, title=NEW_TITLE, body=NEW_BODY,
                        fingerprint=OTHER_FP, **kw)


def test_a_first_publish_pushes_one_bot_commit_on_the_base_and_opens_the_pr(case):
    out = case.publish()
    assert (out.result, out.writes, out.progress) == (
        PublishResult("created", 1, URL.format(1), pushed=True), [create()], [f"pushed {BRANCH}"])
    head = case.head()
    assert case.show(head, "%P|%an|%ae|%cn|%ce|%s") == \
        f"{case.main()}|github-actions[bot]|{BOT_EMAIL}|github-actions[bot]|{BOT_EMAIL}|{TITLE}"
    assert case.tree_file(head, "README.md") == "bumped"
    assert case.pull(1) == {"number": 1, "state": "open", "title": TITLE, "body": published_body(proposal()),
                            "head": BRANCH, "base": "main", "draft": False, "labels": []}


def test_a_draft_is_asked_for_on_creation(case):
    out = case.publish(draft=True)
    assert (out.result, out.writes) == (PublishResult("created", 1, URL.format(1), pushed=True),
                                        [create(draft=True)])
    assert case.pull(1)["draft"] is True


def test_a_rerun_with_nothing_new_sends_nothing_and_pushes_nothing(case):
    case.publish()
    head = case.head()
    out = case.publish()
    assert (out.result, out.writes, out.progress) == (PublishResult("unchanged", 1, URL.format(1)), [], [])
    assert case.head() == head


def test_a_new_proposal_moves_the_branch_and_rewrites_title_and_body(case):
    case.publish()
    out = newer(case)
    assert (out.result, out.writes, out.progress) == (
        PublishResult("updated", 1, URL.format(1), pushed=True),
        [("PATCH", f"{PR_API}/pulls/1", {"title": NEW_TITLE, "body": published_body(NEW_BODY, NEW_TITLE, version="1.5.2")})],
        [f"pushed {BRANCH}"])
    assert case.tree_file(case.head(), "README.md") == "bumped to 1.5.2"
    assert case.show(case.head(), "%P") == case.main()


def test_a_new_text_on_the_same_tree_edits_the_pr_without_a_push(case):
    case.publish()
    head = case.head()
    out = case.publish(title=NEW_TITLE, body=NEW_BODY)
    assert (out.result, out.writes, out.progress) == (
        PublishResult("updated", 1, URL.format(1)),
        [("PATCH", f"{PR_API}/pulls/1", {"title": NEW_TITLE, "body": published_body(NEW_BODY, NEW_TITLE)})], [])
    assert case.head() == head


def test_the_same_tree_on_a_branch_that_is_not_one_commit_on_the_base_is_pushed_again(case):
    """A branch holding the right tree but two commits (or another parent) is not "the same": it is replaced."""
    case.publish()
    second = case.commit_by(BRANCH, "github-actions[bot]", BOT_EMAIL, path="README.md")   # the bot's identity
    out = case.publish()
    assert (out.result, out.writes, out.progress) == (PublishResult("updated", 1, URL.format(1), pushed=True), [],
                                                      [f"pushed {BRANCH}"])
    assert case.head() != second and case.show(case.head(), "%P") == case.main()
    assert case.tree_file(case.head(), "README.md") == "bumped"


def test_a_pr_closed_unmerged_with_the_same_pins_is_not_proposed_again(case):
    case.publish()
    case.repo.pulls[1]["state"] = "closed"
    head = case.head()
    out = case.publish()
    assert (out.result, out.writes, out.progress) == (
        PublishResult("closed-before", 1, URL.format(1),
                      message="#1 proposed the same pins and was closed unmerged; not proposing them again"), [], [])
    assert case.head() == head


def test_closed_prs_of_other_pins_merged_ones_and_ignored_ones_do_not_block(case):
    case.fake.add_pull(TEMPLATE, head=BRANCH, title="old", body=proposal("old", OTHER_FP), state="closed")
    case.fake.add_pull(TEMPLATE, head=BRANCH, title="merged", body=proposal(), state="closed", merged=True)
    ignored = proposal() + '<!-- executorch-pack-bot:state {"closed_by": "ignore"} -->\n'
    case.fake.add_pull(TEMPLATE, head=BRANCH, title="ignored", body=ignored, state="closed")
    out = case.publish()
    assert (out.result, out.writes) == (PublishResult("created", 4, URL.format(4), pushed=True), [create()])


def test_an_open_pr_without_the_fingerprint_on_the_branch_stops_the_publish(case):
    case.fake.add_pull(TEMPLATE, head=BRANCH, title="mine", body="my own text", user="alice")
    out = case.publish()
    assert (out.result, out.writes, out.progress) == (
        PublishResult("foreign-pr", 1, URL.format(1),
                      message=f"#1 is open from branch {BRANCH} but carries no executorch-pack-bot fingerprint "
                              "(opened by someone else, or its body was edited); not pushing to its branch and "
                              "not opening another pull request. Merge or close it to hand the branch back"), [], [])
    assert case.head() is None


def test_prs_of_other_branches_and_of_forks_are_not_the_bots(case):
    """Only a PR whose head is the bot's branch in this repository counts, fingerprint or not."""
    case.fake.add_pull(TEMPLATE, head="feature", title="x", body=proposal())
    case.fake.add_pull(TEMPLATE, head=BRANCH, title="fork", body=proposal(), head_repo="alice/fw-template",
                       base="develop")
    out = case.publish()
    assert (out.result, out.writes) == (PublishResult("created", 3, URL.format(3), pushed=True), [create()])
    listed = [(s.path, s.query) for s in case.fake.requests if s.method == "GET" and s.path.endswith("/pulls")]
    assert listed == [(f"{PR_API}/pulls", {"state": "open", "head": f"acme:{BRANCH}", "per_page": "100"}),
                      (f"{PR_API}/pulls", {"state": "closed", "head": f"acme:{BRANCH}", "per_page": "100"})]


def foreign_comment(sha_lines):
    return ("<!-- executorch-pack-bot:foreign-commits -->\nThe branch `executorch-pack-bot/executorch` has commits "
            f"not made by executorch-pack-bot ({', '.join('`' + s + '`' for s in sha_lines)}), so the bot will not "
            "push to it. To hand it back, delete the branch (or reset it to the bot's last commit); the next run "
            "recreates it and opens a new pull request. To keep your changes, merge or close this pull request "
            "yourself.")


def test_a_commit_by_someone_else_stops_the_push_with_one_comment_kept_up_to_date(case):
    case.publish()
    sha = case.commit_by(BRANCH, "Alice", "alice@example.com")
    head = case.head()
    who = f"{sha[:7]} Alice <alice@example.com>"
    expected = PublishResult("foreign-commits", 1, URL.format(1),
                             message=f"branch {BRANCH} has commits by others ({who}); not pushing")
    out = newer(case)
    assert (out.result, out.writes, out.progress) == (
        expected, [("POST", f"{PR_API}/issues/1/comments", {"body": foreign_comment([who])})], [])
    out = newer(case)                                           # the same comment is not repeated
    assert (out.result, out.writes) == (expected, [])
    sha2 = case.commit_by(BRANCH, "Bob", "bob@example.com", path="BOB.md")
    out = newer(case)                                           # a new commit: the one comment is updated
    both = [f"{sha2[:7]} Bob <bob@example.com>", who]
    cid = case.repo.comments[1][0]["id"]
    assert (out.result, out.writes) == (
        PublishResult("foreign-commits", 1, URL.format(1),
                      message=f"branch {BRANCH} has commits by others ({', '.join(both)}); not pushing"),
        [("PATCH", f"{PR_API}/issues/comments/{cid}", {"body": foreign_comment(both)})])
    assert case.comments(1) == [foreign_comment(both)]
    assert case.head() != head and case.tree_file(case.head(), "README.md") == "bumped"


def test_a_comment_by_someone_else_is_never_taken_for_the_bots(case):
    case.publish()
    case.repo.comments[1] = []
    from fakegithub import STAMP
    case.repo.comments[1].append({"id": 5, "node_id": "IC_5", "body": "Looks good.", "user": case.fake._user("alice"),
                                  "url": f"{case.fake.url}{PR_API}/issues/comments/5",
                                  "html_url": "https://github.com/acme/fw-template/pull/1#issuecomment-5",
                                  "issue_url": f"{case.fake.url}{PR_API}/issues/1", "author_association": "NONE",
                                  "created_at": STAMP, "updated_at": STAMP})
    sha = case.commit_by(BRANCH, "Alice", "alice@example.com")
    out = newer(case)
    assert out.writes == [("POST", f"{PR_API}/issues/1/comments",
                           {"body": foreign_comment([f"{sha[:7]} Alice <alice@example.com>"])})]


def test_commits_by_others_without_an_open_pr_say_how_to_hand_the_branch_back(case):
    case.publish()
    case.repo.pulls[1]["state"] = "closed"
    sha = case.commit_by(BRANCH, "Alice", "alice@example.com")
    out = newer(case)
    assert (out.result, out.writes, out.progress) == (
        PublishResult("foreign-commits", None, None,
                      message=f"branch {BRANCH} has commits by others ({sha[:7]} Alice <alice@example.com>); not "
                              "pushing; no pull request is open from it: delete the branch to let the bot propose "
                              "again"), [], [])
    assert case.head() == sha


def test_recreate_replaces_commits_by_others(case):
    case.publish()
    case.commit_by(BRANCH, "Alice", "alice@example.com")
    out = newer(case, recreate=True)
    assert (out.result, out.progress) == (
        PublishResult("updated", 1, URL.format(1), pushed=True),
        [f"recreate: replacing 1 commit(s) by others on {BRANCH}", f"pushed {BRANCH}"])
    assert case.show(case.head(), "%P %ae") == f"{case.main()} {BOT_EMAIL}"


def test_a_branch_whose_last_pr_was_merged_is_reused_despite_commits_by_others(case):
    case.publish()
    case.commit_by(BRANCH, "Alice", "alice@example.com")
    case.repo.pulls[1].update(state="closed", merged=True, merged_at="2026-01-02T00:00:00Z")
    out = newer(case)
    assert (out.result, out.writes, out.progress) == (
        PublishResult("created", 2, URL.format(2), pushed=True),
        [create(NEW_BODY, title=NEW_TITLE, version="1.5.2")],
        [f"{BRANCH} has commits by others, but its last pull request was merged: reusing it", f"pushed {BRANCH}"])


def test_commits_by_others_after_a_rejected_pr_are_kept(case):
    """The newest closed PR decides: an older merged one does not free the branch."""
    case.fake.add_pull(TEMPLATE, head=BRANCH, title="old", body=proposal("old", "d" * 64), state="closed",
                       merged=True)
    case.publish()
    case.repo.pulls[2]["state"] = "closed"
    sha = case.commit_by(BRANCH, "Alice", "alice@example.com")
    out = newer(case)
    assert (out.result.action, out.result.number, out.writes) == ("foreign-commits", None, [])
    assert case.head() == sha


def test_nothing_left_to_propose_is_base_has_bump(case):
    out = case.publish(files={})
    assert (out.result, out.writes, out.progress) == (
        PublishResult("base-has-bump", message="main already carries the bump (it moved while the bot ran); "
                                               "nothing to propose"), [], [])
    assert case.head() is None


def test_a_file_already_as_proposed_is_left_out_of_the_commit(case):
    readme = (case.co / "README.md").read_bytes()
    out = case.publish(files={"README.md": readme, "NEW.md": b"new\n"})
    assert out.result == PublishResult("created", 1, URL.format(1), pushed=True)
    from fakegithub import git
    changed = git(case.tmp, "--git-dir", str(case.remote), "diff", "--name-status", "main", BRANCH)
    assert changed == "A\tNEW.md"


def test_the_configured_base_is_the_prs_base(fake, tmp_path):
    case = PublishCase(fake, tmp_path, base="release")
    from fakegithub import git
    git(case.tmp, "--git-dir", str(case.remote), "branch", "release", "main")
    out = case.publish()
    assert out.writes == [("POST", f"{PR_API}/pulls", {"base": "release", "head": BRANCH, "title": TITLE,
                                                       "body": published_body(proposal()), "draft": False})]


def test_the_fingerprint_marker_is_what_makes_a_pr_the_bots(case):
    """A bot-looking PR whose marker is malformed is someone else's."""
    case.fake.add_pull(TEMPLATE, head=BRANCH, title=TITLE, body=fp_marker("F" * 64))
    out = case.publish()
    assert out.result.action == "foreign-pr" and out.writes == []


def test_an_open_pr_makes_closed_ones_irrelevant(case):
    """With the bot's PR open, a closed rejected PR of the same pins does not stop its update."""
    case.fake.add_pull(TEMPLATE, head=BRANCH, title="rejected", body=proposal(), state="closed")
    case.publish(version="1.5.2", files={"README.md": b"old\n"}, title=NEW_TITLE, body=NEW_BODY,
                 fingerprint=OTHER_FP)
    out = case.publish()
    assert (out.result, out.writes) == (
        PublishResult("updated", 2, URL.format(2), pushed=True),
        [("PATCH", f"{PR_API}/pulls/2", {"title": TITLE, "body": published_body(proposal())})])


def test_an_open_pr_keeps_commits_by_others_even_after_an_older_merged_pr(case):
    case.fake.add_pull(TEMPLATE, head=BRANCH, title="merged", body=proposal("m", "d" * 64), state="closed",
                       merged=True)
    case.publish()
    sha = case.commit_by(BRANCH, "Alice", "alice@example.com")
    out = newer(case)
    assert (out.result.action, out.result.number) == ("foreign-commits", 2)
    assert case.head() == sha


@pytest.mark.parametrize("text", ["Ends with a letter X", "Ends with two spaces  "])
def test_the_stamp_follows_the_generated_body_as_it_ends(case, text):
    body = f"{fp_marker()}\n{text}\n"
    out = case.publish(body=body)
    assert out.writes[0][2]["body"] == published_body(body)
    assert out.writes[0][2]["body"].startswith(f"{fp_marker()}\n{text}\n<!-- executorch-pack-bot:body=")


def test_the_checkout_gains_only_the_bots_own_refs(case):
    case.publish()
    newer(case)
    from fakegithub import git
    refs = git(case.co, "for-each-ref", "--format=%(refname)").splitlines()
    assert refs == ["refs/executorch-pack-bot/base", "refs/executorch-pack-bot/head", "refs/heads/main",
                    "refs/remotes/origin/HEAD", f"refs/remotes/origin/{BRANCH}", "refs/remotes/origin/main"]


def moved_base(case):
    """A maintainer's commit on main of the remote after the checkout was made; returns its SHA."""
    from fakegithub import fresh_checkout, git
    work = fresh_checkout(case.remote, case.tmp / "maintainer")
    (work / "MAINTAINER.md").write_text("m\n")
    git(work, "add", "MAINTAINER.md")
    git(work, "commit", "-q", "-m", "maintainer")
    git(work, "push", "-q", "origin", "main")
    return git(work, "rev-parse", "HEAD")


def test_a_moved_base_is_planned_again_when_the_caller_can(case):
    base = moved_base(case)
    seen = []

    def replan(sha):
        seen.append(sha)
        return {"README.md": b"replanned\n"}
    readme = (case.co / "README.md").read_bytes()
    out = case.publish(originals={"README.md": readme}, replan=replan)
    from fakegithub import git
    head = git(case.co, "rev-parse", "HEAD")
    assert (out.result, seen, out.progress) == (
        PublishResult("created", 1, URL.format(1), pushed=True), [base],
        [f"main is at {base[:7]}, not at the checkout's {head[:7]}: planning the bump again on it",
         f"pushed {BRANCH}"])
    assert case.show(case.head(), "%P") == base and case.tree_file(case.head(), "README.md") == "replanned"
    assert case.tree_file(case.head(), "MAINTAINER.md") == "m"


def test_a_moved_base_gets_the_plans_line_changes_when_the_caller_cannot_plan_again(case):
    base = moved_base(case)
    readme = (case.co / "README.md").read_bytes()
    planned = b"BUMPED\n" + readme.split(b"\n", 1)[1]
    out = case.publish(files={"README.md": planned}, originals={"README.md": readme})
    assert (out.result, out.progress) == (PublishResult("created", 1, URL.format(1), pushed=True),
                                          [f"pushed {BRANCH}"])
    assert case.show(case.head(), "%P") == base
    assert case.tree_file(case.head(), "README.md") + "\n" == planned.decode()
