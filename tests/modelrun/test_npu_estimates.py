"""The Ethos-U estimates of a suite model, lowered by the real executorch 1.4.1 wheel with Vela 5.1.0 in the host
venv: every recorded number is the one in Vela's own CSV files of that run, and each delegate has its own folder.

Needs the host venv with ethos-u-vela and ml_dtypes (.ci/run installs them); skipped otherwise."""

from __future__ import annotations

import csv
import json
import os
from pathlib import Path

import pytest

from bot.cli import main
from bot.modelrun import npu

ROOT = Path(__file__).resolve().parents[2]
HOST = os.environ.get("EXECUTORCH_PACK_BOT_HOST_PYTHON") or str(ROOT / ".venv/executorch-host/bin/python")

pytestmark = pytest.mark.needs("host-venv")


def _vela_csv(folder: Path) -> tuple[dict, list]:
    """Vela's summary row and per-layer rows, read here with the csv module alone."""
    (summary,) = folder.glob("out_summary_*.csv")
    with summary.open(newline="") as fh:
        (row,) = list(csv.DictReader(fh))
    with (folder / "out_per-layer.csv").open(newline="") as fh:
        layers = list(csv.DictReader(fh))
    return row, layers


@pytest.mark.parametrize("target, system_config", [("ethos-u85-256", "Ethos_U85_SYS_DRAM_Mid"),
                                                   ("ethos-u55-128", "Ethos_U55_High_End_Embedded")])
def test_recorded_numbers_are_vela_s_own(tmp_path, target, system_config):
    (est,) = npu.lower(HOST, tmp_path, target, label="1.4.1", models=("conv_relu_linear",))
    assert est.status == "lowered", est.error
    assert est.delegates == 1
    # the only operators outside the delegate: the float model's quantize at the input, dequantize at the output
    assert sorted(est.cpu_ops) == ["quantized_decomposed::dequantize_per_tensor",
                                   "quantized_decomposed::quantize_per_tensor"]
    row, layers = _vela_csv(tmp_path / "conv_relu_linear/delegate-0/output")
    assert est.vela_version == "5.1.0"
    assert (est.system_config, est.memory_mode) == (row["system_config"], row["memory_mode"])
    assert est.system_config == system_config
    assert est.npu_cycles == int(row["cycles_npu"]) > 0
    assert est.total_cycles == int(row["cycles_total"]) >= est.npu_cycles
    assert est.macs == int(row["nn_macs"]) > 0
    assert est.inference_us == pytest.approx(float(row["inference_time"]) * 1e6)
    assert est.sram_kib == float(row["sram_memory_used"])
    assert est.flash_kib == float(row["on_chip_flash_memory_used"]) + float(row["off_chip_flash_memory_used"])
    assert est.weights_original == int(row["total_original_weights"])
    assert est.weights_encoded == int(row["total_npu_encoded_weights"])
    assert est.npu_ops == tuple(r["Original Operator"] for r in layers if r["Target"] == "NPU")
    assert "Conv2D" in est.npu_ops
    assert [(x.operator, x.cycles, x.macs) for x in est.layers] == \
        [(r["Original Operator"], int(r["Op Cycles"]), int(r["MAC Count"])) for r in layers]
    assert (tmp_path / "conv_relu_linear/conv_relu_linear.pte").stat().st_size > 0
    assert (tmp_path / "conv_relu_linear/delegate-0/out.tosa").is_file()
    # the JSON record reads back to the same estimate
    assert npu.from_json(json.loads(json.dumps(est.to_json()))) == est


def test_old_vela_on_the_new_tosa_repeats_the_numbers(tmp_path):
    """The "old Vela on the new TOSA" side, run with the same Vela, gives the new side's numbers, labelled so."""
    (new,) = npu.lower(HOST, tmp_path / "new", "ethos-u55-128", label="1.4.1", models=("linear_relu_add",))
    old = npu.vela_on_tosa(HOST, tmp_path / "new", tmp_path / "old", new, label="1.4.0")
    assert old.basis.startswith("Vela 5.1.0 on the TOSA of the new exporter")
    assert (old.npu_cycles, old.total_cycles, old.sram_kib, old.weights_encoded) == \
        (new.npu_cycles, new.total_cycles, new.sram_kib, new.weights_encoded)
    assert npu.compare(old, new) == []


def test_npu_estimate_command_json(tmp_path, capsys):
    out = tmp_path / "est.json"
    rc = main(["npu-estimate", "--host-python", HOST, "--target", "ethos-u85-256", "--model", "linear_relu_add",
               "--out", str(tmp_path / "work"), "--json", str(out)])
    text = capsys.readouterr().out
    assert rc == 0, text
    data = json.loads(out.read_text())
    (new,) = data["new"]
    row, _ = _vela_csv(tmp_path / "work/new/linear_relu_add/delegate-0/output")
    assert new["npu_cycles"] == int(row["cycles_npu"])
    assert data["items"] == [] and data["old"] == []
    assert "Vela's estimates; no NPU was run" in text
