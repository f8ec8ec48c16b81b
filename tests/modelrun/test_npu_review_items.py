"""Old against new on the Ethos-U: review items from Vela's CSV files and the ExecuTorch graph's CPU operators.

The Vela output folders here are written by the tests, with the columns of Vela 5.1's ``out_summary_*.csv`` and
``out_per-layer.csv``; the exporters are fake pythons that write them and print the graph facts, so the whole
``npu-estimate`` command runs without torch."""

from __future__ import annotations

import csv
import json
import sys
from pathlib import Path

import pytest

from bot.cli import main
from bot.modelrun import npu
from bot.report.npu import table

SUMMARY = ["experiment", "network", "accelerator_configuration", "system_config", "memory_mode", "inference_time",
           "sram_memory_used", "on_chip_flash_memory_used", "off_chip_flash_memory_used", "total_original_weights",
           "total_npu_encoded_weights", "nn_macs", "cycles_npu", "cycles_total"]
PER_LAYER = ["Original Operator", "NNG Operator", "Target", "Op Cycles", "MAC Count", "Name"]


def write_vela(folder: Path, *, npu_cycles=1000, total=1200, sram=8.0, flash=3.0, macs=9000, weights=(1376, 2944),
               sysconf="Ethos_U55_High_End_Embedded", mode="Shared_Sram", layers=(("Conv2D", "NPU", 900, 9000),)):
    """A Vela output folder: the summary of one run and its per-layer rows."""
    folder.mkdir(parents=True, exist_ok=True)
    with (folder / f"out_summary_{sysconf}.csv").open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(SUMMARY)
        w.writerow(["default", "out", "Ethos_U55_128", sysconf, mode, total * 1e-9, sram, flash, 0.0, weights[0],
                    weights[1], macs, npu_cycles, total])
    with (folder / "out_per-layer.csv").open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(PER_LAYER)
        for op, target, cycles, m in layers:
            w.writerow([op, op, target, cycles, m, "tosa_" + op.lower()])


def side(tmp_path, name, label, cpu_ops, **vela):
    write_vela(tmp_path / name / "delegate-0/output", **vela)
    d = npu.read_delegate(tmp_path / name / "delegate-0/output")
    return npu.estimate("conv_relu_linear", label, "ethos-u55-128", "5.1.0", [d], cpu_ops)


QDQ = ("quantized_decomposed::quantize_per_tensor", "quantized_decomposed::dequantize_per_tensor")


def test_an_operator_falling_back_to_the_cpu_is_a_review_item_naming_it(tmp_path):
    old = side(tmp_path, "old", "1.4.1", QDQ)
    new = side(tmp_path, "new", "1.5.0", QDQ + ("aten::sigmoid",), layers=(("Conv2D", "NPU", 800, 9000),))
    items = npu.compare(old, new)
    assert items == ["`conv_relu_linear` on ethos-u55-128: `aten::sigmoid` falls back to the CPU with 1.5.0 "
                     "(it did not with 1.4.1)"]
    # counted, not a set: a second one of an operator that was already on the CPU is a fallback too
    assert len(npu.compare(old, side(tmp_path, "new2", "1.5.0", QDQ + QDQ[:1]))) == 1
    assert npu.compare(new, old) == []


def test_an_export_that_no_longer_lowers(tmp_path):
    old = side(tmp_path, "old", "1.4.1", QDQ)
    new = npu.NpuEstimate(model="conv_relu_linear", label="1.5.0", target="ethos-u55-128", vela_version="5.2.0",
                          status="not-lowered", error="RuntimeError: Vela failed")
    assert npu.compare(old, new) == ["`conv_relu_linear` on ethos-u55-128: no longer lowers with 1.5.0 "
                                     "(RuntimeError: Vela failed)"]
    assert "not lowered" in table(old, new)


@pytest.mark.parametrize("new_cycles, items", [(1100, 0), (1101, 1), (900, 0)])
def test_cycles_worse_by_more_than_the_threshold(tmp_path, new_cycles, items):
    old = side(tmp_path, "old", "1.4.1", QDQ, npu_cycles=1000, total=1000)
    new = side(tmp_path, "new", "1.5.0", QDQ, npu_cycles=new_cycles, total=new_cycles)
    found = npu.compare(old, new)
    assert len(found) == 2 * items     # NPU cycles and total cycles
    if items:
        assert "NPU cycles 1,000 -> 1,101 (+10%, over 10%" in found[0]
    assert npu.compare(old, new, threshold=0.5) == []


