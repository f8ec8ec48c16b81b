"""Under act, with docs/example-caller-reviewers.yml as the caller: consent withdrawn in the workflow run turns auto-merge off.

A writer approves the bot's PR (auto-merge on), then a maintainer submits a
"changes requested" review: the event reaches the bot (the caller subscribes
to it, the approval job's ``if:`` lets it through), the bot disables
auto-merge (GraphQL ``disablePullRequestAutoMerge``) and posts the reply.
The job checks out only the default branch and the pinned bot, as for an
approval.  Payloads are GitHub's examples (@octokit/webhooks-examples).
"""

from __future__ import annotations

import pytest

from actworld import REVIEWERS_CALLER, TEMPLATE, TEMPLATE_WHEELS, ActWorld, bot_commit, empty_wheel, session_site
from eventworld import PR_BODY
from webhook_payloads import pull_request_target_event, review_event, synchronize_event

pytestmark = pytest.mark.workflow

BOT_BRANCH = "executorch-pack-bot/executorch"


@pytest.fixture(scope="session")
def bot_repo(tmp_path_factory):
    return bot_commit(tmp_path_factory.mktemp("bot"))


@pytest.fixture(scope="session")
def wheels(tmp_path_factory):
    d = tmp_path_factory.mktemp("wheels")
    for name, version in TEMPLATE_WHEELS:
        empty_wheel(d, name, version)
    return d


@pytest.fixture(scope="session")
def site(tmp_path_factory):
    return session_site(tmp_path_factory.mktemp("site") / "venv")


@pytest.fixture
def aw(tmp_path, bot_repo, wheels, site):
    w = ActWorld(tmp_path, bot_repo, wheels, site)
    w.CALLER = REVIEWERS_CALLER      # the caller that subscribes to reviews and pushes (the reviewer layer)
    w.template_commit({".github/executorch-pack-bot.yml": ("automerge: on-approval\n", 0o644)})
    w.fake.protection["main"] = ["template-ci"]     # a required check, no required approval
    w.fake.roles["mia"] = "maintain"
    yield w
    w.fake.stop()


def replies(aw, number):
    return [c["body"] for c in aw.fake.repo(TEMPLATE).comments.get(number, [])]


@pytest.mark.needs("webhooks")
def test_changes_requested_after_an_approval_turns_auto_merge_off_in_the_workflow_run(aw):
    pr = aw.fake.add_pull(TEMPLATE, head=BOT_BRANCH, title="chore(deps): bump ExecuTorch to 1.5.1", body=PR_BODY)
    aw.fake.add_review(TEMPLATE, pr["number"], "alice", "APPROVED", pr["head"]["sha"])
    run = aw.run("pull_request_review", review_event(TEMPLATE, pr, login="alice"))
    assert (run.code, run.jobs) == (0, {"approval": "success"}), run
    assert pr["auto_merge"]["merge_method"] == "squash"

    aw.fake.add_review(TEMPLATE, pr["number"], "mia", "CHANGES_REQUESTED", pr["head"]["sha"])
    run = aw.run("pull_request_review", review_event(TEMPLATE, pr, state="changes_requested", login="mia"))
    assert (run.code, run.jobs) == (0, {"approval": "success"}), run        # the event reached the bot
    assert pr["auto_merge"] is None                                          # the bot disabled auto-merge
    assert "disablePullRequestAutoMerge" in aw.fake.graphql[-1]["query"]
    assert replies(aw, pr["number"])[-1].startswith("Auto-merge is off: mia asked for changes.")   # reply posted
    assert "auto-merge turned off on #%d: mia asked for changes" % pr["number"] in run.log


def test_a_hold_label_turns_auto_merge_off_in_the_workflow_run(aw):
    pr = aw.fake.add_pull(TEMPLATE, head=BOT_BRANCH, title="Bump ExecuTorch to 1.5.1", body=PR_BODY)
    pr["auto_merge"] = {"merge_method": "squash", "enabled_by": aw.fake._user(aw.fake.bot_login, "Bot"),
                        "commit_title": "", "commit_message": ""}
    pr["labels"] = [aw.fake._label("do-not-merge", TEMPLATE)]
    run = aw.run("pull_request_target", pull_request_target_event(TEMPLATE, pr, "labeled", login="mia",
                                                                  label="do-not-merge"))
    assert (run.code, run.jobs) == (0, {"approval": "success"}), run
    assert pr["auto_merge"] is None
    assert "the label `do-not-merge` holds this pull request" in replies(aw, pr["number"])[-1]


@pytest.mark.needs("webhooks")
def test_a_push_to_and_an_approval_of_a_pr_not_the_bots_start_no_job(aw):
    """The approval job's ``if:`` turns away a PR that is not the bot's (its body has no fingerprint): under act,
    as on GitHub, no job of the workflow starts, so no runner is billed; nothing is asked of the fake GitHub."""
    pr = aw.fake.add_pull(TEMPLATE, head="feature/readme", title="Fix the README", body="Typo fixes.", user="alice")
    before = len(aw.fake.requests)
    push = aw.run("pull_request_target", synchronize_event(TEMPLATE, pr, before="0" * 40, login="alice"))
    approve = aw.run("pull_request_review", review_event(TEMPLATE, pr, login="mia"))
    for run in (push, approve):
        assert run.code == 0, run
        assert [j for j in run.jobs if run.ran(j)] == [], run
    assert replies(aw, pr["number"]) == [] and aw.fake.graphql == []
    assert len(aw.fake.requests) == before
