"""run-model --work-dir empties only a folder it made (or an empty one): any other folder, a file, or a folder
holding the pack or the .pte is refused with exit 2 and left byte-identical."""

from __future__ import annotations

import pytest

import ptekit
from bot.cli import main
from bot.modelrun.run import WORK_MARK
from bot.sample.packgen import write_demo_packs

V = "1.5.1"


@pytest.fixture(scope="module")
def pack(tmp_path_factory):
    return write_demo_packs(tmp_path_factory.mktemp("packs"), V).good


def _tree(root):
    return {p.relative_to(root).as_posix(): (p.read_bytes() if p.is_file() else None) for p in root.rglob("*")}


@pytest.fixture(scope="module")
def expected(tmp_path_factory):
    """A reference file for runs that stop before compare (run-model refuses a --pte run without one)."""
    path = tmp_path_factory.mktemp("expected") / "e.json"
    path.write_text("[]\n")
    return path


def _run(pack, pte, work, capsys, expected):
    code = main(["run-model", str(pack), "--pte", str(pte), "--work-dir", str(work), "--expected", str(expected)])
    out = capsys.readouterr()
    return code, out.out + out.err


@pytest.mark.parametrize("case", ["someone-elses-folder", "holds-the-pte", "is-a-file"])
def test_a_work_dir_run_model_did_not_make_is_refused_and_left_as_it_was(pack, tmp_path, capsys, case, expected):
    inputs, other = tmp_path / "in", tmp_path / "other"
    inputs.mkdir(), other.mkdir()
    pte = inputs / "model.pte"
    pte.write_bytes(ptekit.add_mul())
    (other / "notes.txt").write_text("keep me\n")
    work = {"someone-elses-folder": other, "holds-the-pte": inputs, "is-a-file": other / "notes.txt"}[case]
    if case == "holds-the-pte":
        (inputs / WORK_MARK).write_text("")
    before = _tree(tmp_path)
    code, out = _run(pack, pte, work, capsys, expected)
    assert code == 2 and "Traceback" not in out
    assert {"someone-elses-folder": "a folder that run-model did not make and that is not empty",
            "holds-the-pte": f"holds {pte}, which run-model reads",
            "is-a-file": "not a folder"}[case] in out
    assert _tree(tmp_path) == before


@pytest.mark.needs("arm-gcc", "qemu")
def test_a_work_dir_run_model_made_is_emptied_and_reused(pack, tmp_path, capsys, expected):
    pte = tmp_path / "model.pte"
    pte.write_bytes(ptekit.single("aten::nothing_like_this"))
    work = tmp_path / "work"
    assert _run(pack, pte, work, capsys, expected)[0] == 1          # fails at select, after making the folder
    assert (work / WORK_MARK).is_file()
    (work / "stale.txt").write_text("from the last run\n")
    code, out = _run(pack, pte, work, capsys, expected)
    assert code == 1 and "FAILED at select" in out
    assert not (work / "stale.txt").exists() and (work / WORK_MARK).is_file()


@pytest.mark.parametrize("what", ["device", "folder", "too-big"])
def test_a_pte_that_is_no_regular_file_or_too_big_is_refused_before_reading(pack, tmp_path, capsys, monkeypatch, what,
                                                                          expected):
    import bot.modelrun.run as run_mod
    pte = {"device": "/dev/zero", "folder": str(tmp_path), "too-big": str(tmp_path / "m.pte")}[what]
    if what == "too-big":
        (tmp_path / "m.pte").write_bytes(ptekit.add_mul())
        monkeypatch.setattr(run_mod, "MAX_PTE", 100)
    code = main(["run-model", str(pack), "--pte", pte, "--expected", str(expected)])
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err
    assert {"device": "/dev/zero: not a regular file", "folder": f"{tmp_path}: not a regular file",
            "too-big": f"m.pte: {len(ptekit.add_mul())} bytes, over the 0 MiB"}[what] in err
