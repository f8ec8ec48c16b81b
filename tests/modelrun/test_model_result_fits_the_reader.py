"""A run-model result file always fits what the pull-request job reads (``read_results``: at most 64 KiB).

A template's own model is foreign: its ``.pte`` may name thousands of long operators or delegates, which the
result copies.  The writer cuts as the reader does, and halves the longest list until the file fits, so one odd
model can no longer make ``publish --model-results`` refuse the whole folder.
A file that is too big anyway is refused after reading its first 64 KiB + 1 byte, not all of it.
"""

from __future__ import annotations

import json

import pytest

import ptekit

from bot.cli import main
from bot.modelrun.result import MAX_BYTES, ModelResult, read_results, write_result
from bot.sample.packgen import write_demo_packs


@pytest.mark.needs("arm-gcc", "qemu")
def test_a_delegated_model_naming_thousands_of_long_delegates_gives_a_readable_result(tmp_path, capsys):
    pack = write_demo_packs(tmp_path / "packs", "1.5.1").good
    pte = tmp_path / "m.pte"
    pte.write_bytes(ptekit.single("aten::add", delegates=tuple(f"Backend{'X' * 200}{i}" for i in range(2000))))
    (tmp_path / "res").mkdir()
    (tmp_path / "ref.json").write_text("[]")   # a --pte run names a reference (a delegated program never uses it)
    code = main(["run-model", str(pack), "--pte", str(pte), "--expected", str(tmp_path / "ref.json"),
                 "--json", str(tmp_path / "res" / "m.json")])
    assert code == 0, capsys.readouterr()
    assert (tmp_path / "res" / "m.json").stat().st_size <= MAX_BYTES
    (result,) = read_results(tmp_path / "res")
    assert result.status == "not-runnable"
    assert result.error.startswith("not runnable in QEMU: the program is delegated to BackendXXX")
    assert result.error.endswith("…") and len(result.error) == 401


def test_lists_of_escaped_text_are_halved_until_the_file_fits(tmp_path):
    odd = "\u2028" * 1000   # escaped as six bytes each by json.dumps
    write_result(ModelResult("m", "p", "fail", "compile", odd, error_lines=[odd] * 20, operators=[odd] * 5000,
                             outputs=[{"index": i, "exact": False, "max_abs_diff": 1.0, "problem": odd}
                                      for i in range(500)], packs=[odd] * 20), tmp_path / "m.json")
    raw = (tmp_path / "m.json").read_bytes()
    assert len(raw) <= MAX_BYTES
    data = json.loads(raw)
    assert len(data["error"]) == 401 and len(data["packs"]) == 8
    assert 0 < len(data["operators"]) < 64 and len(data["outputs"]) < 64
    (result,) = read_results(tmp_path)
    assert (result.model, result.status, result.stage) == ("m", "fail", "compile")


def test_a_huge_result_file_is_refused_without_being_read_whole(tmp_path):
    import tracemalloc

    import pytest

    from bot.errors import UsageError

    with open(tmp_path / "m.json", "wb") as fh:
        fh.truncate(256 << 20)   # sparse: 256 MiB that read_bytes() would hold in memory at once
    tracemalloc.start()
    try:
        with pytest.raises(UsageError, match="larger than 65536 bytes"):
            read_results(tmp_path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 4 << 20
