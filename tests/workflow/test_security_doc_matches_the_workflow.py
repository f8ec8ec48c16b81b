"""docs/security.md's trust model names every event the reusable workflow answers, the job that answers it and that
job's permissions, and says which token the approval job holds as the workflow gives it."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
WORKFLOW = yaml.safe_load((ROOT / ".github/workflows/executorch-pack-bot.yml").read_text(encoding="utf-8"))
DOC = (ROOT / "docs/security.md").read_text(encoding="utf-8")


def rows() -> dict[str, list[str]]:
    """The trust-model table: each event named in the first cell -> the row's cells."""
    section = DOC.split("## Who can steer the bot", 1)[1].split("\n## ", 1)[0]
    out = {}
    for line in section.splitlines():
        if line.startswith("| `"):
            cells = [c.strip() for c in line.strip("|").split(" | ")]
            for event in re.findall(r"(?<!\()`([a-z_]+)`(?!\))", cells[0]):   # not the (`action`)
                out[event] = cells
    return out


def events_of(job: dict) -> set[str]:
    return set(re.findall(r"github\.event_name == '([a-z_]+)'", str(job.get("if", ""))))


def test_every_event_the_workflow_answers_has_a_row_and_no_other():
    handled = {e for job in WORKFLOW["jobs"].values() for e in events_of(job)}
    assert handled == set(rows())


def test_each_row_names_the_jobs_gated_on_its_event_and_their_permissions():
    table = rows()
    for job_id, job in WORKFLOW["jobs"].items():
        for event in events_of(job):
            cells = table[event]
            assert f"`{job_id}`" in cells[2], (event, job_id)
            if job_id in ("command", "approval"):
                for k, v in job["permissions"].items():
                    assert f"`{k}: {v}`" in cells[4], (event, job_id, k)


def test_the_approval_job_holds_the_app_token_as_the_doc_says():
    steps = WORKFLOW["jobs"]["approval"]["steps"]
    mint = [s for s in steps if str(s.get("uses", "")).startswith("actions/create-github-app-token@")]
    decide = next(s for s in steps if s.get("uses") == "./.executorch-pack-bot")
    assert len(mint) == 1 and mint[0]["if"] == "inputs.client-id != '' || inputs.app-id != ''"
    assert decide["with"]["token"] == "${{ steps.app-token.outputs.token || secrets.token || github.token }}"
    for event in ("pull_request_review", "pull_request_target"):
        assert "the App token when `client-id` is given" in rows()[event][4]


def test_the_concurrency_paragraph_matches_the_groups():
    assert "executorch-pack-bot-publish-${{ github.repository }}" == WORKFLOW["jobs"]["pull-request"]["concurrency"]["group"]
    assert "`executorch-pack-bot-publish-OWNER/NAME`" in DOC
    assert "github.event_name == 'schedule' || github.event_name == 'workflow_dispatch'" in WORKFLOW["concurrency"]["group"]
