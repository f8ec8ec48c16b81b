"""``publish --include FOLDER`` publishes the folder as the regeneration left it, deletions included.

The base holds ``ai_layer/src/model_pte.h`` and a generated operator file, either (A) ``op_quantize.cpp``
with no version text or (B) ``op_quantize_v140.cpp`` "generated for ExecuTorch 1.4.0" (a file the plan
edits).  The 1.5.1 regeneration writes the clayer and ``model_pte.h`` but no operator file (the kernel moved
into the pack), in place: the old folder removed first.  In both commit modes (``git``: ``update-index
--force-remove``; ``api``: a tree entry with ``sha: null``, GitHub REST "Create a tree") the file is gone from
the pull request's commit, and the body lists it under "Removed" beside what was added and changed.  A
planned file the regeneration removed is no stale plan (no exit 2).
"""

from __future__ import annotations

import shutil

import pytest

from fakegithub import TEMPLATE, git
from github_world import checkout, cli, planned_checkout, remote_head

OPS = {"A": ("op_quantize.cpp", "// quantize kernel\nint op_quantize(void) { return 0; }\n"),
       "B": ("op_quantize_v140.cpp", "// generated for ExecuTorch 1.4.0\nint op_quantize(void) { return 0; }\n")}


def _base_with_generated_files(world, variant):
    world.link_git(TEMPLATE, world.remote)    # commit: api builds the commit through the Git Data API
    co = checkout(world)
    name, text = OPS[variant]
    (co / "ai_layer/src").mkdir(parents=True)
    (co / "ai_layer/src/model_pte.h").write_text("/* model for ExecuTorch 1.4.0 */\n")
    (co / "ai_layer/src" / name).write_text(text)
    git(co, "add", "-A")
    git(co, "-c", "user.name=P", "-c", "user.email=p@example.invalid", "commit", "-q", "-m", "ai layer")
    git(co, "push", "-q", "origin", "HEAD:main")
    return name


def _regenerate_in_place(co):
    """What create_ai_layer.py for 1.5.1 leaves: the clayer and model_pte.h, no operator file."""
    clayer = (co / "ai_layer/ai_layer.clayer.yml").read_text()
    shutil.rmtree(co / "ai_layer")
    (co / "ai_layer/src").mkdir(parents=True)
    (co / "ai_layer/ai_layer.clayer.yml").write_text(clayer.replace("1.4.0", "1.5.1") + "# regenerated\n")
    (co / "ai_layer/src/model_pte.h").write_text("/* model for ExecuTorch 1.5.1 */\n")


def _tree(world, head):
    out = git(world.tmp, "--git-dir", str(world.remote), "ls-tree", "-r", "--name-only", head, "ai_layer")
    return sorted(out.splitlines())


@pytest.mark.parametrize("mode", ["git", "api"])
@pytest.mark.parametrize("variant", ["A", "B"])
def test_a_file_the_regeneration_dropped_is_deleted_and_listed(world, capsys, variant, mode):
    name = _base_with_generated_files(world, variant)
    co, plan = planned_checkout(world, capsys)
    _regenerate_in_place(co)
    code, out = cli(capsys, "publish", "--repo", str(co), "--plan-file", str(plan), "--include", "ai_layer",
                    "--commit", mode)
    assert code == 0, out.err
    head = remote_head(world)
    assert _tree(world, head) == ["ai_layer/ai_layer.clayer.yml", "ai_layer/src/model_pte.h"]
    status = git(world.tmp, "--git-dir", str(world.remote), "diff", "--name-status", "main", head, "--", "ai_layer")
    assert sorted(status.splitlines()) == ["D\tai_layer/src/" + name, "M\tai_layer/ai_layer.clayer.yml",
                                           "M\tai_layer/src/model_pte.h"]
    body = world.open_pulls(TEMPLATE)[0]["body"]
    assert ("The ai-layer job regenerated the included folders (`publish --include`); they are committed as the "
            "job left them, deletions included (0 added, 2 changed, 1 removed, 0 unchanged):") in body
    assert "Changed:\n\n- `ai_layer/ai_layer.clayer.yml`\n- `ai_layer/src/model_pte.h`" in body
    assert f"Removed:\n\n- `ai_layer/src/{name}`" in body
    assert "Added:" not in body


def test_the_dry_run_lists_added_changed_and_removed(world, capsys):
    _base_with_generated_files(world, "A")
    co, plan = planned_checkout(world, capsys)
    _regenerate_in_place(co)
    (co / "ai_layer/src/model_data.c").write_text("/* weights */\n")
    code, out = cli(capsys, "publish", "--repo", str(co), "--plan-file", str(plan), "--include", "ai_layer",
                    "--dry-run")
    assert code == 0, out.err
    assert "(1 added, 2 changed, 1 removed, 0 unchanged)" in out.out
    assert "Added:\n\n- `ai_layer/src/model_data.c`" in out.out
    assert "Removed:\n\n- `ai_layer/src/op_quantize.cpp`" in out.out
    assert remote_head(world) is None


def test_a_file_outside_the_included_folder_is_never_deleted(world, capsys):
    co, plan = planned_checkout(world, capsys)
    (co / "ai_layer/src").mkdir()
    (co / "ai_layer/src/extra.c").write_text("/* new */\n")
    code, out = cli(capsys, "publish", "--repo", str(co), "--plan-file", str(plan), "--include", "ai_layer/src")
    assert code == 0, out.err
    head = remote_head(world)
    assert _tree(world, head) == ["ai_layer/ai_layer.clayer.yml", "ai_layer/src/extra.c"]
