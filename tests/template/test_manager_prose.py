"""ProseManager: ExecuTorch version mentions in Markdown and in comments (public CMSIS ExecuTorch templates such as Arm-Examples/CMSIS-Executorch).

Fixtures are written here, modelled on public CMSIS ExecuTorch templates such as Arm-Examples/CMSIS-Executorch; every "must NOT change"
string seen in those templates is asserted byte-identical.
"""

from __future__ import annotations

import pytest

from bot.model import Bump, PinChange
from bot.template.prose import ProseManager, comment_spans, file_kind
from bot.textfile import TextDocument
from helpers import minor_bump, patch_bump

PM = ProseManager()


def run(path: str, text: str | bytes, bump: Bump):
    """Apply the prose manager's edits; return (new bytes, ManagerResult, original doc)."""
    raw = text if isinstance(text, bytes) else text.encode()
    doc = TextDocument.from_bytes(path, raw)
    res = PM.update(doc, bump)
    return doc.apply(list(res.edits)), res, doc


# --------------------------------------------------------------------------
# Markdown
# --------------------------------------------------------------------------

README = """\
# Firmware template

The pack and the `executorch` Python package must be the same version,
here ExecuTorch 1.4.0 (see the v1.4.0 tag).

```
cpackget add PyTorch::ExecuTorch@1.4.0
pip install executorch==1.4.0 torch==2.13.0
pip install "executorch[cortex_m] == 1.4.0"
```
"""

README_BUMPED = """\
# Firmware template

The pack and the `executorch` Python package must be the same version,
here ExecuTorch 1.5.1 (see the v1.5.1 tag).

```
cpackget add PyTorch::ExecuTorch@1.5.1
pip install executorch==1.5.1 torch==2.14.0
pip install "executorch[cortex_m] == 1.5.1"
```
"""


def test_readme_mentions_move_and_edits_are_version_only():
    new, res, _ = run("README.md", README, minor_bump())
    assert new.decode() == README_BUMPED
    assert {(e.old, e.new) for e in res.edits} == {("1.4.0", "1.5.1"), ("2.13.0", "2.14.0")}
    assert all(e.kind == "prose" and e.why for e in res.edits)
    assert [e.line for e in res.edits] == [4, 4, 7, 8, 8, 9]
    assert res.flags == ()


PAGE = """\
# Pack maintenance

The `PyTorch::ExecuTorch` pack is the release asset of the
v1.4.0 tag. Its PDSC says:

```xml
<url>https://github.com/pytorch/executorch/releases/download/v1.4.0/</url>
```

A pack built with `--version` says `https://github.com/pytorch/executorch/releases/download/1.4.0/`
and is named PyTorch.ExecuTorch.1.4.0.pack.

Install it with `cpackget add PyTorch::ExecuTorch@1.4.0`. The csolution pins it
exact rather than a `@^1.4.0` range:

```yaml
packs:
  - pack: PyTorch::ExecuTorch@1.4.0
```

Rebuild it from the ExecuTorch release branch:

```
git clone https://github.com/pytorch/executorch.git
cd executorch && git checkout release/1.4
git checkout -b release/1.4 origin/release/1.4
backends/arm/cmsis_pack/scripts/build_pack.sh --executorch-root . \\
    --build-dir cmake-out-arm --version 1.4.0-local --output-dir out
```

or `VERSION=1.4.0-local make pack`. PackChk 1.4.5 validates the result.
"""


def test_pack_maintenance_page_every_form_moves():
    new, res, _ = run("documentation/executorch-pack-maintenance.md", PAGE, minor_bump())
    # "PackChk 1.4.5" names another tool's version: the line is not mixed, and 1.4.5 stays.
    expected = (PAGE.replace("1.4.0", "1.5.1").replace("release/1.4", "release/1.5"))
    assert new.decode() == expected
    assert "PackChk 1.4.5" in new.decode()
    assert res.flags == ()
    forms = {f.name for f in PM.extract(TextDocument.from_bytes("p.md", PAGE.encode()))}
    assert forms == {"tag", "release-url", "pack-file", "PyTorch::ExecuTorch@",
                     "release-branch", "local-build", "@version"}


