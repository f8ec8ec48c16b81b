"""``publish --model-results DIR [--model-results-old DIR] [--model-run-job RESULT]``: the run-model job's result
JSON files (bot/modelrun/result.py) in the bump record, the model-run proof, the "Runs on a simulated Cortex-M55"
section after the pack verification, and its blocking items.

The files come from a job where upstream code ran: their shape is checked (a malformed file is exit 2 naming
it, nothing published) and every string they hold is inert in the body.  GitHub is the fake; the fixtures are
results written by the bot's own writer (or by hand, for the malformed ones).
"""

from __future__ import annotations

import json

import pytest

from github_world import cli
from test_bump_record_one_body import _release, workflow_path

from bot.inert import code
from bot.modelrun.result import ModelResult, write_result

EXACT = [{"index": 0, "exact": True, "max_abs_diff": 0.0, "problem": None}]
TITLE = "### Runs on a simulated Cortex-M55"


@pytest.fixture
def planned(world, capsys):
    """(checkout, plan file) after the workflow's update stage, the template moved to 1.5.1."""
    pack, url = _release(world)
    _body, plan_file = workflow_path(world, capsys, pack, url)
    return world.tmp / f"co{world.runs}", plan_file


def results(folder, *items):
    folder.mkdir(parents=True, exist_ok=True)
    for r in items:
        write_result(r, folder / f"{r.model}.json")
    return folder


def publish(capsys, planned, *extra):
    co, plan_file = planned
    return cli(capsys, "publish", "--repo", str(co), "--plan-file", str(plan_file), "--dry-run",
               "--pack-index-url", "off", *extra)


def section(body: str) -> str:
    return body.split(TITLE, 1)[1].split("\n### ", 1)[0]


def blocking(body: str) -> list[str]:
    if "### Blocking items" not in body:
        return []
    part = body.split("### Blocking items", 1)[1].split("\n### ", 1)[0]
    return [ln for ln in part.splitlines() if ln.startswith("- [ ] `model-run`")]


def test_every_model_matching_is_a_passed_proof_and_no_blocking_item(planned, capsys, tmp_path):
    new = results(tmp_path / "new", ModelResult("add_mul", "1.5.1", "match", outputs=EXACT, instructions=2900),
                  ModelResult("linear_relu_add", "1.5.1", "match", outputs=EXACT, instructions=12000))
    old = results(tmp_path / "old", ModelResult("add_mul", "1.4.0", "match", outputs=EXACT, instructions=3000))
    rc, out = publish(capsys, planned, "--model-results", str(new), "--model-results-old", str(old))
    assert rc == 0, out.err
    body = out.out
    assert "; model run passed" in body
    assert section(body).splitlines()[2:] == [
        "2 of 2 model(s) exported by the new ExecuTorch run on the new pack's runtime in QEMU (`mps3-an547`, "
        "Cortex-M55) with outputs matching the host runtime.",
        "",
        # labelled as what it is: the report of the job where upstream code ran
        "Evidence, not a check of this job: reported by the workflow's `run-model` job, where upstream and template "
        "code ran (the exporter, the host runtime, the template's requirements), with no token.",
        "",
        "| Model | New pack | Max difference | Instructions per inference (old → new pack) | New `.pte` on the old pack |",
        "| --- | --- | --- | --- | --- |",
        "| `add_mul` | ✅ match | 0 (bit-exact) | 3,000 → 2,900 (-3.3%) | loads and matches |",
        "| `linear_relu_add` | ✅ match | 0 (bit-exact) | 12,000 (new) | not run |",
        "",
        "<details><summary>The output values each comparison rests on (first values of each output; device: the new "
        "pack's runtime in QEMU, host: ExecuTorch's host runtime)</summary>",
        "",
        "- `add_mul` output 0: values not recorded by this `run-model`",
        "- `linear_relu_add` output 0: values not recorded by this `run-model`",
        "",
        "</details>",
        "",
        "Cross check: the same `.pte` files on the old pack's runtime (`1.4.0`)."]
    # right after the pack verification
    headings = [ln for ln in body.splitlines() if ln.startswith("### ")]
    at = next(i for i, h in enumerate(headings) if h.startswith("### Pack verification"))
    assert headings[at + 1] == TITLE
    assert blocking(body) == []


