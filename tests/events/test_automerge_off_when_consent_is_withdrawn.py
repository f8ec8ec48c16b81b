"""Auto-merge turned on by an approval stays on only while consent stands (``automerge: on-approval``).

The base branch requires a check and no approval (the bot's own rule), so
once auto-merge is on GitHub merges as soon as the check passes.  Every
event that withdraws consent turns it off and the bot says so on the PR: a
writer's "changes requested" review, the dismissal of a review, a hold
label, converting the PR to a draft (and, tested elsewhere, a new push).  A
later approval does not turn it on again while a writer's latest review
still asks for changes, the PR is a draft or it is held.

Payloads are GitHub's examples (@octokit/webhooks-examples) adapted to the
bot's PR; GitHub is the fake server (REST "List reviews for a pull request",
GraphQL ``disablePullRequestAutoMerge``).
"""

from __future__ import annotations

import pytest

from bot.events.router import load_behaviours
from eventworld import World
from fakegithub import TEMPLATE
from webhook_payloads import pull_request_target_event, review_event

NONE = {"action": "none", "version": "", "pr": ""}
OBJECTION = "The Ethos-U65 board fails with this pack; do not merge yet."


@pytest.fixture
def w(tmp_path, monkeypatch, capsys):
    world = World(tmp_path, monkeypatch, capsys)
    world.config("automerge: on-approval\n")
    world.fake.protection["main"] = ["template-ci"]
    yield world
    world.fake.stop()


def review(w, login, state, **kw):
    """``login`` submits a review (GitHub records it, then sends the event)."""
    if kw.get("action", "submitted") == "submitted":
        w.fake.add_review(TEMPLATE, w.pr["number"], login, state, w.pr["head"]["sha"])
    return w.command("pull_request_review", review_event(TEMPLATE, w.pr, state=state, login=login, **kw))


def approved(w):
    code, out, err, outputs = review(w, "alice", "approved")
    assert code == 0 and w.pr["auto_merge"] is not None
    w.fake.graphql.clear()
    return w


def disabled(w) -> bool:
    return w.pr["auto_merge"] is None and [("disablePullRequestAutoMerge" in g["query"]) for g in w.fake.graphql] == [True]


@pytest.mark.needs("webhooks")
def test_changes_requested_by_a_maintainer_after_an_approval_turns_auto_merge_off(w):
    approved(w)
    code, out, err, outputs = review(w, "mia", "changes_requested")
    n = w.pr["number"]
    assert (code, outputs) == (0, NONE)
    assert disabled(w)
    assert w.comments(n)[-1] == ("Auto-merge is off: mia asked for changes. A writer's approval of the head commit "
                                 "turns it on again once nothing holds the pull request.")
    assert f"# auto-merge turned off on #{n}: mia asked for changes" in out.splitlines()


@pytest.mark.needs("webhooks")
def test_the_dismissal_of_the_approval_turns_auto_merge_off(w):
    approved(w)
    rid = w.fake.reviews[(TEMPLATE, w.pr["number"])][0]["id"]
    w.fake.dismiss_review(TEMPLATE, w.pr["number"], rid)
    payload = review_event(TEMPLATE, w.pr, state="dismissed", login="alice", action="dismissed")
    payload["sender"] = {"login": "ada", "type": "User", "id": 7}
    code, out, err, outputs = w.command("pull_request_review", payload)
    assert code == 0 and disabled(w)
    assert w.comments(w.pr["number"])[-1].startswith("Auto-merge is off: ada dismissed a review of alice.")
    assert "pull_request_review.dismissed: no handler" not in out


@pytest.mark.needs("webhooks")
@pytest.mark.parametrize("label", ["do-not-merge", "Do Not Merge", "hold", "WIP"])
def test_a_hold_label_turns_auto_merge_off(w, label):
    approved(w)
    w.pr["labels"] = [w.fake._label(label, TEMPLATE)]
    code, out, err, outputs = w.command("pull_request_target",
                                        pull_request_target_event(TEMPLATE, w.pr, "labeled", login="mia", label=label))
    assert code == 0 and disabled(w)
    assert f"the label `{label}` holds this pull request" in w.comments(w.pr["number"])[-1]


