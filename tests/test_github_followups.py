"""Follow-ups on the GitHub layer found by a new user's trial and an adversarial tester (issues 4 and 5).

One block per item of the follow-up list; each test holds the right value
and failed before its change.  Everything runs against the local fake
GitHub server (tests/fakegithub.py) and local bare git remotes.
"""

from __future__ import annotations

import json

import pytest

from bot.cli import main
from fakegithub import TEMPLATE, UPSTREAM, Fault, git
from test_break_github import (TOKEN, checkout, cli, fake, planned_checkout, remote_head, tpl,  # noqa: F401
                               world)


def pr_body_of(w):
    pulls = w.open_pulls(TEMPLATE)
    assert len(pulls) == 1
    return pulls[0]


# ------------------------------------------- 4: a run's config error is printed once
def test_run_prints_a_config_error_once(fake, tpl, capsys):
    (tpl / ".github").mkdir(exist_ok=True)
    (tpl / ".github/executorch-pack-bot.yml").write_text("draft: sometimes\n")
    code, out = cli(capsys, "run", "--repo", str(tpl), "--upstream", f"github:{UPSTREAM}", "--dry-run")
    assert code == 2
    lines = [ln for ln in out.err.splitlines() if "draft" in ln]
    assert lines == ["executorch-pack-bot: error: .github/executorch-pack-bot.yml:1: "
                     "draft: 'sometimes' is not one of auto, always, never"]


def test_run_in_actions_annotates_a_config_error_once(fake, tpl, capsys, monkeypatch):
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    (tpl / ".github").mkdir(exist_ok=True)
    (tpl / ".github/executorch-pack-bot.yml").write_text("draft: sometimes\n")
    code = main(["run", "--repo", str(tpl), "--upstream", f"github:{UPSTREAM}", "--dry-run"])
    out = capsys.readouterr()
    assert code == 2
    text = (out.out + out.err).replace(f"::add-mask::{TOKEN}", "")   # the one place the token may appear
    assert TOKEN not in text
    assert text.count("is not one of auto, always, never") == 1
    assert "::error file=.github/executorch-pack-bot.yml,line=1::draft: 'sometimes'" in text


# ------------------------------------------- 5: one pack heading in the PR body
class _Report:
    failed = False
    operators_added = ["Portable add"]
    operators_removed: list = []

    def to_markdown(self):
        return ("### Pack verification: `PyTorch.ExecuTorch.1.5.1.pack`\n\n**Passed** for version `1.5.1`\n\n"
                "#### Operator components against `old.pack`\n\n- Added (1): `Portable add`\n")


def test_pr_body_has_one_pack_heading_and_one_operator_list():
    from bot.report import pack_section
    text = pack_section(_Report())
    assert text.count("### Pack verification") == 1
    assert text.startswith("### Pack verification: `PyTorch.ExecuTorch.1.5.1.pack`")
    assert text.count("Portable add") == 1


def test_pr_body_from_a_pack_report_file_has_one_heading(world, capsys):
    co, plan = planned_checkout(world, capsys)
    report = world.tmp / "pack.md"
    report.write_text("### Pack verification: `PyTorch.ExecuTorch.1.5.1.pack`\n\n**Passed** for version `1.5.1`\n")
    code, out = cli(capsys, "publish", "--repo", str(co), "--plan-file", str(plan), "--pack-report", str(report),
                    "--dry-run")
    assert code == 0
    assert out.out.count("### Pack verification") == 1


def test_pr_body_without_a_report_keeps_its_heading_and_note():
    from bot.report import pack_section
    assert pack_section(None, "no asset") == "### Pack verification\n\nno asset"


# ------------------------------------------- 2: draft only for a blocking item
def _with_flags(plan_file, *blocking):
    data = json.loads(plan_file.read_text())
    data["flags"] = [{"code": f"item{i}", "message": "look", "path": "README.md", "line": 1, "blocking": b}
                     for i, b in enumerate(blocking)]
    plan_file.write_text(json.dumps(data))