def test_a_mismatch_is_a_failed_proof_and_a_blocking_item(planned, capsys, tmp_path):
    new = results(tmp_path / "new", ModelResult(
        "linear_relu_add", "1.5.1", "mismatch", error="output 0 differs",
        outputs=[{"index": 0, "exact": False, "max_abs_diff": 0.125, "problem": None}]))
    rc, out = publish(capsys, planned, "--model-results", str(new))
    assert rc == 0, out.err
    assert "; model run **failed**" in out.out
    assert "| `linear_relu_add` | ❌ outputs differ | 0.125 | – | not run |" in section(out.out)
    assert blocking(out.out) == ["- [ ] `model-run`: `linear_relu_add`: the new pack's runtime gives different "
                                 "outputs from the host runtime (max difference 0.125)"]
    assert "draft: yes" in out.out


def test_a_new_runtime_that_cannot_load_its_own_exporters_pte_blocks(planned, capsys, tmp_path):
    new = results(tmp_path / "new", ModelResult("add_mul", "1.5.1", "fail", stage="load",
                                                error="Program::load failed: InvalidProgram (0x23)",
                                                error_lines=["E method.cpp:12 InvalidProgram"]))
    rc, out = publish(capsys, planned, "--model-results", str(new))
    assert rc == 0, out.err
    assert "; model run **failed**" in out.out
    assert blocking(out.out) == ["- [ ] `model-run`: `add_mul`: the new pack's runtime cannot load its own "
                                 "exporter's .pte: `Program::load failed: InvalidProgram (0x23)`"]
    assert "```text\nE method.cpp:12 InvalidProgram\n```" in section(out.out)


def test_the_old_pack_refusing_the_new_pte_is_shown_but_does_not_block(planned, capsys, tmp_path):
    new = results(tmp_path / "new", ModelResult("add_mul", "1.5.1", "match", outputs=EXACT))
    old = results(tmp_path / "old", ModelResult("add_mul", "1.4.0", "fail", stage="load",
                                                error="version mismatch: program 9 > runtime 8"))
    rc, out = publish(capsys, planned, "--model-results", str(new), "--model-results-old", str(old))
    assert rc == 0, out.err
    assert ("| `add_mul` | ✅ match | 0 (bit-exact) | – | refused at load: `version mismatch: program 9 > "
            "runtime 8` |") in section(out.out)
    assert blocking(out.out) == [] and "; model run passed" in out.out


def test_hostile_text_in_a_result_is_inert(planned, capsys, tmp_path):
    name = "evil](https://x.example) @admin <img src=x onerror=alert(1)>|"
    error = "::error::owned\n##[set-output name=x]y ``` @team <details>"
    new = tmp_path / "new"
    new.mkdir()
    write_result(ModelResult(name, "1.5.1", "fail", stage="compile", error=error,
                             error_lines=["```", "::add-mask::x", "<script>"]), new / "hostile.json")
    rc, out = publish(capsys, planned, "--model-results", str(new))
    assert rc == 0, out.err
    body = out.out
    zw = "\u200b"   # the zero-width space bot.inert.line breaks a workflow command with
    one_line = f":{zw}:error::owned ##{zw}[set-output name=x]y ``` @team <details>"
    assert blocking(body) == [f"- [ ] `model-run`: {code(name, cap=60)}: the new pack's runtime fails at compile: "
                              f"{code(one_line, cap=160)}"]
    # nothing outside a code span or the fenced block: no raw mention, link, tag or workflow command
    for ln in body.splitlines():
        assert not ln.startswith("::") and "##[" not in ln
    sec = section(body)
    assert "```text\n'''\n:\u200b:add-mask::x\n<script>\n```" in sec
    row = next(ln for ln in sec.splitlines() if ln.startswith("| `"))
    assert row.count(" | ") == 4   # the | in the name is escaped: still five cells


