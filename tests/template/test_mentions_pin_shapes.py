"""Shapes of the current ExecuTorch version that move: table rows, git refs of the release tag,
variable assignments (Makefile, CMake, Dockerfile, shell), version-bearing URLs, labels."""

from __future__ import annotations

import pytest

from mentionkit import counts, edits, flags, left, plan


CSOL = ("app.csolution.yml", 3, "1.4.0", "1.5.1")
REQ = ("requirements.txt", 1, "1.4.0", "1.5.1")


def test_a_markdown_table_row_of_executorch_moves_and_another_row_stays(tmp_path, tags, capsys):
    table = "| tool | version |\n|---|---|\n| ExecuTorch | 1.4.0 |\n| CMSIS-Toolbox | 2.15.0 |\n"
    data = plan(tmp_path, tags, capsys, {"README.md": table})
    assert edits(data) == [("README.md", 3, "1.4.0", "1.5.1"), CSOL, REQ]
    assert flags(data) == []
    assert counts(data) == (3, 0, 0, 0)


@pytest.mark.parametrize("row", ["| **ExecuTorch** | `v1.4.0` |", "| ExecuTorch version | 1.4.0 | pack and wheel |",
                                 "ExecuTorch pack | 1.4.0", "| PyTorch ExecuTorch | runtime | 1.4.0 |"])
def test_other_table_row_shapes_move(tmp_path, tags, capsys, row):
    data = plan(tmp_path, tags, capsys, {"README.md": "| a | b |\n|---|---|\n" + row + "\n"})
    assert edits(data) == [("README.md", 3, "1.4.0", "1.5.1"), CSOL, REQ]


def test_a_row_of_another_thing_at_the_same_version_is_another_version(tmp_path, tags, capsys):
    table = "ExecuTorch parts:\n\n| part | version |\n|---|---|\n| ExecuTorch | 1.4.0 |\n| Board BSP | 1.4.0 |\n"
    data = plan(tmp_path, tags, capsys, {"README.md": table})
    assert edits(data) == [("README.md", 5, "1.4.0", "1.5.1"), CSOL, REQ]
    assert left(data) == [("other", "README.md", 6, "1.4.0", "a table row of another thing (Board BSP)")]


SHELL = """#!/bin/sh
git clone --depth 1 --branch=v1.4.0 https://github.com/pytorch/executorch.git
git clone --branch v1.4.0 https://github.com/pytorch/executorch.git et2
git clone -b v1.4.0 https://github.com/pytorch/executorch.git et3
git -C et3 checkout v1.4.0
cd executorch && git checkout --detach v1.4.0
git clone -b v1.4.0 https://github.com/acme/other-tool.git
"""


def test_git_refs_of_the_release_tag_move_in_a_script(tmp_path, tags, capsys):
    data = plan(tmp_path, tags, capsys, {"scripts/get.sh": SHELL})
    assert edits(data) == [CSOL, REQ] + [("scripts/get.sh", n, "1.4.0", "1.5.1") for n in range(2, 7)]
    # another repository's tag in the same script is not moved, and listed
    assert left(data) == [("review", "scripts/get.sh", 7, "1.4.0", "review-mention")]


def test_git_refs_move_in_a_markdown_code_block(tmp_path, tags, capsys):
    md = ("# Build ExecuTorch\n\n```sh\n"
          "git clone --depth 1 --branch=v1.4.0 https://github.com/pytorch/executorch.git\n"
          "git clone --branch v1.4.0 https://github.com/pytorch/executorch.git\n"
          "git clone -b v1.4.0 https://github.com/pytorch/executorch.git\n"
          "cd executorch && git checkout v1.4.0\n```\n")
    data = plan(tmp_path, tags, capsys, {"README.md": md})
    assert edits(data) == [("README.md", n, "1.4.0", "1.5.1") for n in (4, 5, 6, 7)] + [CSOL, REQ]


def test_a_git_ref_in_a_script_without_executorch_is_left(tmp_path, tags, capsys):
    data = plan(tmp_path, tags, capsys, {"scripts/tool.sh": "git clone -b v1.4.0 https://github.com/acme/tool.git\n"})
    assert edits(data) == [CSOL, REQ]
    # not moved, and not silent: 1.4.0 without any ExecuTorch context is for review
    assert left(data) == [("review", "scripts/tool.sh", 1, "1.4.0", "review-mention")]


