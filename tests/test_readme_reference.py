"""The README's reference sections match the code: every reusable-workflow and action input with
its default, OWNER and pinning, the CMSIS-Toolbox on the ai-layer runner, what .ci/run installs.
"""

from __future__ import annotations

from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]


WORKFLOW = yaml.safe_load((ROOT / ".github/workflows/executorch-pack-bot.yml").read_text())


README = (ROOT / "README.md").read_text()


def _action_section() -> str:
    start = README.index("\n## GitHub Action\n")
    end = README.find("\n## ", start + 5)
    return README[start:] if end < 0 else README[start:end]


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
