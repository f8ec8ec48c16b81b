"""``run-model`` bad usage is exit 2 before anything is built, naming the option: a ``--pte`` run with no
reference (neither ``--host-python`` nor ``--expected``), a ``--host-python`` that does not exist, a
``--suite`` that is a file. ``--help`` documents the ``--expected`` JSON and the ``--pack-cache`` default
the code uses."""

from __future__ import annotations

import os

import pytest

import ptekit
from bot.cli import main
from bot.sample.packgen import write_demo_packs


@pytest.fixture(scope="module")
def pack(tmp_path_factory):
    return write_demo_packs(tmp_path_factory.mktemp("packs"), "1.5.1").good


def _go(capsys, *args):
    code = main(["run-model", *map(str, args)])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_a_pte_run_without_a_reference_is_refused_before_building(pack, tmp_path, capsys):
    pte = tmp_path / "m.pte"
    pte.write_bytes(ptekit.add_mul())
    code, out, err = _go(capsys, pack, "--pte", pte, "--work-dir", tmp_path / "work", "--json", tmp_path / "r.json")
    assert (code, out) == (2, "")
    assert err == ("executorch-pack-bot: error: --pte needs a reference to compare with: --expected FILE "
                   "(outputs recorded earlier) or --host-python PYTHON (a venv holding the executorch wheel)\n")
    assert not (tmp_path / "work").exists() and not (tmp_path / "r.json").exists()


@pytest.mark.parametrize("what", ["pte", "suite"])
def test_a_missing_host_python_is_refused_before_building(pack, tmp_path, capsys, what):
    pte = tmp_path / "m.pte"
    pte.write_bytes(ptekit.add_mul())
    missing = tmp_path / "venv" / "bin" / "python"
    target = ["--pte", pte] if what == "pte" else ["--suite", tmp_path / "suite"]
    code, out, err = _go(capsys, pack, *target, "--host-python", missing, "--work-dir", tmp_path / "work")
    assert (code, out) == (2, "")
    assert err == f"executorch-pack-bot: error: --host-python: {missing}: no such program\n"
    assert sorted(os.listdir(tmp_path)) == ["m.pte"]


@pytest.mark.needs("arm-gcc", "qemu")
def test_a_host_python_on_path_is_taken(pack, tmp_path, capsys):
    """A bare name is looked up on PATH (here ``python3``); the run then fails at select, not at usage."""
    pte = tmp_path / "m.pte"
    pte.write_bytes(ptekit.single("aten::nothing_like_this"))
    code, out, _ = _go(capsys, pack, "--pte", pte, "--host-python", "python3")
    assert code == 1 and "FAILED at select" in out


def test_a_suite_that_is_a_file_is_refused(pack, tmp_path, capsys):
    (tmp_path / "suite").write_text("not a folder\n")
    code, _, err = _go(capsys, pack, "--suite", tmp_path / "suite", "--host-python", "python3")
    assert code == 2 and err == f"executorch-pack-bot: error: --suite: {tmp_path / 'suite'}: not a folder\n"
    assert (tmp_path / "suite").read_text() == "not a folder\n"


def test_a_suite_under_a_file_is_refused(pack, tmp_path, capsys):
    (tmp_path / "afile").write_text("x\n")
    code, _, err = _go(capsys, pack, "--suite", tmp_path / "afile" / "sub", "--host-python", "python3")
    assert code == 2 and err == (f"executorch-pack-bot: error: --suite: {tmp_path / 'afile' / 'sub'}: cannot be made, "
                                 f"{tmp_path / 'afile'} is not a folder\n")
    assert sorted(os.listdir(tmp_path)) == ["afile"]


def test_help_documents_the_expected_format_and_the_pack_cache_default(capsys):
    with pytest.raises(SystemExit):
        main(["run-model", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert ('{"scalar_type": ExecuTorch\'s ScalarType number (6 float32), "sizes": [dims], "hex": the tensor\'s '
            'bytes, little-endian, as hex}') in text
    assert "(default: $EXECUTORCH_PACK_BOT_CACHE/packs, else not kept)" in text


def test_the_pack_cache_default_is_the_cache_folders_packs(monkeypatch, tmp_path):
    import argparse

    from bot.commands.run_model import _dep_options
    monkeypatch.setenv("EXECUTORCH_PACK_BOT_CACHE", str(tmp_path))
    args = argparse.Namespace(dep_pack=[], cbuild_pack=None, pack_index_url="off", pack_cache=None)
    assert _dep_options(args).cache == tmp_path / "packs"
    args.pack_cache = tmp_path / "mine"
    assert _dep_options(args).cache == tmp_path / "mine"
