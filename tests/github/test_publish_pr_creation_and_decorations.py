"""Opening the pull request when GitHub refuses part of it, compared whole: a repository without draft pull
requests, a creation that fails for good (the branch this run created is deleted again, an earlier one kept),
a transient failure after the push, and the decorations (labels) GitHub refuses, noted in the body run after
run (docs/publishing.md; bot.github.decorations).
"""

from __future__ import annotations

import pytest

from bot.errors import PlatformError, TransientError
from bot.github.decorations import NOTES_START, Record, Refusal, tail
from bot.github.publish import PublishResult
from fakegithub import TEMPLATE, Fault
from publishcase import BRANCH, OTHER_FP, PR_API, TITLE, PublishCase, proposal, published_body, record

URL = "https://github.com/acme/fw-template/pull/{}"
CREATE = ("POST", f"{PR_API}/pulls")
NO_DRAFTS = "HTTP 422: Validation Failed (Draft pull requests are not supported in this repository.)"


def create(draft, body):
    return (*CREATE, {"base": "main", "head": BRANCH, "title": TITLE, "body": body, "draft": draft})


def draft_tail(reason):
    return tail([Refusal("draft", reason)], Record(set(), {"draft": reason}))


@pytest.mark.parametrize("given,reason", [("a blocking flag", "a blocking flag"), ("", "the config asks for a draft")])
def test_a_repository_without_drafts_gets_a_regular_pr_saying_why(fake, tmp_path, given, reason):
    case = PublishCase(fake, tmp_path)
    case.repo.drafts_supported = False
    out = case.publish(draft=True, draft_reason=given)
    body = published_body(proposal(), tail=draft_tail(reason))
    assert (out.result, out.writes, out.progress) == (
        PublishResult("created", 1, URL.format(1), pushed=True, refusals=[Refusal("draft", reason, 1)]),
        [create(True, published_body(proposal())), create(False, body)], [f"pushed {BRANCH}"])
    assert case.pull(1)["draft"] is False and case.pull(1)["body"] == body
    # the next run repeats the warning without asking GitHub again
    out = case.publish(draft=True, draft_reason=given)
    assert (out.result, out.writes) == (
        PublishResult("unchanged", 1, URL.format(1), refusals=[Refusal("draft", reason, 1)]), [])


def test_a_draft_already_a_draft_needs_no_note(fake, tmp_path):
    case = PublishCase(fake, tmp_path)
    case.publish(draft=True)
    out = case.publish(draft=True)
    assert (out.result, out.writes) == (PublishResult("unchanged", 1, URL.format(1)), [])


@pytest.mark.parametrize("commit", ["git", "api"])
def test_a_creation_refused_for_good_deletes_the_branch_this_run_pushed(fake, tmp_path, commit):
    case = PublishCase(fake, tmp_path, commit=commit)
    fake.link_git(TEMPLATE, case.remote)
    fake.faults.append(Fault("POST", r"/pulls$", 422, {"message": "Validation Failed",
                                                      "errors": [{"message": "base is protected"}]}))
    out = case.publish()
    assert isinstance(out.result, PlatformError) and not isinstance(out.result, TransientError)
    assert str(out.result) == (f"GitHub refused to create the pull request for {BRANCH}: HTTP 422: Validation "
                               "Failed (base is protected)")
    assert case.head() is None
    assert [w[:2] for w in out.writes][-2:] == [CREATE, ("DELETE", f"{PR_API}/git/refs/heads/{BRANCH}")] \
        if commit == "api" else [w[:2] for w in out.writes] == [CREATE]


def test_a_branch_that_cannot_be_deleted_again_is_said_and_the_refusal_stands(fake, tmp_path):
    case = PublishCase(fake, tmp_path, commit="api")
    fake.link_git(TEMPLATE, case.remote)
    fake.faults.append(Fault("POST", r"/pulls$", 422, {"message": "Validation Failed"}))
    fake.faults.append(Fault("DELETE", r"/git/refs/", 422, {"message": "Reference cannot be deleted"}))
    out = case.publish()
    assert str(out.result) == f"GitHub refused to create the pull request for {BRANCH}: HTTP 422: Validation Failed"
    assert out.progress == [f"pushed {BRANCH}",
                            f"could not delete {BRANCH}: GitHub refused to delete the branch {BRANCH}: HTTP 422: "
                            "Reference cannot be deleted"]
    assert case.head() is not None


