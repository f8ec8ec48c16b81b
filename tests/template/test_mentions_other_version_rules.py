"""The rules of the ``other`` bucket (docs/mentions.md, "The buckets"): each names another thing's version
(another pack, package, variable, tool, table row, a pack range, a quantity), and a look-alike of ExecuTorch's
own form is not one of them: it stays for review.  The accounting is called directly on one line of a file
no manager handles, and every item is compared whole."""

from __future__ import annotations

import pytest

from bot.engine.mentions import account
from bot.model import Flag
from helpers import minor_bump
from mentionkit import assert_accounting, template

REVIEW = ("names {s} {v} and the bot cannot tell whether it is this template's version, history or another "
          "thing's version; left as written: edit it by hand, or list it under ignore-mentions: in "
          ".github/executorch-pack-bot.yml with a reason: {t}")


def _one(line: str):
    """The accounting of the 1.4.0 -> 1.5.1 bump over one file ``notes.txt`` holding ``line``."""
    return account(template(others={"notes.txt": f"{line}\n"}), minor_bump(), [], [])


@pytest.mark.parametrize("line, version, subject, rule", [
    # another pack: its id before "@", with or without a range operator or "v"
    ("board ARM::SSE_320_BSP@1.4.0", "1.4.0", "ExecuTorch", "another pack (ARM::SSE_320_BSP)"),
    ("board ARM::SSE_320_BSP@^1.4.0", "1.4.0", "ExecuTorch", "another pack (ARM::SSE_320_BSP)"),
    ("board ARM::SSE_320_BSP@~1.4.0", "1.4.0", "ExecuTorch", "another pack (ARM::SSE_320_BSP)"),
    ("board ARM::SSE_320_BSP@>=1.4.0", "1.4.0", "ExecuTorch", "another pack (ARM::SSE_320_BSP)"),
    ("board ARM::SSE_320_BSP@v1.4.0", "1.4.0", "ExecuTorch", "another pack (ARM::SSE_320_BSP)"),
    ("torch in PyTorch::ExecuTorch@2.13.0", "2.13.0", "torch", "another pack (PyTorch::ExecuTorch)"),
    # a bare pack range (no pack id)
    ("ranges like @~1.4.0", "1.4.0", "ExecuTorch",
     "a pack version range (@^X, @~X, @>=X) that does not name ExecuTorch"),
    ("ranges like @^1.4.0", "1.4.0", "ExecuTorch",
     "a pack version range (@^X, @~X, @>=X) that does not name ExecuTorch"),
    ("ranges like @>=1.4.0", "1.4.0", "ExecuTorch",
     "a pack version range (@^X, @~X, @>=X) that does not name ExecuTorch"),
    # another package, with every comparison operator, extras and spaces
    ("numpy==1.4.0", "1.4.0", "ExecuTorch", "another package (numpy)"),
    ("numpy===1.4.0", "1.4.0", "ExecuTorch", "another package (numpy)"),
    ("numpy~=1.4.0", "1.4.0", "ExecuTorch", "another package (numpy)"),
    ("numpy!=1.4.0", "1.4.0", "ExecuTorch", "another package (numpy)"),
    ("numpy<=1.4.0", "1.4.0", "ExecuTorch", "another package (numpy)"),
    ("numpy>=1.4.0", "1.4.0", "ExecuTorch", "another package (numpy)"),
    ("numpy<1.4.0", "1.4.0", "ExecuTorch", "another package (numpy)"),
    ("numpy>1.4.0", "1.4.0", "ExecuTorch", "another package (numpy)"),
    ("numpy=1.4.0", "1.4.0", "ExecuTorch", "another package (numpy)"),
    ("Foo.Bar[cli, x] \t== \tv1.4.0", "1.4.0", "ExecuTorch", "another package (Foo.Bar)"),
    ("pip install my-tool@1.4.0", "1.4.0", "ExecuTorch", "another package (my-tool)"),
    ("pip install my-tool@v1.4.0", "1.4.0", "ExecuTorch", "another package (my-tool)"),
    ("torchvision==2.13.0", "2.13.0", "torch", "another package (torchvision)"),
    # another variable: upper case or snake case, naming something else
    ("OTHER_VERSION = 1.4.0", "1.4.0", "ExecuTorch", "another variable (OTHER_VERSION)"),
    ("BSP := 1.4.0", "1.4.0", "ExecuTorch", "another variable (BSP)"),
    ("zephyr_sdk=1.4.0", "1.4.0", "ExecuTorch", "another variable (zephyr_sdk)"),
    ("VELA_VERSION=2.13.0", "2.13.0", "torch", "another variable (VELA_VERSION)"),
    # a tool beside ExecuTorch
    ("CMSIS-Toolbox 1.4.0", "1.4.0", "ExecuTorch", "a tool version (CMSIS-Toolbox)"),
    ("cmsis toolbox version: v1.4.0", "1.4.0", "ExecuTorch", "a tool version (cmsis toolbox)"),
    ("built with CMake\t1.4.0", "1.4.0", "ExecuTorch", "a tool version (CMake)"),
    ("Python 2.13.0", "2.13.0", "torch", "a tool version (Python)"),
    ("mbed version 1.4.0", "1.4.0", "ExecuTorch", "a tool version (mbed)"),
    # a table row of another thing (the first cell names it)
    ("| Board BSP | 1.4.0 |", "1.4.0", "ExecuTorch", "a table row of another thing (Board BSP)"),
    ("|**`Board`**|1.4.0", "1.4.0", "ExecuTorch", "a table row of another thing (Board)"),
    ("|X-CUBE-AI|1.4.0|", "1.4.0", "ExecuTorch", "a table row of another thing (X-CUBE-AI)"),
    ("| " + "B" * 50 + " | 1.4.0 |", "1.4.0", "ExecuTorch", "a table row of another thing (" + "B" * 40 + ")"),
    # a quantity: a number and a unit, at most one space or tab between
    ("The model takes 1.4 MB.", "1.4", "ExecuTorch", "a quantity (a number with a unit)"),
    ("load 1.4.0%", "1.4.0", "ExecuTorch", "a quantity (a number with a unit)"),
    ("speed-up 1.4\tx", "1.4", "ExecuTorch", "a quantity (a number with a unit)"),
    ("flash 1.4 KiB", "1.4", "ExecuTorch", "a quantity (a number with a unit)"),
    ("clock 1.4 GHz", "1.4", "ExecuTorch", "a quantity (a number with a unit)"),
    ("latency 1.4ms", "1.4", "ExecuTorch", "a quantity (a number with a unit)"),
    ("rate 1.4 fps", "1.4", "ExecuTorch", "a quantity (a number with a unit)"),
    ("pitch 1.4 mm", "1.4", "ExecuTorch", "a quantity (a number with a unit)"),
    ("supply 1.4 V", "1.4", "ExecuTorch", "a quantity (a number with a unit)"),
])
def test_a_rule_names_another_things_version(line, version, subject, rule):
    column = line.index(version) + 1
    assert_accounting(_one(line), [("notes.txt", 1, column, version, subject, "other", rule, line)])


