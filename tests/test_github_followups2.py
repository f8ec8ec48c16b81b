"""Follow-ups on the GitHub layer and the workflows from a second new-user trial (issues 4 and 5).

One block per item of the follow-up list; each test holds the right value
and failed before its change.  Everything runs against the local fake
GitHub server (tests/fakegithub.py), which also serves the package index.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from fakegithub import UPSTREAM, add_sample_release, pypi_json
from test_break_github import TOKEN, cli, fake, tpl, world  # noqa: F401

ROOT = Path(__file__).resolve().parents[1]
WORKFLOW = yaml.safe_load((ROOT / ".github/workflows/executorch-pack-bot.yml").read_text())
ACTION = yaml.safe_load((ROOT / "action.yml").read_text())
README = (ROOT / "README.md").read_text()


def _outputs(path: Path) -> dict[str, str]:
    """``$GITHUB_OUTPUT`` as written by bot.actions.set_outputs (``NAME<<DELIM`` blocks)."""
    out, lines, i = {}, path.read_text().splitlines(), 0
    while i < len(lines):
        name, _, delim = lines[i].partition("<<")
        j = lines.index(delim, i + 1)
        out[name] = "\n".join(lines[i + 1:j])
        i = j + 1
    return out


@pytest.fixture
def releases(fake):
    """Upstream with v1.4.0 (the template's) and v1.5.1 (sample torch 2.14.0, torchao 0.19.0)."""
    add_sample_release(fake, "v1.4.0", created_at="2026-06-01T00:00:00Z")
    add_sample_release(fake, "v1.5.1", created_at="2026-09-01T00:00:00Z",
                       assets={"PyTorch.ExecuTorch.1.5.1.pack": b"PK"})
    return fake


def check(capsys, tpl, tmp_path, monkeypatch, *extra):
    monkeypatch.setenv("GITHUB_OUTPUT", str(tmp_path / "out"))
    (tmp_path / "out").write_text("")
    code, out = cli(capsys, "check", "--repo", str(tpl), "--upstream", f"github:{UPSTREAM}", *extra)
    return code, out, _outputs(tmp_path / "out")


# ------------------------------------------- 2: check gates on the package index
def test_check_index_ready_when_executorch_is_published_with_wheels(releases, tpl, tmp_path, monkeypatch, capsys):
    releases.pypi[("executorch", "1.5.1")] = pypi_json("executorch", "1.5.1",
                                                        requires_dist=["torch>=2.14.0a0", "torchao>=0.19.0"])
    code, out, outs = check(capsys, tpl, tmp_path, monkeypatch)
    assert code == 0
    assert outs["update-needed"] == "true" and outs["index-ready"] == "true"
    assert "index-ready=true" in out.out
    assert releases.count("GET", r"^/pypi/executorch/1\.5\.1/json$") == 1


def test_check_waits_for_an_unpublished_executorch(releases, tpl, tmp_path, monkeypatch, capsys):
    code, out, outs = check(capsys, tpl, tmp_path, monkeypatch)
    assert code == 0
    assert outs["update-needed"] == "true"   # the next scheduled run tries again
    assert outs["index-ready"] == "false"
    assert "waiting for executorch 1.5.1 on the package index" in out.out


def test_check_index_not_ready_when_the_resolved_torch_is_too_old(releases, tpl, tmp_path, monkeypatch, capsys):
    releases.pypi[("executorch", "1.5.1")] = pypi_json("executorch", "1.5.1", requires_dist=["torch>=2.15.0"])
    code, out, outs = check(capsys, tpl, tmp_path, monkeypatch)
    assert code == 0 and outs["index-ready"] == "false"
    assert "torch 2.14.0 does not satisfy torch>=2.15.0" in out.out


def test_check_index_not_ready_without_wheels(releases, tpl, tmp_path, monkeypatch, capsys):
    releases.pypi[("executorch", "1.5.1")] = pypi_json("executorch", "1.5.1", wheels=False)
    code, out, outs = check(capsys, tpl, tmp_path, monkeypatch)
    assert code == 0 and outs["index-ready"] == "false"
    assert "no wheels" in out.out


def test_a_no_op_check_asks_neither_the_contents_api_nor_the_index(releases, tpl, tmp_path, monkeypatch, capsys):
    code, out, outs = check(capsys, tpl, tmp_path, monkeypatch, "--to", "1.4.0")
    assert code == 0 and outs["update-needed"] == "false" and outs["index-ready"] == "false"
    assert releases.count() <= 2
    assert releases.count("GET", "/pypi/") == 0 and releases.count("GET", "/contents/") == 0


def test_workflow_jobs_after_watch_wait_for_the_index():
    jobs = WORKFLOW["jobs"]
    assert jobs["watch"]["outputs"]["index-ready"] == "${{ steps.check.outputs.index-ready }}"
    for name in ("fetch-pack", "build-pack", "pull-request"):
        assert "needs.watch.outputs.index-ready == 'true'" in jobs[name]["if"], name
    assert ACTION["outputs"]["index-ready"]["value"] == "${{ steps.bot.outputs.index-ready }}"
    assert "`index-ready`" in README


# ------------------------------------------- 3: set input; run gets --upstream, --set, --exclude, --allow-flagged
def _update_steps():
    return [(job, s.get("with", {})) for job, spec in WORKFLOW["jobs"].items() for s in spec["steps"]
            if s.get("uses") == "./.executorch-pack-bot" and s.get("with", {}).get("command") == "update"]


def test_workflow_set_input_reaches_every_update_step_through_the_action_input():
    spec = WORKFLOW[True]["workflow_call"]["inputs"]["set"]   # PyYAML reads the key `on` as True
    assert spec["type"] == "string" and spec["default"] == ""
    steps = _update_steps()
    assert len(steps) == 3
    for job, with_ in steps:
        assert with_.get("set") == "${{ inputs.set }}", job
    assert ACTION["inputs"]["set"]["default"] == ""


def test_action_passes_set_items_as_repeated_set_options(tmp_path):
    from test_action import ActionRun
    run = ActionRun(tmp_path)
    run.run({"command": "update", "set": "torchao=0.20.0\n  ethos-u-vela=5.3.0 *"})
    (call,) = run.calls()
    assert call["argv"][-6:] == ["--set", "torchao=0.20.0", "--set", "ethos-u-vela=5.3.0", "--set", "*"]


def test_action_run_command_passes_upstream_version_and_set(tmp_path):
    from test_action import ActionRun
    run = ActionRun(tmp_path)
    run.run({"command": "run", "upstream": "github:acme/executorch", "version": "1.5.1", "dry-run": "true",
             "set": "torchao=0.20.0"})
    (call,) = run.calls()
    assert call["argv"] == ["run", "--repo", ".", "--upstream", "github:acme/executorch", "--to", "1.5.1",
                            "--dry-run", "--set", "torchao=0.20.0"]


def test_action_refuses_set_for_a_command_that_takes_none(tmp_path):
    from test_action import ActionRun
    run = ActionRun(tmp_path)
    results = run.run({"command": "check", "set": "torchao=0.20.0"})
    assert results[-1][1].returncode == 2 and "set applies to update and run" in results[-1][1].stdout
    assert run.calls() == []


def test_the_bot_validates_a_set_item_given_through_the_action(tmp_path, upstream_repo):
    from bot.commands.demo import copy_template
    from test_action import ActionRun
    copy_template(tmp_path / "template")
    run = ActionRun(tmp_path, bot="real")
    results = run.run({"command": "update", "repo-path": "template", "upstream": str(upstream_repo),
                       "version": "1.5.1", "dry-run": "true", "set": "torchao"})
    proc = results[-1][1]
    assert proc.returncode == 2 and "--set 'torchao': expected NAME=VERSION" in proc.stderr


def _run(capsys, co, *extra):
    return cli(capsys, "run", "--repo", str(co), "--upstream", f"github:{UPSTREAM}", *extra)


def test_run_set_supplies_a_pin(world, capsys):
    from test_break_github import checkout
    code, out = _run(capsys, checkout(world), "--dry-run", "--set", "torchao=0.20.0")
    assert code == 0
    assert "| torchao | 0.18.0 | 0.20.0 | --set |" in out.out.replace("`", "")


def test_run_set_is_validated(world, capsys):
    from test_break_github import checkout
    code, out = _run(capsys, checkout(world), "--dry-run", "--set", "torchao")
    assert code == 2 and "expected NAME=VERSION" in out.err
    assert world.count("GET", "/pypi/") == 0


def test_run_exclude_leaves_a_path_alone(world, capsys):
    from test_break_github import checkout
    co = checkout(world)
    code, out = _run(capsys, co, "--dry-run")
    assert code == 0 and "requirements.txt" in out.out
    code, out = _run(capsys, co, "--dry-run", "--exclude", "requirements*.txt")
    assert code == 0 and "requirements.txt" not in out.out


def _blocking(co):
    (co / "pyproject.toml").write_text('[project]\nname = "fw"\nversion = "0"\n\n'
                                       '[tool.uv]\nconstraint-dependencies = ["executorch<1.5"]\n')


def test_run_stop_on_flagged_proposes_nothing_like_update(world, capsys):
    from fakegithub import TEMPLATE
    from test_break_github import checkout, remote_head
    co = checkout(world)
    _blocking(co)
    code, out = _run(capsys, co, "--stop-on-flagged")
    assert code == 1 and "--stop-on-flagged" in out.out and "unmanaged-pin" in out.out
    assert world.open_pulls(TEMPLATE) == [] and remote_head(world) is None


def test_run_opens_a_draft_listing_a_blocking_item_by_default(world, capsys):
    from fakegithub import TEMPLATE
    from test_break_github import checkout
    co = checkout(world)
    _blocking(co)
    code, out = _run(capsys, co)  # the default: a draft that lists the item (issue 4)
    assert code == 0
    (pr,) = world.open_pulls(TEMPLATE)
    assert pr["draft"] is True and "unmanaged-pin" in pr["body"]


# ------------------------------------------- 5: the config file is validated first, by check and run
@pytest.mark.parametrize("command", ["check", "run"])
def test_a_config_typo_fails_before_any_request(releases, tpl, capsys, command):
    (tpl / ".github").mkdir(exist_ok=True)
    (tpl / ".github/executorch-pack-bot.yml").write_text("labels: [deps]\nreviewer: [alice]\n")
    code, out = cli(capsys, command, "--repo", str(tpl), "--upstream", f"github:{UPSTREAM}", "--dry-run"
                    if command == "run" else "--allow-prerelease")
    assert code == 2
    assert ".github/executorch-pack-bot.yml:2: unknown setting 'reviewer'" in out.err
    assert releases.count() == 0


# ------------------------------------------- 6: help texts
def _option_help(command: str, option: str) -> str:
    from bot.cli import build_parser
    parser = build_parser()
    sub = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction").choices[command]
    return next(a.help or "" for a in sub._actions if option in a.option_strings)


@pytest.mark.parametrize("command", ["publish", "run"])
def test_token_help_of_writing_commands_names_the_permissions(command):
    text = _option_help(command, "--token")
    assert "anonymous" not in text
    assert "Contents" in text and "Pull requests" in text and "write" in text


def test_token_help_of_reading_commands_still_mentions_anonymous_reads():
    assert "anonymous public reads" in _option_help("check", "--token")


def test_fetch_pack_upstream_has_a_description():
    text = _option_help("fetch-pack", "--upstream")
    assert "release" in text and "default" in text


# ------------------------------------------- 4 and 7: README "## GitHub Action"
def _action_section() -> str:
    start = README.index("\n## GitHub Action\n")
    end = README.find("\n## ", start + 5)
    return README[start:] if end < 0 else README[start:end]


def _flat(text: str) -> str:
    return " ".join(text.split())


def _table_rows(text: str) -> dict[str, list[str]]:
    """``{first cell without backticks: cells}`` of every Markdown table row in ``text``."""
    rows = {}
    for line in text.splitlines():
        if line.startswith("|") and not set(line) <= set("|-: "):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            rows[cells[0].strip("`")] = cells
    return rows


def test_readme_lists_every_reusable_workflow_input_with_its_default():
    rows = _table_rows(_action_section())
    inputs = WORKFLOW[True]["workflow_call"]["inputs"]
    for name in ("python-version", "requirements", "build-runner", "ai-layer-runner", "csolution",
                 "active-target", "upstream", "app-id", "app-workflows-permission", "set"):
        assert name in inputs
    for name, spec in inputs.items():
        assert name in rows, f"README: no row for the workflow input {name}"
        row = " ".join(rows[name][1:])
        if spec.get("required"):
            assert "required" in row, name
        else:
            default = spec["default"]
            shown = ("true" if default else "false") if isinstance(default, bool) else str(default)
            assert f"`{shown}`" in row or f'`"{shown}"`' in row, (name, shown, row)
    assert "`\"3.12\"`" in " ".join(rows["python-version"]) and "`requirements.txt`" in " ".join(rows["requirements"])


def test_readme_lists_every_action_input_including_python():
    text = _action_section()
    for name in ACTION["inputs"]:
        assert f"`{name}`" in text, name
    assert "`python`" in text


def test_readme_says_what_owner_is_and_pins_a_sha_without_a_version_comment():
    text = _flat(_action_section())
    assert "`OWNER` is the GitHub owner" in text and "fork" in text and "no published release" in text
    caller = (ROOT / "docs/example-caller.yml").read_text()
    assert "# vX.Y.Z" not in caller and "# vX.Y.Z" not in README


def test_readme_says_how_cmsis_toolbox_reaches_the_ai_layer_runner():
    text = _flat(_action_section())
    assert "CMSIS-Toolbox" in text and "self-hosted runner" in text and "does not install" in text


def test_readme_says_what_ci_run_installs_and_lints():
    text = _action_section()
    line = next(s for s in text.split("\n\n") if "`.ci/run`" in s)
    for word in ("actionlint", "zizmor", "apt", "npm", "PyPI", "network"):
        assert word in line, word