@pytest.mark.needs("webhooks")
def test_another_label_changes_nothing(w):
    approved(w)
    before = len(w.fake.writes())
    code, out, err, outputs = w.command("pull_request_target", pull_request_target_event(
        TEMPLATE, w.pr, "labeled", login="mia", label="dependencies"))
    assert (code, w.fake.graphql, len(w.fake.writes())) == (0, [], before)
    assert w.pr["auto_merge"] is not None


@pytest.mark.needs("webhooks")
def test_converting_to_a_draft_turns_auto_merge_off(w):
    approved(w)
    w.pr["draft"] = True
    code, out, err, outputs = w.command("pull_request_target",
                                        pull_request_target_event(TEMPLATE, w.pr, "converted_to_draft", login="alice"))
    assert code == 0 and disabled(w)
    assert w.comments(w.pr["number"])[-1].startswith("Auto-merge is off: alice converted it to a draft.")


@pytest.mark.needs("webhooks")
def test_changes_requested_without_write_permission_leaves_auto_merge_on(w):
    approved(w)
    code, out, err, outputs = review(w, "rita", "changes_requested")
    assert (code, w.fake.graphql) == (0, []) and w.pr["auto_merge"] is not None
    assert "rita, who has no write permission" in out


@pytest.mark.needs("webhooks")
def test_withdrawal_when_auto_merge_is_off_costs_no_write(w):
    code, out, err, outputs = review(w, "mia", "changes_requested")
    assert (code, w.fake.writes()) == (0, [])
    assert "auto-merge was not on" in out


@pytest.mark.needs("webhooks")
def test_an_approval_does_not_override_a_writers_standing_objection(w):
    """Matticusau/pr-helper#16: one reviewer asked for changes, another approved, and the PR merged."""
    review(w, "mia", "changes_requested")
    code, out, err, outputs = review(w, "alice", "approved")
    assert (code, w.pr["auto_merge"], w.fake.graphql) == (0, None, [])
    assert w.comments(w.pr["number"])[-1] == ("Auto-merge was not enabled: mia asked for changes and has not "
                                              "approved since. Merge this pull request by hand when it is ready.")
    review(w, "mia", "approved")   # the objection is withdrawn by its author's approval
    assert w.pr["auto_merge"] is not None


@pytest.mark.needs("webhooks")
@pytest.mark.parametrize("hold", ["draft", "label"])
def test_an_approval_does_not_turn_auto_merge_on_for_a_held_pr(w, hold):
    if hold == "draft":
        w.pr["draft"] = True
    else:
        w.pr["labels"] = [w.fake._label("do-not-merge", TEMPLATE)]
    code, out, err, outputs = review(w, "alice", "approved")
    assert (code, w.pr["auto_merge"], w.fake.graphql) == (0, None, [])
    assert w.comments(w.pr["number"])[-1].startswith("Auto-merge was not enabled: ")


@pytest.mark.needs("webhooks")
def test_the_reviews_are_read_past_the_first_page(w):
    for i in range(130):
        w.fake.add_review(TEMPLATE, w.pr["number"], "bob", "COMMENTED")
    w.fake.add_review(TEMPLATE, w.pr["number"], "mia", "CHANGES_REQUESTED")
    code, out, err, outputs = review(w, "alice", "approved")
    assert w.pr["auto_merge"] is None and "mia asked for changes" in w.comments(w.pr["number"])[-1]


def test_every_event_that_withdraws_consent_has_a_handler():
    """The (event, action) pairs docs/reviewers.md lists are each handled by the router."""
    router = load_behaviours()
    for event, action in (("pull_request_review", "submitted"), ("pull_request_review", "dismissed"),
                          ("pull_request_target", "synchronize"), ("pull_request_target", "labeled"),
                          ("pull_request_target", "converted_to_draft")):
        assert router.handlers(event, action), (event, action)
