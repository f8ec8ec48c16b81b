"""Hostile templates cannot make git's quiet files differ from the walk: the plan, the mentions
accounting and the audit are the same with git (bot.quietfiles) and with the walk alone
(bot.engine.read.GIT_QUIET_FILES = False), and no file git names wrongly is left unread.

git settings that change the paths ``git grep`` prints (``grep.fullName`` in a checkout the template
sits in, ``color.grep``/``color.ui`` = always in the template's own .git/config or in GIT_CONFIG_*
variables) are overridden on the command line (git-grep(1): ``--no-full-name``, ``--no-color``).  A
program the template's git settings name (fsmonitor, pager, textconv driver, alias) is never run.
"""

from __future__ import annotations

import subprocess

import pytest

from bot import engine
from bot.commands.demo import copy_template
from bot.engine import read as readmod
from test_scan_git_quiet_files import _both, _git, _whole, needs_git, patient, upstream  # noqa: F401


def _finding_paths(plan_json) -> set:
    return {f["path"] for f in plan_json["edits"]} | {f["path"] for f in plan_json["flags"]}


@needs_git
def test_grep_full_name_of_an_outer_checkout_leaves_no_file_unread(tmp_path, monkeypatch, upstream):
    # the template is a folder of a larger checkout whose config says grep.fullName: git would print
    # "sub/quiet.md" for the template's quiet.md, the name of the template's sub/quiet.md
    outer = tmp_path / "outer"
    outer.mkdir()
    _git(outer, "init", "-q")
    _git(outer, "config", "grep.fullName", "true")
    tpl = copy_template(outer / "sub")
    (tpl / "quiet.md").write_text("plain words\n")
    (tpl / "sub").mkdir()
    (tpl / "sub" / "quiet.md").write_text("ExecuTorch 1.4.0 is used here\n")
    with_git, walk = _both(monkeypatch, lambda: _whole(engine.plan(tpl, upstream)))
    assert isinstance(with_git, dict) and with_git == walk
    assert "sub/quiet.md" in with_git["files"]
    monkeypatch.setattr(readmod, "GIT_QUIET_FILES", True)
    quiet = engine.read_template(tpl)._quiet
    assert "quiet.md" in quiet and "sub/quiet.md" not in quiet
    a, b = _both(monkeypatch, lambda: engine.audit(tpl).to_json())
    assert a == b


@needs_git
@pytest.mark.parametrize("setting", ["color.grep", "color.ui"])
def test_colour_always_in_the_templates_git_config_leaves_no_file_unread(tmp_path, monkeypatch, upstream, setting):
    # coloured, git would print ESC[35mq.mdESC[m for the quiet q.md: the name of another file here
    tpl = copy_template(tmp_path / "t")
    _git(tpl, "init", "-q")
    _git(tpl, "config", setting, "always")
    (tpl / "q.md").write_text("plain words\n")
    (tpl / "\x1b[35mq.md\x1b[m").write_text("ExecuTorch 1.4.0 is used here\n")
    with_git, walk = _both(monkeypatch, lambda: _whole(engine.plan(tpl, upstream)))
    assert isinstance(with_git, dict) and with_git == walk
    assert "\x1b[35mq.md\x1b[m" in _finding_paths(with_git)
    monkeypatch.setattr(readmod, "GIT_QUIET_FILES", True)
    quiet = engine.read_template(tpl)._quiet
    assert "q.md" in quiet and "\x1b[35mq.md\x1b[m" not in quiet
    a, b = _both(monkeypatch, lambda: engine.audit(tpl).to_json())
    assert a == b


@needs_git
def test_colour_always_from_the_environment_leaves_no_file_unread(tmp_path, monkeypatch, upstream):
    tpl = copy_template(tmp_path / "t")
    _git(tpl, "init", "-q")
    (tpl / "q.md").write_text("plain words\n")
    (tpl / "\x1b[35mq.md\x1b[m").write_text("ExecuTorch 1.4.0 is used here\n")
    for key, value in (("GIT_CONFIG_COUNT", "2"), ("GIT_CONFIG_KEY_0", "color.ui"), ("GIT_CONFIG_VALUE_0", "always"),
                       ("GIT_CONFIG_KEY_1", "grep.fullName"), ("GIT_CONFIG_VALUE_1", "true")):
        monkeypatch.setenv(key, value)
    with_git, walk = _both(monkeypatch, lambda: _whole(engine.plan(tpl, upstream)))
    assert isinstance(with_git, dict) and with_git == walk
    assert "\x1b[35mq.md\x1b[m" in _finding_paths(with_git)
    monkeypatch.setattr(readmod, "GIT_QUIET_FILES", True)
    assert "q.md" in engine.read_template(tpl)._quiet


@needs_git
def test_git_runs_no_program_the_template_names(tmp_path, monkeypatch, upstream):
    # settings of the template's own .git/config and .gitattributes that name programs: none is run
    tpl = copy_template(tmp_path / "t")
    _git(tpl, "init", "-q")
    marks = tmp_path / "marks"
    marks.mkdir()
    for key in ("core.fsmonitor", "core.pager", "pager.grep", "diff.conv.textconv", "alias.grep", "core.editor",
                "core.sshCommand", "core.hooksPath"):
        _git(tpl, "config", key, f"touch {marks}/{key}; cat")
    (tpl / ".gitattributes").write_text("* diff=conv\n")
    (tpl / "docs").mkdir()
    (tpl / "docs" / "q.md").write_text("plain words\n")
    (tpl / "docs" / "v.md").write_text("ExecuTorch 1.4.0 is used here\n")
    monkeypatch.setattr(readmod, "GIT_QUIET_FILES", True)
    assert "docs/q.md" in engine.read_template(tpl)._quiet
    with_git, walk = _both(monkeypatch, lambda: _whole(engine.plan(tpl, upstream)))
    assert isinstance(with_git, dict) and with_git == walk
    assert sorted(marks.iterdir()) == []


@needs_git
@pytest.mark.parametrize("broken", ["gitfile", "extension"])
def test_a_templates_broken_git_folder_does_not_stop_git(tmp_path, monkeypatch, upstream, broken):
    # a .git file naming a folder that is not there (a submodule or worktree copied out of its
    # superproject), or a repository extension git does not know: git used to fail or warn
    tpl = copy_template(tmp_path / "t")
    if broken == "gitfile":
        (tpl / ".git").write_text("gitdir: ../elsewhere/.git/modules/template\n")
    else:
        _git(tpl, "init", "-q")
        _git(tpl, "config", "core.repositoryformatversion", "1")
        _git(tpl, "config", "extensions.notKnownToGit", "x")
    (tpl / "docs").mkdir()
    (tpl / "docs" / "q.md").write_text("plain words\n")
    (tpl / "docs" / "v.md").write_text("ExecuTorch 1.4.0 is used here\n")
    monkeypatch.setattr(readmod, "GIT_QUIET_FILES", True)
    quiet = engine.read_template(tpl)._quiet
    assert "docs/q.md" in quiet and "docs/v.md" not in quiet
    with_git, walk = _both(monkeypatch, lambda: _whole(engine.plan(tpl, upstream)))
    assert isinstance(with_git, dict) and with_git == walk
    assert ("docs/v.md", 1) in {(e["path"], e["line"]) for e in with_git["edits"]}
