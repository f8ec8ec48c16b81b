"""The workflow side of comment commands, approval and the dashboard (reusable workflow and caller example).

The rules: the jobs reading an event check out only the template's default
branch and the pinned bot (never the PR's branch or a ``refs/pull`` ref),
each with only the permissions it needs; the bump jobs run on the schedule,
a dispatch, or a command asking for a run, with the command's version and
the same pinned bot; the caller example wires the three events.
"""

from __future__ import annotations

import pytest

import re

import yaml

from test_workflows import ACTION, CALLER, REUSABLE, REVIEWERS_CALLER, _load

EVENT_JOBS = ("command", "approval", "dashboard")


def _jobs():
    return _load(REUSABLE)["jobs"]


def test_event_jobs_check_out_only_the_default_branch_and_the_pinned_bot():
    text = REUSABLE.read_text()
    for job_id in EVENT_JOBS:
        job = _jobs()[job_id]
        # the job-level if: may read the name of the PR's head repository (only the bot's PR starts a runner),
        # never its ref or commit; the steps read nothing of the PR's head
        gate = str(job.get("if", ""))
        assert not re.search(r"head\.(ref|sha)|refs/pull|github\.head_ref", gate), job_id
        assert set(re.findall(r"pull_request\.head[\w.]*", gate)) <= {"pull_request.head.repo.full_name"}, job_id
        dumped = yaml.safe_dump({k: v for k, v in job.items() if k != "if"})
        assert not re.search(r"head\.(ref|sha)|refs/pull|github\.head_ref|pull_request\.head", dumped), job_id
        checkouts = [s for s in job["steps"] if str(s.get("uses", "")).startswith("actions/checkout@")]
        assert len(checkouts) == 2, job_id
        for s in checkouts:
            w = s["with"]
            assert w["persist-credentials"] is False
            if "repository" in w:
                assert (w["repository"], w["ref"]) == ("${{ job.workflow_repository || inputs.bot-repository }}", "${{ job.workflow_sha || inputs.bot-ref }}")
            else:
                assert w["ref"] == "${{ github.event.repository.default_branch }}", job_id
        bots = [s for s in job["steps"] if s.get("uses") == "./.executorch-pack-bot"]
        assert [s["with"]["command"] for s in bots] == (["dashboard"] if job_id == "dashboard" else ["command"])
    assert "workflow_run" not in text
    # pull_request_target (a push to the bot's PR turns auto-merge off) reaches the approval job only
    assert [j for j, job in _jobs().items() if "pull_request_target" in yaml.safe_dump(job)] == ["approval"]


def test_event_jobs_have_only_the_permissions_they_need():
    jobs = _jobs()
    assert jobs["command"]["permissions"] == {"issues": "write", "pull-requests": "write"}
    assert jobs["approval"]["permissions"] == {"contents": "write", "pull-requests": "write"}
    assert jobs["dashboard"]["permissions"] == {"contents": "read", "issues": "write", "pull-requests": "read"}
    assert jobs["watch"]["permissions"] == {"contents": "read", "issues": "read", "pull-requests": "read"}


def test_event_jobs_run_only_for_their_events():
    jobs = _jobs()
    assert "github.event_name == 'issue_comment'" in jobs["command"]["if"]
    assert "startsWith(github.event.comment.body, '/executorch-pack-bot ')" in jobs["command"]["if"]
    assert "github.event_name == 'issues'" in jobs["command"]["if"]
    assert "github.event.review.state == 'approved'" in jobs["approval"]["if"]
    assert "github.event.review.state == 'changes_requested'" in jobs["approval"]["if"]
    assert "pull_request_review" not in jobs["command"]["if"]


def test_the_bump_runs_only_when_the_schedule_a_dispatch_or_a_command_asks():
    jobs = _jobs()
    watch = jobs["watch"]
    assert watch["needs"] == "command"
    cond = " ".join(watch["if"].split())
    assert "github.event_name == 'schedule' || github.event_name == 'workflow_dispatch'" in cond
    assert """contains(fromJSON('["recheck", "rebuild", "recreate"]'), needs.command.outputs.action)""" in cond
    check = next(s for s in watch["steps"] if s.get("uses") == "./.executorch-pack-bot")
    # the result test first: act hands on a skipped job's outputs as their expression text (nektos/act#2467)
    assert check["with"]["version"] == (
        "${{ needs.command.result == 'success' && needs.command.outputs.version || inputs.version }}")
    assert check["with"]["args"] == "--respect-ignored"
    assert watch["outputs"]["force-build"] == (
        "${{ inputs.force-build || needs.command.result == 'success' && needs.command.outputs.action == 'rebuild' }}")
    assert "needs.watch.outputs.force-build" in jobs["build-pack"]["if"]
    assert "needs.watch.outputs.force-build" in jobs["fetch-pack"]["if"]
    publish = next(s for s in jobs["pull-request"]["steps"] if s.get("with", {}).get("command") == "publish")
    assert "needs.watch.outputs.recreate == 'true' && '--recreate'" in publish["with"]["args"]


