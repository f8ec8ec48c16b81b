"""``publish --include``: files the ai-layer job regenerated are committed with the bump and
listed; without it a regenerated clayer is a stale plan.
"""

from __future__ import annotations

import pytest

from fakegithub import TEMPLATE, git
from github_world import cli, planned_checkout, remote_head


def _regenerate_ai_layer(co):
    """What the ai-layer job hands over: a regenerated clayer (not the engine's edit) and a new file."""
    (co / "ai_layer/ai_layer.clayer.yml").write_text("layer:\n  description: regenerated\n")
    (co / "ai_layer/src").mkdir()
    (co / "ai_layer/src/model.c").write_text("/* generated */\n")


def pr_body_of(w):
    pulls = w.open_pulls(TEMPLATE)
    assert len(pulls) == 1
    return pulls[0]


def test_publish_include_commits_the_regenerated_files_and_lists_them(world, capsys):
    co, plan = planned_checkout(world, capsys)
    _regenerate_ai_layer(co)
    code, out = cli(capsys, "publish", "--repo", str(co), "--plan-file", str(plan), "--include", "ai_layer")
    assert code == 0, out.err
    head = remote_head(world)
    show = lambda p: git(world.tmp, "--git-dir", str(world.remote), "show", f"{head}:{p}")  # noqa: E731
    assert show("ai_layer/ai_layer.clayer.yml") == "layer:\n  description: regenerated"
    assert show("ai_layer/src/model.c") == "/* generated */"
    assert "PyTorch::ExecuTorch@1.5.1" in show("app/app.cproject.yml")   # the plan's files are there too
    body = pr_body_of(world)["body"]
    assert "The ai-layer job regenerated the included folders" in body
    assert "Changed:\n\n- `ai_layer/ai_layer.clayer.yml`" in body and "Added:\n\n- `ai_layer/src/model.c`" in body


def test_without_include_a_regenerated_clayer_is_a_stale_plan(world, capsys):
    co, plan = planned_checkout(world, capsys)
    _regenerate_ai_layer(co)
    code, out = cli(capsys, "publish", "--repo", str(co), "--plan-file", str(plan))
    assert code == 2 and "ai_layer/ai_layer.clayer.yml" in out.err


def test_publish_dry_run_lists_the_included_files(world, capsys):
    co, plan = planned_checkout(world, capsys)
    _regenerate_ai_layer(co)
    code, out = cli(capsys, "publish", "--repo", str(co), "--plan-file", str(plan), "--include", "ai_layer/",
                    "--dry-run")
    assert code == 0 and "- `ai_layer/src/model.c`" in out.out and remote_head(world) is None


@pytest.mark.parametrize("bad,words", [("/etc", "not a path inside the template checkout"),
                                       ("../x", "not a path inside the template checkout"),
                                       (".git", "not a path inside the template checkout"),
                                       ("nope", "no such file or folder"),
                                       ("link-out", "symbolic link"),
                                       ("ai_layer", "symbolic link")])
def test_publish_include_refuses_paths_outside_or_links(world, capsys, bad, words):
    co, plan = planned_checkout(world, capsys)
    (co / "link-out").symlink_to(world.tmp)
    if bad == "ai_layer":
        (co / "ai_layer/escape.txt").symlink_to("/etc/hostname")
    code, out = cli(capsys, "publish", "--repo", str(co), "--plan-file", str(plan), "--include", bad)
    assert code == 2 and f"--include {bad}" in out.err and words in out.err
    assert remote_head(world) is None and world.open_pulls(TEMPLATE) == []


def test_publish_include_leaves_out_what_git_ignores(world, capsys):
    co, plan = planned_checkout(world, capsys)
    _regenerate_ai_layer(co)
    (co / ".gitignore").write_text("ai_layer/*.secret\n")
    (co / "ai_layer/token.secret").write_text("not for the pull request\n")
    code, out = cli(capsys, "publish", "--repo", str(co), "--plan-file", str(plan), "--include", "ai_layer")
    assert code == 0, out.err
    body = pr_body_of(world)["body"]
    assert "ai_layer/src/model.c" in body and "token.secret" not in body
    assert "token.secret" not in git(world.tmp, "--git-dir", str(world.remote), "ls-tree", "-r", "--name-only",
                                     remote_head(world))


@pytest.mark.parametrize("odd,words", [("repo", "a git repository inside the folder"),
                                       ("fifo", "not a regular file")])
def test_publish_include_refuses_a_nested_repository_or_a_fifo(world, capsys, odd, words):
    import os
    import subprocess
    co, plan = planned_checkout(world, capsys)
    if odd == "repo":
        subprocess.run(["git", "init", "-q", str(co / "ai_layer/sub")], check=True)
    else:
        os.mkfifo(co / "ai_layer/pipe")
    code, out = cli(capsys, "publish", "--repo", str(co), "--plan-file", str(plan), "--include", "ai_layer")
    assert code == 2 and "--include ai_layer" in out.err and words in out.err
    assert remote_head(world) is None and world.open_pulls(TEMPLATE) == []


@pytest.mark.needs("expressions")
@pytest.mark.parametrize("result,include", [("success", True), ("skipped", False), ("failure", False)])
def test_the_workflow_passes_include_only_when_the_ai_layer_job_succeeded(result, include):
    from actions_expressions import evaluate_templates
    from test_workflow_jobs import bot_steps
    publish = bot_steps("pull-request")[-1]
    assert publish["command"] == "publish"
    # the args evaluated with GitHub's expression evaluator: a fetched pack, no recreate command
    context = {"needs": {"watch": {"result": "success", "outputs": {"recreate": "false", "pack-url": "https://x/p.pack"}},
                         "fetch-pack": {"result": "success", "outputs": {"asset-refused": "false"}},
                         "build-pack": {"result": "skipped", "outputs": {}},
                         "ai-layer": {"result": result, "outputs": {}}}}
    args = evaluate_templates([(publish["args"], context)])[0].split()
    assert ("--include" in args) is include
    if include:
        assert args[args.index("--include") + 1] == "ai_layer"
