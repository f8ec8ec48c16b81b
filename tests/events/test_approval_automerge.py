"""Approval that merges (``automerge: on-approval``): a writer's approval of the bot's PR enables auto-merge.

``pull_request_review`` payloads are GitHub's examples adapted to the bot's
PR; GitHub (REST and GraphQL) is the fake server.  The bot never merges:
no request to the merge endpoint is ever made.
"""

from __future__ import annotations

import itertools
import json

import pytest

from bot.cli import main
from bot.config import load_config
from bot.errors import UsageError
from eventworld import HEAD_SHA, World, read_outputs
from fakegithub import TEMPLATE, UPSTREAM, add_sample_release, fresh_checkout, make_template_remote, pypi_json
from fakegithub_events import FakeGitHubEvents
from webhook_payloads import review_event, synchronize_event

NONE = {"action": "none", "version": "", "pr": ""}


@pytest.fixture
def w(tmp_path, monkeypatch, capsys):
    world = World(tmp_path, monkeypatch, capsys)
    world.config("automerge: on-approval\n")
    world.fake.protection["main"] = ["ci/build"]
    yield world
    world.fake.stop()


def approve(w, login="alice", state="approved", pull=None, **kw):
    return w.command("pull_request_review", review_event(TEMPLATE, pull or w.pr, state=state, login=login, **kw))


def no_merge(w):
    return not any(s.path.endswith("/merge") for s in w.fake.requests)


@pytest.mark.needs("webhooks")
def test_a_writers_approval_enables_auto_merge(w):
    code, out, err, outputs = approve(w)
    n = w.pr["number"]
    assert (code, outputs) == (0, NONE)
    assert (w.pr["auto_merge"]["merge_method"], w.pr["auto_merge"]["enabled_by"]["login"]) == ("squash", w.fake.bot_login)
    assert [g["variables"] for g in w.fake.graphql] == [{"id": w.pr["node_id"], "method": "SQUASH", "head": HEAD_SHA}]
    assert "expectedHeadOid: $head" in w.fake.graphql[0]["query"]
    assert "enablePullRequestAutoMerge" in w.fake.graphql[0]["query"]
    assert w.writes() == [("POST", "/graphql"), ("POST", f"/repos/{TEMPLATE}/issues/{n}/comments")]
    assert w.comments(n) == ["Approved: auto-merge is on (squash) for commit `a1b2c3d4e5a1`; GitHub merges this pull "
                             "request when its 1 required check pass. Any new push turns it off until a new approval."]
    assert no_merge(w)


@pytest.mark.needs("webhooks")
def test_merge_method_is_configurable(w):
    w.config("automerge: on-approval\nmerge-method: rebase\n")
    approve(w, login="mia")
    assert w.fake.graphql[0]["variables"]["method"] == "REBASE" and w.pr["auto_merge"]["merge_method"] == "rebase"


@pytest.mark.needs("webhooks")
def test_required_checks_from_a_ruleset_count(w):
    w.fake.protection.clear()
    w.fake.rules["main"] = ["test (3.12)"]
    approve(w)
    assert w.pr["auto_merge"] is not None


@pytest.mark.needs("webhooks")
def test_without_automerge_in_the_config_an_approval_does_nothing(w):
    w.config("labels: [dependencies]\n")
    code, out, err, outputs = approve(w)
    assert (code, outputs, w.fake.requests) == (0, NONE, [])


@pytest.mark.needs("webhooks")
def test_repository_without_auto_merge_gets_the_reason_and_nothing_else(w):
    w.fake.settings["allow_auto_merge"] = False
    code, out, err, outputs = approve(w)
    n = w.pr["number"]
    assert (code, outputs, w.fake.graphql) == (0, NONE, [])
    assert w.writes() == [("POST", f"/repos/{TEMPLATE}/issues/{n}/comments")]
    assert w.comments(n) == ["Auto-merge was not enabled: auto-merge is not allowed in this repository (Settings > "
                             "General > Pull Requests > Allow auto-merge). Merge this pull request by hand when it "
                             "is ready."]
    assert w.pr["auto_merge"] is None and no_merge(w)