@pytest.mark.parametrize("line, version, subject", [
    # ExecuTorch's own pack, package and variables name this version: not another thing's
    ("pack PyTorch::ExecuTorch@1.4.0", "1.4.0", "ExecuTorch"),
    ("executorch==1.4.0", "1.4.0", "ExecuTorch"),
    ("ExecuTorch @ 1.4.0", "1.4.0", "ExecuTorch"),
    ("executorch@v1.4.0", "1.4.0", "ExecuTorch"),
    ("torch==2.13.0", "2.13.0", "torch"),
    ("pytorch=2.13.0", "2.13.0", "torch"),
    ("torchao==0.18.0", "0.18.0", "torchao"),
    ("EXECUTORCH_VERSION = 1.4.0", "1.4.0", "ExecuTorch"),
    ("ET_PACK := 1.4.0", "1.4.0", "ExecuTorch"),
    ("TORCH_VERSION=2.13.0", "2.13.0", "torch"),
    ("VERSION = 1.4.0", "1.4.0", "ExecuTorch"),
    ("MY_DEFAULT_TAG=1.4.0", "1.4.0", "ExecuTorch"),
    ("the_release=1.4.0", "1.4.0", "ExecuTorch"),
    ("_VERSION=1.4.0", "1.4.0", "ExecuTorch"),
    # a tool that is the subject itself; a tool name inside a word
    ("flatbuffers 24.3.25", "24.3.25", "flatbuffers"),
    ("my-cmake 1.4.0", "1.4.0", "ExecuTorch"),
    # a table row of ExecuTorch or of the subject, an empty first cell, one bar only
    ("| ExecuTorch runtime | 1.4.0 |", "1.4.0", "ExecuTorch"),
    ("| `torch` | 2.13.0 |", "2.13.0", "torch"),
    ("| ExecuTorch | 0.18.0 |", "0.18.0", "torchao"),
    ("| | 1.4.0 |", "1.4.0", "ExecuTorch"),
    ("| Board BSP 1.4.0", "1.4.0", "ExecuTorch"),
    # a unit too far away or glued into a word
    ("size 1.4  MB", "1.4", "ExecuTorch"),
    ("size 1.4 MBytes", "1.4", "ExecuTorch"),
    ("label 1.4.0 xyz", "1.4.0", "ExecuTorch"),
])
def test_without_a_rule_the_occurrence_is_for_review(line, version, subject):
    column = line.index(version) + 1
    text = line.strip()
    assert_accounting(_one(line), [("notes.txt", 1, column, version, subject, "review", "review-mention", text)],
                      flags=[Flag("review-mention", REVIEW.format(s=subject, v=version, t=text), path="notes.txt",
                                  line=1, blocking=False)])


