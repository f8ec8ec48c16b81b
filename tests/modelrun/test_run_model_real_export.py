"""run-model on programs exported by the real executorch wheel (1.4.1, torch 2.13.0 CPU), compared with the
wheel's own host runtime: the sample pack's runtime must load them and match bit for bit.

Needs a venv with the wheel: EXECUTORCH_PACK_BOT_HOST_PYTHON, or .venv/executorch-host/bin/python
(.ci/run makes it); skipped otherwise."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from bot.cli import main
from bot.sample.packgen import write_demo_packs

ROOT = Path(__file__).resolve().parents[2]
HOST = os.environ.get("EXECUTORCH_PACK_BOT_HOST_PYTHON") or str(ROOT / ".venv/executorch-host/bin/python")

pytestmark = pytest.mark.needs("host-venv", "arm-gcc", "qemu")

EXPORT = r"""
import sys, torch
from torch.export import export
from executorch.exir import to_edge

class AddMul(torch.nn.Module):
    def forward(self, x, y):
        return (x + y) * y

class AddWeight(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.tensor([[1.5, -2.0, 0.125], [3.0, 0.5, -0.75]]))
    def forward(self, x):
        return x + self.w

class Relu(torch.nn.Module):
    def forward(self, x):
        return torch.relu(x) + x

models = {"addmul": (AddMul(), (torch.ones(2, 3), torch.ones(2, 3))), "addweight": (AddWeight(), (torch.ones(2, 3),)),
          "relu": (Relu(), (torch.ones(5),))}
for name, (m, ex) in models.items():
    with open(f"{sys.argv[1]}/{name}.pte", "wb") as fh:
        fh.write(to_edge(export(m.eval(), ex)).to_executorch().buffer)
"""


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    d = tmp_path_factory.mktemp("exported")
    subprocess.run([HOST, "-c", EXPORT, str(d)], check=True, capture_output=True, timeout=600)
    return d


@pytest.fixture(scope="module")
def good_pack(tmp_path_factory):
    return write_demo_packs(tmp_path_factory.mktemp("packs"), "1.5.1").good


@pytest.mark.parametrize("model", ["addmul", "addweight"])
def test_exported_program_matches_the_host_runtime_bit_for_bit(exported, good_pack, tmp_path, model, capsys):
    code = main(["run-model", str(good_pack), "--pte", str(exported / f"{model}.pte"), "--host-python", HOST,
                 "--json", str(tmp_path / "r.json")])
    out = capsys.readouterr().out
    result = json.loads((tmp_path / "r.json").read_text())
    assert code == 0, out
    assert result["status"] == "match" and all(o["exact"] for o in result["outputs"])
    assert result["instructions"] > 0


def test_exported_program_with_an_operator_the_pack_lacks_fails_at_select(exported, good_pack, tmp_path, capsys):
    code = main(["run-model", str(good_pack), "--pte", str(exported / "relu.pte"), "--host-python", HOST,
                 "--json", str(tmp_path / "r.json")])
    result = json.loads((tmp_path / "r.json").read_text())
    assert (code, result["stage"]) == (1, "select")
    assert "aten::relu (no operator component Portable relu)" in result["error"]


def test_model_suite_is_exported_once_and_runs_on_the_pack(good_pack, tmp_path, capsys):
    # the sample runtime has add and mul only: add_mul matches, linear_relu_add stops at select
    code = main(["run-model", str(good_pack), "--suite", str(tmp_path / "suite"), "--host-python", HOST,
                 "--results", str(tmp_path / "results")])
    out = capsys.readouterr().out
    assert code == 1
    assert json.loads((tmp_path / "results/add_mul.json").read_text())["status"] == "match"
    lin = json.loads((tmp_path / "results/linear_relu_add.json").read_text())
    assert lin["stage"] == "select" and "aten::permute_copy" in lin["error"]
    assert "run-model: add_mul on" in out
    # the int8 Cortex-M model: the demo pack has no Cortex-M quantized_linear; a venv without tosa-tools
    # (the Arm backend's serializer, which the Cortex-M quantizer imports) does not export it at all
    q8 = json.loads((tmp_path / "results/linear_int8.json").read_text())
    assert q8["status"] == "fail"
    if subprocess.run([HOST, "-c", "import tosa_serializer"], capture_output=True).returncode == 0:
        assert q8["stage"] == "select" and "cortex_m::quantized_linear" in q8["error"], q8
        assert (tmp_path / "suite/linear_int8.expected.json").is_file()
    else:
        assert q8["stage"] == "export" and q8["error"].startswith("not exported: ModuleNotFoundError"), q8
    exported = {p.name: p.stat().st_mtime_ns for p in (tmp_path / "suite").iterdir()}
    assert {"add_mul.pte", "linear_relu_add.pte"} <= set(exported)
    assert ("linear_int8.pte" in exported) != ("linear_int8.export-error.txt" in exported)
    main(["run-model", str(good_pack), "--suite", str(tmp_path / "suite"), "--host-python", HOST])
    assert {p.name: p.stat().st_mtime_ns for p in (tmp_path / "suite").iterdir()} == exported