@pytest.mark.needs("webhooks")
def test_no_required_check_gets_the_reason_and_nothing_else(w):
    w.fake.protection.clear()
    approve(w)
    n = w.pr["number"]
    assert w.fake.graphql == [] and w.pr["auto_merge"] is None
    assert w.comments(n) == ["Auto-merge was not enabled: no status check is required on `main` (branch protection "
                             "or a ruleset), so GitHub would merge at once whether the checks pass or not. Merge this "
                             "pull request by hand when it is ready."]


@pytest.mark.needs("webhooks")
def test_graphql_refusal_is_replied_not_raised(w):
    """The REST answer does not say (the field is missing without admin rights); GraphQL refuses: the reply says so."""
    w.fake.settings.pop("allow_auto_merge")

    def refuse(body):
        w.fake.graphql.append(body)
        return w.fake._json({"data": None, "errors": [{"message": "Auto merge is not allowed for this repository"}]})
    w.fake._graphql = refuse
    code, out, err, outputs = approve(w)
    assert code == 0 and w.pr["auto_merge"] is None
    [reply] = w.comments(w.pr["number"])
    assert reply.startswith("Auto-merge was not enabled: GitHub refused to enable auto\\-merge on \\#&#8203;")
    assert "Auto merge is not allowed for this repository" in reply


# ------------------------------------------------------------------ exactly the approved commit
@pytest.mark.needs("webhooks")
def test_an_approval_of_an_older_commit_is_refused_with_a_reply(w):
    """The review is of commit A; the head is B: nothing is enabled, and the reply names both."""
    code, out, err, outputs = approve(w, commit_id="0f" * 20)
    n = w.pr["number"]
    assert (code, outputs, w.fake.graphql, w.pr["auto_merge"]) == (0, NONE, [], None)
    assert w.writes() == [("POST", f"/repos/{TEMPLATE}/issues/{n}/comments")]
    assert w.comments(n) == ["Auto-merge was not enabled: the approval is of commit `0f0f0f0f0f0f`, but the head of "
                             "this pull request is now `a1b2c3d4e5a1`; approve the head commit to turn auto-merge on. "
                             "Merge this pull request by hand when it is ready."]


@pytest.mark.needs("webhooks")
def test_a_head_that_moved_after_the_event_was_sent_is_refused(w):
    """The event's PR JSON still shows the approved head; a fresh read shows a newer one: refused."""
    payload = review_event(TEMPLATE, w.pr)
    w.pr["head"]["sha"] = "be" * 20
    code, out, err, outputs = w.command("pull_request_review", payload)
    assert (w.fake.graphql, w.pr["auto_merge"]) == ([], None)
    assert w.comments(w.pr["number"])[0].startswith("Auto-merge was not enabled: the approval is of commit "
                                                    "`a1b2c3d4e5a1`, but the head of this pull request is now "
                                                    "`bebebebebebe`")


@pytest.mark.needs("webhooks")
def test_github_refuses_when_the_head_moves_between_the_read_and_the_mutation(w):
    """``expectedHeadOid`` is the approved commit: a push racing the job makes GitHub refuse, and the bot replies."""
    real = w.fake._graphql

    def racing(body):
        w.pr["head"]["sha"] = "cd" * 20      # the push lands after the bot read the PR
        return real(body)
    w.fake._graphql = racing
    approve(w)
    assert w.pr["auto_merge"] is None
    assert w.comments(w.pr["number"]) == [
        "Auto-merge was not enabled: GitHub refused to enable auto\\-merge on \\#&#8203;1: HTTP 400:  \\(Head sha "
        "didn't match expected head sha\\). Merge this pull request by hand when it is ready."]


@pytest.mark.needs("webhooks")
def test_a_push_by_anyone_turns_auto_merge_off(w):
    approve(w)
    assert w.pr["auto_merge"] is not None
    before = w.pr["head"]["sha"]
    w.pr["head"]["sha"] = "ee" * 20
    code, out, err, outputs = w.command("pull_request_target", synchronize_event(TEMPLATE, w.pr, before=before,
                                                                                login="mia"))
    n = w.pr["number"]
    assert (code, outputs, w.pr["auto_merge"]) == (0, NONE, None)
    assert [g["variables"] for g in w.fake.graphql][-1] == {"id": w.pr["node_id"]}
    assert "disablePullRequestAutoMerge" in w.fake.graphql[-1]["query"]
    assert w.comments(n)[-1] == ("The head of this pull request moved to `eeeeeeeeeeee`, which no approval covers, so "
                                 "auto-merge is off until the new head is approved.")