def test_patch_bump_keeps_release_branch_and_other_packs():
    text = PAGE.replace("1.4.0", "1.5.0").replace("release/1.4", "release/1.5") + (
        "\nExecuTorch 1.5 needs ARM::V2M_MPS3_SSE_300_BSP@1.5.0 on the board.\n")
    new, res, _ = run("docs/pack.md", text, patch_bump())
    out = new.decode()
    assert out == text.replace("1.5.0", "1.5.1").replace("BSP@1.5.1", "BSP@1.5.0")
    assert out.count("release/1.5") == 3
    assert "ExecuTorch 1.5 needs ARM::V2M_MPS3_SSE_300_BSP@1.5.0" in out
    assert res.flags == ()


def test_range_finding_is_not_exact():
    doc = TextDocument.from_bytes("a.md", b"Not a `PyTorch::ExecuTorch@^1.4.0` range, but ExecuTorch 1.4.\n")
    found = PM.extract(doc)
    assert [(f.name, f.version, f.exact, f.kind) for f in found] == [
        ("PyTorch::ExecuTorch@", "1.4.0", False, "prose"), ("ExecuTorch", "1.4", True, "prose")]
    assert found[0].text == "PyTorch::ExecuTorch@^1.4.0"


def test_crlf_markdown_bytes():
    raw = b"\xef\xbb\xbfUse ExecuTorch 1.4.0\r\nwith executorch==1.4.0\r\n\r\nand\tExecuTorch\r\n1.4.0"
    new, _, _ = run("README.md", raw, minor_bump())
    assert new == raw.replace(b"1.4.0", b"1.5.1")


def test_lowercase_word_and_version_keyword():
    new, _, _ = run("a.md", "pip show says executorch 1.4.0; ExecuTorch version 1.4.0; EXECUTORCH v1.4.0.\n",
                    minor_bump())
    assert new.decode() == "pip show says executorch 1.5.1; ExecuTorch version 1.5.1; EXECUTORCH v1.5.1.\n"


# --------------------------------------------------------------------------
# Traps: version-shaped strings of other tools seen in those templates
# --------------------------------------------------------------------------

TRAPS = """\
# ExecuTorch notes

The ExecuTorch build uses ARM::SSE_320_BSP@1.0.0 and ARM::V2M_MPS3_SSE_300_BSP@1.5.0,
CMSIS-Toolbox 2.14.1 (`created-for: CMSIS-Toolbox@2.15.0`), next to torch==2.14.0.
ExecuTorch needs the driver pack at ../packs/ARM/ethos-u-core-driver/release/3.1.5-rc.1
and ml_dtypes == 0.5.1, Vela 5.1, PackChk 1.4.5, Python `>=3.10,<3.14`, Arch: v2.0.0,
board revision V1.0 and 1.5 MB of flash; libfoo 21.5.10 and 0.5.1 and 1.5.1.3 for ExecuTorch.

A paragraph about something else.

Other projects' release/1.50 and release/11.5 branches stay as they are.
"""


@pytest.mark.parametrize("bump", [minor_bump(), patch_bump(),
                                  Bump("1.4.5", "1.5.1", "1.4.5", "1.5.1", "v1.4.5", "v1.5.1"),
                                  Bump("1.0.0", "1.5.1", "1.0.0", "1.5.1", "v1.0.0", "v1.5.1"),
                                  Bump("2.0.0", "2.1.0", "2.0.0", "2.1.0", "v2.0.0", "v2.1.0")],
                         ids=["1.4.0", "1.5.0", "1.4.5", "1.0.0", "2.0.0"])
def test_traps_are_byte_identical(bump):
    new, res, doc = run("documentation/notes.md", TRAPS, bump)
    assert new == doc.raw
    assert res.edits == ()
    assert res.flags == ()