def test_every_bot_checkout_is_the_same_pinned_bot():
    for job_id, job in _jobs().items():
        for s in job.get("steps", []):
            w = s.get("with") or {}
            if str(s.get("uses", "")).startswith("actions/checkout@") and "repository" in w:
                # the workflow's own repository and commit (the caller's uses: line); GHES: the fallback inputs
                assert (w["repository"], w["ref"]) == ("${{ job.workflow_repository || inputs.bot-repository }}", "${{ job.workflow_sha || inputs.bot-ref }}"), job_id


def test_the_reviewer_layer_caller_wires_the_events():
    doc = _load(REVIEWERS_CALLER)
    assert doc["on"]["issue_comment"] == {"types": ["created"]}
    assert doc["on"]["pull_request_review"] == {"types": ["submitted", "dismissed"]}
    assert doc["on"]["issues"] == {"types": ["edited"]}
    assert doc["on"]["pull_request_target"] == {"types": ["synchronize", "labeled", "converted_to_draft"]}
    assert doc["jobs"]["bump"]["permissions"] == {"contents": "write", "pull-requests": "write", "issues": "write"}
    for trigger in ("issue_comment:", "pull_request_target:"):
        line = next(ln for ln in REVIEWERS_CALLER.read_text().splitlines() if ln.strip().startswith(trigger))
        assert "# zizmor: ignore[dangerous-triggers]" in line   # the reasoning is in the comment above it


def test_the_action_runs_command_and_dashboard():
    doc = _load(ACTION)
    script = doc["runs"]["steps"][-1]["run"]
    assert 'command) cmd=(command --repo "$BOT_REPO_PATH") ;;' in script
    assert 'dashboard) cmd=(dashboard --repo "$BOT_REPO_PATH" --upstream "$BOT_UPSTREAM") ;;' in script
    assert {"action", "command-version", "command-pr"} <= set(doc["outputs"])


# Every (event, action) a behaviour handles, with a payload that must reach it (an event on the bot's PR, whose head
# is in the repository and whose body carries the fingerprint, or on the dashboard), and the job that runs it.
_REPO = "acme/fw-template"
_BOT_PR = {"head": {"repo": {"full_name": _REPO}}, "body": "<!-- executorch-pack-bot:fingerprint=" + "ab" * 32 + " -->"}
HANDLED_BY_JOB = {
    ("issue_comment", "created"): ("command", {"comment": {"body": "/executorch-pack-bot recheck",
                                                            "user": {"type": "User"}},
                                               "issue": {"pull_request": {"url": "x"}, "body": _BOT_PR["body"]}}),
    ("issues", "edited"): ("command", {"issue": {"body": "<!-- executorch-pack-bot:dashboard -->\n- [x] Check now",
                                                 "user": {"type": "Bot"}},
                                       "sender": {"type": "User", "login": "alice"}}),
    ("pull_request_review", "submitted"): ("approval", {"review": {"state": "approved"}, "pull_request": _BOT_PR}),
    ("pull_request_review", "dismissed"): ("approval", {"review": {"state": "dismissed"}, "pull_request": _BOT_PR}),
    ("pull_request_target", "synchronize"): ("approval", {"pull_request": _BOT_PR}),
    ("pull_request_target", "labeled"): ("approval", {"label": {"name": "do-not-merge"}, "pull_request": _BOT_PR}),
    ("pull_request_target", "converted_to_draft"): ("approval", {"pull_request": _BOT_PR}),
}
REVIEW_STATES = {"approved": True, "changes_requested": True, "commented": False}


@pytest.mark.needs("expressions")
def test_every_handled_event_is_subscribed_by_the_callers_and_reaches_its_job():
    """Quantifies over the router: each (event, action) some behaviour handles is in the reviewer layer's caller
    (docs/example-caller-reviewers.yml) and in no trigger of the bump-alone caller (docs/example-caller.yml, the
    README's), and passes its job's ``if:`` (GitHub's own evaluator); a review asking for changes does too (it
    turns auto-merge off), a comment-only review does not."""
    from actions_expressions import evaluate, strip_braces
    from bot.events.router import load_behaviours
    from test_workflows import ROOT

    routes = set(load_behaviours()._routes)
    assert routes == set(HANDLED_BY_JOB), "a new handler needs its event here, in the callers and in a job's if:"
    readme = ROOT / "README.md"
    block = readme.read_text().split("```yaml", 1)[1].split("```", 1)[0]
    on = _load(REVIEWERS_CALLER)["on"]
    for event, action in routes:
        assert action in on[event]["types"], (event, action)
    for doc in (_load(CALLER), yaml.safe_load(block)):
        assert not {event for event, _ in routes} & set(doc.get("on", doc.get(True))), "the default caller is the bump alone"
    jobs = _jobs()
    cases = [(strip_braces(jobs[job]["if"]), {"github": {"event_name": e, "repository": _REPO,
                                                           "event": {"action": a, **payload}}})
             for (e, a), (job, payload) in sorted(HANDLED_BY_JOB.items())]
    for state in REVIEW_STATES:
        cases.append((strip_braces(jobs["approval"]["if"]), {"github": {
            "event_name": "pull_request_review", "repository": _REPO,
            "event": {"action": "submitted", "review": {"state": state}, "pull_request": _BOT_PR}}}))
    got = evaluate(cases)
    assert got[:len(HANDLED_BY_JOB)] == [True] * len(HANDLED_BY_JOB)
    assert got[len(HANDLED_BY_JOB):] == list(REVIEW_STATES.values())
