"""The run-model evidence handed to the pull-request job (JSON trusted only for its shape) and the
'Runs on a simulated Cortex-M55' section rendered from it."""

from __future__ import annotations

import json

from bot.modelrun.result import ModelResult, read_result, write_result
from bot.report.modelrun import blocking_items, cross_check, modelrun_section


def _match(model, instructions, pack="new"):
    return ModelResult(model, pack, "match", outputs=[{"index": 0, "exact": True, "max_abs_diff": 0.0,
                                                       "problem": None}], instructions=instructions, ticks=1)


def test_result_round_trips_through_the_file(tmp_path):
    r = ModelResult("addmul", "PyTorch.ExecuTorch.1.5.1.pack", "fail", "load", "Missing operator: aten::x.out",
                    ["line one"], ["aten::x"], [], 0.0, None, None, 1.5, 0.2)
    write_result(r, tmp_path / "r.json")
    assert read_result(tmp_path / "r.json") == r


def test_forged_or_odd_result_reads_as_a_failure_with_inert_text(tmp_path):
    p = tmp_path / "r.json"
    p.write_text(json.dumps({"schema": 1, "status": "passed"}))
    assert (read_result(p, model="m").status, read_result(p, model="m").error) == \
        ("fail", "the run-model result is unreadable")
    assert read_result(tmp_path / "absent.json").status == "fail"
    p.write_text(json.dumps({"schema": 1, "status": "fail", "stage": "rm -rf", "model": "m\n::set-output x",
                             "error": "a\nb", "instructions": "9", "outputs": [{"max_abs_diff": "inf"}]}))
    r = read_result(p)
    assert r.stage is None and "\n" not in r.model and "\n" not in r.error
    assert r.instructions is None and r.outputs[0]["max_abs_diff"] is None


def test_section_shows_match_difference_instructions_old_to_new_and_the_cross_check():
    new = [_match("addmul", 594), ModelResult("lin8", "new", "mismatch", "compare", "output 0: max difference 2",
                                              outputs=[{"index": 0, "exact": False, "max_abs_diff": 2.0}],
                                              instructions=900)]
    old = [_match("addmul", 610, "old"), ModelResult("lin8", "old", "fail", "load", "Error 0x30")]
    text = modelrun_section(new, old)
    assert text.startswith("### Runs on a simulated Cortex-M55\n")
    assert "| `addmul` | ✅ match | 0 (bit-exact) | 610 → 594 (-2.6%) | loads and matches |" in text
    assert "| `lin8` | ❌ outputs differ | 2 | 900 (new) | refused at load: `Error 0x30` |" in text
    assert blocking_items(new) == ["`lin8`: the new pack's runtime gives different outputs from the host runtime "
                                   "(max difference 2)"]


def test_cross_check_wording():
    assert cross_check(None) == "not run"
    assert cross_check(ModelResult("m", "old", "mismatch", outputs=[{"max_abs_diff": 0.5}])) == \
        "loads but differs (max difference 0.5)"
    assert cross_check(ModelResult("m", "old", "fail", "compile", "boom")) == "fails at compile: `boom`"


def test_new_runtime_that_cannot_load_is_blocking_and_shows_its_error_lines():
    new = [ModelResult("m", "new", "fail", "load", "the runtime refused the program: Missing operator: a::b.out",
                       ["Missing operator: a::b.out"])]
    text = modelrun_section(new)
    assert "❌ failed at load" in text and "```text\nMissing operator: a::b.out\n```" in text
    assert "New `.pte` on the old pack |" in text and text.count("not run") == 1
    assert blocking_items(new) == ["`m`: the new pack's runtime cannot load its own exporter's .pte: "
                                   "`the runtime refused the program: Missing operator: a::b.out`"]


def test_no_model_run_says_why():
    assert modelrun_section([], note="The pack was not built.") == \
        "### Runs on a simulated Cortex-M55\n\nThe pack was not built.\n"


def test_a_model_the_exporter_could_not_export_fails_at_the_export_stage_through_the_file(tmp_path):
    r = ModelResult("linear_int8", "new", "fail", "export",
                    "not exported: ModuleNotFoundError: No module named 'tosa_serializer'")
    write_result(r, tmp_path / "linear_int8.json")
    back = read_result(tmp_path / "linear_int8.json")
    assert back.stage == "export"
    assert blocking_items([back]) == ["`linear_int8`: the template's venv could not export it with the new executorch: "
                                      "`not exported: ModuleNotFoundError: No module named 'tosa_serializer'`"]