@pytest.mark.parametrize("blocking,draft", [((False, False), False), ((False, True), True), ((), False)])
def test_publish_drafts_only_for_a_blocking_item(world, capsys, blocking, draft):
    co, plan = planned_checkout(world, capsys)
    _with_flags(plan, *blocking)
    assert cli(capsys, "publish", "--repo", str(co), "--plan-file", str(plan))[0] == 0
    pr = pr_body_of(world)
    assert pr["draft"] is draft
    assert pr["body"].count("`item") == len(blocking)   # informational items are still listed


@pytest.mark.parametrize("blocking,draft", [(False, False), (True, True)])
def test_run_drafts_only_for_a_blocking_item(world, capsys, monkeypatch, blocking, draft):
    from bot import engine
    from bot.model import Flag
    real = engine.plan

    def plan(*a, **kw):
        p = real(*a, **kw)
        p.flags.append(Flag("history-mention", "an old version in prose", "README.md", 1, blocking))
        return p
    monkeypatch.setattr(engine, "plan", plan)
    co = checkout(world)
    assert cli(capsys, "run", "--repo", str(co), "--upstream", f"github:{UPSTREAM}")[0] == 0
    pr = pr_body_of(world)
    assert pr["draft"] is draft and "history-mention" in pr["body"]


def test_draft_policy_values():
    from bot.config import Config
    from bot.model import Flag
    info, block = Flag("a", "m", None, None, False), Flag("b", "m", None, None, True)
    assert not Config().wants_draft([info])
    assert Config().wants_draft([info, block])
    assert Config().wants_draft([], check_failed=True)
    assert Config(draft="always").wants_draft([])
    assert not Config(draft="never").wants_draft([block], check_failed=True)


# ------------------------------------------- 3: publish --dry-run validates the config; unwritten plans refused
def test_publish_dry_run_refuses_a_bad_config_like_the_real_publish(world, capsys):
    co, plan = planned_checkout(world, capsys)
    (co / ".github").mkdir(exist_ok=True)
    (co / ".github/executorch-pack-bot.yml").write_text("labels: [deps]\nreviewrs: [alice]\n")
    dry = cli(capsys, "publish", "--repo", str(co), "--plan-file", str(plan), "--dry-run")
    real = cli(capsys, "publish", "--repo", str(co), "--plan-file", str(plan))
    assert dry[0] == real[0] == 2
    assert dry[1].err == real[1].err and ".github/executorch-pack-bot.yml:2: unknown setting 'reviewrs'" in dry[1].err
    assert remote_head(world) is None


def test_publish_dry_run_prints_what_it_would_use(world, capsys):
    co, plan = planned_checkout(world, capsys)
    (co / ".github").mkdir(exist_ok=True)
    (co / ".github/executorch-pack-bot.yml").write_text(
        "branch: bot/executorch-{version}\nlabels: [deps, executorch]\nreviewers: [alice]\ndraft: always\n")
    code, out = cli(capsys, "publish", "--repo", str(co), "--plan-file", str(plan), "--dry-run")
    assert code == 0
    assert "branch: bot/executorch-1.5.1\n" in out.out
    assert "base: main\n" in out.out
    assert "labels: deps, executorch\n" in out.out and "reviewers: alice\n" in out.out
    assert "draft: yes\n" in out.out
    assert world.open_pulls(TEMPLATE) == [] and remote_head(world, "bot/executorch-1.5.1") is None


@pytest.mark.parametrize("dry", [True, False])
def test_publish_refuses_a_plan_update_did_not_write(world, capsys, dry):
    """update --dry-run (or blocked by flagged items) writes the plan with "written": false and no file."""
    co = checkout(world)
    plan = world.tmp / "plan.json"
    assert cli(capsys, "update", "--repo", str(co), "--upstream", f"github:{UPSTREAM}", "--plan-file",
               str(plan), "--dry-run")[0] == 0
    assert json.loads(plan.read_text())["written"] is False
    code, out = cli(capsys, "publish", "--repo", str(co), "--plan-file", str(plan), *(["--dry-run"] if dry else []))
    assert code == 2
    assert "was not written to the checkout" in out.err and "without --dry-run" in out.err
    assert world.open_pulls(TEMPLATE) == [] and remote_head(world) is None