@pytest.mark.needs("webhooks")
def test_a_push_to_a_pr_without_auto_merge_costs_no_write(w):
    before = w.pr["head"]["sha"]
    w.pr["head"]["sha"] = "ee" * 20
    w.command("pull_request_target", synchronize_event(TEMPLATE, w.pr, before=before))
    assert w.writes() == []


@pytest.mark.needs("webhooks")
def test_a_push_to_another_pr_costs_no_request(w):
    w.other["auto_merge"] = {"merge_method": "merge"}
    w.command("pull_request_target", synchronize_event(TEMPLATE, w.other, before="00" * 20))
    assert w.fake.requests == [] and w.other["auto_merge"] == {"merge_method": "merge"}


# ------------------------------------------------------------------ the repository's own rules
@pytest.mark.needs("webhooks")
def test_required_approvals_are_named_in_the_reply(w):
    w.fake.rules["main"] = ["test"]
    w.fake.rule_extra["main"] = [{"type": "pull_request", "parameters": {
        "dismiss_stale_reviews_on_push": True, "require_code_owner_review": False, "require_last_push_approval": False,
        "required_approving_review_count": 2, "required_review_thread_resolution": False}}]
    approve(w)
    assert w.comments(w.pr["number"]) == [
        "Approved: auto-merge is on (squash) for commit `a1b2c3d4e5a1`; GitHub merges this pull request when its 2 "
        "required checks pass and it has the 2 required approving reviews. Any new push turns it off until a new "
        "approval."]


@pytest.mark.needs("webhooks")
def test_a_merge_queue_is_left_to_people(w):
    w.fake.rule_extra["main"] = [{"type": "merge_queue", "parameters": {
        "check_response_timeout_minutes": 60, "grouping_strategy": "ALLGREEN", "max_entries_to_build": 5,
        "max_entries_to_merge": 5, "merge_method": "SQUASH", "min_entries_to_merge": 1,
        "min_entries_to_merge_wait_minutes": 5}}]
    approve(w)
    assert w.fake.graphql == [] and w.pr["auto_merge"] is None
    assert w.comments(w.pr["number"]) == ["Auto-merge was not enabled: `main` merges through a merge queue, which the "
                                          "bot leaves to people. Merge this pull request by hand when it is ready."]


@pytest.mark.needs("webhooks")
def test_rules_the_bot_cannot_read_leave_the_merge_to_people(w):
    w.fake.off_contract = True   # GitHub's description lists no 403 here; a token without the right gets one
    w.fake.fail_paths[f"/repos/{TEMPLATE}/rules/branches/main"] = 403
    code, out, err, outputs = approve(w)
    assert code == 0 and w.fake.graphql == [] and w.pr["auto_merge"] is None
    [reply] = w.comments(w.pr["number"])
    assert reply.startswith("Auto-merge was not enabled: the bot could not read the rules of `main` (")
    assert reply.endswith("), so it cannot tell what GitHub would merge. Merge this pull request by hand when it is "
                          "ready.")


@pytest.mark.needs("webhooks")
def test_with_the_workflows_github_token_the_reply_says_the_merge_starts_no_workflow(w, monkeypatch):
    monkeypatch.setenv("EXECUTORCH_PACK_BOT_DEFAULT_TOKEN", "true")
    approve(w)
    assert w.comments(w.pr["number"])[0].endswith(
        "Note: auto-merge was enabled with the workflow's GITHUB_TOKEN, so the merge starts no workflow (the base "
        "branch's CI does not run on it); give the workflow a GitHub App (app-id) to avoid that.")


@pytest.mark.needs("webhooks")
@pytest.mark.parametrize("login", ["rita", "tom", "stranger"])
def test_an_approval_without_write_permission_changes_nothing(w, login):
    code, out, err, outputs = approve(w, login=login)
    assert (code, outputs, w.writes()) == (0, NONE, [])


