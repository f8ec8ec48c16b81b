"""The downgrades check: a Python pin the bump moves DOWN because upstream pins an older version.

Upstream can pin an older tool than the template has (CASES.md C19: vela
4.1.0 -> 4.0.0 between two ExecuTorch tags); the bump follows upstream and
says so.
"""

from __future__ import annotations

from packaging.version import InvalidVersion, Version

from bot.engine.current import template_values
from bot.engine.read import Template
from bot.model import Bump, Flag


def downgrades(tpl: Template, bump: Bump) -> list[Flag]:
    """Informational flags for pins that go down because upstream pins an older version (CASES.md C19)."""
    out = []
    for c in bump.changes:
        for have in template_values(tpl, c.name):
            try:
                if Version(c.new) < Version(have):
                    out.append(Flag("downgrade",
                                    f"{c.name} goes DOWN from {have} to {c.new}: upstream pins {c.new} "
                                    f"at {bump.new_tag} ({c.source})", blocking=False))
            except InvalidVersion:
                continue
    return out