def test_release_branch_trap_in_csolution_comment():
    text = ("# ExecuTorch layer; driver path ../release/3.1.5-rc.1 and release/1.4\n"
            "solution:\n  packs:\n    - pack: ARM::ethos-u-core-driver@>=1.25.2\n"
            "      path: ../packs/ARM/ethos-u-core-driver/release/1.4\n")
    new, res, _ = run("x.csolution.yml", text, minor_bump())
    # 3.1.5-rc.1 in the comment is a path's version (after "/"): it does not make the line mixed;
    # the path value itself is never touched.
    assert new.decode() == text.replace("and release/1.4", "and release/1.5")
    assert len(res.edits) == 1


def test_history_mentions_flagged_not_edited():
    text = ("# Results\n\n"
            "| model | fps | notes |\n|---|---|---|\n"
            "| MobileNetV2 | 22 | 22 fps with ExecuTorch 1.4.1, Arch: v2.0.0 |\n"
            "\nUpgraded from ExecuTorch 1.3.0 (see https://github.com/pytorch/executorch/releases/download/v1.3.0/).\n")
    new, res, doc = run("documentation/results.md", text, minor_bump())
    assert new == doc.raw
    got = [(f.code, f.line, f.blocking) for f in res.flags]
    assert got == [("history-mention", 5, False), ("history-mention", 7, False),
                   ("history-mention", 7, False)]
    assert "1.4.1" in res.flags[0].message and "22 fps" in res.flags[0].message
    assert res.flags[0].path == "documentation/results.md"


def test_measurement_of_current_version_is_history():
    text = ("ExecuTorch 1.4.0 runs MobileNetV2 at 22 fps.\n"
            "The ExecuTorch 1.4.0 pack is 1.7 MB zipped.\n"
            "Measured with ExecuTorch 1.4.0 on the FVP.\n"
            "Install ExecuTorch 1.4.0.\n")
    new, res, _ = run("docs/perf.md", text, minor_bump())
    assert new.decode() == text.replace("Install ExecuTorch 1.4.0", "Install ExecuTorch 1.5.1")
    assert [(f.code, f.line) for f in res.flags] == [("history-mention", 1), ("history-mention", 2),
                                                      ("history-mention", 3)]
    assert "measurement" in res.flags[0].message


def test_weak_forms_need_executorch_in_the_paragraph():
    text = ("# Tools\n\nThe tool is built from tag v1.4.0; check out release/1.4 and run\n"
            "`VERSION=1.4.0-local make`.\n\nUnrelated.\n\nMore text.\n\nExecuTorch is elsewhere.\n")
    new, res, doc = run("docs/tools.md", text, minor_bump())
    assert new == doc.raw and res.flags == ()


def test_new_version_already_present_is_not_touched_by_patch_bump_of_other_version():
    # 1.5.1 mentioned while bumping 1.5.0 -> 1.5.1: it is "another version", so the line compares
    # versions: left as written with one mixed-mention flag (was "1.5.1 and 1.5.1").
    new, res, doc = run("a.md", "ExecuTorch 1.5.1 and ExecuTorch 1.5.0.\n", patch_bump())
    assert new.decode() == "ExecuTorch 1.5.1 and ExecuTorch 1.5.0.\n"
    assert [(f.code, f.line) for f in res.flags] == [("mixed-mention", 1)]


# --------------------------------------------------------------------------
# Comments of other file kinds
# --------------------------------------------------------------------------

def test_requirements_comments_restating_pins():
    text = ("# ExecuTorch 1.4.0 targets torch 2.13.0 and torchao 0.18.0 (the v1.4.0 tag).\n"
            "executorch==1.4.0\n"
            "torch==2.13.0  # ExecuTorch 1.4.0 wants torch==2.13.0\n"
            "torchao==0.18.0\n"
            "flatbuffers == 24.3.25\n"
            "ml_dtypes == 0.5.1\n")
    new, res, _ = run("requirements-executorch.txt", text, minor_bump())
    assert new.decode() == (
        "# ExecuTorch 1.5.1 targets torch 2.14.0 and torchao 0.19.0 (the v1.5.1 tag).\n"
        "executorch==1.4.0\n"
        "torch==2.13.0  # ExecuTorch 1.5.1 wants torch==2.14.0\n"
        "torchao==0.18.0\n"
        "flatbuffers == 24.3.25\n"
        "ml_dtypes == 0.5.1\n")
    assert all(e.kind == "prose" for e in res.edits)


