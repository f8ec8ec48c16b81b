"""The manager interface: ``extract`` the versions a file holds, ``update`` them for a bump.

A manager handles one kind of template file.  It never reads or writes the
disk itself: it is given a :class:`~bot.textfile.TextDocument` and returns
values (findings, edits, flags).  Errors raise a :class:`TemplateError`
subclass carrying the file and line.

Edits are span replacements inside the exact text that was matched (never a
global find-and-replace, never a YAML re-dump), so comments, layout, line
endings and every other byte stay as they were.
"""

from __future__ import annotations

import abc
import fnmatch
import re

from bot.errors import TemplateError
from bot.model import Bump, Edit, Finding, ManagerResult
from bot.textfile import TextDocument


class ManagerError(TemplateError):
    """Base of the errors a manager raises; carries the file (and line) concerned."""


class Manager(abc.ABC):
    """One template file kind.

    Class attributes:
        name: short stable name (``"cmsis"``, ``"lockfile"``, ``"requirements"``, ``"prose"``).
        patterns: ``fnmatch`` patterns on the file's base name (``"*.csolution.yml"``).
    """

    name: str = ""
    patterns: tuple[str, ...] = ()
    _patterns_match = re.compile("(?!)").match

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        # one compiled alternation per class, made once (a template has thousands of files)
        cls._patterns_match = re.compile("|".join(fnmatch.translate(p) for p in cls.patterns) or "(?!)").match

    def matches(self, relpath: str) -> bool:
        """True when this manager handles the file at the repository-relative POSIX path."""
        return self._patterns_match(relpath[relpath.rfind("/") + 1:]) is not None

    @abc.abstractmethod
    def extract(self, doc: TextDocument) -> list[Finding]:
        """Every ExecuTorch-related version the file holds, in file order."""

    @abc.abstractmethod
    def update(self, doc: TextDocument, bump: Bump) -> ManagerResult:
        """The edits (and flags) that move this file from ``bump.old_*`` to ``bump.new_*``.

        Must be deterministic: the same document and bump give the same edits
        in the same order.  Raises :class:`ManagerError` when the file cannot
        be rewritten safely (for example a hash-pinned requirement).
        """

    def check(self, before: TextDocument, after: TextDocument, edits: list[Edit]) -> None:
        """Re-read the edited file with its real parser and assert the only change is the planned one.

        ``edits`` are all the edits made to this file (by any manager).
        Raises :class:`ManagerError` when the new content does not parse or
        differs semantically from ``before`` in any other way.  The default
        does nothing (prose has no parser beyond the text itself).
        """
