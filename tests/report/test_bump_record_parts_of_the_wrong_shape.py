"""A bump record's parts of the wrong shape are refused by its reader (bot/report/record.py) with the part named, and
parts of the right shape read: ``upstream.pin_lines`` (a plain relative upstream path and a positive line: each
becomes a link into upstream's repository), ``model_run`` (run-model results of schema 1 and a known status, a job
result that is a word), and the objects ``upstream``, ``template``, ``pack`` and ``proofs``.  ``publish --plan-file``
turns each error into bad input naming the file (tests/github/test_publish_record_checks.py)."""

from __future__ import annotations

import pytest

from bot.modelrun.result import ModelResult
from bot.report.record import model_run_from, read_parts

GOOD = ModelResult("add_mul", "1.5.1", "match").to_json()


def upstream(pin_lines) -> dict:
    return {"upstream": {"changes": None, "pin_lines": pin_lines}}


@pytest.mark.parametrize("value", [
    ["install_requirements.py", 12], ["a/b/pyproject.toml", 1], ["a.b-c_d/x.txt", 999999],
])
def test_a_plain_relative_path_and_a_positive_line_read(value):
    assert read_parts(upstream({"torch": value})).pin_lines == {"torch": tuple(value)}


@pytest.mark.parametrize("value", [
    5, "install_requirements.py:12", ["x.py"], ["x.py", 3, 4], [3, "x.py"], ["x.py", "3"], ["x.py", True],
    ["x.py", 0], ["x.py", -2], ["x.py", 1.5], ["", 3], ["/etc/passwd", 3], ["https://evil.example/x", 3],
    ["C:x", 3], ["a//b", 3], ["a/./b", 3], ["../other/x", 3], ["a/..", 3], [".", 3], ["a/", 3], ["./a", 3],
])
def test_a_pin_line_that_is_no_plain_path_and_line_is_refused(value):
    with pytest.raises(ValueError) as exc:
        read_parts(upstream({"torch": value}))
    assert str(exc.value) == "upstream.pin_lines.torch: expected [upstream path, line]"


@pytest.mark.parametrize("part", ["upstream", "template", "pack", "proofs"])
@pytest.mark.parametrize("value", [[], "x", 5, True])
def test_a_part_that_is_not_an_object_is_refused_by_name(part, value):
    with pytest.raises(TypeError) as exc:
        read_parts({part: value})
    assert str(exc.value) == f"{part}: not an object"


@pytest.mark.parametrize("part", ["upstream", "template", "pack", "proofs", "model_run"])
def test_a_part_that_is_null_or_absent_was_not_run(part):
    for record in ({part: None}, {}):
        ev = read_parts(record)
        assert (ev.upstream_ran, ev.changes, ev.stated_pythons, ev.pack.how, ev.refusal, ev.proofs, ev.model_run) == \
            (False, None, None, None, None, {}, None)


def test_model_results_of_the_right_shape_read():
    assert model_run_from({"model_run": {"new": [GOOD], "old": None, "job": None}}) == (
        [ModelResult("add_mul", "1.5.1", "match")], None, None)
    new, old, job = model_run_from({"model_run": {"new": [], "old": [GOOD, GOOD], "job": "cancelled"}})
    assert (new, [r.to_json() for r in old], job) == ([], [GOOD, GOOD], "cancelled")
    assert model_run_from({"model_run": {"new": [GOOD]}}) == ([ModelResult("add_mul", "1.5.1", "match")], None, None)
    assert model_run_from({}) is None and model_run_from({"model_run": None}) is None
    for status in ("match", "mismatch", "fail", "not-runnable"):
        assert model_run_from({"model_run": {"new": [{**GOOD, "status": status}]}})[0][0].status == status


@pytest.mark.parametrize("model_run, message", [
    ([], "model_run: not an object"),
    ("x", "model_run: not an object"),
    ({"new": None}, "model_run.new: not a list"),
    ({}, "model_run.new: not a list"),
    ({"new": {"a": GOOD}}, "model_run.new: not a list"),
    ({"new": [], "old": "x"}, "model_run.old: not a list"),
    ({"new": [], "old": {}}, "model_run.old: not a list"),
])
def test_a_model_run_part_of_the_wrong_type_is_refused_by_name(model_run, message):
    with pytest.raises(TypeError) as exc:
        model_run_from({"model_run": model_run})
    assert str(exc.value) == message


@pytest.mark.parametrize("model_run, message", [
    ({"new": ["x"]}, "model_run.new[0]: not a run-model result"),
    ({"new": [GOOD, {**GOOD, "schema": 2}]}, "model_run.new[1]: not a run-model result"),
    ({"new": [{**GOOD, "status": "passed"}]}, "model_run.new[0]: not a run-model result"),
    ({"new": [{k: v for k, v in GOOD.items() if k != "schema"}]}, "model_run.new[0]: not a run-model result"),
    ({"new": [], "old": [GOOD, GOOD, 5]}, "model_run.old[2]: not a run-model result"),
    ({"new": [], "job": 5}, "model_run.job: not a job result"),
    ({"new": [], "job": "fail ure"}, "model_run.job: not a job result"),
    ({"new": [], "job": "::error::x"}, "model_run.job: not a job result"),
    ({"new": [], "job": "a" * 21}, "model_run.job: not a job result"),
])
def test_a_model_run_part_of_the_wrong_shape_is_refused_by_name(model_run, message):
    with pytest.raises(ValueError) as exc:
        model_run_from({"model_run": model_run})
    assert str(exc.value) == message


def test_a_job_result_of_twenty_letters_is_a_job_result():
    assert model_run_from({"model_run": {"new": [], "job": "a" * 20}}) == ([], None, "a" * 20)