def test_sram_and_flash_over_the_budget(tmp_path):
    new = side(tmp_path, "new", "1.5.0", QDQ, sram=55.95, flash=3.0)
    assert npu.compare(None, new, sram_budget_kib=32, flash_budget_kib=4) == \
        ["`conv_relu_linear` on ethos-u55-128: SRAM 55.95 KiB over the budget of 32 KiB (estimate, Vela 5.1.0)"]
    assert npu.compare(None, new) == []


def test_numbers_of_different_vela_configurations_are_not_compared(tmp_path):
    old = side(tmp_path, "old", "1.4.1", QDQ, npu_cycles=100, total=100)
    new = side(tmp_path, "new", "1.5.0", QDQ, npu_cycles=1000, total=1000, mode="Sram_Only")
    (item,) = npu.compare(old, new)
    assert "different Vela configurations" in item and "Shared_Sram against" in item


def test_delegates_summed_sram_the_largest(tmp_path):
    write_vela(tmp_path / "d0/output", npu_cycles=100, total=150, sram=4.0, flash=1.0, macs=10)
    write_vela(tmp_path / "d1/output", npu_cycles=200, total=250, sram=6.5, flash=2.0, macs=20,
               layers=(("FullyConnected", "NPU", 200, 20), ("Sigmoid", "CPU", 0, 0)))
    ds = [npu.read_delegate(tmp_path / f"d{i}/output") for i in (0, 1)]
    e = npu.estimate("m", "new", "ethos-u55-128", "5.1.0", ds, ())
    assert (e.delegates, e.npu_cycles, e.total_cycles, e.macs, e.sram_kib, e.flash_kib) == (2, 300, 400, 30, 6.5, 3.0)
    assert e.npu_ops == ("Conv2D", "FullyConnected")
    assert e.inference_us == pytest.approx(0.4)


def test_a_folder_two_vela_runs_wrote_is_refused(tmp_path):
    write_vela(tmp_path / "out", sysconf="A")
    write_vela(tmp_path / "out", sysconf="B")
    with pytest.raises(ValueError, match="expected one Vela out_summary"):
        npu.read_delegate(tmp_path / "out")


def test_a_recorded_estimate_reads_back_inert(tmp_path):
    e = side(tmp_path, "new", "1.5.0", ("aten::x\x1b[31m\n::error::y",))
    back = npu.from_json(json.loads(json.dumps(e.to_json())))
    assert back.npu_cycles == e.npu_cycles and back.layers == e.layers
    assert "\x1b" not in back.cpu_ops[0] and "\n" not in back.cpu_ops[0]


FAKE = r'''#!{python}
import csv, json, os, sys
sys.path.insert(0, {tests!r})
from test_npu_review_items import write_vela
if sys.argv[2].lstrip().startswith("import importlib.metadata, json, sys"):     # Vela alone on one TOSA file
    assert json.loads(sys.argv[5]) == ["--accelerator-config=ethos-u55-128"]
    write_vela(__import__("pathlib").Path(sys.argv[4]), **{vela!r})
    print("ET_VELA " + json.dumps({{"vela": {version!r}, "rc": 0}}))
    sys.exit(0)
if not sys.argv[2].lstrip().startswith("import importlib.metadata, json, os, sys"):
    sys.exit(0)                                   # the "is Vela there" check
dest, target, models = sys.argv[3], sys.argv[4], sys.argv[8:]
extra = {extra!r}
for m in models:
    folder = __import__("pathlib").Path(dest) / m / "delegate-0"
    write_vela(folder / "output", **{vela!r})
    (folder / "vela-args.json").write_text(json.dumps(["--accelerator-config=" + target]))
    (folder / "out.tosa").write_bytes(b"TOSA")
    cpu = ["quantized_decomposed::quantize_per_tensor", "quantized_decomposed::dequantize_per_tensor"] + extra
    print("ET_NPU " + json.dumps({{"model": m, "delegates": 1, "cpu_ops": cpu, "vela": {version!r}}}))
'''


