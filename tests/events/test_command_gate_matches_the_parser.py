"""The workflow's gate and the bot's parser agree on what a command is, and no event but a bump joins the bump group.

Evaluated with GitHub's own expression evaluator (``@actions/expressions``,
tests/worlds/actions_expressions.py) on the real workflow file: the ``command``
job's ``if:`` against :func:`bot.events.verbs.parse` on every comment body
of a hand-written list and a seeded random sample (case flips, look-alike
letters, blanks, tabs, byte-order marks, line breaks, other characters
before and after the prefix), and the workflow's ``concurrency.group`` on
every kind of event: only ``schedule`` and ``workflow_dispatch`` share the
bump group; a comment (a command or not, by anyone), an issue edit (a ticked
"Check now" too), a review and a push to a PR each get a group of their own.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
import yaml

from actions_expressions import evaluate, strip_braces, template_to_expression
from bot.events.verbs import PREFIX, parse
from eventworld import PR_BODY

pytestmark = pytest.mark.needs("expressions")

ROOT = Path(__file__).resolve().parents[2]
WORKFLOW = yaml.safe_load((ROOT / ".github/workflows/executorch-pack-bot.yml").read_text(encoding="utf-8"))
REPO, RUN_ID = "acme/fw-template", "987654321"

HAND = [
    "/executorch-pack-bot recheck", "/executorch-pack-bot", "/EXECUTORCH-PACK-BOT RECHECK", "/Executorch-Pack-Bot help",
    "/executorch-pack-bot\nrecheck", "/executorch-pack-bot\r\nrecheck", "/executorch-pack-bot\rrecheck",
    "/executorch-pack-bot\trecheck", "/executorch-pack-botx", "/executorch-pack-bot-recheck", " /executorch-pack-bot recheck",
    "\t/executorch-pack-bot recheck", "\ufeff/executorch-pack-bot recheck", "    /executorch-pack-bot recheck",
    "> /executorch-pack-bot recheck", "/executorch-pac\u212a-bot recheck", "/executorch-pack-bot\u00a0recheck",
    "/executorch-pack-bot\u200brecheck", "/executorch-pack-bot\u2028recheck", "/executorch-pack-bot\x0brecheck",
    "\uff0fexecutorch-pack-bot recheck", "/executorch-pack-b\u0131t recheck", "/executorch-pack-bot \r",
    "/executorch-pack-bot ", "/executorch-pack-bot\r", "/executorch-pack-bot\n", "", "recheck",
    "/EXECUTORCH-PACK-BOT\r\n", "/executorch-pack-bot\u0130", "/executorch-pac\u212a-bot", "/ExEcUtOrCh-PaCk-BoT x\ny",
]
PIECES = [PREFIX, PREFIX.upper(), " ", "\t", "\n", "\r", "\r\n", "\ufeff", "\u00a0", "\u200b", "\u212a", "\u0131",
          "\u0130", "\u017f", "x", "recheck", "ignore 1.5.1", "`", ">", "/", "-", "bot", "\u00df", "\ufb06"]


def sample(n: int = 1500, seed: int = 20261201) -> list[str]:
    """Bodies built from :data:`PIECES` and case flips of the prefix (seeded, so a failure repeats)."""
    rnd = random.Random(seed)
    out = []
    for _ in range(n):
        parts = [rnd.choice(PIECES) for _ in range(rnd.randint(0, 4))]
        prefix = "".join(c.upper() if rnd.random() < 0.3 else c for c in PREFIX)
        if rnd.random() < 0.2:                      # one letter of the prefix replaced
            i = rnd.randrange(len(prefix))
            prefix = prefix[:i] + rnd.choice(PIECES[7:]) + prefix[i + 1:]
        at = rnd.randint(0, len(parts))
        out.append("".join(parts[:at]) + (prefix if rnd.random() < 0.9 else "") + "".join(parts[at:]))
    return out


def comment_github(body: str, *, on_pr: bool = True) -> dict:
    """A comment ``body`` on the bot's PR (its body carries the bot's fingerprint), or on an issue."""
    issue = {"number": 7, "user": {"login": "bob", "type": "User"}, "body": PR_BODY}
    if on_pr:
        issue["pull_request"] = {"url": f"https://api.github.com/repos/{REPO}/pulls/7"}
    return {"event_name": "issue_comment", "repository": REPO, "run_id": RUN_ID,
            "event": {"action": "created", "comment": {"body": body, "user": {"login": "bob"}}, "issue": issue}}


def test_the_command_jobs_gate_and_the_parser_agree_on_every_comment():
    gate = strip_braces(WORKFLOW["jobs"]["command"]["if"])
    bodies = list(dict.fromkeys(HAND + sample()))
    got = evaluate([(gate, {"github": comment_github(b)}) for b in bodies])
    disagree = [(b, g) for b, g in zip(bodies, got) if bool(g) != (parse(b) is not None)]
    assert disagree == []
    assert sum(map(bool, got)) > 100 and sum(not g for g in got) > 100   # both sides are exercised


def test_a_comment_on_an_issue_never_passes_the_gate():
    gate = strip_braces(WORKFLOW["jobs"]["command"]["if"])
    assert evaluate([(gate, {"github": comment_github("/executorch-pack-bot recheck", on_pr=False)})]) == [False]


def _group_of(github: dict) -> str:
    expr = template_to_expression(WORKFLOW["concurrency"]["group"])
    return evaluate([(expr, {"github": github})])[0]


def test_only_schedule_and_workflow_dispatch_share_the_bump_group():
    group = template_to_expression(WORKFLOW["concurrency"]["group"])
    bump = f"executorch-pack-bot-{REPO}"
    own = f"{bump}-event-{RUN_ID}"
    base = {"repository": REPO, "run_id": RUN_ID}
    events = [({**base, "event_name": "schedule", "event": {}}, bump),
              ({**base, "event_name": "workflow_dispatch", "event": {"inputs": {}}}, bump)]
    for body in HAND + sample(300):
        events.append((comment_github(body), own))
    for body in ("- [x] Check now", "- [X] Check now\n<!-- executorch-pack-bot:dashboard -->", "[x] Check now"):
        events.append(({**base, "event_name": "issues",
                        "event": {"action": "edited", "issue": {"body": body, "user": {"type": "Bot"}}}}, own))
    events.append(({**base, "event_name": "pull_request_review",
                    "event": {"action": "submitted", "review": {"state": "approved", "body": PREFIX + " recheck"}}}, own))
    events.append(({**base, "event_name": "pull_request_target", "event": {"action": "synchronize"}}, own))
    got = evaluate([(group, {"github": g}) for g, _ in events])
    assert [(g["event_name"], w) for (g, w) in events] == [(g["event_name"], x) for (g, _), x in zip(events, got)]


def test_the_publish_job_waits_in_one_group_per_repository():
    job = WORKFLOW["jobs"]["pull-request"]["concurrency"]
    expr = template_to_expression(job["group"])
    assert evaluate([(expr, {"github": {"repository": REPO, "run_id": RUN_ID}})]) == [
        f"executorch-pack-bot-publish-{REPO}"]
    assert job["cancel-in-progress"] is False and WORKFLOW["concurrency"]["cancel-in-progress"] is False