@pytest.mark.needs("webhooks")
def test_an_approval_by_a_bot_costs_no_request(w):
    code, out, err, outputs = approve(w, login="some-app[bot]", kind="Bot")
    assert (code, outputs, w.fake.requests) == (0, NONE, [])


@pytest.mark.needs("webhooks")
def test_a_comment_review_costs_no_request(w):
    code, out, err, outputs = approve(w, state="commented")
    assert (code, outputs, w.fake.requests) == (0, NONE, [])


@pytest.mark.needs("webhooks")
@pytest.mark.parametrize("state,action", [("changes_requested", "submitted"), ("dismissed", "dismissed")])
def test_a_withdrawal_while_auto_merge_is_off_costs_no_write(w, state, action):
    """Such reviews turn auto-merge off when it is on (tests/events/test_automerge_off_when_consent_is_withdrawn.py);
    when it is off there is nothing to turn off."""
    code, out, err, outputs = approve(w, state=state, action=action)
    assert (code, outputs, w.fake.writes()) == (0, NONE, [])
    assert "auto-merge was not on" in out


@pytest.mark.needs("webhooks")
def test_an_approval_of_another_pr_changes_nothing(w):
    code, out, err, outputs = approve(w, pull=w.other)
    assert (code, outputs, w.writes()) == (0, NONE, [])


@pytest.mark.needs("webhooks")
def test_an_approval_of_a_closed_bot_pr_changes_nothing(w):
    w.pr["state"] = "closed"
    assert approve(w)[3] == NONE and w.writes() == []


@pytest.mark.parametrize("text,line,msg", [
    ("automerge: always\n", 1, "automerge: 'always' is not one of off, on-approval"),
    ("automerge: on-approval\nmerge-method: fast-forward\n", 2, "merge-method: 'fast-forward' is not one of squash"),
    ("dashboard: yes please\n", 1, "dashboard: expected true or false")])
def test_bad_settings_name_file_and_line(tmp_path, text, line, msg):
    (tmp_path / ".github").mkdir()
    (tmp_path / ".github/executorch-pack-bot.yml").write_text(text)
    with pytest.raises(UsageError) as e:
        load_config(tmp_path)
    assert (e.value.path, e.value.line) == (".github/executorch-pack-bot.yml", line)
    assert msg in e.value.message


def test_settings_are_read(tmp_path):
    (tmp_path / ".github").mkdir()
    (tmp_path / ".github/executorch-pack-bot.yml").write_text(
        "automerge: on-approval\nmerge-method: merge\ndashboard: true\n")
    c = load_config(tmp_path)
    assert (c.automerge, c.merge_method, c.dashboard) == ("on-approval", "merge", True)