# ------------------------------------------- 10: .yaml as well as .yml; the exclude: key
def _config(repo, name, text):
    (repo / ".github").mkdir(exist_ok=True)
    (repo / ".github" / name).write_text(text)


def test_config_is_read_from_the_yaml_spelling_too(tmp_path):
    from bot.config import load_config
    _config(tmp_path, "executorch-pack-bot.yaml", "labels: [deps]\n")
    cfg = load_config(tmp_path)
    assert cfg.labels == ("deps",) and cfg.path == ".github/executorch-pack-bot.yaml"


def test_config_errors_name_the_yaml_spelling(tmp_path):
    from bot.config import load_config
    from bot.errors import UsageError
    _config(tmp_path, "executorch-pack-bot.yaml", "labels: [deps]\ndraft: maybe\n")
    with pytest.raises(UsageError) as e:
        load_config(tmp_path)
    assert str(e.value).startswith(".github/executorch-pack-bot.yaml:2: draft:")


def test_both_config_spellings_present_is_an_error_naming_both(tmp_path):
    from bot.config import load_config
    from bot.errors import UsageError
    _config(tmp_path, "executorch-pack-bot.yml", "labels: [a]\n")
    _config(tmp_path, "executorch-pack-bot.yaml", "labels: [b]\n")
    with pytest.raises(UsageError) as e:
        load_config(tmp_path)
    assert ".github/executorch-pack-bot.yml" in str(e.value) and ".github/executorch-pack-bot.yaml" in str(e.value)
    assert e.value.exit_code == 2


def test_exclude_is_a_known_key_holding_globs(tmp_path):
    from bot.config import load_config
    _config(tmp_path, "executorch-pack-bot.yml", "exclude:\n  - docs/old/*\n  - vendor\n")
    assert load_config(tmp_path).exclude == ("docs/old/*", "vendor")


@pytest.mark.parametrize("text,line", [("exclude: docs/*\n", 1), ("exclude:\n  - ok\n  - [a]\n", 3),
                                       ("exclude: {a: 1}\n", 1), ("labels: []\nexclude:\n  - ''\n", 3)])
def test_a_bad_exclude_is_named_with_file_and_line(tmp_path, text, line):
    from bot.config import load_config
    from bot.errors import UsageError
    _config(tmp_path, "executorch-pack-bot.yml", text)
    with pytest.raises(UsageError) as e:
        load_config(tmp_path)
    assert str(e.value).startswith(f".github/executorch-pack-bot.yml:{line}: exclude:")


# ------------------------------------------- 11: the total time one operation waits is bounded
def test_the_budget_follows_the_environment_cap():
    from bot.github.client import RetryPolicy
    p = RetryPolicy.from_env({"EXECUTORCH_PACK_BOT_MAX_WAIT": "5"})
    assert p.max_wait == 5 and p.max_total == 15


# ------------------------------------------- 7: a refused push is visible (warning + job summary)
def _foreign_commit_on_the_branch(w):
    from fakegithub import fresh_checkout
    co = fresh_checkout(w.remote, w.tmp / "human")
    git(co, "fetch", "-q", "origin", "executorch-pack-bot/executorch")
    git(co, "checkout", "-q", "-b", "mine", "FETCH_HEAD")
    (co / "NOTE.md").write_text("mine\n")
    git(co, "add", "NOTE.md")
    subprocess_env_commit(co)
    git(co, "push", "-q", "origin", "HEAD:executorch-pack-bot/executorch")


def subprocess_env_commit(co):
    import subprocess
    subprocess.run(["git", "-c", "user.name=Alice", "-c", "user.email=alice@example.com", "commit", "-q", "-m",
                    "mine"], cwd=co, check=True, capture_output=True)


