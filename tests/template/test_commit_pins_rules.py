"""The rules of :mod:`bot.template.commitpins` one by one: which text is an ExecuTorch commit pin, and what a
bump does with it (whole results: every edit and flag compared)."""

from __future__ import annotations

import pytest

from bot.model import Bump, Edit, Flag
from bot.template.commitpins import _git_command, find_commit_pins, findings, update
from bot.template.scripts import ExecutorchRefs
from bot.textfile import TextDocument

OLD, NEW = "0123456789abcdef0123456789abcdef01234567", "fedcba9876543210fedcba9876543210fedcba98"
BUMP = Bump("1.4.0", "1.5.1", "1.4.0", "1.5.1", "v1.4.0", "v1.5.1", old_commit=OLD, new_commit=NEW)


def _pins(text: str, kind: str = "script", path: str = "setup.sh"):
    doc = TextDocument(path, text)
    return doc, find_commit_pins(doc, kind, ExecutorchRefs(text))


@pytest.mark.parametrize("before, shape", [
    ("git checkout ", "git checkout"), ("git -C executorch fetch --depth 1 origin ", "git fetch"),
    ("git reset --hard ", "git reset"), ("git switch --detach ", "git switch"),
    ("git clone --branch ", "--branch"), ("git clone --branch=", "--branch"), ("git clone --branch '", "--branch"),
    ("cd x && git checkout ", "git checkout"), ("git log | git checkout ", "git checkout"),
    ("git status ", None), ("legit checkout ", None), ("gitk checkout ", None), ("git checkout x; ", None),
    ("git checkout x # ", None), ("checkout ", None), ("", None), ("git-checkout ", None),
])
def test_the_git_command_before_a_sha(before, shape):
    assert _git_command(before) == shape


@pytest.mark.parametrize("value, pin", [("abcdef1", True), ("ABCDEF1", True), (OLD, True), ("abcdef", False),
                                        ("deadbeef", False), ("1234567", False), (OLD + "9", False),
                                        ("abcdef1g", False), ("abcdef1.2", False)])
def test_what_is_a_sha(value, pin):
    _, pins = _pins(f"cd executorch\ngit checkout {value}\n")
    assert [p.value for p in pins] == ([value] if pin else [])


def test_a_pin_carries_its_span_comment_and_line():
    text = f"cd executorch\ngit checkout {OLD[:12]}  # ExecuTorch v1.4.0 (pinned)\n"
    doc, pins = _pins(text)
    (p,) = pins
    s = text.index(OLD[:12])
    assert (p.start, p.end, p.value, p.is_tag, p.version, p.shape, p.line) == (
        s, s + 12, OLD[:12], False, "1.4.0", "git checkout", 2)
    assert text[p.vstart:p.vend] == "1.4.0"
    assert [(f.kind, f.name, f.version, f.line, f.text) for f in findings(doc, pins)] == [
        ("commit-pin", "executorch", "1.4.0", 2, f"git checkout {OLD[:12]}  # ExecuTorch v1.4.0 (pinned)")]


def test_a_url_is_no_comment_and_a_version_in_it_is_not_the_release():
    text = f"git clone --branch {OLD} https://example.invalid/executorch/releases/download/v1.3.0/x.git\n"
    _, (p,) = _pins(text)
    assert p.version is None


def test_a_git_command_on_another_repository_is_no_pin():
    assert _pins(f"git clone https://github.com/acme/other.git\ncd other\ngit checkout {OLD}\n# executorch\n")[1] == []


def test_a_pin_on_the_target_commit_gets_only_its_stale_comment_fixed():
    doc, pins = _pins(f"cd executorch\ngit checkout {NEW[:10]}  # v1.4.0\n")
    edits, flags = update(doc, BUMP, pins)
    s = doc.text.index("1.4.0")
    assert edits == [Edit("setup.sh", s, s + 5, "1.4.0", "1.5.1", 2, "script",
                          f"the comment of git checkout {NEW[:10]} (# 1.4.0) names the release of commit "
                          f"{NEW[:10]}, v1.5.1")]
    assert flags == []
    doc, pins = _pins(f"cd executorch\ngit checkout {NEW[:10]}  # v1.5.1\n")
    assert update(doc, BUMP, pins) == ([], [])


def test_nothing_moves_when_the_bump_keeps_the_version():
    same = Bump("1.4.0", "1.4.0", "1.4.0", "1.4.0", "v1.4.0", "v1.4.0", old_commit=OLD, new_commit=OLD)
    doc, pins = _pins(f"cd executorch\ngit checkout {'ab' * 20}  # v1.3.0\n")
    assert update(doc, same, pins) == ([], [])


def test_a_pre_release_comment_keeps_its_pack_form():
    rc = Bump("1.0.0rc1", "1.0.0", "1.0.0-rc1", "1.0.0", "v1.0.0-rc1", "v1.0.0", old_commit=OLD, new_commit=NEW)
    doc, pins = _pins(f"cd executorch\ngit checkout {OLD}  # v1.0.0-rc1\n")
    edits, flags = update(doc, rc, pins)
    assert [(e.old, e.new) for e in edits] == [(OLD, NEW), ("1.0.0-rc1", "1.0.0")] and flags == []


def test_a_cmake_release_tag_moves_and_another_tag_stays():
    text = ("FetchContent_Declare(executorch\n  GIT_TAG v1.4.0\n)\n"
            "FetchContent_Declare(executorch_extra\n  GIT_TAG v1.3.0\n)\n")
    doc, pins = _pins(text, "cmake", "CMakeLists.txt")
    assert [(p.value, p.is_tag, p.version) for p in pins] == [("1.4.0", True, "1.4.0"), ("1.3.0", True, "1.3.0")]
    assert findings(doc, pins) == []      # a release tag is no commit pin
    edits, flags = update(doc, BUMP, pins)
    assert [(e.line, e.old, e.new, e.why) for e in edits] == [
        (2, "1.4.0", "1.5.1", "GIT_TAG of the ExecuTorch release tag v1.4.0")] and flags == []


def test_a_cmake_call_closed_before_the_git_tag_is_not_executorchs():
    text = f"FetchContent_Declare(executorch GIT_REPOSITORY x)\nset(GIT_TAG {OLD})\n"
    assert _pins(text, "cmake", "CMakeLists.txt")[1] == []


def test_an_unreadable_target_commit_is_blocking_and_says_why():
    doc, pins = _pins(f"cd executorch\ngit checkout {OLD}\n")
    blind = Bump("1.4.0", "1.5.1", "1.4.0", "1.5.1", "v1.4.0", "v1.5.1", commit_note="the network said no")
    assert update(doc, blind, pins) == ([], [Flag(
        "commit-pin", f"ExecuTorch is pinned by commit here (git checkout {OLD[:12]}); the bot could not read the "
        "commit of v1.5.1 from upstream (the network said no): set it by hand to the commit v1.5.1 names, with "
        "its comment", path="setup.sh", line=2)])


def test_a_workflow_ref_outside_an_executorch_step_is_no_pin():
    wf = ("jobs:\n  b:\n    steps:\n      - uses: actions/checkout@v4\n        with:\n"
          "          repository: pytorch/executorch\n\n"
          f"          ref: {OLD}\n")
    assert _pins(wf, "workflow", ".github/workflows/b.yml")[1] == []   # a blank line ends the step
