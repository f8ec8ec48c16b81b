"""The downgrades check: a Python pin the bump moves DOWN because upstream pins an older version.

Upstream can pin an older tool than the template has (pytorch/executorch
PR #7160 went back from ethos-u-vela 4.1.0 to 4.0.0, the newest being
broken); the bump follows upstream and says so.
"""

from __future__ import annotations

from bot.engine.current import template_values
from bot.engine.read import Template
from bot.model import Bump, Flag
from bot.template.publicversion import older_release


def downgrades(tpl: Template, bump: Bump) -> list[Flag]:
    """Non-blocking ``downgrade`` flags for pins that go down because upstream pins an older version.

    A local label is no version: ``torch==2.14.0+cpu`` against upstream's
    ``2.14.0`` is the same release (the bump keeps the label), not a downgrade
    (:func:`~bot.template.publicversion.older_release`).  Text that is not a
    version is never a downgrade.
    """
    return [Flag("downgrade", f"{c.name} goes DOWN from {have} to {c.new}: upstream pins {c.new} "
                 f"at {bump.new_tag} ({c.source})", blocking=False)
            for c in bump.changes for have in template_values(tpl, c.name) if older_release(c.new, have)]