# ------------------------------------------------------------------ a new push turns auto-merge off
@pytest.mark.needs("webhooks")
def test_a_new_push_by_the_bot_turns_auto_merge_off_until_a_new_approval(tmp_path, monkeypatch, capsys):
    fake = FakeGitHubEvents()
    url = fake.start()
    try:
        add_sample_release(fake, "v1.4.0", created_at="2026-06-01T00:00:00Z")
        add_sample_release(fake, "v1.5.1", created_at="2026-09-01T00:00:00Z")
        fake.repo(TEMPLATE)
        fake.roles["alice"] = "write"
        fake.protection["main"] = ["ci/build"]
        for v in ("1.5.1", "1.5.2"):
            fake.pypi[("executorch", v)] = pypi_json("executorch", v, requires_dist=["torch>=2.14.0a0"])
        remote = make_template_remote(tmp_path)
        for k, v in {"GITHUB_API_URL": url, "EXECUTORCH_PACK_BOT_INDEX_URL": url, "EXECUTORCH_PACK_BOT_MAX_WAIT": "0",
                     "EXECUTORCH_PACK_BOT_WRITE_PAUSE": "0", "GITHUB_REPOSITORY": TEMPLATE,
                     "GITHUB_TOKEN": "ghs_PUSHSECRET", "GITHUB_OUTPUT": str(tmp_path / "out")}.items():
            monkeypatch.setenv(k, v)
        for k in ("GITHUB_STEP_SUMMARY", "GITHUB_ACTIONS", "EXECUTORCH_PACK_BOT_CACHE"):
            monkeypatch.delenv(k, raising=False)
        cfg = tmp_path / "cfg"
        (cfg / ".github").mkdir(parents=True)
        (cfg / ".github/executorch-pack-bot.yml").write_text("automerge: on-approval\n")
        counter = itertools.count()

        def run():
            co = fresh_checkout(remote, tmp_path / f"run{next(counter)}")
            return main(["run", "--repo", str(co), "--upstream", f"github:{UPSTREAM}"])

        def event(name, payload):
            p = tmp_path / f"e{next(counter)}.json"
            p.write_text(json.dumps(payload))
            return main(["command", "--event-name", name, "--event-path", str(p), "--repo", str(cfg)])

        assert run() == 0
        [pr] = fake.open_pulls(TEMPLATE)
        assert event("pull_request_review", review_event(TEMPLATE, pr)) == 0
        assert pr["auto_merge"] is not None

        assert run() == 0                    # nothing new: no push, auto-merge stays on
        assert pr["auto_merge"] is not None and len(fake.graphql) == 1

        add_sample_release(fake, "v1.5.2", source_tag="v1.5.1", created_at="2026-10-01T00:00:00Z")
        assert run() == 0                    # the bot pushes 1.5.2 to the same branch and PR
        assert pr["title"] == "Bump ExecuTorch to 1.5.2"
        assert pr["auto_merge"] is None
        assert "disablePullRequestAutoMerge" in fake.graphql[-1]["query"]
        assert fake.repo(TEMPLATE).comments[pr["number"]][-1]["body"].startswith("The bot pushed a new commit")

        assert event("pull_request_review", review_event(TEMPLATE, pr)) == 0   # a new approval turns it on again
        assert pr["auto_merge"] is not None
        assert not any(s.path.endswith("/merge") for s in fake.requests)
        assert read_outputs(tmp_path / "out")["action"] == "none"
    finally:
        fake.stop()


@pytest.mark.needs("webhooks")
def test_a_refusal_is_one_log_line_and_no_decision(w):
    w.fake.protection.clear()
    code, out, err, outputs = approve(w)
    assert out == ("# auto-merge not enabled on #1: no status check is required on `main` (branch protection or a "
                   "ruleset), so GitHub would merge at once whether the checks pass or not\n"
                   "action=none\nversion=\npr=\n")


def test_a_failed_disable_names_what_the_bot_tried(w):
    """GitHub refuses to turn auto-merge off: the error says so (the push handler then exits non-zero)."""
    from bot.errors import PlatformError
    from bot.events.automerge import disable_after_push
    from bot.github.client import make_github
    from eventworld import TOKEN

    def refuse(body):
        w.fake.graphql.append(body)
        return w.fake._json({"data": None, "errors": [{"message": "Resource not accessible by integration"}]})
    w.fake._graphql = refuse
    with pytest.raises(PlatformError) as exc:
        disable_after_push(make_github(TOKEN), TEMPLATE, 1, {"auto_merge": {"merge_method": "squash"},
                                                             "node_id": w.pr["node_id"]})
    assert exc.value.message.startswith("GitHub refused to disable auto-merge on #1: ")
    w.fake._graphql = lambda body: w.fake._json({"data": {"x": {"pullRequest": {"number": 1}}}})
    w.fake.off_contract = True
    w.fake.fail_paths[f"/repos/{TEMPLATE}/issues/1/comments"] = 403
    with pytest.raises(PlatformError) as exc:
        disable_after_push(make_github(TOKEN), TEMPLATE, 1, {"auto_merge": {"merge_method": "squash"},
                                                             "node_id": w.pr["node_id"]})
    assert exc.value.message.startswith("GitHub refused to comment on #1: ")


@pytest.mark.needs("webhooks")
def test_checks_listed_only_under_checks_count(w):
    """Branch protection may name its required checks with their app (``checks``) and no ``contexts``."""
    w.fake.protection["main"] = ["ci/build", "ci/test"]
    w.fake.protection_contexts = False
    approve(w)
    assert w.pr["auto_merge"] is not None
    assert "when its 2 required checks pass." in w.comments(w.pr["number"])[0]


