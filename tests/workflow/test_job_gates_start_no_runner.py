"""An event that concerns no bot pull request and no dashboard starts no job: the job-level ``if:``s decide it.

GitHub evaluates a job's ``if:`` before it asks for a runner (GitHub docs, "Using conditions to control job
execution": a skipped job reports Success and uses no runner), so a gate that reads only the event payload costs
nothing on an event it turns away.  Evaluated with GitHub's own expression evaluator (``@actions/expressions``,
tests/worlds/actions_expressions.py) on the real workflow file, over GitHub's example webhook payloads
(``@octokit/webhooks-examples``, tests/worlds/webhook_payloads.py) made into events on the template repository:

- every job of the workflow, the ones after another included (their ``needs`` all skipped), is skipped for a
  push to, a review of, a label on, a draft conversion of and a command comment on a pull request that is not
  the bot's (an ordinary PR of the repository, a fork's PR carrying a copy of the bot's fingerprint), and for
  an edit of an issue that is not the dashboard or an edit made by a bot;
- the same events on the bot's PR (and a writer's edit of the dashboard) still reach the job that decides:
  the gate only skips what the bot itself ignores (bot.events.context ``bot_pull``: head in this repository
  and the fingerprint in the body; bot.events.automerge ``HOLD_LABELS``; bot.events.dashboard ``MARKER``).
"""

from __future__ import annotations

import copy
import re
from pathlib import Path

import pytest
import yaml

from actions_expressions import evaluate, strip_braces
from bot.events.automerge import HOLD_LABELS
from bot.events.dashboard import MARKER
from eventworld import PR_BODY
from webhook_payloads import example

pytestmark = [pytest.mark.needs("expressions"), pytest.mark.needs("webhooks")]

ROOT = Path(__file__).resolve().parents[2]
WORKFLOW = yaml.safe_load((ROOT / ".github/workflows/executorch-pack-bot.yml").read_text(encoding="utf-8"))
JOBS = WORKFLOW["jobs"]
INPUTS = {k: v.get("default") for k, v in WORKFLOW[True]["workflow_call"]["inputs"].items()}
REPO = "acme/fw-template"
BRANCH = "executorch-pack-bot/executorch"


def _github(event_name: str, payload: dict) -> dict:
    payload = copy.deepcopy(payload)
    payload["repository"]["full_name"] = REPO
    return {"event_name": event_name, "repository": REPO, "run_id": "1", "event": payload}


def _pull(p: dict, *, bot: bool, fork: bool = False) -> dict:
    """``p``'s pull request made the bot's (head branch in this repository, the bot's body), another PR of the
    repository (GitHub's example body), or a fork's PR (``fork``) whose body copies the bot's fingerprint."""
    pr = p["pull_request"]
    pr["head"]["ref"] = BRANCH if bot or fork else "feature/readme"
    pr["head"]["repo"]["full_name"] = "mallory/fw-template" if fork else REPO
    pr["base"]["repo"]["full_name"] = REPO
    if bot or fork:
        pr["body"] = PR_BODY
    return p


def pull_events(*, bot: bool, fork: bool = False) -> list[tuple[str, dict]]:
    """Every pull request event the reviewer layer subscribes to (docs/example-caller-reviewers.yml), each made
    an event on the bot's PR or on another PR."""
    out = []
    for state in ("approved", "changes_requested"):
        p = example("pull_request_review", "submitted")
        p["review"]["state"] = state
        out.append(("pull_request_review", _pull(p, bot=bot, fork=fork)))
    out.append(("pull_request_review", _pull(example("pull_request_review", "dismissed"), bot=bot, fork=fork)))
    for action in ("synchronize", "converted_to_draft"):
        out.append(("pull_request_target", _pull(example("pull_request", action), bot=bot, fork=fork)))
    p = example("pull_request", "labeled")
    p["label"]["name"] = "do-not-merge"
    out.append(("pull_request_target", _pull(p, bot=bot, fork=fork)))
    return out


def comment(body: str, *, pr_body: str | None) -> tuple[str, dict]:
    p = example("issue_comment", "created")
    p["issue"]["pull_request"] = {"url": f"https://api.github.com/repos/{REPO}/pulls/7"}
    p["issue"]["body"] = pr_body
    p["comment"]["body"] = body
    return "issue_comment", p


def issue_edit(body: str, *, before: str | None = None, author: str = "Bot", sender: str = "User",
               login: str = "alice") -> tuple[str, dict]:
    p = example("issues", "edited")
    p["issue"]["body"] = body
    p["issue"]["user"]["type"] = author
    p["sender"].update({"type": sender, "login": login})
    p["changes"] = {"body": {"from": before}} if before is not None else {"title": {"from": "old"}}
    return "issues", p