def test_torch_word_form_needs_an_executorch_sentence_and_never_matches_torchao():
    bump = Bump("1.4.0", "1.5.1", "1.4.0", "1.5.1", "v1.4.0", "v1.5.1",
                (PinChange("torch", "0.18.0", "2.14.0", "x"),))
    text = ("ExecuTorch notes. Tested with torch 0.18.0 on a laptop.\n"
            "ExecuTorch wants torchao 0.18.0 and torchvision==0.18.0 here.\n")
    new, res, doc = run("docs/a.md", text, bump)
    assert new == doc.raw


def test_setup_venv_comments_major_minor():
    py = ('"""Create the venv; ExecuTorch 1.4 is documented here but docstrings are code."""\n'
          "import sys\n\n"
          "# ExecuTorch 1.4 declares requires-python >=3.10,<3.15\n"
          "MSG = 'ExecuTorch 1.4 needs Python 3.10'  # ExecuTorch 1.4.0 and Python (3, 10)\n"
          "if sys.version_info < (3, 10):\n    sys.exit(MSG)\n")
    new, _, _ = run("setup_venv.py", py, minor_bump())
    assert new.decode() == py.replace("# ExecuTorch 1.4 declares", "# ExecuTorch 1.5 declares").replace(
        "# ExecuTorch 1.4.0 and", "# ExecuTorch 1.5.1 and")
    sh = ('#!/bin/sh\n# ExecuTorch 1.4 declares requires-python >=3.10,<3.15\n'
          'echo "ExecuTorch 1.4 # not a comment"  # ExecuTorch 1.4\nX=$#\n')
    new, _, _ = run("setup_venv.sh", sh, minor_bump())
    assert new.decode() == sh.replace("# ExecuTorch 1.4 declares", "# ExecuTorch 1.5 declares").replace(
        '"  # ExecuTorch 1.4\n', '"  # ExecuTorch 1.5\n')
    bat = ("@echo off\r\nREM ExecuTorch 1.4 declares requires-python\r\n:: ExecuTorch 1.4 again\r\n"
           "echo ExecuTorch 1.4\r\n")
    new, _, _ = run("setup_venv.bat", bat.encode(), minor_bump())
    assert new == bat.replace("REM ExecuTorch 1.4", "REM ExecuTorch 1.5").replace(
        ":: ExecuTorch 1.4", ":: ExecuTorch 1.5").encode()


def test_patch_bump_keeps_major_minor_comments():
    py = "# ExecuTorch 1.5 declares requires-python\n"
    new, res, doc = run("setup_venv.py", py, patch_bump())
    assert new == doc.raw and res.flags == ()


def test_python_that_does_not_tokenize_uses_whole_line_comments():
    py = "# ExecuTorch 1.4.0\nx = (  # ExecuTorch 1.4.0\n"
    new, _, _ = run("broken.py", py, minor_bump())
    assert new.decode() == "# ExecuTorch 1.5.1\nx = (  # ExecuTorch 1.4.0\n"


