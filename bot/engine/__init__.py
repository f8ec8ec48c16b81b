"""The upgrade engine: scan a template, resolve the bump, plan every edit, validate, apply.

``plan()`` is a pure computation over the checkout and an
:class:`~bot.upstream.source.UpstreamSource`: it writes nothing.  ``apply()``
writes the planned contents all-or-nothing.  ``audit()`` reports whether the
template's ExecuTorch pins agree and which prose mentions another version.

Modules, by role:

- :mod:`bot.engine.read`: scan the checkout and extract findings (:func:`read_template`);
- :mod:`bot.engine.current`: what the template pins now (:func:`current_version`, pin groups);
- :mod:`bot.engine.planner`: the orchestration of a bump (:func:`plan`);
- :mod:`bot.engine.checks`: one module per cross-file check run after planning;
- :mod:`bot.engine.pythons`: the Python versions a template states;
- :mod:`bot.engine.apply`, :mod:`bot.engine.audit`, :mod:`bot.engine.sets` (``--set``).

This package re-exports the public API; callers use ``from bot import engine``
and ``engine.plan(...)``.
"""

from bot.engine.apply import apply
from bot.engine.audit import Audit, audit
from bot.engine.current import PinGroup, current_pins, current_version, describe_groups, group_pins
from bot.engine.planner import plan
from bot.engine.read import CONFIG_PATH, PACK, Template, config_excludes, read_template
from bot.engine.sets import parse_sets

__all__ = ["Audit", "CONFIG_PATH", "PACK", "PinGroup", "Template", "apply", "audit", "config_excludes",
           "current_pins", "current_version", "describe_groups", "group_pins", "parse_sets", "plan", "read_template"]