@pytest.mark.parametrize("command", ["publish", "run"])
def test_a_refused_push_is_a_warning_and_a_summary_line(world, capsys, monkeypatch, command):
    assert cli(capsys, "run", "--repo", str(checkout(world)), "--upstream", f"github:{UPSTREAM}")[0] == 0
    _foreign_commit_on_the_branch(world)
    summary = world.tmp / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    if command == "publish":
        co, plan = planned_checkout(world, capsys)
        code = main(["publish", "--repo", str(co), "--plan-file", str(plan)])
    else:
        code = main(["run", "--repo", str(checkout(world)), "--upstream", f"github:{UPSTREAM}"])
    out = capsys.readouterr()
    assert code == 0
    warnings = [ln for ln in (out.out + out.err).splitlines() if ln.startswith("::warning")]
    assert len(warnings) == 1 and "has commits by others" in warnings[0] and "not pushing" in warnings[0]
    text = summary.read_text()
    assert "not pushed" in text and "commits by others" in text


# ------------------------------------------- 6: verify_asset calls verify-pack directly and cleans up
def _pack_world(world):
    from fakegithub import add_sample_release
    from packgen import make_pack
    pack = make_pack(world.tmp / "packs", version="1.5.1")
    world.repo(UPSTREAM).releases = [r for r in world.repo(UPSTREAM).releases if r["tag_name"] != "v1.5.1"]
    add_sample_release(world, "v1.5.1", created_at="2026-09-01T00:00:00Z",
                       assets={"PyTorch.ExecuTorch.1.5.1.pack": pack.read_bytes()})
    return pack


def test_run_deletes_the_folder_it_downloaded_the_pack_into(world, capsys, monkeypatch):
    import tempfile
    _pack_world(world)
    tmp = world.tmp / "tmp"
    tmp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp))
    assert cli(capsys, "run", "--repo", str(checkout(world)), "--upstream", f"github:{UPSTREAM}")[0] == 0
    assert "**Passed** for version `1.5.1`" in pr_body_of(world)["body"]
    assert list(tmp.iterdir()) == []


def test_fetch_pack_keeps_the_pack_in_dest(world, capsys):
    _pack_world(world)
    dest = world.tmp / "dest"
    code, out = cli(capsys, "fetch-pack", "--version", "1.5.1", "--dest", str(dest), "--upstream", f"github:{UPSTREAM}")
    assert code == 0 and sorted(p.name for p in dest.iterdir()) == ["PyTorch.ExecuTorch.1.5.1.pack"]


def test_verify_asset_calls_verify_pack_with_its_signature(world, monkeypatch, tmp_path):
    from bot.github import flow
    from bot.github.source import GitHubSource
    from bot.pack import verify
    _pack_world(world)
    seen = []

    def fake_verify(pack, version, *, tag=None):
        seen.append((pack.name, version, tag, pack.is_file()))
        return "REPORT"
    monkeypatch.setattr(verify, "verify_pack", fake_verify)
    asset = GitHubSource.from_spec(f"github:{UPSTREAM}").release("v1.5.1").assets[0]
    path, report = flow.verify_asset(asset, "1.5.1", "v1.5.1")
    assert report == "REPORT" and path is None
    assert seen == [("PyTorch.ExecuTorch.1.5.1.pack", "1.5.1", "v1.5.1", True)]
    path, _ = flow.verify_asset(asset, "1.5.1", "v1.5.1", tmp_path / "keep")
    assert path == tmp_path / "keep" / "PyTorch.ExecuTorch.1.5.1.pack" and path.is_file()


def test_a_pack_report_file_that_failed_makes_a_draft():
    from bot.github.flow import MarkdownReport
    assert MarkdownReport("### Pack verification: `x.pack`\n\n**Failed** for version `1.5.1`: 1 failed.\n").failed
    assert not MarkdownReport("### Pack verification: `x.pack`\n\n**Passed** for version `1.5.1`\n").failed


# ------------------------------------------- 8: a failed publish inside run leaves the checkout as it was
def test_a_failed_publish_in_run_puts_the_checkout_back(world, capsys):
    world.faults.append(Fault("POST", r"/pulls$", 422, {"message": "Validation Failed",
                                                       "errors": [{"message": "base is protected"}]}))
    co = checkout(world)
    code, out = cli(capsys, "run", "--repo", str(co), "--upstream", f"github:{UPSTREAM}")
    assert code == 2 and "base is protected" in out.err
    assert git(co, "status", "--porcelain") == ""          # every file the plan wrote has its original bytes
    assert "checkout was put back as it was before run" in out.err
    assert remote_head(world) is None                      # and the branch this run pushed was deleted


