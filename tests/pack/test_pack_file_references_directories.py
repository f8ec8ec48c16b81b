"""``file-references``: only a ``<file category="include">`` may name a directory of the pack; a source,
header or any other category names a file, and a directory there resolves to nothing a tool can read."""

from __future__ import annotations

import zipfile

import pytest

from bot.pack import checks
from bot.pack.archive import EntryIndex
from bot.pack.pdsc import Component, Pdsc, PdscFile


def _index(*names: str) -> EntryIndex:
    idx = EntryIndex()
    for n in names:
        idx.add(zipfile.ZipInfo(n))
    return idx


def _refs(*files: PdscFile):
    comp = Component(cclass="Machine Learning", cgroup="ExecuTorch", csub="Runtime", cversion="1.5.1", line=20,
                     files=files)
    pdsc = Pdsc(path="P.pdsc", vendor="PyTorch", name="ExecuTorch", url=None, releases=(), components=(comp,))
    r = checks.references(pdsc, _index("src/registration/", "src/registration/RegisterAllKernels.cpp",
                                       "include/executorch/x.h"))
    return r.name, r.status, r.detail, r.data


@pytest.mark.parametrize("name", ["src/registration/", "src/registration", "include"])
def test_a_source_naming_a_directory_fails(name):
    why = "names a directory; only category include names a path, sourceCpp names a file"
    missing = [f"P.pdsc:31: {name!r} of Machine Learning:ExecuTorch:Runtime ({why})"]
    assert _refs(PdscFile("sourceCpp", name, 31)) == (
        "file-references", "fail", f"1 of 1 <file> names resolve to nothing: {missing[0]}", {"missing": missing})


def test_a_file_without_a_category_naming_a_directory_fails():
    why = "names a directory; only category include names a path, no category names a file"
    missing = [f"P.pdsc:7: 'include/' of Machine Learning:ExecuTorch:Runtime ({why})"]
    assert _refs(PdscFile("", "include/", 7)) == (
        "file-references", "fail", f"1 of 1 <file> names resolve to nothing: {missing[0]}", {"missing": missing})


def test_an_include_path_and_files_resolve():
    assert _refs(PdscFile("include", "include/", 5), PdscFile("include", "include/executorch", 6),
                 PdscFile("sourceCpp", "src/registration/RegisterAllKernels.cpp", 7),
                 PdscFile("header", "include/executorch/x.h", 8)) == (
        "file-references", "pass", "all 4 <file> names resolve", {})
