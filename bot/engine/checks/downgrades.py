"""The downgrades check: a Python pin the bump moves DOWN because upstream pins an older version.

Upstream can pin an older tool than the template has (pytorch/executorch
PR #7160 went back from ethos-u-vela 4.1.0 to 4.0.0, the newest being
broken); the bump follows upstream and says so.
"""

from __future__ import annotations

from packaging.version import InvalidVersion, Version

from bot.engine.current import template_values
from bot.engine.read import Template
from bot.model import Bump, Flag


def downgrades(tpl: Template, bump: Bump) -> list[Flag]:
    """Non-blocking ``downgrade`` flags for pins that go down because upstream pins an older version."""
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
