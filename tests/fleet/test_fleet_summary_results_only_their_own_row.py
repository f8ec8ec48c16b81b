"""A result file (any pull-request job could write one) speaks only for its own job: it counts under its own file
name (``KEY.json``, the workflow's layout) or folder, never for another template named inside it; and its links
are live only to a pull request's or a run's page on the workflow's own GitHub host (``$GITHUB_SERVER_URL``)."""

from __future__ import annotations

import json

import pytest

from github_world import cli
from test_fleet_summary_foreign_input import HEAD, PLAN, summary_row

TWO = {**PLAN, "rows": PLAN["rows"] + [{**PLAN["rows"][0], "template": "acme/b", "repository": "acme/b"}]}


def test_a_result_naming_another_template_s_key_is_not_that_template_s(tmp_path, capsys):
    (tmp_path / "plan.json").write_text(json.dumps(TWO))
    (tmp_path / "results").mkdir()
    ok = {"format": 1, "status": "success", "action": "created"}
    (tmp_path / "results" / "acme-a.json").write_text(json.dumps({**ok, "key": "acme-a",
                                                                   "pr_url": "https://github.com/acme/a/pull/1"}))
    # acme/a's job also writes a forged result for acme/b (a file of another name, or inside its own folder)
    (tmp_path / "results" / "zz.json").write_text(json.dumps({**ok, "key": "acme-b",
                                                               "pr_url": "https://github.com/acme/b/pull/9"}))
    (tmp_path / "results" / "acme-a").mkdir()
    (tmp_path / "results" / "acme-a" / "x.json").write_text(json.dumps({**ok, "key": "acme-b"}))
    code, out = cli(capsys, "fleet-summary", "--plan", str(tmp_path / "plan.json"), "--results",
                    str(tmp_path / "results"))
    assert code == 0, out.err
    a, b = out.out.split(HEAD, 1)[1].splitlines()
    assert a.startswith("| acme/a | 1\\.4\\.0 | 1\\.5\\.1 | proposed | [#1](https://github.com/acme/a/pull/1) created |")
    assert b.startswith("| acme/b | 1\\.4\\.0 | 1\\.5\\.1 | failed |  |") and "recorded no result" in b


@pytest.mark.parametrize("server, url, live", [
    ("https://github.com", "https://evil.example/acme/a/pull/1", False),
    ("https://github.com", "https://github.com.evil.example/acme/a/pull/1", False),
    ("https://github.com", "https://github.com/acme/a/pull/1", True),
    ("https://ghe.example.com", "https://github.com/acme/a/pull/1", False),
    ("https://ghe.example.com", "https://ghe.example.com/acme/a/pull/1", True)])
def test_a_pull_request_link_is_live_only_on_the_workflow_s_host(tmp_path, capsys, monkeypatch, server, url, live):
    monkeypatch.setenv("GITHUB_SERVER_URL", server)
    run = url.replace("/pull/1", "/actions/runs/5")
    row = summary_row(tmp_path, capsys, {"status": "success", "action": "created", "pr_url": url, "run_url": run})
    assert (f"[#1]({url})" in row) is live and (f"[success]({run})" in row) is live
    assert ("](https://evil" not in row) and ("](https://github.com.evil" not in row)
