"""Where upstream ExecuTorch files come from: the :class:`UpstreamSource` interface.

Implementations: a local git repository (clone or bare; files read at a tag
with ``git show``, no checkout), a plain directory holding one folder per tag
(tests, demos), and, in :mod:`bot.github`, the GitHub contents API
(``github:OWNER/NAME``).  :func:`open_source` turns a ``--upstream`` argument
into one of them.
"""

from __future__ import annotations

import abc


class UpstreamSource(abc.ABC):
    """Read-only access to ExecuTorch's tags and the files at each tag.

    ``describe()`` names the source in messages (``"git /path/to/executorch"``).
    """

    @abc.abstractmethod
    def tags(self) -> list[str]:
        """Every tag name the source has (unsorted, unfiltered)."""

    @abc.abstractmethod
    def read(self, tag: str, path: str) -> bytes | None:
        """The bytes of ``path`` (POSIX, relative to the repository root) at ``tag``; None if absent.

        Raises :class:`~bot.errors.UpstreamError` when the tag itself does not exist
        or the source cannot be read.
        """

    def prereleases(self) -> set[str]:
        """Tags the source knows to be prereleases (GitHub release flag); empty by default."""
        return set()

    @abc.abstractmethod
    def describe(self) -> str:
        """A short human name of the source for messages."""