# ------------------------------------------- 9: a private upstream's asset comes through the API endpoint
@pytest.fixture
def objects_host():
    from fakegithub import FakeGitHub
    host = FakeGitHub()
    host.start()
    yield host
    host.stop()


def test_private_upstream_asset_is_downloaded_through_the_api_with_the_token(world, capsys, objects_host):
    pack = _pack_world(world)
    world.repo(UPSTREAM).private = True
    objects_host.assets = world.assets
    world.asset_host = objects_host.url            # the 302 goes to another 127.0.0.1 port
    dest = world.tmp / "dest"
    code, out = cli(capsys, "fetch-pack", "--version", "1.5.1", "--dest", str(dest), "--upstream", f"github:{UPSTREAM}")
    assert code == 0, out.err
    assert (dest / "PyTorch.ExecuTorch.1.5.1.pack").read_bytes() == pack.read_bytes()
    api = [s for s in world.requests if "/releases/assets/" in s.path]
    assert len(api) == 1 and api[0].headers["Accept"] == "application/octet-stream"
    assert api[0].headers["Authorization"] == f"Bearer {TOKEN}"
    got = [s for s in objects_host.requests if s.path.startswith("/download/")]
    assert len(got) == 1 and "Authorization" not in got[0].headers


def test_a_redirect_on_the_same_host_gets_no_token_either(world, capsys):
    _pack_world(world)
    world.repo(UPSTREAM).private = True
    code, out = cli(capsys, "fetch-pack", "--version", "1.5.1", "--dest", str(world.tmp / "d"),
                    "--upstream", f"github:{UPSTREAM}")
    assert code == 0, out.err
    got = [s for s in world.requests if s.path.startswith("/download/")]
    assert len(got) == 1 and "Authorization" not in got[0].headers


def test_without_a_token_the_browser_download_url_is_used(world, capsys, monkeypatch):
    _pack_world(world)
    monkeypatch.delenv("GITHUB_TOKEN")
    code, out = cli(capsys, "fetch-pack", "--version", "1.5.1", "--dest", str(world.tmp / "d"),
                    "--upstream", f"github:{UPSTREAM}")
    assert code == 0, out.err
    assert not [s for s in world.requests if "/releases/assets/" in s.path]
    assert [s for s in world.requests if s.path.startswith("/download/")]


# ------------------------------------------- 1: publish --include commits the regenerated AI layer
def _regenerate_ai_layer(co):
    """What the ai-layer job hands over: a regenerated clayer (not the engine's edit) and a new file."""
    (co / "ai_layer/ai_layer.clayer.yml").write_text("layer:\n  description: regenerated\n")
    (co / "ai_layer/src").mkdir()
    (co / "ai_layer/src/model.c").write_text("/* generated */\n")


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
    assert "regenerated by the ai-layer job" in body
    assert "- `ai_layer/ai_layer.clayer.yml`" in body and "- `ai_layer/src/model.c`" in body


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


@pytest.mark.parametrize("result,include", [("success", True), ("skipped", False), ("failure", False)])
def test_the_workflow_passes_include_only_when_the_ai_layer_job_succeeded(result, include):
    import re

    from test_workflow_jobs import EXPR, bot_steps
    publish = bot_steps("pull-request")[-1]
    assert publish["command"] == "publish"

    def value(expr):   # the one expression of the args, evaluated as GitHub would
        m = re.fullmatch(r"needs\.ai-layer\.result == 'success' && '([^']*)' \|\| ''", expr)
        assert m, expr
        return m.group(1) if result == "success" else ""
    args = EXPR.sub(lambda m: value(m.group(1)), publish["args"]).split()
    assert ("--include" in args) is include
    if include:
        assert args[args.index("--include") + 1] == "ai_layer"