def fake_python(path: Path, *, extra=(), version="5.1.0", **vela) -> str:
    path.write_text(FAKE.format(python=sys.executable, tests=str(Path(__file__).parent), extra=list(extra),
                                vela=vela, version=version))
    path.chmod(0o755)
    return str(path)


def test_npu_estimate_names_the_operator_the_new_side_drops_to_the_cpu(tmp_path, capsys):
    old = fake_python(tmp_path / "old-python", version="5.0.0")
    new = fake_python(tmp_path / "new-python", extra=["aten::sigmoid"])
    out = tmp_path / "est.json"
    rc = main(["npu-estimate", "--host-python", new, "--old-python", old, "--target", "ethos-u55-128",
               "--model", "conv_relu_linear", "--label", "1.5.0", "--old-label", "1.4.1", "--json", str(out)])
    text = capsys.readouterr().out
    assert rc == 1
    assert "review: `conv_relu_linear` on ethos-u55-128: `aten::sigmoid` falls back to the CPU with 1.5.0" in text
    assert "| operators on the CPU | 2 | 3 |" in text
    data = json.loads(out.read_text())
    assert data["items"] and data["old"][0]["vela_version"] == "5.0.0" and data["new"][0]["cpu_ops"][-1] == \
        "aten::sigmoid"


def test_npu_estimate_same_sides_exit_0(tmp_path, capsys):
    py = fake_python(tmp_path / "python")
    assert main(["npu-estimate", "--host-python", py, "--old-python", py, "--target", "ethos-u85-256"]) == 0
    assert "review:" not in capsys.readouterr().out


@pytest.mark.parametrize("argv, option", [
    (["--target", "ethos-u99-1"], "--target"),
    (["--target", "ethos-u55-128", "--model", "resnet"], "--model"),
    (["--target", "ethos-u55-128", "--threshold", "-1"], "--threshold"),
])
def test_bad_options_exit_2_naming_the_option(argv, option, capsys):
    assert main(["npu-estimate", "--host-python", sys.executable, *argv]) == 2
    assert f"error: {option}:" in capsys.readouterr().err


def test_a_venv_without_vela_exits_2_naming_the_option(tmp_path, capsys):
    # the bot's own venv has neither Vela nor executorch
    assert main(["npu-estimate", "--host-python", sys.executable, "--target", "ethos-u55-128"]) == 2
    err = capsys.readouterr().err
    assert "error: --host-python:" in err and "no Ethos-U lowering" in err and "ethos-u-vela" in err
    assert main(["npu-estimate", "--host-python", str(tmp_path / "nope"), "--target", "ethos-u55-128"]) == 2
    assert "--host-python:" in capsys.readouterr().err


def test_the_old_vela_on_the_new_tosa_is_labelled_so(tmp_path, capsys):
    new = fake_python(tmp_path / "new-python", npu_cycles=1000, total=1000)
    old_vela = fake_python(tmp_path / "old-vela-python", version="5.0.0", npu_cycles=800, total=800, sram=56.0)
    out = tmp_path / "est.json"
    rc = main(["npu-estimate", "--host-python", new, "--old-vela-python", old_vela, "--target", "ethos-u55-128",
               "--model", "conv_relu_linear", "--old-label", "1.3.1", "--json", str(out)])
    text = capsys.readouterr().out
    assert rc == 1, text                    # 800 -> 1000 cycles: +25%
    (old,) = json.loads(out.read_text())["old"]
    assert old["vela_version"] == "5.0.0" and old["npu_cycles"] == 800
    assert old["basis"] == "Vela 5.0.0 on the TOSA of the new exporter (the old exporter was not installed)"
    assert old["cpu_ops"] == json.loads(out.read_text())["new"][0]["cpu_ops"]     # the graph facts are the new side's
    assert "- 1.3.1: Vela 5.0.0, Ethos_U55_High_End_Embedded, Shared_Sram (Vela 5.0.0 on the TOSA" in \
        text.replace("\\", "")     # the table's text is escaped Markdown
    assert "review: `conv_relu_linear` on ethos-u55-128: NPU cycles 800 -> 1,000 (+25%, over 10%" in text
