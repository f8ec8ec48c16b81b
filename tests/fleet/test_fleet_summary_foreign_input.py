"""fleet-summary reads result files any pull-request job could write, and a plan file: a result's text reaches the
job summary and the dashboard issue inert (no live mention, HTML or link but a pull request's or a run's page), a
field of the wrong type is left out instead of stopping the summary, and a plan that is not one is bad input."""

from __future__ import annotations

import json

import pytest

from github_world import cli

PLAN = {"format": 1, "upstream": "pytorch/executorch", "packs": [], "requests": {},
        "rows": [{"template": "acme/a", "repository": "acme/a", "branch": "", "job": True, "state": "behind",
                  "current": "1.4.0", "target": "1.5.1", "reason": "open a pull request for 1.5.1"}]}
HEAD = "| Template | Current | Target | State | Pull request | Flagged | Last run | Note |\n|---|---|---|---|---|---|---|---|\n"


def summary_row(tmp_path, capsys, result, plan=PLAN):
    (tmp_path / "plan.json").write_text(json.dumps(plan))
    (tmp_path / "results").mkdir()
    (tmp_path / "results" / "acme-a.json").write_text(json.dumps({"format": 1, "key": "acme-a", **result}))
    code, out = cli(capsys, "fleet-summary", "--plan", str(tmp_path / "plan.json"), "--results",
                    str(tmp_path / "results"))
    assert code == 0, out.err
    return out.out.split(HEAD, 1)[1]


def test_a_hostile_pull_request_link_is_shown_as_inert_text(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("GITHUB_SERVER_URL", raising=False)
    row = summary_row(tmp_path, capsys, {
        "status": "success", "action": "created",
        "pr_url": "https://github.com/a/b/pull/1) @octocat <img src=x> [x](https://evil.example"})
    assert row == ("| acme/a | 1\\.4\\.0 | 1\\.5\\.1 | proposed | https:&#8203;//github\\.com/a/b/pull/1\\) @&#8203;octocat "
                   "&lt;img src=x&gt; \\[x\\]\\(https:&#8203;//evil\\.example created |  | success | pull request opened |\n")


def test_hostile_status_run_link_time_and_action_are_inert(tmp_path, capsys):
    row = summary_row(tmp_path, capsys, {"status": "@octocat <b>x</b>", "run_url": "https://evil.example) @octocat (",
                                         "when": "<img src=x> @octocat", "action": "@team <b>",
                                         "pr_url": "https://github.com/acme/a/pull/2"})
    assert row == ("| acme/a | 1\\.4\\.0 | 1\\.5\\.1 | failed | [#2](https://github.com/acme/a/pull/2) @&#8203;team "
                   "&lt;b&gt; |  | @&#8203;octocat &lt;b&gt;x&lt;/b&gt; &lt;img src=x&gt; @&#8203;octocat | "
                   "the job failed: see the run |\n")


def test_a_run_page_is_a_link(tmp_path, capsys):
    row = summary_row(tmp_path, capsys, {"status": "failure", "when": "2026-12-01 10:00 UTC",
                                         "run_url": "https://github.com/acme/.github/actions/runs/77"})
    assert "| [failure](https://github.com/acme/.github/actions/runs/77) 2026\\-12\\-01 10:00 UTC |" in row


@pytest.mark.parametrize("result", [
    {"pr_url": 5, "status": "success", "action": "created"},
    {"status": ["x"], "action": {"a": 1}, "flags": {"a": 1}, "when": 5, "run_url": 7, "error": 9},
])
def test_result_fields_of_the_wrong_type_are_left_out(tmp_path, capsys, result):
    row = summary_row(tmp_path, capsys, result)
    state = "proposed" if result["status"] == "success" else "failed"
    note = "pull request opened" if state == "proposed" else "the job failed: see the run"
    assert row == f"| acme/a | 1\\.4\\.0 | 1\\.5\\.1 | {state} |  |  | {'success' if state == 'proposed' else '?'} | {note} |\n"


@pytest.mark.parametrize("plan, message", [
    ({"format": 1, "rows": [1]}, "rows[0] is not an object"),
    ({"format": 1, "rows": [{"template": ["x"], "job": True}]}, "rows[0] template is not text"),
    ({"format": 1, "rows": [{"template": "a", "pr_url": 5}]}, "rows[0] pr_url is not text"),
    ({"format": 1, "rows": [], "packs": [1]}, "packs is not a list of packs"),
    ({"format": 1, "rows": [], "packs": [{"x": 1}]}, "packs is not a list of packs"),
    ({"format": 1, "rows": [], "requests": [1]}, "requests is not an object"),
])
def test_a_plan_with_fields_of_the_wrong_type_is_bad_input(tmp_path, capsys, plan, message):
    (tmp_path / "plan.json").write_text(json.dumps(plan))
    code, out = cli(capsys, "fleet-summary", "--plan", str(tmp_path / "plan.json"), "--results", str(tmp_path))
    assert code == 2 and out.out == ""
    assert f"{tmp_path / 'plan.json'}: not a fleet plan (fleet-plan --out): {message}" in out.err


def test_request_counts_that_are_not_numbers_are_zero(tmp_path, capsys):
    plan = dict(PLAN, requests={"sent": "<img src=x>", "templates": 1, "not-modified": True})
    out = summary_row(tmp_path, capsys, {"status": "success", "action": "created"}, plan=plan)
    assert out
    text = (tmp_path / "plan.json").read_text()
    code, got = cli(capsys, "fleet-summary", "--plan", str(tmp_path / "plan.json"))
    assert "; 0 API requests for 1 templates (0 answered 304 Not Modified)." in got.out and "<img" not in got.out
    assert text


def test_a_plan_file_with_thousands_of_long_flags_still_records_a_result_the_summary_reads(tmp_path, capsys):
    plan_file = tmp_path / "update-plan.json"
    plan_file.write_text(json.dumps({"flags": [{"code": f"c{i}", "message": "m" * 1000, "blocking": False}
                                               for i in range(2000)]}))
    code, out = cli(capsys, "fleet-summary", "--record", str(tmp_path / "results" / "acme-a.json"), "--key", "acme-a",
                    "--status", "success", "--action", "created", "--plan-file", str(plan_file))
    assert code == 0
    rec = json.loads((tmp_path / "results" / "acme-a.json").read_text())
    assert len(rec["flags"]) == 51 and rec["flags"][0] == "c0: " + "m" * 596
    assert rec["flags"][-1] == "... and 1950 more"
    (tmp_path / "plan.json").write_text(json.dumps(PLAN))
    code, out = cli(capsys, "fleet-summary", "--plan", str(tmp_path / "plan.json"), "--results",
                    str(tmp_path / "results"))
    row = out.out.split(HEAD, 1)[1]
    assert row.startswith("| acme/a | 1\\.4\\.0 | 1\\.5\\.1 | proposed |") and "c9: " in row and "c10: " not in row


def test_only_the_end_of_a_huge_error_file_is_read(tmp_path):
    from bot.fleet.summary import last_error
    path = tmp_path / "errors"
    path.write_text("update: old\n" * 500_000 + "publish: the push was refused\n")
    assert last_error(path) == "publish: the push was refused"
