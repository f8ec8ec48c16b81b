"""The template's own CI runs ``audit`` through the composite action: the example workflow
docs/example-audit.yml is read-only and pinned, and the action maps ``command: audit`` to
``audit --repo PATH`` with no token."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from test_action import ActionRun

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "docs" / "example-audit.yml"


def test_the_action_runs_audit_on_the_checkout_without_a_token(tmp_path):
    run = ActionRun(tmp_path)
    results = run.run({"command": "audit", "repo-path": "template"})
    assert [proc.returncode for _sid, proc, _o in results] == [0, 0]
    assert run.calls() == [{"argv": ["audit", "--repo", "template"], "token": None}]


def test_audit_takes_the_default_checkout_and_extra_args(tmp_path):
    run = ActionRun(tmp_path)
    run.run({"command": "audit", "args": "--exclude vendor --json", "token": "ghs_app_token"})
    assert run.calls() == [{"argv": ["audit", "--repo", ".", "--exclude", "vendor", "--json"], "token": None}]


def test_a_failed_audit_fails_the_step(tmp_path):
    run = ActionRun(tmp_path)
    results = run.run({"command": "audit"}, {"FAKE_BOT_RC": "1"})
    assert results[-1][1].returncode == 1


def test_the_example_workflow_is_read_only_pinned_and_calls_audit():
    doc = yaml.safe_load(EXAMPLE.read_text())
    assert doc["permissions"] == {"contents": "read"}
    assert set(doc[True]) == {"pull_request", "push"}          # PyYAML reads the key "on" as True
    (job,) = doc["jobs"].values()
    assert isinstance(job["timeout-minutes"], int) and job["timeout-minutes"] <= 30
    checkout, audit = job["steps"]
    assert re.fullmatch(r"actions/checkout@[0-9a-f]{40}", checkout["uses"])
    assert checkout["with"] == {"persist-credentials": False}
    assert audit["uses"] == "OWNER/executorch-pack-bot@COMMIT_SHA"
    assert audit["with"] == {"command": "audit"}
    assert "audit)" in (ROOT / "action.yml").read_text()
