"""ScriptsManager: installs and version checks in workflows, Dockerfiles and shell scripts.

public CMSIS ExecuTorch templates such as Arm-Examples/CMSIS-Executorch: a workflow step ``pip show flatbuffers | grep
"Version: 24.3.25"`` must move with the TOSA pin, and only when it changes;
Dockerfiles may pin ``pip install executorch==X``.
"""

from __future__ import annotations

import pytest

from bot.model import Bump, PinChange
from bot.template.prose import ProseManager
from bot.template.scripts import ScriptsManager
from bot.textfile import TextDocument
from helpers import minor_bump, patch_bump

SM = ScriptsManager()


def run(path: str, text: str | bytes, bump: Bump, managers=(SM,)):
    raw = text if isinstance(text, bytes) else text.encode()
    doc = TextDocument.from_bytes(path, raw)
    results = [m.update(doc, bump) for m in managers]
    edits = [e for r in results for e in r.edits]
    return doc.apply(edits), results[0], doc


WORKFLOW = """\
name: build
on: [push]
jobs:
  build:
    runs-on: ubuntu-24.04
    steps:
      - run: pip install -r requirements.txt
      # The serializer must be the one upstream pins.
      - run: 'pip show flatbuffers | grep "Version: 24.3.25"'
      - run: pip show tosa-tools | grep -q '^Version: 2026.5.0$'
"""


def test_workflow_pip_show_moves_with_changed_tosa_pin():
    new, res, _ = run(".github/workflows/build.yml", WORKFLOW, minor_bump(flatbuffers=True))
    assert new.decode() == WORKFLOW.replace("Version: 24.3.25", "Version: 25.1.0")
    assert [(e.line, e.old, e.new, e.kind) for e in res.edits] == [(9, "24.3.25", "25.1.0", "script")]
    assert res.flags == ()


def test_workflow_pip_show_unchanged_when_pin_does_not_change():
    new, res, doc = run(".github/workflows/build.yml", WORKFLOW, minor_bump(flatbuffers=False))
    assert new == doc.raw
    assert res.edits == ()


def test_workflow_crlf_bytes():
    raw = WORKFLOW.replace("\n", "\r\n").encode()
    new, _, _ = run(".github/workflows/build.yml", raw, minor_bump())
    assert new == raw.replace(b"24.3.25", b"25.1.0")


DOCKERFILE = """\
FROM python:3.12
# Installs executorch==1.4.0 for ExecuTorch 1.4.0
ARG EXECUTORCH_VERSION=1.4.0
ENV TORCH_VERSION=2.13.0 TORCHAO_VERSION=0.18.0 OTHER_VERSION=2.13.0
RUN pip install executorch==1.4.0 torch==2.13.0 torchao==0.18.0 torchvision==0.28.0 \\
    "executorch[cortex_m] == 1.4.0" ml_dtypes==0.5.1  # executorch==1.4.0 in a comment
RUN cpackget add PyTorch::ExecuTorch@1.4.0 ARM::V2M_MPS3_SSE_300_BSP@1.4.0 && \\
    curl -LO https://github.com/pytorch/executorch/releases/download/v1.4.0/PyTorch.ExecuTorch.1.4.0.pack
"""


def test_dockerfile_installs_variables_and_pack_move_comments_do_not():
    new, res, _ = run("docker/Dockerfile", DOCKERFILE, minor_bump())
    assert new.decode() == """\
FROM python:3.12
# Installs executorch==1.4.0 for ExecuTorch 1.4.0
ARG EXECUTORCH_VERSION=1.5.1
ENV TORCH_VERSION=2.14.0 TORCHAO_VERSION=0.19.0 OTHER_VERSION=2.13.0
RUN pip install executorch==1.5.1 torch==2.14.0 torchao==0.19.0 torchvision==0.28.0 \\
    "executorch[cortex_m] == 1.5.1" ml_dtypes==0.5.1  # executorch==1.4.0 in a comment
RUN cpackget add PyTorch::ExecuTorch@1.5.1 ARM::V2M_MPS3_SSE_300_BSP@1.4.0 && \\
    curl -LO https://github.com/pytorch/executorch/releases/download/v1.5.1/PyTorch.ExecuTorch.1.5.1.pack
"""
    assert all(e.kind == "script" for e in res.edits)


