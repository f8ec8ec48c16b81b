"""doctor reads GitHub's settings defensively: an answer of the wrong JSON shape is a line saying so (never an
internal error), and rules a token may not read (403) are a line to check by hand, not a refusal of the run."""

from __future__ import annotations

import pytest

from fakegithub import Fault
from test_doctor import _doctor

ODD = [
    (r"^/repos/acme/fw-template$", ["odd"], 'repository: GitHub answered list ["odd"], not the JSON object'),
    (r"/actions/permissions/workflow$", "odd", 'workflow permissions: GitHub answered str "odd", not the JSON object'),
    (r"/rules/branches/main$", 7, "rules of branch main: GitHub answered int 7, not the JSON array"),
    (r"/rules/branches/main$", {"type": "creation"},
     'rules of branch main: GitHub answered dict {"type": "creation", "url": "/repos/acme/fw-template/rules/branches/'
     'main"}, not the JSON array'),   # PyGithub adds the url to an object answer
]


@pytest.mark.parametrize("path,body,line", ODD)
def test_an_answer_of_the_wrong_shape_is_named_not_a_crash(world, capsys, path, body, line):
    world.faults.append(Fault("GET", path, 200, body, times=5))
    code, out, err = _doctor(world, capsys)
    assert code == 0, err
    assert line + " its REST docs give; check it by hand\n" in out
    assert "internal error" not in err and "Traceback" not in err


@pytest.mark.parametrize("rule", [{"type": "pull_request", "parameters": ["x"]},
                                  {"type": "pull_request", "parameters": {"required_approving_review_count": "2"}},
                                  {"type": ["required_signatures"]}, "required_signatures"])
def test_odd_rule_entries_are_skipped_or_read_as_no_count(world, capsys, rule):
    world.faults.append(Fault("GET", r"/rules/branches/main$", 200, [rule], times=5))
    code, out, err = _doctor(world, capsys)
    assert code == 0 and "internal error" not in err
    if isinstance(rule, dict) and rule["type"] == "pull_request":
        assert "rules of the base branch main: pull_request\n" in out
        assert "  - main needs 0 approving reviews before a merge\n" in out
    else:
        assert "rules of the base branch main: none\n" in out


def test_rules_the_token_may_not_read_are_a_line_to_check_by_hand(world, capsys):
    world.faults.append(Fault("GET", r"/rules/branches/main$", 403,
                              {"message": "Resource not accessible by integration"}, times=5))
    code, out, err = _doctor(world, capsys)
    assert code == 0, err
    assert ("rules of branch main: not readable with this token (HTTP 403: Resource not accessible by integration); "
            "check Settings > Rules by hand\n") in out
    assert "rules of the bot branch executorch-pack-bot/executorch: none" in out
