"""A template with a submodule (``board-sdk/``, cloned recursively) whose files mention ExecuTorch.

The submodule's working tree is never scanned for edits; its mentions are
listed once as "inside submodule board-sdk (not edited)"; the template's own
edits go ahead, and the branch keeps the submodule at the same commit.
"""

from __future__ import annotations

import subprocess

import pytest

from bot.inert import markdown
from bot.model import Flag
from bot.template.submodules import CODE, submodule_flags
from fakegithub import TEMPLATE, git
from helpers import snapshot
from publishworld import World

ALLOW_FILE = ("-c", "protocol.file.allow=always")       # local-path submodules (git >= 2.38 refuses them otherwise)
MESSAGE = ("inside submodule board-sdk (not edited): 2 files mention ExecuTorch; a submodule is another "
           "repository: bump it there, then move the submodule")


@pytest.fixture
def world(tmp_path, monkeypatch):
    w = World(tmp_path, monkeypatch)
    sdk = tmp_path / "sdk-seed"
    sdk.mkdir()
    git(sdk, "init", "-q", "-b", "main")
    (sdk / "README.md").write_text("Board SDK, tested with ExecuTorch 1.4.0.\n")
    (sdk / "requirements.txt").write_text("executorch==1.4.0\n")
    (sdk / "board.c").write_text("int board(void) { return 0; }\n")
    git(sdk, "add", "-A")
    git(sdk, "commit", "-q", "-m", "sdk")
    bare = tmp_path / "board-sdk.git"
    git(tmp_path, "clone", "-q", "--bare", str(sdk), str(bare))
    co = w.checkout("with-submodule")
    git(co, *ALLOW_FILE, "submodule", "add", "-q", str(bare), "board-sdk")
    git(co, "commit", "-q", "-m", "add the board SDK")
    git(co, "push", "-q", "origin", "main")
    w.sdk_commit = git(co, "rev-parse", "HEAD:board-sdk")
    yield w
    w.fake.stop()


def _recursive_clone(world, name):
    dest = world.tmp / name
    git(world.tmp, *ALLOW_FILE, "clone", "-q", "--recurse-submodules", str(world.remote), str(dest))
    return dest


def test_run_edits_the_template_and_never_the_submodule(world, capsys):
    co = _recursive_clone(world, "run")
    assert (co / "board-sdk" / "README.md").is_file()
    sdk_before = snapshot(co / "board-sdk")
    code, _ = world.run(checkout=co)
    assert code == 0, capsys.readouterr().err
    head = world.head()
    assert world.git("rev-parse", f"{head}:board-sdk") == world.sdk_commit          # the gitlink is unchanged
    assert world.git("ls-tree", head, "board-sdk").split()[:2] == ["160000", "commit"]
    assert b"PyTorch::ExecuTorch@1.5.1" in world.blob(head, "cmsis-executorch.csolution.yml")
    assert snapshot(co / "board-sdk") == sdk_before                                 # its files were not written
    body = world.fake.open_pulls(TEMPLATE)[0]["body"]
    assert body.count(markdown("inside submodule board-sdk (not edited)")) == 1     # as the body renders it


def test_plan_lists_the_submodule_once_and_edits_nothing_inside(world, capsys):
    from bot import engine
    from bot.sources import open_source
    co = _recursive_clone(world, "plan")
    plan = engine.plan(co, open_source("github:pytorch/executorch", None), to="v1.5.1")
    assert not any(p.startswith("board-sdk/") for p in plan.contents)
    assert not any(e.path.startswith("board-sdk/") for e in plan.edits)
    assert [f for f in plan.flags if f.code == CODE] == [Flag(CODE, MESSAGE, "board-sdk", None, False)]
    assert "cmsis-executorch.csolution.yml" in plan.contents


def test_a_submodule_declared_but_not_checked_out_is_not_scanned_either(world):
    co = world.checkout("plain")                      # no --recurse-submodules: board-sdk/ is an empty folder
    from bot.template.scan import discover
    sc = discover(co)
    assert sc.submodules == ["board-sdk"]
    assert submodule_flags(co, sc.submodules) == []   # nothing there to mention ExecuTorch
    assert subprocess.run(["git", "status", "--porcelain"], cwd=co, capture_output=True, text=True).stdout == ""