def _job_if(job: str) -> str:
    """The job's ``if:`` with the status functions the evaluator lacks given their value in a run nobody
    cancelled (``always()``, ``success()``: true; ``cancelled()``, ``failure()``: false)."""
    expr = strip_braces(JOBS[job].get("if", "success()"))
    for fn, value in (("always()", "true"), ("success()", "true"), ("cancelled()", "false"), ("failure()", "false")):
        expr = expr.replace(fn, value)
    return expr


def started_jobs(events: list[tuple[str, dict]]) -> list[list[str]]:
    """For each ``(event_name, payload)``, the jobs GitHub would start, in the workflow's order: each job's ``if:``
    evaluated with the results of the jobs it needs (``skipped``, or ``success`` with no outputs)."""
    results: list[dict[str, str]] = [{} for _ in events]
    githubs = [_github(n, p) for n, p in events]
    for job, spec in JOBS.items():      # the file lists every job after the ones it needs
        needs = spec.get("needs") or []
        needs = [needs] if isinstance(needs, str) else needs
        ctxs = [{"github": g, "inputs": INPUTS, "needs": {n: {"result": r[n], "outputs": {}} for n in needs}}
                for g, r in zip(githubs, results)]
        for r, ran in zip(results, evaluate([(_job_if(job), c) for c in ctxs])):
            r[job] = "success" if ran else "skipped"
    return [[j for j, v in r.items() if v == "success"] for r in results]


@pytest.mark.parametrize("fork", [False, True], ids=["same-repository", "fork-with-the-fingerprint"])
def test_pull_request_events_on_a_pr_not_the_bots_start_no_job(fork):
    events = pull_events(bot=False, fork=fork)
    assert started_jobs(events) == [[] for _ in events]


def test_pull_request_events_on_the_bots_pr_start_the_approval_job_alone():
    events = pull_events(bot=True)
    assert started_jobs(events) == [["approval"] for _ in events]


def test_a_label_starts_the_approval_job_only_when_it_is_a_hold_label():
    hold = re.search(r"fromJSON\('(\[[^']*\])'\)", JOBS["approval"]["if"]).group(1)
    assert tuple(yaml.safe_load(hold)) == HOLD_LABELS          # one list: the bot's
    p = example("pull_request", "labeled")
    names = [*HOLD_LABELS, *(n.upper() for n in HOLD_LABELS), "enhancement", "holder", "dependencies", ""]
    events = []
    for n in names:
        p["label"]["name"] = n
        events.append(("pull_request_target", _pull(copy.deepcopy(p), bot=True)))
    got = [jobs == ["approval"] for jobs in started_jobs(events)]
    assert got == [n.strip().lower() in HOLD_LABELS for n in names]


def test_a_comment_starts_the_command_job_only_as_a_command_on_the_bots_pr():
    ordinary_pr = example("pull_request", "opened")["pull_request"]["body"]
    cases = [(comment("/executorch-pack-bot recheck", pr_body=PR_BODY), ["command"]),
             (comment("/executorch-pack-bot help", pr_body=PR_BODY), ["command"]),
             (comment("looks good", pr_body=PR_BODY), []),
             (comment("/executorch-pack-bot recheck", pr_body=ordinary_pr), []),
             (comment("/executorch-pack-bot recheck", pr_body=None), [])]
    # what runs after the command job depends on its decision (here: none, no outputs)
    assert started_jobs([ev for ev, _ in cases]) == [w for _, w in cases]


def test_an_issue_edit_starts_the_command_job_only_for_a_persons_edit_of_the_dashboard():
    dash = f"{MARKER}\n- [x] Check now\n"
    cases = [(issue_edit(dash, before=dash.replace("[x]", "[ ]")), ["command"]),
             (issue_edit("defaced", before=dash), ["command"]),            # the edit is undone: the job runs
             (issue_edit(dash), ["command"]),                              # a title edit of the dashboard
             (issue_edit(dash, sender="Bot", login="executorch-pack-bot[bot]"), []),   # the bot's own update
             (issue_edit(dash, login="renovate[bot]"), []),
             (issue_edit("release notes", before="draft"), []),            # another issue a bot opened
             (issue_edit(dash, author="User"), [])]                        # the dashboard is a bot's issue
    assert started_jobs([ev for ev, _ in cases]) == [w for _, w in cases]
