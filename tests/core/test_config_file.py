"""The config file ``.github/executorch-pack-bot.yml`` (or ``.yaml``): values git or YAML would
reject, either spelling, ``exclude``, and one error printed once before any request.
"""

from __future__ import annotations

import pytest

from bot.cli import main
from fakegithub import UPSTREAM, add_sample_release
from github_world import TOKEN, cli


def _config(repo, name, text):
    (repo / ".github").mkdir(exist_ok=True)
    (repo / ".github" / name).write_text(text)


@pytest.fixture
def releases(fake):
    """Upstream with v1.4.0 (the template's) and v1.5.1 (sample torch 2.14.0, torchao 0.19.0)."""
    add_sample_release(fake, "v1.4.0", created_at="2026-06-01T00:00:00Z")
    add_sample_release(fake, "v1.5.1", created_at="2026-09-01T00:00:00Z",
                       assets={"PyTorch.ExecuTorch.1.5.1.pack": b"PK"})
    return fake


@pytest.mark.parametrize("text,line,words", [
    (b"base: null\n", 1, "base: expected a non-empty string"),
    (b"branch: bot/x\nbase: ~\n", 2, "base: expected a non-empty string"),
    (b"labels: [a, null]\n", 1, "labels: expected a non-empty string"),
    (b"# settings\nbranch: bot/\xff\n", 2, "not UTF-8"),
    (b"branch: bot/.hidden\n", 1, "not a valid branch name"),
    (b"branch: bot//x\n", 1, "not a valid branch name"),
    (b"branch: bot/x.lock/y\n", 1, "not a valid branch name"),
    (b"branch: bot/{version}.\n", 1, "not a valid branch name"),
    (b"labels: [x]\nbranch: bot/executorch-{ver}\n", 2,
     "branch: {ver} in 'bot/executorch-{ver}' is not a placeholder; the only one is {version}"),
    (b"branch: bot/{version}-{Version}\n", 1, "branch: {Version} in 'bot/{version}-{Version}' is not a placeholder"),
    (b"branch: bot/{version\n", 1, "branch: a brace in 'bot/{version' is not a placeholder"),
    (b"\nbase: 'my branch'\n", 2, "base: 'my branch' is not a valid branch name"),
    (b"branch: a\nlabels: [x]\n\x01\n", 3, "invalid YAML"),
])
def test_config_values_git_or_yaml_would_reject_are_named_with_file_and_line(tmp_path, text, line, words):
    from bot.config import load_config
    from bot.errors import UsageError
    (tmp_path / ".github").mkdir()
    (tmp_path / ".github" / "executorch-pack-bot.yml").write_bytes(text)
    with pytest.raises(UsageError) as ei:
        load_config(tmp_path)
    assert str(ei.value).startswith(f".github/executorch-pack-bot.yml:{line}: ") and words in str(ei.value)


def test_run_with_an_undecodable_config_exits_2_naming_it(fake, tpl, capsys):
    add_sample_release(fake, "v1.5.1")
    (tpl / ".github").mkdir(exist_ok=True)
    (tpl / ".github" / "executorch-pack-bot.yml").write_bytes(b"branch: \xfe\n")
    code, out = cli(capsys, "run", "--repo", str(tpl), "--upstream", f"github:{UPSTREAM}", "--dry-run")
    assert code == 2 and ".github/executorch-pack-bot.yml:1: not UTF-8" in out.err


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


@pytest.mark.parametrize("command", ["check", "run"])
def test_a_config_typo_fails_before_any_request(releases, tpl, capsys, command):
    (tpl / ".github").mkdir(exist_ok=True)
    (tpl / ".github/executorch-pack-bot.yml").write_text("labels: [deps]\nreviewer: [alice]\n")
    code, out = cli(capsys, command, "--repo", str(tpl), "--upstream", f"github:{UPSTREAM}", "--dry-run"
                    if command == "run" else "--allow-prerelease")
    assert code == 2
    assert ".github/executorch-pack-bot.yml:2: unknown setting 'reviewer'" in out.err
    assert releases.count() == 0
