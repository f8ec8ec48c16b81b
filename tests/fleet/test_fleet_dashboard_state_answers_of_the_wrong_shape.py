"""GitHub's GraphQL answer for a template's dashboard state is foreign input: one of the wrong shape (a list where
an object is expected, a page whose ``pageInfo`` or ``comments`` is not an object) makes that template's row an
error that holds its pull request back, never an internal error that stops the plan, and the other templates are
planned as usual."""

from __future__ import annotations

import pytest

import fleetworld as fw
from fakegithub import Fault
from test_fleet_plan_ignored_versions import dashboard, efake, run_plan, template  # noqa: F401 (fixture)

ODD = [[1], "text", {"data": [1]}, {"data": {"repository": [1]}}, {"data": {"repository": {"issue": "x"}}},
       {"data": {"repository": {"issue": {"body": 5, "comments": [1]}}}},
       {"data": {"repository": {"issue": {"comments": {"nodes": {"a": 1}, "pageInfo": {}}}}}},
       {"data": {"repository": {"issue": {"comments": {"nodes": [], "pageInfo": [1]}}}}}]


@pytest.mark.parametrize("answer", ODD)
def test_an_odd_state_answer_is_that_template_s_error_row(efake, tmp_path, capsys, answer):
    fw.add_upstream(efake)
    template(efake, "acme/dash", dash=True)
    template(efake, "acme/plain")
    dashboard(efake, "acme/dash", ["1.5.1"])
    efake.faults.append(Fault("POST", r"^/graphql$", 200, answer, times=10))
    rows, p = run_plan(capsys, tmp_path, ["acme/dash", "acme/plain"])
    assert (rows["acme/dash"]["state"], rows["acme/dash"]["job"]) == ("error", False)
    assert rows["acme/dash"]["reason"].startswith(
        "cannot read the state of the dashboard #1: GitHub's GraphQL answer is not the expected shape")
    assert (rows["acme/plain"]["state"], rows["acme/plain"]["target"]) == ("behind", "1.5.1")
    assert [j["repository"] for j in p["pull-requests"]] == ["acme/plain"]
