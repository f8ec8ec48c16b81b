"""What act ignores, checked statically: the reusable workflow's ``concurrency:`` group, evaluated for each
event with GitHub's expression evaluator (tests/worlds/actions_expressions.py), and its ``permissions:``."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from actions_expressions import evaluate_templates

ROOT = Path(__file__).resolve().parents[2]
DOC = yaml.safe_load((ROOT / ".github/workflows/executorch-pack-bot.yml").read_text(encoding="utf-8"))
REPO = "acme/fw-template"
BUMP = f"executorch-pack-bot-{REPO}"
OWN = f"executorch-pack-bot-{REPO}-event-4242"


def github(event_name: str, event: dict) -> dict:
    return {"github": {"repository": REPO, "event_name": event_name, "event": event, "run_id": "4242"}}


# Only the schedule and workflow_dispatch queue in the bump group: any other event, a writer's command or a
# ticked "Check now" included, gets its own (no comment can cancel or delay a queued bump); a command that asks
# for a run waits in the pull-request job's group instead (test_the_publish_job_waits_... in
# tests/events/test_command_gate_matches_the_parser.py).
EVENTS = [
    ("schedule", {}, BUMP),
    ("workflow_dispatch", {"inputs": {"version": "1.5.1"}}, BUMP),
    ("workflow_dispatch", {"inputs": {"doctor": "true"}}, BUMP),
    # a command, by a writer or not, never joins the bump group: nobody's comment can cancel or delay a
    # queued bump; a writer's command waits for other pushes in the pull-request job's own group
    ("issue_comment", {"comment": {"body": "/executorch-pack-bot recheck"}}, OWN),
    ("issue_comment", {"comment": {"body": "Looks good to me"}}, OWN),
    ("issue_comment", {"comment": {"body": "I ran /executorch-pack-bot recheck"}}, OWN),
    ("issues", {"issue": {"body": "- [x] Check now (tick to start a run; the bot unticks it)"}}, OWN),
    ("issues", {"issue": {"body": "- [ ] Check now (tick to start a run; the bot unticks it)"}}, OWN),
    ("pull_request_review", {"review": {"state": "approved"}}, OWN),
    ("pull_request_target", {"action": "synchronize"}, OWN),
]


@pytest.mark.needs("expressions")
def test_events_that_can_start_a_bump_share_one_group_others_get_their_own():
    group = DOC["concurrency"]["group"]
    got = evaluate_templates([(group, github(name, event)) for name, event, _ in EVENTS])
    assert got == [want for _, _, want in EVENTS]


def test_a_queued_bump_is_never_cancelled():
    assert DOC["concurrency"]["cancel-in-progress"] is False


def test_the_workflow_grants_nothing_by_default_and_each_job_only_what_it_uses():
    assert DOC["permissions"] == {}
    writes = {name: sorted(k for k, v in job.get("permissions", {}).items() if v == "write")
              for name, job in DOC["jobs"].items()}
    assert writes == {"command": ["issues", "pull-requests"], "approval": ["contents", "pull-requests"],
                      "doctor": [], "watch": [], "fetch-pack": [], "build-pack": [], "ai-layer": [], "run-model": [],
                      "pull-request": ["contents", "pull-requests"], "dashboard": ["issues"],
                      "withdraw": ["pull-requests"]}
    # the jobs where upstream or template code runs can only read the repository
    for name in ("build-pack", "ai-layer", "fetch-pack"):
        assert DOC["jobs"][name]["permissions"] == {"contents": "read"}, name


@pytest.mark.parametrize("caller", ["example-caller.yml", "example-caller-reviewers.yml"])
def test_the_caller_grants_no_more_than_the_jobs_use(caller):
    # and no less: GitHub refuses to start a called workflow whose jobs ask for more than the caller grants
    CALLER = yaml.safe_load((ROOT / "docs" / caller).read_text(encoding="utf-8"))
    granted = CALLER["jobs"]["bump"]["permissions"]
    used = {}
    for job in DOC["jobs"].values():
        for k, v in job.get("permissions", {}).items():
            used[k] = "write" if "write" in (v, used.get(k)) else "read"
    assert granted == used
    assert CALLER["permissions"] == {}


@pytest.mark.needs("expressions")
@pytest.mark.parametrize("expr, context, want", [
    # act hands a skipped job's outputs on as expression text (nektos/act#2467); GitHub gives ''
    ("${{ needs.command.result == 'success' && needs.command.outputs.version || inputs.version }}",
     {"needs": {"command": {"result": "skipped", "outputs": {"version": "${{ steps.command.outputs.command-version }}"}}},
      "inputs": {"version": "1.5.1"}}, "1.5.1"),
    ("${{ needs.command.result == 'success' && needs.command.outputs.version || inputs.version }}",
     {"needs": {"command": {"result": "success", "outputs": {"version": "1.6.0"}}}, "inputs": {"version": ""}},
     "1.6.0"),
])
def test_the_watch_version_reads_the_command_only_when_it_ran(expr, context, want):
    assert evaluate_templates([(expr, context)]) == [want]