MAKEFILE = ("EXECUTORCH_VERSION = 1.4.0\nET_PACK_VERSION := 1.4.0\nEXECUTORCH_VERSION ?= 1.4.0\n"
            "EXECUTORCH_VERSION ::= 1.4.0\nEXECUTORCH_VERSION += 1.4.0\nEXECUTORCH_VERSION=v1.4.0\n")


@pytest.mark.parametrize("name", ["Makefile", "GNUmakefile", "mk/rules.mk"])
def test_makefile_assignments_with_every_operator_move(tmp_path, tags, capsys, name):
    data = plan(tmp_path, tags, capsys, {name: MAKEFILE})
    assert [e for e in edits(data) if e[0] == name] == [(name, n, "1.4.0", "1.5.1") for n in range(1, 7)]
    assert counts(data) == (8, 0, 0, 0)


def test_a_make_shell_assignment_is_for_review(tmp_path, tags, capsys):
    data = plan(tmp_path, tags, capsys, {"Makefile": "EXECUTORCH_VERSION != echo 1.4.0\n"})
    assert [e for e in edits(data) if e[0] == "Makefile"] == []
    assert left(data) == [("review", "Makefile", 1, "1.4.0", "review-mention")]


def test_dockerfile_arg_env_and_shell_export_move(tmp_path, tags, capsys):
    data = plan(tmp_path, tags, capsys, {
        "Dockerfile": "ARG EXECUTORCH_VERSION=1.4.0\nENV EXECUTORCH_VERSION 1.4.0\nENV ET_VERSION=\"1.4.0\"\n",
        "env.sh": "export EXECUTORCH_VERSION=1.4.0\nexport ET_PACK_VERSION='1.4.0'\n"})
    assert edits(data) == [("Dockerfile", n, "1.4.0", "1.5.1") for n in (1, 2, 3)] + [CSOL] + \
        [("env.sh", 1, "1.4.0", "1.5.1"), ("env.sh", 2, "1.4.0", "1.5.1"), REQ]


def test_cmake_set_forms_move(tmp_path, tags, capsys):
    data = plan(tmp_path, tags, capsys, {
        "CMakeLists.txt": "set(EXECUTORCH_VERSION 1.4.0)\nset(ET_VERSION \"1.4.0\" CACHE STRING \"\")\n",
        "cmake/et.cmake": "set(MY_EXECUTORCH_PACK_VERSION 1.4.0)\n"})
    assert edits(data) == [("CMakeLists.txt", 1, "1.4.0", "1.5.1"), ("CMakeLists.txt", 2, "1.4.0", "1.5.1"), CSOL,
                           ("cmake/et.cmake", 1, "1.4.0", "1.5.1"), REQ]


def test_version_bearing_urls_move(tmp_path, tags, capsys):
    md = ("# ExecuTorch sources\n\n"
          "Download https://github.com/pytorch/executorch/archive/refs/tags/v1.4.0.tar.gz now.\n\n"
          "See https://pypi.org/project/executorch/1.4.0/ now.\n\n"
          "Get https://download.pytorch.org/whl/executorch-1.4.0-cp311-cp311-linux_x86_64.whl now.\n\n"
          "Read https://github.com/pytorch/executorch/blob/v1.4.0/README.md now.\n")
    data = plan(tmp_path, tags, capsys, {"README.md": md})
    assert edits(data) == [("README.md", n, "1.4.0", "1.5.1") for n in (3, 5, 7, 9)] + [CSOL, REQ]
    assert counts(data) == (6, 0, 0, 0)


def test_labels_in_lists_and_captions_move(tmp_path, tags, capsys):
    md = ("# Versions\n\n- ExecuTorch: 1.4.0\n- **ExecuTorch version:** v1.4.0\n- CMSIS-Toolbox: 2.15.0\n\n"
          "*Figure 1: the ExecuTorch 1.4.0 runtime on Corstone-300.*\n")
    data = plan(tmp_path, tags, capsys, {"README.md": md})
    assert edits(data) == [("README.md", n, "1.4.0", "1.5.1") for n in (3, 4, 7)] + [CSOL, REQ]


def test_look_alikes_of_the_version_are_not_occurrences(tmp_path, tags, capsys):
    md = "# Notes\n\nExecuTorch look-alikes: 1.4.0.1, 1.4.0rc1, 1.4.0-rc1, 1.4.0.dev2, 11.4.0, 2026.1.4.0.\n"
    data = plan(tmp_path, tags, capsys, {"README.md": md})
    assert [i for i in data["mentions"]["items"] if i["path"] == "README.md"] == []
