"""ExecuTorch versions in CMake code: ``EXECUTORCH_VERSION`` variables move with the bump;
``find_package(executorch OLD)`` is a leftover.
"""

from __future__ import annotations

import json

from helpers import update as _update

CMAKE = '''\
cmake_minimum_required(VERSION 3.20)
# Pack: PyTorch::ExecuTorch@1.4.0
set(EXECUTORCH_VERSION 1.4.0)
set(ET_VERSION "1.4.0")
set(ETHOSU_VERSION 1.4.0)
set(CMSIS_VERSION 1.4.0)
'''


def _flags(out: str, code: str) -> list[dict]:
    return [f for f in json.loads(out)["flags"] if f["code"] == code]


def test_cmake_executorch_version_variables_move(template, upstream_repo, capsys):
    (template / "CMakeLists.txt").write_text(CMAKE)
    rc, out, err = _update(capsys, template, upstream_repo)
    assert rc == 0, err
    assert (template / "CMakeLists.txt").read_text() == (
        CMAKE.replace("@1.4.0", "@1.5.1").replace("EXECUTORCH_VERSION 1.4.0", "EXECUTORCH_VERSION 1.5.1")
        .replace('ET_VERSION "1.4.0"', 'ET_VERSION "1.5.1"'))


def test_cmake_find_package_of_the_old_version_is_a_leftover(template, upstream_repo, capsys):
    """``find_package(executorch 1.4.0 EXACT REQUIRED)`` was left at the old version with no word."""
    (template / "CMakeLists.txt").write_text("cmake_minimum_required(VERSION 3.21)\n"
                                             "find_package(executorch 1.4.0 EXACT REQUIRED)\n"
                                             "find_package(flatbuffers 1.4.0)\n")
    rc, out, err = _update(capsys, template, upstream_repo, "--dry-run", "--json")
    assert rc == 0, err
    assert [(f["path"], f["line"]) for f in _flags(out, "leftover")] == [("CMakeLists.txt", 2)]