def test_a_regular_pr_refused_after_the_draft_refusal_deletes_the_branch(fake, tmp_path):
    case = PublishCase(fake, tmp_path)
    case.repo.drafts_supported = False
    from github_world import override
    calls = []

    def respond(req, orig):
        calls.append(req.method)
        if len(calls) == 2:
            from werkzeug.wrappers import Response
            import json
            return Response(json.dumps({"message": "Validation Failed", "errors": [{"message": "head is gone"}]}),
                            status=422, mimetype="application/json")
        return orig()
    override(fake, lambda req: req.method == "POST" and req.path.endswith("/pulls"), respond)
    out = case.publish(draft=True)
    assert str(out.result) == (f"GitHub refused to create the pull request for {BRANCH}: HTTP 422: Validation "
                               "Failed (head is gone)")
    assert case.head() is None and calls == ["POST", "POST"]


def test_a_creation_refused_on_a_branch_left_by_an_earlier_run_keeps_the_branch(fake, tmp_path):
    case = PublishCase(fake, tmp_path)
    case.publish()
    case.repo.pulls[1]["state"] = "closed"
    fake.faults.append(Fault("POST", r"/pulls$", 422, {"message": "Validation Failed"}))
    out = case.publish(version="1.5.2", files={"README.md": b"1.5.2\n"}, body=proposal("new", OTHER_FP),
                       fingerprint=OTHER_FP)
    assert isinstance(out.result, PlatformError) and out.progress == [f"pushed {BRANCH}"]
    assert case.tree_file(case.head(), "README.md") == "1.5.2"


def test_a_transient_failure_after_a_push_to_an_existing_branch_says_the_branch_moved(fake, tmp_path, monkeypatch):
    monkeypatch.setenv("EXECUTORCH_PACK_BOT_ATTEMPTS", "1")
    case = PublishCase(fake, tmp_path)
    case.publish()
    fake.faults.append(Fault("PATCH", r"/pulls/1$", 502, {"message": "Bad Gateway"}, times=5))
    out = case.publish(version="1.5.2", files={"README.md": b"1.5.2\n"}, body=proposal("new", OTHER_FP),
                       fingerprint=OTHER_FP)
    assert isinstance(out.result, TransientError)
    assert out.result.advice == (f"branch {BRANCH} was pushed but its pull request was not brought up to date; "
                                 "the run can be repeated")


def test_a_transient_failure_without_a_push_keeps_the_usual_advice(fake, tmp_path, monkeypatch):
    monkeypatch.setenv("EXECUTORCH_PACK_BOT_ATTEMPTS", "1")
    case = PublishCase(fake, tmp_path)
    case.publish()
    fake.faults.append(Fault("PATCH", r"/pulls/1$", 502, {"message": "Bad Gateway"}, times=5))
    out = case.publish(body=proposal("new text"))
    assert isinstance(out.result, TransientError)
    assert out.result.advice == "nothing was changed; the run can be repeated"


def test_a_transient_failure_creating_the_pr_keeps_the_usual_advice(fake, tmp_path, monkeypatch):
    """The branch this run created is deleted again, so nothing was changed."""
    monkeypatch.setenv("EXECUTORCH_PACK_BOT_ATTEMPTS", "1")
    case = PublishCase(fake, tmp_path)
    fake.faults.append(Fault("POST", r"/pulls$", 502, {"message": "Bad Gateway"}, times=5))
    out = case.publish()
    assert isinstance(out.result, TransientError)
    assert out.result.advice == "nothing was changed; the run can be repeated"


# ------------------------------------------------------------------ decorations
def labels(*names):
    return ("POST", f"{PR_API}/issues/1/labels", {"labels": list(names)})


def test_labels_are_asked_for_once_and_recorded(fake, tmp_path):
    case = PublishCase(fake, tmp_path, labels=("executorch", "deps"))
    out = case.publish()
    body = published_body(proposal(), tail=record(["label:executorch", "label:deps"]) + "\n")
    assert (out.result, out.writes) == (PublishResult("created", 1, URL.format(1), pushed=True),
                                        [create(False, body), labels("executorch", "deps")])
    assert case.pull(1)["labels"] == ["executorch", "deps"]
    out = case.publish()
    assert (out.result, out.writes) == (PublishResult("unchanged", 1, URL.format(1)), [])


LABEL_REFUSAL = (422, {"message": "Validation Failed",
                       "documentation_url": "https://docs.github.com/rest/issues/labels#add-labels-to-an-issue"})


