"""``publish --include`` commits every included file with its mode from the checkout, in both ``commit:`` modes.

git records ``100755`` for a file its owner may execute and ``100644`` otherwise
(git-config docs, ``core.fileMode``); GitHub's "Create a tree" takes the same two
blob modes.  A regenerated script made executable by the ai-layer job, an existing
file whose executable bit changed (with or without new bytes), and a file that is
no longer executable are all committed as ``git add`` would commit them.
"""

from __future__ import annotations

import os

import pytest

from fakegithub import TEMPLATE, git
from github_world import cli, planned_checkout, remote_head


def _tree(world, head: str) -> dict[str, str]:
    """``{path: mode}`` of every blob in ``head`` on the template remote."""
    out = git(world.tmp, "--git-dir", str(world.remote), "ls-tree", "-r", head)
    return {line.split("\t")[1]: line.split()[0] for line in out.splitlines()}


def _publish(world, capsys, co, plan, mode):
    world.link_git(TEMPLATE, world.remote)      # commit: api is served from the bare remote
    code, out = cli(capsys, "publish", "--repo", str(co), "--plan-file", str(plan), "--include", "ai_layer",
                    "--commit", mode)
    assert code == 0, out.err
    return remote_head(world)


@pytest.mark.parametrize("mode", ["git", "api"])
def test_new_executable_and_new_plain_files_keep_their_modes(world, capsys, mode):
    co, plan = planned_checkout(world, capsys)
    tools = co / "ai_layer/tools"
    tools.mkdir(parents=True)
    (tools / "flash_model.sh").write_text("#!/bin/sh\necho flash\n")
    os.chmod(tools / "flash_model.sh", 0o755)
    (tools / "README.txt").write_text("run flash_model.sh\n")
    os.chmod(tools / "README.txt", 0o644)
    (tools / "group_only.sh").write_text("#!/bin/sh\n")
    os.chmod(tools / "group_only.sh", 0o654)     # git reads the owner's bit only
    head = _publish(world, capsys, co, plan, mode)
    tree = _tree(world, head)
    assert tree["ai_layer/tools/flash_model.sh"] == "100755"
    assert tree["ai_layer/tools/README.txt"] == "100644"
    assert tree["ai_layer/tools/group_only.sh"] == "100644"
    assert tree["app/app.cproject.yml"] == "100644"      # a file of the plan keeps its mode


@pytest.mark.parametrize("mode", ["git", "api"])
def test_an_existing_file_made_executable_is_committed_with_the_mode_change(world, capsys, mode):
    co, plan = planned_checkout(world, capsys)
    clayer = co / "ai_layer/ai_layer.clayer.yml"
    base_mode = _tree(world, git(world.tmp, "--git-dir", str(world.remote), "rev-parse", "main"))
    assert base_mode["ai_layer/ai_layer.clayer.yml"] == "100644"
    clayer.write_text("layer:\n  description: regenerated\n")
    os.chmod(clayer, 0o755)
    head = _publish(world, capsys, co, plan, mode)
    assert _tree(world, head)["ai_layer/ai_layer.clayer.yml"] == "100755"


@pytest.mark.parametrize("mode", ["git", "api"])
def test_a_mode_change_alone_is_a_change(world, capsys, mode):
    """Same bytes as the base, only the executable bit differs: still committed (git add would stage it)."""
    co, plan = planned_checkout(world, capsys)
    extra = sorted(p for p in (co / "ai_layer").rglob("*") if p.is_file())
    assert extra, "the template has files under ai_layer"
    target = extra[0]
    rel = target.relative_to(co).as_posix()
    before = target.read_bytes()
    os.chmod(target, 0o755)
    head = _publish(world, capsys, co, plan, mode)
    assert _tree(world, head)[rel] == "100755"
    assert git(world.tmp, "--git-dir", str(world.remote), "show", f"{head}:{rel}").encode() == before.rstrip(b"\n")


def test_an_executable_file_no_longer_executable_is_committed_as_100644(world, capsys):
    co, plan = planned_checkout(world, capsys)
    script = co / "ai_layer/run.sh"
    script.write_text("#!/bin/sh\n")
    os.chmod(script, 0o755)
    git(co, "add", "ai_layer/run.sh")
    git(co, "-c", "user.name=P", "-c", "user.email=p@example.invalid", "commit", "-q", "-m", "script")
    git(co, "push", "-q", "origin", "HEAD:main")
    os.chmod(script, 0o644)
    head = _publish(world, capsys, co, plan, "git")
    assert _tree(world, head)["ai_layer/run.sh"] == "100644"


def test_core_filemode_false_keeps_the_base_modes(world, capsys):
    """A checkout that ignores the executable bit (``core.fileMode false``) commits the base's mode, as git add."""
    co, plan = planned_checkout(world, capsys)
    git(co, "config", "core.fileMode", "false")
    (co / "ai_layer/new.sh").write_text("#!/bin/sh\n")
    os.chmod(co / "ai_layer/new.sh", 0o755)
    clayer = co / "ai_layer/ai_layer.clayer.yml"
    clayer.write_text("layer:\n  description: regenerated\n")
    os.chmod(clayer, 0o755)
    head = _publish(world, capsys, co, plan, "git")
    tree = _tree(world, head)
    assert tree["ai_layer/new.sh"] == "100644" and tree["ai_layer/ai_layer.clayer.yml"] == "100644"


def test_core_filemode_false_keeps_an_executable_base_mode(world, capsys):
    co, plan = planned_checkout(world, capsys)
    script = co / "ai_layer/run.sh"
    script.write_text("#!/bin/sh\n")
    os.chmod(script, 0o755)
    git(co, "add", "ai_layer/run.sh")
    git(co, "-c", "user.name=P", "-c", "user.email=p@example.invalid", "commit", "-q", "-m", "script")
    git(co, "push", "-q", "origin", "HEAD:main")
    git(co, "config", "core.fileMode", "false")
    script.write_text("#!/bin/sh\necho regenerated\n")
    os.chmod(script, 0o644)
    head = _publish(world, capsys, co, plan, "git")
    assert _tree(world, head)["ai_layer/run.sh"] == "100755"
