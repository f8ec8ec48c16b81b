"""The ``--upstream`` argument as an :class:`~bot.upstream.source.UpstreamSource`: the one factory.

It sits beside the command layer (:mod:`bot.commands` uses it) because it knows every implementation:
:class:`~bot.upstream.git.GitSource` and :class:`~bot.upstream.source.DirectorySource`
(:mod:`bot.upstream`) and :class:`~bot.github.source.GitHubSource` (:mod:`bot.github`),
so neither of those packages imports the other's sources.
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

from bot.errors import UpstreamError, UsageError
from bot.upstream.source import DirectorySource, UpstreamSource, is_git_repository


def github_spec_hint(spec: str) -> Optional[str]:
    """``github:OWNER/NAME`` for a GitHub web or clone URL (``https://github.com/OWNER/NAME[.git][/]``,
    ``git@github.com:OWNER/NAME.git``, ``github.com/OWNER/NAME``), else None."""
    import re

    m = re.fullmatch(r"(?:(?:https?|ssh|git)://(?:[^@/]+@)?|git@)?(?:www\.)?github\.com[:/]"
                     r"([A-Za-z0-9_.-]+)/([A-Za-z0-9_.-]+?)(?:\.git)?/?", spec.strip())
    return f"github:{m.group(1)}/{m.group(2)}" if m else None


def open_source(spec: str, token: Optional[str] = None) -> UpstreamSource:
    """Turn a ``--upstream`` argument into an :class:`UpstreamSource`.

    ``spec`` is one of:
      * ``github:OWNER/NAME``: ``bot.github.source.GitHubSource.from_spec(spec)``
        (imported here only, so that start-up stays fast), given ``token``
        when one is passed (``--token``; otherwise $GITHUB_TOKEN or anonymous);
      * a path to a git repository (a clone or a bare repository): :class:`~bot.upstream.git.GitSource`;
      * a path to a directory with one sub-folder per tag: :class:`DirectorySource`.

    Raises:
        UsageError: a ``github:`` spec while the GitHub source is not installed,
            or an empty spec.
        UpstreamError: the path does not exist or is not a directory.
    """
    if not spec or not spec.strip():
        raise UsageError("--upstream: empty source")
    if spec.startswith("github:"):
        try:
            from bot.github.source import GitHubSource
        except ImportError as exc:
            raise UsageError(f"--upstream {spec}: GitHub sources are not available in this installation") from exc
        return GitHubSource.from_spec(spec) if token is None else GitHubSource.from_spec(spec, token=token)
    path = Path(spec).expanduser()
    if not path.exists():
        hint = github_spec_hint(spec)
        if hint:
            raise UsageError(f"--upstream {spec}: a GitHub repository is named as {hint} (a URL is read as a "
                             f"local path, and there is none); use --upstream {hint}")
        raise UpstreamError(f"upstream source {spec} does not exist")
    if not path.is_dir():
        raise UpstreamError(f"upstream source {spec} is not a git repository or a directory of tag folders")
    if is_git_repository(path):
        from bot.upstream.git import GitSource
        return GitSource(path)
    return DirectorySource(path)


class offline_hint:
    """Context manager around the work that reads ``--upstream``: when GitHub cannot be reached at all (a
    :class:`bot.github.client.Unreachable`: no name resolution, a refusing proxy) and the source is
    ``github:OWNER/NAME``, the error's hint also names the offline way, a local clone given as
    ``--upstream PATH`` (any git clone with the release tags works: :class:`~bot.upstream.git.GitSource`).
    The error itself (exit 3) passes on unchanged otherwise."""

    def __init__(self, spec: str):
        self.spec = spec or ""

    def __enter__(self) -> "offline_hint":
        return self

    def __exit__(self, kind, exc, tb) -> bool:
        if exc is None or not self.spec.startswith("github:"):
            return False
        from bot.github.client import Unreachable   # loaded already: only a GitHub source raises it
        if isinstance(exc, Unreachable):
            name = self.spec.split(":", 1)[1]
            exc.hint = (f"offline, pass a local clone instead: --upstream PATH (made where there is network with "
                        f"`git clone --bare https://github.com/{name}.git`, which keeps the release tags); "
                        + exc.hint)
        return False
