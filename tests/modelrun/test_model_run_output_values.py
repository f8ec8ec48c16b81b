"""A "bit-exact" claim shows what it rests on: the first values of each output, on the device and the host.

``compare`` keeps them, ``run-model --json`` writes them, the result reader keeps only numbers, the printed
summary and the PR body's model section show them.
"""

from __future__ import annotations

import json
import struct

from bot.commands.run_model import summary
from bot.modelrun.compare import FIRST_VALUES, compare
from bot.modelrun.qemu import Tensor
from bot.modelrun.result import ModelResult, read_result, write_result
from bot.report.modelrun import modelrun_section


def f32(*v: float) -> Tensor:
    return Tensor(6, (len(v),), struct.pack(f"<{len(v)}f", *v))


def test_compare_keeps_the_first_values_of_each_output():
    vals = [i * 0.25 for i in range(12)]
    d = compare([f32(*vals)], [f32(*vals)])[0]
    assert d.exact and d.elements == 12 and len(d.device) == FIRST_VALUES
    assert d.device == d.host == tuple(repr(v) for v in vals[:FIRST_VALUES])
    other = compare([f32(1.0, 2.0)], [f32(1.0, 2.5)])[0]
    assert not other.exact and other.device == ("1.0", "2.0") and other.host == ("1.0", "2.5")


def _result(tmp_path):
    outs = [{"index": 0, "exact": True, "max_abs_diff": 0.0, "problem": None,
             "device": ["0.0", "0.25", "nan"], "host": ["0.0", "0.25", "nan"], "elements": 12}]
    r = ModelResult("add_mul", "1.5.1", "match", outputs=outs, instructions=3100)
    write_result(r, tmp_path / "r.json")
    return tmp_path / "r.json"


def test_the_json_result_records_the_values_and_the_reader_keeps_only_numbers(tmp_path):
    path = _result(tmp_path)
    data = json.loads(path.read_text())
    assert data["outputs"][0]["device"] == ["0.0", "0.25", "nan"] and data["outputs"][0]["elements"] == 12
    data["outputs"][0]["host"] = ["1.0", "@octocat", "<!--", "-1e-05", 3]
    path.write_text(json.dumps(data))
    back = read_result(path)
    assert back.outputs[0]["device"] == ["0.0", "0.25", "nan"] and back.outputs[0]["host"] == ["1.0", "-1e-05"]


def test_the_summary_and_the_pr_section_show_the_numbers_a_match_rests_on(tmp_path):
    r = read_result(_result(tmp_path))
    assert "  output 0 (12 values): device 0.0, 0.25, nan, …; host 0.0, 0.25, nan, …" in summary(r).splitlines()
    section = modelrun_section([r])
    assert ("- `add_mul` output 0 (12 values), bit-exact: device `0.0, 0.25, nan, …`; host `0.0, 0.25, nan, …`"
            in section.splitlines())


def test_an_older_result_without_values_says_so():
    r = ModelResult("add_mul", "1.5.1", "match", outputs=[{"index": 0, "exact": True, "max_abs_diff": 0.0}])
    assert "- `add_mul` output 0: values not recorded by this `run-model`" in modelrun_section([r])