@pytest.mark.parametrize("content, why", [
    (b"{not json", "not UTF-8 JSON"),
    (b"\xff\xfe", "not UTF-8 JSON"),
    (json.dumps({"schema": 2, "model": "m", "status": "match"}).encode(), "not a run-model result of schema 1"),
    (json.dumps([1, 2]).encode(), "not a run-model result of schema 1"),
    (json.dumps({"schema": 1, "model": "m", "status": "great"}).encode(), "status is not one of"),
    (json.dumps({"schema": 1, "model": "", "status": "match"}).encode(), "no model name"),
    (b"[" * 100_000, "larger than"),
])
def test_a_malformed_result_file_is_exit_2_naming_it_and_nothing_is_published(planned, capsys, tmp_path,
                                                                              content, why):
    new = results(tmp_path / "new", ModelResult("add_mul", "1.5.1", "match", outputs=EXACT))
    (new / "zz.json").write_bytes(content)
    rc, out = publish(capsys, planned, "--model-results", str(new))
    assert rc == 2
    assert f"{new / 'zz.json'}: --model-results: {why}" in out.err
    assert "Bump ExecuTorch" not in out.out


def test_a_folder_without_results_and_a_cross_check_alone_are_bad_usage(planned, capsys, tmp_path):
    (tmp_path / "empty").mkdir()
    rc, out = publish(capsys, planned, "--model-results", str(tmp_path / "empty"))
    assert rc == 2 and "no run-model result (*.json) in the folder" in out.err
    rc, out = publish(capsys, planned, "--model-results", str(tmp_path / "missing"))
    assert rc == 2 and f"{tmp_path / 'missing'}: --model-results: not a folder of run-model results" in out.err
    old = results(tmp_path / "old", ModelResult("add_mul", "1.4.0", "match", outputs=EXACT))
    rc, out = publish(capsys, planned, "--model-results-old", str(old))
    assert rc == 2 and "--model-results-old needs --model-results" in out.err


def test_a_failed_run_model_job_is_a_blocking_item_and_a_skipped_one_is_not_run(planned, capsys):
    rc, out = publish(capsys, planned, "--model-run-job", "failure")
    assert rc == 0, out.err
    assert "; model run **failed**" in out.out
    assert [ln.split(" of ", 1)[0] for ln in blocking(out.out)] == [
        "- [ ] `model-run`: the model run failed: The `run-model` job"]
    assert "ended with `failure` and handed over no result" in section(out.out)
    rc, out = publish(capsys, planned, "--model-run-job", "skipped")
    assert rc == 0, out.err
    assert "; model run not run" in out.out and TITLE not in out.out and blocking(out.out) == []


def test_without_the_option_the_model_run_is_not_run(planned, capsys):
    rc, out = publish(capsys, planned)
    assert rc == 0, out.err
    assert "; model run not run" in out.out and TITLE not in out.out


def test_the_record_round_trip_keeps_the_results_and_refuses_a_bad_part():
    from bot.report.record import add_model_run, model_run_from

    new = [ModelResult("add_mul", "1.5.1", "match", outputs=EXACT, instructions=5, ticks=1, tolerance=0.0),
           ModelResult("m2", "1.5.1", "fail", stage="load", error="bad", error_lines=["x"])]
    old = [ModelResult("add_mul", "1.4.0", "mismatch", outputs=EXACT)]
    record = {"proofs": {"verify-pack": "pass", "compile": "pass", "model-run": "not-run"}}
    add_model_run(record, new, old)
    back = json.loads(json.dumps(record))
    assert back["proofs"] == {"verify-pack": "pass", "compile": "pass", "model-run": "fail"}
    assert model_run_from(back) == (new, old, None)
    assert model_run_from({}) is None
    add_model_run(record, [], None, job="cancelled")
    assert record["proofs"]["model-run"] == "fail" and model_run_from(record) == ([], None, "cancelled")
    for bad in ({"new": "x"}, {"new": [{"schema": 1, "status": "?"}]}, {"new": [], "job": "a b"}, []):
        with pytest.raises((TypeError, ValueError)):
            model_run_from({"model_run": bad})


def test_run_refuses_a_malformed_result_file_before_any_request(world, capsys, tmp_path):
    from fakegithub import UPSTREAM
    from github_world import checkout

    new = results(tmp_path / "new", ModelResult("add_mul", "1.5.1", "match", outputs=EXACT))
    (new / "bad.json").write_text('{"schema": 1, "model": "x", "status": "maybe"}')
    co = checkout(world)
    before = len(world.requests)
    rc, out = cli(capsys, "run", "--repo", str(co), "--upstream", f"github:{UPSTREAM}", "--dry-run",
                  "--pack-index-url", "off", "--model-results", str(new))
    assert rc == 2 and f"{new / 'bad.json'}: --model-results: status is not one of" in out.err
    assert "Would open pull request" not in out.out
    assert len(world.requests) == before