def refused_label_tail(number=None, asked=("label:bad",)):
    reason = "HTTP 422: Validation Failed"
    return tail([Refusal("label:bad", reason, number)], Record(set(asked), {"label:bad": reason}))


def test_a_refused_label_is_noted_in_the_body_and_repeated_without_asking_again(fake, tmp_path):
    case = PublishCase(fake, tmp_path, labels=("bad",))
    case.repo.label_refusals["bad"] = LABEL_REFUSAL
    out = case.publish()
    noted = published_body(proposal(), tail=refused_label_tail(1))
    assert NOTES_START in noted
    assert (out.result, out.writes, out.progress) == (
        PublishResult("created", 1, URL.format(1), pushed=True,
                      refusals=[Refusal("label:bad", "HTTP 422: Validation Failed", 1)]),
        [create(False, published_body(proposal(), tail=record(["label:bad"]) + "\n")), labels("bad"),
         ("PATCH", f"{PR_API}/pulls/1", {"body": noted})], [f"pushed {BRANCH}"])
    out = case.publish()
    assert (out.result, out.writes) == (
        PublishResult("unchanged", 1, URL.format(1), refusals=[Refusal("label:bad", "HTTP 422: Validation Failed", 1)]),
        [])
    # a new proposal asks again for what was refused
    out = case.publish(title="Bump ExecuTorch to 1.5.2", body=proposal("new"))
    assert [w[:2] for w in out.writes] == [labels("bad")[:2], ("PATCH", f"{PR_API}/pulls/1")]
    assert out.result.action == "updated" and out.result.refusals == [
        Refusal("label:bad", "HTTP 422: Validation Failed", 1)]


def test_a_note_that_cannot_be_written_is_said_and_the_pr_stands(fake, tmp_path):
    case = PublishCase(fake, tmp_path, labels=("bad",))
    case.repo.label_refusals["bad"] = LABEL_REFUSAL
    fake.faults.append(Fault("PATCH", r"/pulls/1$", 422, {"message": "Body is too long"}))
    out = case.publish()
    assert (out.result.action, out.result.number, out.progress) == (
        "created", 1, [f"pushed {BRANCH}", "could not note the refused decorations in #1: GitHub refused to note "
                                           "the refused decorations in #1: HTTP 422: Body is too long"])


def test_a_label_the_config_added_later_is_asked_for_on_an_unchanged_pr(fake, tmp_path):
    case = PublishCase(fake, tmp_path)
    case.publish()
    from dataclasses import replace
    case.pub.config = case.config = replace(case.config, labels=("executorch",))
    out = case.publish()
    body = published_body(proposal(), tail=record(["label:executorch"]) + "\n")
    assert (out.result, out.writes) == (PublishResult("unchanged", 1, URL.format(1)),
                                        [labels("executorch"), ("PATCH", f"{PR_API}/pulls/1", {"body": body})])
    # a label the config dropped leaves the record
    case.pub.config = case.config = replace(case.config, labels=())
    out = case.publish()
    assert (out.result, out.writes) == (PublishResult("unchanged", 1, URL.format(1)),
                                        [("PATCH", f"{PR_API}/pulls/1", {"body": published_body(proposal())})])


def test_a_reviewers_edits_above_the_stamp_are_kept_when_only_the_notes_change(fake, tmp_path):
    case = PublishCase(fake, tmp_path)
    case.publish()
    pr = case.repo.pulls[1]
    pr["body"] = "Tested on hardware.\n" + pr["body"]
    from dataclasses import replace
    case.pub.config = replace(case.config, labels=("executorch",))
    out = case.publish()
    assert out.writes[-1] == ("PATCH", f"{PR_API}/pulls/1", {
        "body": "Tested on hardware.\n" + published_body(proposal(), tail=record(["label:executorch"]) + "\n")})


def test_the_ignore_list_in_the_body_is_carried_over_a_rewrite(fake, tmp_path):
    case = PublishCase(fake, tmp_path)
    case.publish()
    block = '<!-- executorch-pack-bot:state {"ignored": ["1.6.0"]} -->'
    case.repo.pulls[1]["body"] += block + "\n"
    out = case.publish(title="Bump ExecuTorch to 1.5.2", body=proposal("new"))
    from bot.events.state import load
    sent = out.writes[0][2]["body"]
    assert load(sent) == {"ignored": ["1.6.0"], "version": "1.5.1"}   # the reviewers' list and the bot's record
    assert sent.startswith(published_body(proposal("new"), "Bump ExecuTorch to 1.5.2").split(
        "<!-- executorch-pack-bot:state")[0])


