"""run-model end to end: the sample pack's own runtime built with the real arm-none-eabi-gcc, booted in the
real qemu-system-arm (mps3-an547), its outputs compared; every failure names its stage."""

from __future__ import annotations

import json
import struct

import pytest

import ptekit
from bot.cli import main
from bot.modelrun.host import dump
from bot.modelrun.qemu import Tensor
from bot.sample.packgen import write_demo_packs

V = "1.5.1"


def f32(x: float) -> float:
    return struct.unpack("<f", struct.pack("<f", x))[0]


def expected_add_mul(n=6) -> list[Tensor]:
    out = [f32(f32(ptekit.fixed(0, i) + ptekit.fixed(1, i)) * ptekit.fixed(1, i)) for i in range(n)]
    return [Tensor(6, (2, 3), struct.pack(f"<{n}f", *out))]


@pytest.fixture(scope="session")
def packs(tmp_path_factory):
    return write_demo_packs(tmp_path_factory.mktemp("packs"), V)


@pytest.fixture(scope="session")
def ccache_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("ccache")


@pytest.fixture
def run(tmp_path, capsys, ccache_dir):
    def go(pack, pte_bytes: bytes, expected: list[Tensor] | None = None, *extra):
        pte = tmp_path / "model.pte"
        pte.write_bytes(pte_bytes)
        args = ["run-model", str(pack), "--pte", str(pte), "--json", str(tmp_path / "r.json"),
                "--cache-dir", str(ccache_dir), "--name", "model", "--label", f"pack {V}"]
        if expected is not None:
            (tmp_path / "expected.json").write_text(dump(expected))
            args += ["--expected", str(tmp_path / "expected.json")]
        code = main(args + list(extra))
        out = capsys.readouterr()
        result = json.loads((tmp_path / "r.json").read_text()) if (tmp_path / "r.json").exists() else None
        return code, out.out + out.err, result
    return go


def test_float_model_runs_bit_exact_and_reports_its_instruction_count(packs, run):
    code, out, result = run(packs.good, ptekit.add_mul(), expected_add_mul())
    assert code == 0, out
    assert result["status"] == "match" and result["stage"] is None
    assert result["operators"] == ["aten::add", "aten::mul"]
    # the numbers the match rests on: (x + y) * y of the fixed inputs, on the device and the host
    assert result["outputs"] == [{"index": 0, "exact": True, "max_abs_diff": 0.0, "problem": None,
                                  "device": ["4.0625", "0.125", "1.0", "0.3125", "3.375", "2.75"], "host": ["4.0625", "0.125", "1.0", "0.3125", "3.375", "2.75"], "elements": 6}]
    # two elementwise kernels on 6 floats: some hundreds of instructions, counted in 31.25-instruction ticks
    assert 100 < result["instructions"] < 5000
    assert result["instructions"] == round(result["ticks"] * 31.25)
    assert "match (bit-exact, 1 output(s))" in out


def test_constant_tensor_is_read_from_the_program(packs, run):
    weights = [1.5, -2.0, 0.125, 3.0]
    out = [f32(ptekit.fixed(0, i) + w) for i, w in enumerate(weights)]
    code, text, result = run(packs.good, ptekit.add_constant(weights), [Tensor(6, (4,), struct.pack("<4f", *out))])
    assert (code, result["status"]) == (0, "match"), text


def test_a_differing_output_is_a_mismatch_with_its_largest_difference(packs, run):
    exp = expected_add_mul()[0]
    vals = list(struct.unpack("<6f", exp.data))
    vals[4] += 0.5
    code, out, result = run(packs.good, ptekit.add_mul(), [Tensor(6, (2, 3), struct.pack("<6f", *vals))])
    assert code == 1
    assert (result["status"], result["stage"]) == ("mismatch", "compare")
    assert result["outputs"][0]["max_abs_diff"] == 0.5 and result["outputs"][0]["exact"] is False
    assert "output 0: max difference 0.5 (tolerance 0)" in result["error"]
    code, _, result = run(packs.good, ptekit.add_mul(), [Tensor(6, (2, 3), struct.pack("<6f", *vals))],
                          "--tolerance", "0.5")
    assert (code, result["status"]) == (0, "match")


def test_trap_pack_fails_at_compile_naming_the_missing_header(packs, run):
    code, out, result = run(packs.trap, ptekit.add_mul(), expected_add_mul())
    assert code == 1
    assert result["stage"] == "compile"
    assert "fatal error: executorch/schema/program_generated.h: No such file or directory" in result["error"]
    assert "FAILED at compile" in out


