"""Where upstream ExecuTorch files come from: the :class:`UpstreamSource` interface.

Implementations: a local git repository (clone or bare; files read at a tag
with ``git cat-file``, no checkout), a plain directory holding one folder per tag
(tests, demos), and, in :mod:`bot.github`, the GitHub contents API
(``github:OWNER/NAME``).  :func:`bot.sources.open_source` turns a
``--upstream`` argument into one of them; this module imports no implementation
outside it (:class:`~bot.upstream.git.GitSource` lives in :mod:`bot.upstream.git`).
"""

from __future__ import annotations

import abc
import os
from pathlib import Path

from bot.errors import UpstreamError


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

    def changed_paths(self, old_tag: str, new_tag: str) -> list[str] | None:
        """Every path (POSIX, repository-relative) added, modified or deleted between two tags, sorted.

        None when the source cannot tell (the default).  Raises
        :class:`~bot.errors.UpstreamError` for an unknown tag.
        """
        return None

    #: How :meth:`renames` pairs files, as the PR body says it (None: no rename detection).
    rename_method: str | None = None

    def renames(self, old_tag: str, new_tag: str) -> list[tuple[str, str]] | None:
        """``(old path, new path)`` of every file renamed between the tags, each path also in
        :meth:`changed_paths` (removed and added there); None when the source cannot tell (the default).

        Raises :class:`~bot.errors.UpstreamError` for an unknown tag.
        """
        return None

    def ancestry(self, old_tag: str, new_tag: str) -> tuple[bool | None, int | None]:
        """``(old is an ancestor of new, commits in new not in old)``; ``(None, None)`` when unknown (the default).

        A patch release cut from a release branch (``release/X.Y``) is not a
        descendant of the previous minor's tag (the tags of pytorch/executorch).
        """
        return None, None

    def tag_commit(self, tag: str) -> str | None:
        """The full SHA of the commit ``tag`` names (an annotated tag peeled, a tag of a tag too); None when
        the source cannot tell (the default: a plain directory has no commits).

        Needed for a template that pins ExecuTorch by commit (``GIT_TAG <sha>  # v1.4.0``).  Raises
        :class:`~bot.errors.UpstreamError` for an unknown tag, a tag that names no commit, or a read
        that fails for good.
        """
        return None

    @abc.abstractmethod
    def describe(self) -> str:
        """A short human name of the source for messages."""


class DirectorySource(UpstreamSource):
    """A plain folder holding one sub-folder per tag (``ROOT/v1.5.1/torch_pin.py``).

    Used by tests and demos.  Tags are the names of the sub-folders (hidden
    ones skipped).  ``read`` never leaves the tag's folder: a path with a
    ``..`` part is refused (UpstreamError) and a symlink pointing outside
    the folder reads as absent.

    Raises:
        UpstreamError: ``path`` is not a directory (at construction), or
            ``read`` is asked for a tag that has no folder.
    """

    def __init__(self, path: str | os.PathLike):
        self.path = Path(path)
        if not self.path.is_dir():
            raise UpstreamError(f"upstream source {self.path} is not a directory")

    def tags(self) -> list[str]:
        return sorted(p.name for p in self.path.iterdir() if p.is_dir() and not p.name.startswith("."))

    def read(self, tag: str, path: str) -> bytes | None:
        tag_dir = self.path / tag
        if "/" in tag or tag.startswith(".") or not tag_dir.is_dir():
            raise UpstreamError(f"tag {tag!r} does not exist in {self.describe()}")
        root = tag_dir.resolve()
        target = (root / _clean_path(path)).resolve()
        if root != target and root not in target.parents:
            return None
        try:
            return target.read_bytes() if target.is_file() else None
        except OSError as exc:
            raise UpstreamError(f"cannot read {path} @ {tag} in {self.describe()}: {exc.strerror}") from exc

    def describe(self) -> str:
        return f"directory {self.path}"

    def _files(self, tag: str) -> dict[str, Path]:
        root = self.path / tag
        if "/" in tag or tag.startswith(".") or not root.is_dir():
            raise UpstreamError(f"tag {tag!r} does not exist in {self.describe()}")
        out = {}
        for dirpath, dirnames, filenames in os.walk(root):     # os.walk does not follow folder symlinks
            for name in filenames:
                p = Path(dirpath) / name
                if p.is_file() and not p.is_symlink():
                    out[p.relative_to(root).as_posix()] = p
        return out

    rename_method = "identical content only"

    def renames(self, old_tag: str, new_tag: str) -> list[tuple[str, str]]:
        """A file only in the old folder and one only in the new folder with the same bytes, when that pairing is
        one to one (:func:`exact_renames`)."""
        old, new = self._files(old_tag), self._files(new_tag)
        try:
            a = {rel: old[rel].read_bytes() for rel in set(old) - set(new)}
            b = {rel: new[rel].read_bytes() for rel in set(new) - set(old)}
        except OSError as exc:
            raise UpstreamError(f"cannot read a file in {self.describe()}: {exc.strerror}") from exc
        return exact_renames(a, b)

    def changed_paths(self, old_tag: str, new_tag: str) -> list[str]:
        """Paths whose bytes differ between the two tag folders (added, removed or edited); symlinks are skipped."""
        old, new = self._files(old_tag), self._files(new_tag)
        out = []
        for rel in sorted(set(old) | set(new)):
            a, b = old.get(rel), new.get(rel)
            try:
                if a is None or b is None or a.read_bytes() != b.read_bytes():
                    out.append(rel)
            except OSError as exc:
                raise UpstreamError(f"cannot read {rel} in {self.describe()}: {exc.strerror}") from exc
        return out


def exact_renames(removed: dict, added: dict) -> list[tuple[str, str]]:
    """``(old, new)`` pairs of a removed and an added path with equal content keys (bytes or blob SHAs), kept only
    when the content occurs once on each side (two copies of one file are not guessed at); sorted."""
    by_key: dict = {}
    for rel, key in removed.items():
        by_key.setdefault(key, ([], []))[0].append(rel)
    for rel, key in added.items():
        if key in by_key:
            by_key[key][1].append(rel)
    return sorted((olds[0], news[0]) for olds, news in by_key.values() if len(olds) == 1 and len(news) == 1)


def _clean_path(path: str) -> str:
    """A repository-relative POSIX path without a leading ``./`` or ``/``; refuses ``..`` and newlines."""
    p = path.replace("\\", "/").lstrip("/")
    while p.startswith("./"):
        p = p[2:]
    if "\n" in p or any(part == ".." for part in p.split("/")):
        raise UpstreamError(f"invalid upstream path {path!r}")
    return p


def is_git_repository(path: str | os.PathLike) -> bool:
    """True when ``path`` itself is a git work tree root (has ``.git``) or a bare repository.

    A folder merely *inside* some other repository does not count.
    """
    p = Path(path)
    if (p / ".git").exists():
        return True
    return (p / "HEAD").is_file() and (p / "objects").is_dir() and (p / "refs").is_dir()