def test_a_draft_no_longer_asked_for_drops_its_note(fake, tmp_path):
    case = PublishCase(fake, tmp_path)
    case.repo.drafts_supported = False
    case.publish(draft=True, draft_reason="a blocking flag")
    out = case.publish(draft=False)
    assert (out.result, out.writes) == (PublishResult("unchanged", 1, URL.format(1)),
                                        [("PATCH", f"{PR_API}/pulls/1", {"body": published_body(proposal())})])


def test_a_pr_that_became_a_draft_needs_no_draft_note(fake, tmp_path):
    case = PublishCase(fake, tmp_path)
    case.repo.drafts_supported = False
    case.publish(draft=True, draft_reason="a blocking flag")
    case.repo.pulls[1]["draft"] = True          # drafts became available and a person converted it
    out = case.publish(draft=True, draft_reason="a blocking flag")
    assert (out.result, out.writes) == (PublishResult("unchanged", 1, URL.format(1)),
                                        [("PATCH", f"{PR_API}/pulls/1", {"body": published_body(proposal())})])


def test_a_new_proposal_on_a_repository_without_drafts_asks_nothing_but_keeps_the_note(fake, tmp_path):
    case = PublishCase(fake, tmp_path)
    case.repo.drafts_supported = False
    case.publish(draft=True)
    out = case.publish(draft=True, title="Bump ExecuTorch to 1.5.2", body=proposal("new"))
    reason = "the config asks for a draft"
    assert (out.result, out.writes) == (
        PublishResult("updated", 1, URL.format(1), refusals=[Refusal("draft", reason, 1)]),
        [("PATCH", f"{PR_API}/pulls/1", {"title": "Bump ExecuTorch to 1.5.2", "body": published_body(
            proposal("new"), "Bump ExecuTorch to 1.5.2",
            tail=tail([Refusal("draft", reason, 1)], Record(set(), {"draft": reason})))})])


def test_a_branch_git_cannot_delete_again_leaves_the_creations_refusal_as_the_error(fake, tmp_path):
    """Deleting the branch after a refused creation is best effort: git's own failure is not the error."""
    case = PublishCase(fake, tmp_path)
    hook = case.remote / "hooks" / "pre-receive"
    hook.write_text("#!/bin/sh\nwhile read old new ref; do\n"
                    "  [ \"$new\" = 0000000000000000000000000000000000000000 ] && echo 'deletion refused' && exit 1\n"
                    "done\nexit 0\n")
    hook.chmod(0o755)
    fake.faults.append(Fault("POST", r"/pulls$", 422, {"message": "Validation Failed"}))
    out = case.publish()
    assert failure_text(out.result) == (f"GitHub refused to create the pull request for {BRANCH}: HTTP 422: "
                                        "Validation Failed")
    assert case.head() is not None


def failure_text(exc):
    assert isinstance(exc, PlatformError) and not isinstance(exc, TransientError), exc
    return str(exc)


def test_refusals_come_draft_first_then_by_kind_and_name(fake, tmp_path):
    case = PublishCase(fake, tmp_path, labels=("bad",), assignees=("mallory",))
    case.repo.drafts_supported = False
    case.repo.collaborators = {"alice"}
    case.repo.label_refusals["bad"] = LABEL_REFUSAL
    out = case.publish(draft=True, draft_reason="a blocking flag")
    assert out.result.refusals == [
        Refusal("draft", "a blocking flag", 1),
        Refusal("assignee:mallory", "GitHub left it out: not a user who can be assigned in this repository", 1),
        Refusal("label:bad", "HTTP 422: Validation Failed", 1)]


def test_commit_api_has_github_make_the_commit_and_move_the_branch(fake, tmp_path):
    case = PublishCase(fake, tmp_path, commit="api")
    fake.link_git(TEMPLATE, case.remote)
    out = case.publish()
    assert (out.result, [w[:2] for w in out.writes]) == (
        PublishResult("created", 1, URL.format(1), pushed=True),
        [("POST", f"{PR_API}/git/blobs"), ("POST", f"{PR_API}/git/trees"), ("POST", f"{PR_API}/git/commits"),
         ("POST", f"{PR_API}/git/refs"), CREATE])
    assert case.repo.ref_updates == [(f"refs/heads/{BRANCH}", case.head())]
    assert case.show(case.head(), "%P %ce") == f"{case.main()} noreply@github.com"
