"""docs/architecture.md names every module of bot/ (a contributor's map must match the tree).

A module is named by its file name (``planner.py``) or, for a command module, by its
subcommand in backticks (``verify-pack``).  The shipped sample data is not code and is left out.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _command_name(path: Path) -> str:
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "NAME" for t in node.targets):
            return node.value.value
    raise AssertionError(f"{path}: no NAME")


def test_every_module_of_bot_is_named_in_the_architecture_page():
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    missing = []
    for path in sorted((ROOT / "bot").rglob("*.py")):
        rel = path.relative_to(ROOT)
        if path.name in ("__init__.py", "__main__.py") or rel.parts[1] == "sample":
            continue
        if rel.parts[1] == "commands" and not path.name.startswith("_"):   # a subcommand; _*.py are helpers
            if f"`{_command_name(path)}`" not in text:
                missing.append(str(rel))
        elif path.name not in text:
            missing.append(str(rel))
    assert missing == []


def test_every_package_of_bot_is_named_in_the_architecture_page():
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    packages = sorted(str(p.parent.relative_to(ROOT)) + "/" for p in (ROOT / "bot").rglob("__init__.py")
                      if "sample" not in p.parts and p.parent != ROOT / "bot")
    assert [p for p in packages if p not in text and p.rstrip("/").rsplit("/", 1)[-1] + "/" not in text] == []