def test_scripts_and_prose_edits_never_overlap():
    # The engine merges both managers' edits; TextDocument.apply refuses overlaps.
    new, _, _ = run("docker/Dockerfile", DOCKERFILE, minor_bump(), managers=(SM, ProseManager()))
    out = new.decode()
    assert "# Installs executorch==1.5.1 for ExecuTorch 1.5.1" in out
    assert "# executorch==1.5.1 in a comment" in out
    assert "RUN pip install executorch==1.5.1 torch==2.14.0" in out


def test_shell_script_code_only_and_torch_never_matches_torchao():
    bump = Bump("1.4.0", "1.5.1", "1.4.0", "1.5.1", "v1.4.0", "v1.5.1",
                (PinChange("torch", "2.13.0", "2.14.0", "torch_pin.py"),))
    text = ("#!/bin/sh\n# torch==2.13.0\npip install torch==2.13.0 torchao==2.13.0 pytorch==2.13.0 "
            "my-torch==2.13.0 torch_x==2.13.0\n")
    new, res, _ = run("scripts/setup_venv.sh", text, bump)
    assert new.decode() == text.replace("install torch==2.13.0", "install torch==2.14.0")
    assert len(res.edits) == 1


def test_patch_bump_leaves_other_packs():
    text = "cpackget add PyTorch::ExecuTorch@1.5.0 ARM::V2M_MPS3_SSE_300_BSP@1.5.0\npip install executorch==1.5.0\n"
    new, _, _ = run("ci/install.sh", text, patch_bump())
    assert new.decode() == ("cpackget add PyTorch::ExecuTorch@1.5.1 ARM::V2M_MPS3_SSE_300_BSP@1.5.0\n"
                            "pip install executorch==1.5.1\n")


def test_unexpected_old_value_is_moved_and_flagged():
    text = "pip install torch==2.12.0\npip show torch | grep 'Version: 2.12.0'\n"
    new, res, _ = run("ci/install.sh", text, minor_bump())
    assert new.decode() == text.replace("2.12.0", "2.14.0")
    assert [(f.code, f.line, f.blocking) for f in res.flags] == [("script-pin-drift", 2, False),
                                                                 ("script-pin-drift", 1, False)]
    assert "2.12.0" in res.flags[0].message and "2.13.0" in res.flags[0].message


def test_batch_script_rem_lines_are_left_to_prose():
    text = "@echo off\r\nREM pip install executorch==1.4.0\r\npip install executorch==1.4.0\r\n"
    new, res, _ = run("setup_venv.bat", text.encode(), minor_bump())
    assert new == b"@echo off\r\nREM pip install executorch==1.4.0\r\npip install executorch==1.5.1\r\n"
    assert [e.line for e in res.edits] == [3]


def test_unrelated_package_names_unchanged_bytes():
    text = "pip install numpy==2.13.0 ethos-u-vela==5.1.0 tosa-tools==2026.5.0\n"
    new, res, doc = run("ci/install.sh", text, minor_bump())
    assert new == doc.raw and res.edits == ()


def test_extract_lists_script_pins_not_comments():
    doc = TextDocument.from_bytes("Dockerfile", DOCKERFILE.encode())
    got = [(f.line, f.kind, f.name, f.version) for f in SM.extract(doc)]
    assert got == [(5, "script", "executorch", "1.4.0"), (6, "script", "executorch", "1.4.0"),
                   (7, "script", "PyTorch::ExecuTorch", "1.4.0")]


@pytest.mark.parametrize("path,expected", [
    (".github/workflows/build.yml", True), ("sub/.github/workflows/ci.yaml", True),
    ("docs/build.yml", False), ("x.csolution.yml", False), ("Dockerfile", True),
    ("docker/arm.Dockerfile", True), ("setup_venv.sh", True), ("setup_venv.bat", True),
    ("README.md", False), ("requirements.txt", False)])
def test_matches(path, expected):
    assert SM.matches(path) == expected
