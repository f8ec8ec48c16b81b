"""The prose kind of a path (bot.template.prose.regions.file_kind): each glob of KINDS, by base name,
exactly as fnmatch matches it one glob at a time."""

from __future__ import annotations

import fnmatch

import pytest

from bot.template.prose.regions import KINDS, file_kind, is_history_file

CASES = {
    "a.md": "markdown", "docs/x.rst": "markdown", "notes.markdown": "markdown", "foo.txt": "markdown",
    "A.MD": None, "a.mdx": None, "CMakeLists.txt.bak": None, "model.pte": None,
    "CMakeLists.txt": "cmake", "cmake/arm.cmake": "cmake",
    "requirements.txt": "requirements", "dev-requirements.in": "requirements", "x-constraints.txt": "requirements",
    "requirements/base.txt": "requirements",
    "c.yml": "yaml", ".github/workflows/d.yaml": "yaml", "e.py": "python",
    "f.sh": "shell", "Dockerfile": "shell", "x.Dockerfile": "shell", "Dockerfile.arm": "shell",
    "g.bat": "batch", "h.cmd": "batch", "i.c": "c", "j.hpp": "c", "k.hxx": "c",
    "NEWS": "markdown", "CHANGES.adoc": "markdown", "weird[1].md": "markdown",
}


def _one_glob_at_a_time(relpath: str):
    base = relpath.rsplit("/", 1)[-1]
    if ("/" + relpath).rsplit("/", 2)[-2] == "requirements" and base.endswith((".txt", ".in")):
        return "requirements"
    for kind, pats in KINDS:
        if any(fnmatch.fnmatchcase(base, p) for p in pats):
            return kind
    return "markdown" if is_history_file(relpath) else None


@pytest.mark.parametrize("path, kind", sorted(CASES.items()))
def test_file_kind(path, kind):
    assert (file_kind(path), _one_glob_at_a_time(path)) == (kind, kind)
