"""A template pinning a version without a digit, dot, digit (a conda ``- pytorch=2`` pins ``2``): the
prose files the byte filter leaves out (ASCII, naming ExecuTorch, no digit.digit) are loaded after all,
so the plan, the mentions accounting and the audit are the same with the filter, without it, and with
git's quiet files (bot.engine.read.BYTE_FILTER, GIT_QUIET_FILES).
"""

from __future__ import annotations

import pytest

from bot import engine
from bot.commands.demo import copy_template
from bot.engine import read as readmod
from test_scan_git_quiet_files import _whole, needs_git, patient, upstream  # noqa: F401

CONDA_TWO = "name: et\ndependencies:\n  - python=3.11\n  - pytorch=2\n  - pip\n"


def _template(tmp_path):
    tpl = copy_template(tmp_path / "t")
    (tpl / "environment.yml").write_text(CONDA_TWO)
    (tpl / "docs").mkdir()
    (tpl / "docs" / "two_et.md").write_text("ExecuTorch needs pytorch 2. Install pytorch=2 first.\n")
    (tpl / "docs" / "plain.md").write_text("ExecuTorch without any version\n")
    return tpl


def _run(monkeypatch, tpl, upstream, git: bool, byte_filter: bool):
    monkeypatch.setattr(readmod, "GIT_QUIET_FILES", git)
    monkeypatch.setattr(readmod, "BYTE_FILTER", byte_filter)
    return _whole(engine.plan(tpl, upstream)), engine.audit(tpl).to_json()


@needs_git
def test_occurrences_of_a_version_without_a_digit_dot_digit_are_counted_in_files_the_filter_held_back(
        tmp_path, monkeypatch, upstream):
    tpl = _template(tmp_path)
    unfiltered = _run(monkeypatch, tpl, upstream, git=False, byte_filter=False)
    assert _run(monkeypatch, tpl, upstream, git=False, byte_filter=True) == unfiltered
    assert _run(monkeypatch, tpl, upstream, git=True, byte_filter=True) == unfiltered
    left = [(o["path"], o["line"], o["column"], o["version"], o["bucket"])
            for o in unfiltered[0]["mentions"]["review"] if o["path"] == "docs/two_et.md"]
    assert left == [("docs/two_et.md", 1, 26, "2", "review"), ("docs/two_et.md", 1, 45, "2", "review")]


@pytest.mark.parametrize("git", [False, True])
def test_a_template_of_digit_dot_digit_versions_still_holds_the_files_back(tmp_path, monkeypatch, git):
    tpl = copy_template(tmp_path / "t")
    (tpl / "docs").mkdir()
    (tpl / "docs" / "two_et.md").write_text("ExecuTorch needs pytorch 2. Install pytorch=2 first.\n")
    monkeypatch.setattr(readmod, "GIT_QUIET_FILES", git)
    read = engine.read_template(tpl)
    assert "docs/two_et.md" not in [loaded.doc.path for loaded in read.files]


def test_a_version_a_quiet_file_cannot_hold():
    from bot.quietfiles import versions_have_quiet_shape
    assert versions_have_quiet_shape(["1.4.0", "2.13", "1.\u0663", "\u0661.\u0664.\u0660", "\uff12"]) is True
    assert versions_have_quiet_shape(["1.4.0", "2"]) is False
    assert versions_have_quiet_shape(["1.x"]) is False
