"""The ``ignore-mentions:`` key of ``.github/executorch-pack-bot.yml``: review items a person has looked at.

Format (a list; each item names a place and says why)::

    ignore-mentions:
      - path: documentation/benchmarks.md:14     # one line: PATH:LINE
        reason: the 1.4.0 there is the model zoo's version
      - path: third_party_docs/*.md              # a path glob (fnmatch, * also matches /): every line
        reason: copies of another project's docs

A listed occurrence of a tracked version goes to the ``other`` bucket of the
accounting (:mod:`bot.engine.mentions`) with the reason as its rule; an
unlisted one stays a review item, run after run.  Errors name the config
file and line (:class:`~bot.errors.UsageError`, exit 2).
"""

from __future__ import annotations

import re
from pathlib import Path

from bot.engine.mentions import IgnoreEntry
from bot.errors import UsageError
from bot.template import scan as scanmod

KEY = "ignore-mentions"
_AT_LINE = re.compile(r"^(?P<path>.+?):(?P<line>\d+)$")
_EXAMPLE = "e.g. - {path: docs/old.md:12, reason: the model zoo's version}"


def ignore_entries(repo: Path) -> tuple[IgnoreEntry, ...]:
    """The ``ignore-mentions:`` entries of the template's config file (absent file or key: ``()``).

    Raises :class:`UsageError` naming the config file and line for: a value
    that is not a list; an item that is not a mapping of exactly ``path`` and
    ``reason``; an empty path or reason; a ``PATH:0`` line; a glob that can
    never match (absolute, ``..``, backslash: :func:`bot.template.scan.exclude_problem`).
    """
    from bot.config import config_setting

    found = config_setting(repo, KEY)   # the one reader of the file (refuses symlinks, FIFOs, huge or deep YAML)
    return () if found is None else _entries(*found)


def _entries(rel: str, value) -> tuple[IgnoreEntry, ...]:
    import yaml

    def err(msg: str, n) -> UsageError:
        return UsageError(f"{KEY}: {msg}", path=rel, line=n.start_mark.line + 1)

    if isinstance(value, yaml.ScalarNode) and value.tag == "tag:yaml.org,2002:null":
        return ()
    if not isinstance(value, yaml.SequenceNode):
        raise err(f"expected a list of {{path, reason}} items, {_EXAMPLE}", value)
    out = []
    for item in value.value:
        if not isinstance(item, yaml.MappingNode):
            raise err(f"every item is a mapping with path and reason, {_EXAMPLE}", item)
        fields: dict[str, str] = {}
        for k, v in item.value:
            name = str(k.value)
            if name not in ("path", "reason"):
                raise err(f"unknown field {name!r} (known: path, reason)", k)
            if name in fields:
                raise err(f"{name}: given twice", k)
            if not (isinstance(v, yaml.ScalarNode) and v.tag != "tag:yaml.org,2002:null" and str(v.value).strip()):
                raise err(f"{name}: expected a non-empty string", v)
            fields[name] = str(v.value).strip()
        for name in ("path", "reason"):
            if name not in fields:
                raise err(f"missing {name}: every item names a path (PATH:LINE or a glob) and a reason", item)
        where = fields["path"]
        m = _AT_LINE.match(where)
        line = None
        if m:
            where, line = m.group("path"), int(m.group("line"))
            if line == 0:
                raise err(f"{fields['path']!r}: lines are numbered from 1", item)
        problem = scanmod.exclude_problem(where)
        if problem:
            raise err(f"{fields['path']!r} {problem}", item)
        out.append(IgnoreEntry(scanmod.normalise_excludes((where,))[0] if scanmod.normalise_excludes((where,))
                               else where, line, fields["reason"], item.start_mark.line + 1))
    return tuple(out)


#: Flag codes an ``ignore-mentions:`` entry silences (items listed for review, never blocking ones).
IGNORABLE = frozenset({"conda-pin", "review-mention"})


def drop_ignored(flags, entries: tuple[IgnoreEntry, ...]) -> list:
    """``flags`` without the non-blocking :data:`IGNORABLE` items whose line an entry lists."""
    return [f for f in flags if f.blocking or f.code not in IGNORABLE or not f.path or not f.line
            or not any(e.matches(f.path, f.line) for e in entries)]