@pytest.mark.parametrize("pte, named", [
    (ptekit.single("aten::relu"), "aten::relu (no operator component Portable relu)"),
    (ptekit.single("executorch_prim::et_view", "default"), "executorch_prim::et_view (a prim op"),
])
def test_an_operator_the_pack_lacks_fails_at_select_naming_it(packs, run, pte, named):
    code, out, result = run(packs.good, pte, expected_add_mul())
    assert code == 1
    assert result["stage"] == "select" and named in result["error"]
    assert result["build_seconds"] is None   # nothing was compiled


def test_a_delegated_program_is_not_runnable_in_qemu(packs, run):
    # an NPU QEMU lacks: reported, not a failure (exit 0), nothing built
    code, out, result = run(packs.good, ptekit.single("aten::add", delegates=("EthosUBackend",)), expected_add_mul())
    assert (code, result["status"], result["stage"]) == (0, "not-runnable", "select")
    assert result["error"] == ("not runnable in QEMU: the program is delegated to EthosUBackend (run it on an Arm "
                               "Corstone FVP with the NPU instead)")
    assert result["build_seconds"] is None and result["instructions"] is None
    assert f"run-model: model on pack {V}: {result['error']} (not a failure)" in out


def test_runtime_refusing_the_program_fails_at_load_with_its_own_error(packs, run):
    # Portable softmax is a component of the pack, but the sample runtime registers no kernel for it
    code, _, result = run(packs.good, ptekit.single("aten::_softmax"), expected_add_mul())
    assert (code, result["status"], result["stage"]) == (1, "fail", "load")
    assert result["error"] == "the runtime refused the program: Missing operator: aten::_softmax.out"


def test_kernel_error_fails_at_execute_with_the_runtime_message(packs, run):
    # aten::add.out on int32 tensors: the sample kernel refuses them while running
    values = [ptekit.tensor((3,), 3), ptekit.tensor((3,), 3), ptekit.integer(1), ptekit.tensor((3,), 3)]
    pte = ptekit.program(ptekit.plan(values, [0, 1], [3], [("aten::add", "out")], [(0, [0, 1, 2, 3, 3])]))
    code, _, result = run(packs.good, pte, expected_add_mul())
    assert (code, result["stage"]) == (1, "execute")
    assert result["error"] == "the program failed: instruction 0: add.out: only float32 tensors are supported"


@pytest.mark.parametrize("what", ["not-a-pte", "no-pack", "negative-tolerance"])
def test_bad_input_exits_2_and_writes_nothing(packs, run, tmp_path, what):
    pte = b"not a program at all" if what == "not-a-pte" else ptekit.add_mul()
    pack = tmp_path / "missing.pack" if what == "no-pack" else packs.good
    extra = ("--tolerance", "-1") if what == "negative-tolerance" else ()
    code, out, result = run(pack, pte, expected_add_mul(), *extra)
    assert code == 2 and result is None
    assert "Traceback" not in out
    assert {"not-a-pte": "not an ExecuTorch program: file identifier", "no-pack": "no such pack file",
            "negative-tolerance": "--tolerance: -1.0 is not a number >= 0"}[what] in out


@pytest.mark.needs("arm-gcc", "qemu")
@pytest.mark.needs("ccache")
def test_second_build_in_a_new_temporary_folder_comes_from_ccache(packs, tmp_path, capsys):
    import os
    import subprocess

    cache = tmp_path / "ccache"
    pte = tmp_path / "m.pte"
    pte.write_bytes(ptekit.add_mul())
    (tmp_path / "e.json").write_text(dump(expected_add_mul()))

    def hits():
        out = subprocess.run(["ccache", "--print-stats"], capture_output=True, text=True, check=True,
                             env={**os.environ, "CCACHE_DIR": str(cache)}).stdout
        return dict(line.split("\t") for line in out.splitlines() if "\t" in line)

    for _ in range(2):   # each run unpacks the pack and builds in its own new temporary folder
        assert main(["run-model", str(packs.good), "--pte", str(pte), "--expected", str(tmp_path / "e.json"),
                     "--cache-dir", str(cache)]) == 0
    stats = hits()
    assert (int(stats["cache_miss"]), int(stats["direct_cache_hit"])) == (7, 7)