def test_the_rules_look_back_at_most_80_characters():
    """A name more than 80 characters before the version is not read: a pack id cut at its "::" reads as a
    package name before ``@``; one that fits in the 80 characters is a pack."""
    far = "ARM::" + "b" * 77 + "@"  # 83 characters: the window starts at the second ":"
    near = "A::" + "b" * 76 + "@"  # 80 characters: the whole id is inside
    line = f"{far}1.4.0 {near}1.4.0"
    assert_accounting(_one(line), [
        ("notes.txt", 1, 84, "1.4.0", "ExecuTorch", "other", f"another package ({'b' * 77})", line[:157] + "..."),
        ("notes.txt", 1, 170, "1.4.0", "ExecuTorch", "other", f"another pack (A::{'b' * 76})", line[:157] + "..."),
    ])


@pytest.mark.parametrize("line", ["OTHER_VERSION := 1.4.0", "OTHER_VERSION ::= 1.4.0", "OTHER_VERSION ?= 1.4.0",
                                  "OTHER_VERSION\t:=\t1.4.0"])
def test_a_make_assignment_of_another_variable_is_another_version(line):
    """Make's ``:=``, ``::=`` and ``?=`` assign a variable like ``=`` does (regression: they were for review)."""
    assert_accounting(_one(line), [("notes.txt", 1, line.index("1.4.0") + 1, "1.4.0", "ExecuTorch", "other",
                                    "another variable (OTHER_VERSION)", line)])


@pytest.mark.parametrize("line, version, subject", [
    ("ETHOS_U_VELA_VERSION = 5.1.0", "5.1.0", "ethos-u-vela"),
    ("TOSA_TOOLS_VERSION=2026.5.0", "2026.5.0", "tosa-tools"),
    ("TORCHAO_VERSION := 0.18.0", "0.18.0", "torchao"),
])
def test_a_variable_named_after_a_hyphenated_pin_is_not_another_thing(line, version, subject):
    """``ETHOS_U_VELA_VERSION`` names the pin ethos-u-vela (every part of its name): its value is the pin the bump
    moves, for review, never another thing's version (regression: a hyphenated name was one part that no
    variable name holds, so it was filed under ``other``)."""
    from helpers import SAMPLE_BUMP
    acc = account(template(others={"build.cfg": line + "\n"}), SAMPLE_BUMP, [], [])
    assert_accounting(acc, [("build.cfg", 1, line.index(version) + 1, version, subject, "review", "review-mention",
                             line)],
                      flags=[Flag("review-mention", REVIEW.format(s=subject, v=version, t=line), path="build.cfg",
                                  line=1, blocking=False)])


@pytest.mark.parametrize("line, version, subject, bucket, rule", [
    # ExecuTorch's own package or variable names no other thing, whatever the subject of the version
    ("executorch==2.13.0", "2.13.0", "torch", "review", "review-mention"),
    ("EXECUTORCH_VERSION=2.13.0", "2.13.0", "torch", "review", "review-mention"),
    # a variable named exactly after the subject, and one made only of generic parts
    ("TORCH=2.13.0", "2.13.0", "torch", "review", "review-mention"),
    ("THE__MY_DEFAULT_VERSION_VER_PACK_RELEASE_TAG_REF_BRANCH=1.4.0", "1.4.0", "ExecuTorch", "review",
     "review-mention"),
    # "pytorch" is torch's conda name only: for ExecuTorch's version it is another package
    ("pytorch==1.4.0", "1.4.0", "ExecuTorch", "other", "another package (pytorch)"),
])
def test_names_of_executorch_and_of_the_subject_whatever_the_version(line, version, subject, bucket, rule):
    acc = _one(line)
    flags = [Flag("review-mention", REVIEW.format(s=subject, v=version, t=line), path="notes.txt", line=1,
                  blocking=False)] if bucket == "review" else []
    assert_accounting(acc, [("notes.txt", 1, line.index(version) + 1, version, subject, bucket, rule, line)],
                      flags=flags)
