"""The cross check (the new ``.pte`` on the old pack's runtime) says when the old pack's runtime is the new one's
code: packs of two versions may carry byte-identical runtime sources (measured: v1.4.0 and v1.4.1 differ only in
the PDSC's version strings), and then "loads and matches" only repeats the new run.

Real builds: the sample packs' runtime with the real arm-none-eabi-gcc, booted in the real qemu-system-arm.
"""

from __future__ import annotations

import json
import zipfile

import pytest

import ptekit
from test_run_model_on_simulated_cortex_m55 import expected_add_mul

from bot.cli import main
from bot.modelrun.host import dump
from bot.modelrun.result import read_result
from bot.report.modelrun import modelrun_section
from bot.sample.packgen import write_demo_packs

SAME = "loads and matches (the same runtime sources as the new pack)"
NOTE = ("The old and the new pack build these models from byte-identical runtime sources: the cross check runs "
        "the same code twice and cannot show a difference between the two runtimes.")


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Results of one ``(x + y) * y`` program on: the 1.5.1 pack, the 1.5.0 pack (same runtime), and the 1.5.0
    pack unpacked with one runtime source changed (a comment appended)."""
    tmp = tmp_path_factory.mktemp("cross")
    new = write_demo_packs(tmp / "new", "1.5.1").good
    old = write_demo_packs(tmp / "old", "1.5.0").good
    changed = tmp / "changed"
    with zipfile.ZipFile(old) as zf:
        zf.extractall(changed)
    src = changed / "src/runtime/executor/program.cpp"
    src.write_bytes(src.read_bytes() + b"\n// a later fix\n")
    pte, expected = tmp / "add_mul.pte", tmp / "expected.json"
    pte.write_bytes(ptekit.add_mul())
    expected.write_text(dump(expected_add_mul()))
    out = {}
    for key, pack, label in (("new", new, "1.5.1"), ("old", old, "1.5.0"), ("changed", changed, "1.5.0 changed")):
        json_path = tmp / f"{key}.json"
        code = main(["run-model", str(pack), "--pte", str(pte), "--expected", str(expected), "--name", "add_mul",
                     "--label", label, "--json", str(json_path), "--cache-dir", str(tmp / "ccache")])
        assert code == 0, key
        out[key] = read_result(json_path)
        assert json.loads(json_path.read_text())["runtime_sha256"] == out[key].runtime_sha256
    return out


@pytest.mark.needs("arm-gcc", "qemu")
def test_packs_differing_only_in_version_have_one_runtime_fingerprint(runs):
    assert len(runs["new"].runtime_sha256) == 64
    assert runs["old"].runtime_sha256 == runs["new"].runtime_sha256
    assert runs["changed"].runtime_sha256 != runs["new"].runtime_sha256


@pytest.mark.needs("arm-gcc", "qemu")
def test_the_section_says_the_cross_check_ran_the_same_runtime_sources(runs):
    text = modelrun_section([runs["new"]], [runs["old"]])
    rows = [ln for ln in text.splitlines() if ln.startswith("| `add_mul`")]
    assert len(rows) == 1 and rows[0].endswith(f"| {SAME} |")
    assert text.splitlines()[-1] == "Cross check: the same `.pte` files on the old pack's runtime (`1.5.0`). " + NOTE


@pytest.mark.needs("arm-gcc", "qemu")
def test_a_changed_runtime_source_makes_the_cross_check_evidence_again(runs):
    text = modelrun_section([runs["new"]], [runs["changed"]])
    rows = [ln for ln in text.splitlines() if ln.startswith("| `add_mul`")]
    assert rows[0].endswith("| loads and matches |")
    assert text.splitlines()[-1] == "Cross check: the same `.pte` files on the old pack's runtime (`1.5.0 changed`)."


@pytest.mark.needs("arm-gcc", "qemu")
def test_results_without_a_fingerprint_claim_nothing(runs):
    from dataclasses import replace

    old, new = replace(runs["old"], runtime_sha256=None), replace(runs["new"], runtime_sha256=None)
    text = modelrun_section([new], [old])
    assert "| loads and matches |" in text and "byte-identical" not in text


def test_equal_runtime_digests_with_different_required_packs_are_not_the_same_runtime():
    from bot.modelrun.result import ModelResult
    from bot.report.modelrun import cross_check, modelrun_section

    digest = "ab" * 32
    new = ModelResult("linear_int8", "1.5.1", "match", runtime_sha256=digest,
                      packs=["ARM::CMSIS-NN@7.0.0 (pack index https://example.invalid/index.pidx)"])
    cached = ModelResult("linear_int8", "1.5.0", "match", runtime_sha256=digest,
                         packs=["ARM::CMSIS-NN@7.0.0 (cache ARM.CMSIS-NN.7.0.0.pack)"])
    older_nn = ModelResult("linear_int8", "1.5.0", "match", runtime_sha256=digest,
                           packs=["ARM::CMSIS-NN@6.0.0 (cache ARM.CMSIS-NN.6.0.0.pack)"])
    assert cross_check(cached, new) == "loads and matches (the same runtime sources as the new pack)"
    assert cross_check(older_nn, new) == "loads and matches"
    assert "byte-identical" not in modelrun_section([new], [older_nn])
