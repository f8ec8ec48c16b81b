"""The Python range check: the target's ``requires-python`` against the Pythons the template states.

The target's range is upstream ``pyproject.toml`` at the target tag
(ExecuTorch's pyproject.toml at v1.0.0 to v1.4.1); the template's Pythons come from
:func:`bot.engine.pythons.stated_pythons`.
"""

from __future__ import annotations

from typing import Optional

from packaging.version import Version

from bot.engine.pythons import PY_VERSION, stated_pythons
from bot.engine.read import Template
from bot.model import Flag, PinSet


def python_range_change(current: Optional[PinSet], target: PinSet) -> list[Flag]:
    """Report a changed upstream ``requires-python`` (the template's venv may need another Python)."""
    if current is None or not target.requires_python:
        return []
    if current.requires_python != target.requires_python:
        return [Flag("requires-python",
                     f"executorch {target.executorch} declares requires-python "
                     f"{target.requires_python!r} (was {current.requires_python!r} at {current.tag}); "
                     "check the template's Python version", blocking=False)]
    return []


def python_flags(tpl: Template, target: PinSet) -> list[Flag]:
    """Non-blocking ``requires-python`` flags for each Python the template states outside the target's range.

    The target's ``requires-python`` (upstream ``pyproject.toml`` at the target
    tag, ExecuTorch's pyproject.toml at v1.0.0 to v1.4.1) is a :class:`~packaging.specifiers.SpecifierSet`;
    a stated version is checked directly, a stated range by the Python minor
    versions it admits (3.0 up to one past the newest the target admits).
    """
    from packaging.specifiers import InvalidSpecifier, SpecifierSet

    from bot.template.pep508 import specifier_empty_operator

    if not target.requires_python or specifier_empty_operator(target.requires_python):
        return []
    try:
        allowed = SpecifierSet(target.requires_python)
    except InvalidSpecifier:
        return []
    minors = [Version(f"3.{n}") for n in range(0, 40)]
    top = max((v.minor for v in minors if allowed.contains(v, prereleases=True)), default=39)
    out = []
    for path, line, text in stated_pythons(tpl):
        if PY_VERSION.match(text):
            if allowed.contains(Version(text), prereleases=True):
                continue
            why = f"Python {text}"
        else:
            if specifier_empty_operator(text):
                continue  # "===" alone: refused whatever packaging accepts (bot.template.pep508)
            try:
                spec = SpecifierSet(text)
            except InvalidSpecifier:
                continue
            outside = [f"3.{v.minor}" for v in minors[:top + 2] if spec.contains(v, prereleases=True)
                       and not allowed.contains(v, prereleases=True)]
            if not outside:
                continue
            out.append(Flag("requires-python", f"requires-python {text!r} admits Python {', '.join(outside)}, "
                            f"which executorch {target.executorch} does not support (its requires-python is "
                            f"{target.requires_python!r})", path=path, line=line, blocking=False))
            continue
        out.append(Flag("requires-python", f"{why} is outside executorch {target.executorch}'s requires-python "
                        f"{target.requires_python!r}", path=path, line=line, blocking=False))
    return out
