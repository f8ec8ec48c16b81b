"""The import contract of ``pyproject.toml`` (``[tool.importlinter]``, run as ``lint-imports`` by .ci/run) holds
for bot/ as it is, and fails on an upward import or an import circle: shown on a copy of bot/ with one
import added (import-linter reads the package from the copy, imports inside functions included).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LINT = Path(sys.executable).with_name("lint-imports")


def _lint(copy: Path) -> subprocess.CompletedProcess:
    """``lint-imports`` on the copy at ``copy`` (its bot/ first on sys.path), with the repository's contract."""
    env = {**os.environ, "PYTHONPATH": str(copy), "NO_COLOR": "1"}
    return subprocess.run([str(LINT), str(copy / "pyproject.toml"), "--no-cache"], cwd=copy, env=env,
                          capture_output=True, text=True, timeout=300)


@pytest.fixture
def copy(tmp_path) -> Path:
    """A copy of bot/ and pyproject.toml (no byte-code), where an import can be added."""
    shutil.copytree(ROOT / "bot", tmp_path / "bot", ignore=shutil.ignore_patterns("__pycache__", "sample"))
    (tmp_path / "bot" / "sample").mkdir()
    (tmp_path / "bot" / "sample" / "__init__.py").write_text("")
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    return tmp_path


def _add(copy: Path, rel: str, line: str) -> None:
    path = copy / rel
    path.write_text(path.read_text(encoding="utf-8") + "\n\n" + line + "\n", encoding="utf-8")


def test_the_contract_holds_for_bot_as_it_is(copy):
    run = _lint(copy)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "Contracts: 2 kept, 0 broken." in run.stdout


def test_an_upward_import_inside_a_function_fails_naming_it(copy):
    # the engine layer asking the GitHub layer, from inside a function
    _add(copy, "bot/engine/planner.py", "def _upward():\n    from bot.github.client import make_github  # noqa: F401")
    run = _lint(copy)
    assert run.returncode == 1
    assert "bot.engine is not allowed to import bot.github" in run.stdout
    assert "bot.engine.planner -> bot.github.client" in run.stdout


def test_a_circle_between_two_modules_of_one_package_fails(copy):
    # the registry importing the router that imports it: a circle inside bot.events, no layer crossed
    _add(copy, "bot/events/registry.py", "def _circle():\n    from bot.events import router  # noqa: F401")
    run = _lint(copy)
    assert run.returncode == 1
    assert "no import circle between the modules of one package BROKEN" in run.stdout
    assert ".registry -> .router" in run.stdout or ".router -> .registry" in run.stdout