@pytest.mark.needs("webhooks")
def test_required_approvals_from_branch_protection_are_named(w):
    w.fake.protection_reviews["main"] = 1
    approve(w)
    assert "when its 1 required check pass and it has the 1 required approving review. " in w.comments(
        w.pr["number"])[0]


@pytest.mark.needs("webhooks")
def test_a_server_without_rulesets_reads_as_no_ruleset(w):
    """GitHub Enterprise without rulesets answers 404 for the rules of a branch: branch protection alone decides."""
    w.fake.off_contract = True
    w.fake.fail_paths[f"/repos/{TEMPLATE}/rules/branches/main"] = 404
    approve(w)
    assert w.pr["auto_merge"] is not None


@pytest.mark.needs("webhooks")
def test_a_required_check_without_a_name_is_no_check(w):
    """A ruleset entry without a ``context`` names no check: with nothing else required, the merge is refused."""
    w.fake.protection.clear()
    w.fake.off_contract = True
    w.fake.rule_extra["main"] = [{"type": "required_status_checks", "parameters": {
        "strict_required_status_checks_policy": False, "required_status_checks": [{"integration_id": 5}]}}]
    approve(w)
    assert w.pr["auto_merge"] is None
    assert w.comments(w.pr["number"])[0].startswith("Auto-merge was not enabled: no status check is required on `main`")


@pytest.mark.needs("webhooks")
def test_unreadable_settings_leave_the_merge_to_people_with_githubs_words_capped(w):
    w.fake.off_contract = True
    path = f"/repos/{TEMPLATE}"
    w.fake.fail_paths[path] = 403
    w.fake.fail_messages[path] = "x" * 600
    approve(w)
    [reply] = w.comments(w.pr["number"])
    words = reply.split("(", 1)[1].rsplit("), so it cannot tell", 1)[0]
    assert words.startswith("GitHub refused to read the repository settings: HTTP 403")
    assert len(words) == 201 and words.endswith("…")
    assert w.fake.graphql == [] and w.pr["auto_merge"] is None


# ------------------------------------------------------------------ what the rules are read from
@pytest.mark.needs("webhooks")
@pytest.mark.parametrize("path,what", [("branches/main", "read branch main"),
                                       ("rules/branches/main", "read the rules of branch main")])
def test_an_unreadable_branch_or_ruleset_names_the_request_in_the_reply(w, path, what):
    w.fake.off_contract = True   # GitHub's description lists no 403 here; a token without the right gets one
    w.fake.fail_paths[f"/repos/{TEMPLATE}/{path}"] = 403
    approve(w)
    assert (w.fake.graphql, w.pr["auto_merge"]) == ([], None)
    assert w.comments(w.pr["number"]) == [
        f"Auto-merge was not enabled: the bot could not read the rules of `main` (GitHub refused to {what}: HTTP 403: "
        "Resource not accessible by integration), so it cannot tell what GitHub would merge. Merge this pull request "
        "by hand when it is ready."]


@pytest.mark.needs("webhooks")
def test_checks_listed_only_under_contexts_count(w):
    """An older server's branch protection names its required checks under ``contexts`` alone (no ``checks``)."""
    w.fake.off_contract = True
    w.fake.protection["main"] = ["ci/build", "ci/test"]
    w.fake.protection_checks = False
    approve(w)
    assert w.pr["auto_merge"] is not None
    assert w.comments(w.pr["number"]) == [
        "Approved: auto-merge is on (squash) for commit `a1b2c3d4e5a1`; GitHub merges this pull request when its 2 "
        "required checks pass. Any new push turns it off until a new approval."]


@pytest.mark.needs("webhooks")
def test_a_malformed_rule_entry_is_skipped_and_the_rules_after_it_still_count(w):
    w.fake.off_contract = True
    w.fake.rule_extra["main"] = ["not a rule", {"type": "merge_queue", "parameters": {}}]
    approve(w)
    assert (w.fake.graphql, w.pr["auto_merge"]) == ([], None)
    assert w.comments(w.pr["number"]) == ["Auto-merge was not enabled: `main` merges through a merge queue, which the "
                                          "bot leaves to people. Merge this pull request by hand when it is ready."]
