"""Regular expressions compiled on first use: :func:`lazy`.

Compiling a pattern runs Python code (``re._parser``, ``re._compiler``); a
module holding many of them pays for all at import, even in a command that
never uses one.  ``NAME = lazy(r"...", re.I)`` costs nothing at import: the
first use of any attribute compiles the pattern once (through ``re.compile``,
so its cache is shared), and from then on the instance holds the compiled
pattern's bound methods, so later calls cost what a compiled pattern's do.
"""

from __future__ import annotations

import re

_ATTRS = ("search", "match", "fullmatch", "finditer", "findall", "sub", "subn", "split", "scanner",
          "pattern", "flags", "groups", "groupindex")


class LazyPattern:
    """A :class:`re.Pattern` stand-in that compiles ``pattern`` with ``flags`` on its first use.

    Supports the attributes of a compiled pattern listed in ``_ATTRS``; raises
    :class:`re.error` at first use (not at import) for an invalid pattern.
    """

    __slots__ = ("_args",) + _ATTRS

    def __init__(self, pattern, flags: int = 0):
        self._args = (pattern, flags)

    def __getattr__(self, name: str):
        # Called only while the slots are empty (the first use) or for an attribute not supported.
        if name not in _ATTRS:
            raise AttributeError(name)
        rx = re.compile(*self._args)
        for attr in _ATTRS:
            setattr(self, attr, getattr(rx, attr))
        return getattr(rx, name)

    def __repr__(self) -> str:
        return f"lazy({self._args[0]!r}, {self._args[1]!r})"


def lazy(pattern, flags: int = 0) -> LazyPattern:
    """A pattern compiled on first use (module docstring): ``lazy(r"\\d+", re.I).search("x 12")``."""
    return LazyPattern(pattern, flags)
