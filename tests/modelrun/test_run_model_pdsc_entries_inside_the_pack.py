"""run-model compiles only the pack's own files: a PDSC entry that is absolute, climbs out with '../', or is a
symbolic link leading out of the pack root is refused with exit 2 before anything is compiled."""

from __future__ import annotations

import zipfile

import pytest

import ptekit
from bot.cli import main
from bot.sample.packgen import write_demo_packs

ADD = "src/kernels/portable/cpu/op_add.cpp"


@pytest.fixture(scope="module")
def pack_zip(tmp_path_factory):
    return write_demo_packs(tmp_path_factory.mktemp("packs"), "1.5.1").good


@pytest.mark.parametrize("case", ["parent", "absolute", "link-out", "include-parent"])
def test_an_entry_outside_the_pack_root_is_refused_before_compiling(pack_zip, tmp_path, capsys, case):
    root = tmp_path / "pack"
    zipfile.ZipFile(pack_zip).extractall(root)
    (tmp_path / "outside.cpp").write_text("#error not the pack's\n")
    pdsc = next(root.glob("*.pdsc"))
    text = pdsc.read_text()
    entry = {"parent": "../outside.cpp", "absolute": str(tmp_path / "outside.cpp"), "link-out": "src/link.cpp",
             "include-parent": ADD}[case]
    if case == "link-out":
        (root / "src" / "link.cpp").symlink_to(tmp_path / "outside.cpp")
    if case == "include-parent":
        text = text.replace(f'<file category="sourceCpp" name="{ADD}"/>',
                            f'<file category="sourceCpp" name="{ADD}"/><file category="include" name="../"/>')
        entry = "../"
    else:
        text = text.replace(f'name="{ADD}"', f'name="{entry}"')
    pdsc.write_text(text)
    pte = tmp_path / "m.pte"
    pte.write_bytes(ptekit.single("aten::add"))
    (tmp_path / "e.json").write_text("[]\n")
    code = main(["run-model", str(root), "--pte", str(pte), "--work-dir", str(tmp_path / "work"),
                 "--expected", str(tmp_path / "e.json")])
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err
    named = ".." if case == "include-parent" else entry
    assert f"the PDSC names {named!r}, which is outside the pack root" in err
    assert not (tmp_path / "work" / "obj").exists()