def test_csolution_comments_edited_values_not():
    text = ("# yaml-language-server: $schema=https://example.invalid/csolution.schema.json\n"
            "# Build (after `cpackget add PyTorch::ExecuTorch@1.4.0`):\n"
            "solution:\n"
            "  created-for: CMSIS-Toolbox@2.15.0\n"
            '  description: "ExecuTorch 1.4.0 # in a value"\n'
            "  packs:\n"
            "    # Keep equal to requirements.txt (ExecuTorch 1.4.0).\n"
            "    - pack: PyTorch::ExecuTorch@1.4.0    # exact pin for ExecuTorch 1.4.0\n"
            "    - pack: ARM::V2M_MPS3_SSE_300_BSP@1.5.0\n")
    new, res, _ = run("cmsis-executorch.csolution.yml", text, minor_bump())
    assert new.decode() == text.replace("add PyTorch::ExecuTorch@1.4.0`", "add PyTorch::ExecuTorch@1.5.1`").replace(
        "(ExecuTorch 1.4.0)", "(ExecuTorch 1.5.1)").replace("pin for ExecuTorch 1.4.0", "pin for ExecuTorch 1.5.1")
    assert [e.line for e in res.edits] == [2, 7, 8]
    assert "- pack: PyTorch::ExecuTorch@1.4.0 " in new.decode()  # the value is the cmsis manager's


def test_invalid_yaml_does_not_raise_and_edits_only_comments():
    text = "a: b: c  # ExecuTorch 1.4.0\nx: 'ExecuTorch 1.4.0 # quoted'\n"
    new, _, _ = run("bad.yml", text, minor_bump())
    assert new.decode() == "a: b: c  # ExecuTorch 1.5.1\nx: 'ExecuTorch 1.4.0 # quoted'\n"


def test_workflow_run_block_shell_comments_are_prose():
    text = ("jobs:\n  b:\n    steps:\n      - run: |\n"
            "          # ExecuTorch 1.4.0 wheel\n"
            "          pip install executorch==1.4.0  # ExecuTorch 1.4.0\n")
    new, res, _ = run(".github/workflows/ci.yml", text, minor_bump())
    assert new.decode() == text.replace("# ExecuTorch 1.4.0", "# ExecuTorch 1.5.1")
    assert "executorch==1.4.0" in new.decode()
    assert len(res.edits) == 2


def test_cmake_comments():
    text = ('# ExecuTorch 1.4.0 runtime\nset(V "ExecuTorch 1.4.0 # no")  # ExecuTorch 1.4.0\n'
            "#[[ ExecuTorch\n1.4.0 ]]\n")
    new, res, _ = run("CMakeLists.txt", text, minor_bump())
    assert new.decode() == ('# ExecuTorch 1.5.1 runtime\nset(V "ExecuTorch 1.4.0 # no")  # ExecuTorch 1.5.1\n'
                            "#[[ ExecuTorch\n1.5.1 ]]\n")


def test_file_without_executorch_is_skipped():
    text = "# torch 2.13.0 and torch==2.13.0\n"
    new, res, doc = run("requirements.txt", text, minor_bump())
    assert new == doc.raw and res.edits == () and res.flags == ()
    assert PM.extract(doc) == []


# --------------------------------------------------------------------------
# Kinds and patterns
# --------------------------------------------------------------------------

@pytest.mark.parametrize("path,kind", [
    ("README.md", "markdown"), ("docs/a.rst", "markdown"), ("NOTES.txt", "markdown"),
    ("requirements.txt", "requirements"), ("requirements-arm-tosa.txt", "requirements"),
    ("CMakeLists.txt", "cmake"), ("x.csolution.yml", "yaml"), ("ai_layer/ai_layer.clayer.yml", "yaml"),
    ("x.cbuild-pack.yml", "yaml"), ("setup_venv.py", "python"), ("setup_venv.sh", "shell"),
    ("setup_venv.bat", "batch"), ("Dockerfile", "shell"), ("main.cpp", "c"), ("inc/et.h", "c"), ("model.pte", None)])
def test_file_kinds_and_matches(path, kind):
    assert file_kind(path) == kind
    assert PM.matches(path) == (kind is not None)


def test_comment_spans_requirements_inline():
    text = "torch==2.13.0 # a\nfoo @ https://x.invalid/p.whl#egg=foo\n# b\r\n"
    assert [text[s:e] for s, e in comment_spans("requirements.txt", text)] == ["# a", "# b"]
