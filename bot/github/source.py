"""``github:OWNER/NAME``: upstream ExecuTorch read through the GitHub API.

Tags come from the repository's releases (:mod:`bot.github.releases`); a
release flagged "prerelease" (or a draft) is reported by
:meth:`GitHubSource.prereleases`, so it never counts as stable
(:mod:`bot.upstream.releases`).  Files are read at a tag through the
contents API (``GET /repos/OWNER/NAME/contents/PATH?ref=TAG``, base64,
GitHub REST docs "Get repository content").  Answers are cached in memory
for the life of the object.
"""

from __future__ import annotations

import re
from typing import Optional

from bot.errors import UpstreamError, UsageError
from bot.github.releases import Release, cache_dir, list_releases
from bot.upstream.source import UpstreamSource

_SPEC = re.compile(r"^github:([A-Za-z0-9_.-]+)/([A-Za-z0-9_.-]+)$")


class GitHubSource(UpstreamSource):
    """Upstream ExecuTorch on GitHub (or GitHub Enterprise / the fake server via ``GITHUB_API_URL``).

    Args:
        full_name: ``"OWNER/NAME"``.
        gh: a ``github.Github`` (see :func:`bot.github.client.make_github`).
        token: the token ``gh`` was made with (None: anonymous), for downloading
            a private repository's release assets through the API.
    """

    def __init__(self, full_name: str, gh, token: Optional[str] = None):
        self.full_name = full_name
        self.gh = gh
        self.token = token
        self._releases: Optional[list[Release]] = None
        self._files: dict[tuple[str, str], Optional[bytes]] = {}

    @classmethod
    def from_spec(cls, spec: str, token: Optional[str] = None) -> "GitHubSource":
        """``"github:OWNER/NAME"`` -> a source; the token from ``token`` or ``GITHUB_TOKEN`` (None: anonymous).

        Raises :class:`UsageError` for a malformed spec.
        """
        from bot.github.client import make_github, token_from

        m = _SPEC.match(spec.strip())
        if not m:
            raise UsageError(f"--upstream {spec}: expected github:OWNER/NAME")
        tok = token_from(token)
        return cls(f"{m.group(1)}/{m.group(2)}", make_github(tok), token=tok)

    # -- releases
    def releases(self) -> list[Release]:
        """Every release (one listing request, ETag-cached across runs when a cache is set)."""
        if self._releases is None:
            self._releases = list_releases(self.gh, self.full_name, cache=cache_dir())
        return self._releases

    def release(self, tag: str) -> Optional[Release]:
        """The release of ``tag``, or None."""
        return next((r for r in self.releases() if r.tag == tag), None)

    def tags(self) -> list[str]:
        return [r.tag for r in self.releases() if r.tag]

    def prereleases(self) -> set[str]:
        return {r.tag for r in self.releases() if r.prerelease or r.draft}

    # -- files
    def read(self, tag: str, path: str) -> bytes | None:
        """The bytes of ``path`` at ``tag`` through the contents API; None when GitHub answers 404 for the file.

        Raises :class:`UpstreamError` when ``tag`` is not a release of the
        repository, the path is a directory, or the request fails for good.
        """
        key = (tag, path)
        if key in self._files:
            return self._files[key]
        if tag not in set(self.tags()):
            raise UpstreamError(f"tag {tag!r} is not a release of {self.describe()}")
        from github import GithubException

        from bot.errors import PlatformError
        from bot.github.client import call

        repo = self.gh.get_repo(self.full_name)

        def get():
            try:
                return repo.get_contents(path.lstrip("/"), ref=tag)
            except GithubException as exc:
                if exc.status == 404:
                    return None
                raise

        try:
            got = call(get, f"read {path} at {tag} in {self.full_name}")
        except PlatformError as exc:
            raise UpstreamError(str(exc)) from None
        if isinstance(got, list):
            raise UpstreamError(f"{path} at {tag} in {self.describe()} is a directory, not a file")
        data = None if got is None else self._decoded(got, tag, path)
        self._files[key] = data
        return data

    def _decoded(self, got, tag: str, path: str) -> bytes:
        """The bytes of a contents-API answer; :class:`UpstreamError` for anything but a base64 file.

        GitHub REST docs ("Get repository content"): a symlink or submodule has
        another ``type``, and a file over 1 MB comes with ``encoding`` ``none``
        and no content.
        """
        kind, encoding = getattr(got, "type", None), getattr(got, "encoding", None)
        if kind != "file" or encoding != "base64":
            raise UpstreamError(f"{path} at {tag} in {self.describe()}: the contents API gave no file content "
                                f"(type {kind!r}, encoding {encoding!r}; files over 1 MB, symlinks and submodules "
                                "are not served)")
        try:
            return got.decoded_content
        except (ValueError, TypeError, AssertionError) as exc:
            raise UpstreamError(f"{path} at {tag} in {self.describe()}: undecodable content ({exc})") from None

    # -- history between tags
    def _tree(self, tag: str) -> Optional[dict[str, str]]:
        """``{path: blob sha}`` of every file at ``tag`` (``GET /repos/O/N/git/trees/TAG?recursive=1``,
        GitHub REST docs "Get a tree"); None when GitHub answers a truncated listing."""
        if tag not in set(self.tags()):
            raise UpstreamError(f"tag {tag!r} is not a release of {self.describe()}")
        cache = self.__dict__.setdefault("_trees", {})
        if tag in cache:
            return cache[tag]
        from bot.errors import PlatformError
        from bot.github.client import call

        repo = self.gh.get_repo(self.full_name)
        try:
            tree = call(lambda: repo.get_git_tree(tag, recursive=True), f"list the files at {tag} in {self.full_name}")
        except PlatformError as exc:
            raise UpstreamError(str(exc)) from None
        if tree.raw_data.get("truncated"):
            cache[tag] = None
            return None
        cache[tag] = {e.path: e.sha for e in tree.tree if e.type == "blob"}
        return cache[tag]

    def changed_paths(self, old_tag: str, new_tag: str) -> list[str] | None:
        """Paths whose blob differs between the two tags' trees (two requests; None for a truncated tree)."""
        a, b = self._tree(old_tag), self._tree(new_tag)
        if a is None or b is None:
            return None
        return sorted(p for p in set(a) | set(b) if a.get(p) != b.get(p))

    rename_method = "identical content only"

    def renames(self, old_tag: str, new_tag: str) -> list[tuple[str, str]] | None:
        """A path only in the old tree and one only in the new tree with the same blob SHA, one to one
        (:func:`bot.upstream.source.exact_renames`; the same two tree requests as :meth:`changed_paths`, and
        None for a truncated tree).  Renamed files whose content changed are not paired by this source: they
        stay one removed and one added path (the PR body says which detection was used)."""
        from bot.upstream.source import exact_renames

        a, b = self._tree(old_tag), self._tree(new_tag)
        if a is None or b is None:
            return None
        return exact_renames({p: s for p, s in a.items() if p not in b}, {p: s for p, s in b.items() if p not in a})

    def ancestry(self, old_tag: str, new_tag: str) -> tuple[Optional[bool], Optional[int]]:
        """``GET /repos/O/N/compare/OLD...NEW`` (GitHub REST docs, "Compare two commits"): ``status`` ahead or
        identical means OLD is an ancestor; ``ahead_by`` counts the commits."""
        from bot.errors import PlatformError
        from bot.github.client import call

        repo = self.gh.get_repo(self.full_name)
        try:
            cmp = call(lambda: repo.compare(old_tag, new_tag), f"compare {old_tag}...{new_tag} in {self.full_name}")
        except PlatformError as exc:
            raise UpstreamError(str(exc)) from None
        status = cmp.status
        return (status in ("ahead", "identical") if status in ("ahead", "identical", "diverged", "behind") else None,
                cmp.ahead_by)

    def tag_commit(self, tag: str) -> str:
        """The commit ``tag`` names, through the Git Data API: ``GET /repos/O/N/git/ref/tags/TAG`` (GitHub REST
        docs, "Get a reference"), then, while the object is an annotated tag, ``GET /repos/O/N/git/tags/SHA``
        ("Get a tag": its ``object``) until a commit (at most 8 tags deep).

        Raises :class:`UpstreamError` for an unknown tag (404), a tag of a tree or a blob, or a request
        that fails for good.
        """
        from bot.errors import PlatformError
        from bot.github.client import call

        repo = self.gh.get_repo(self.full_name)

        def ref_object():
            ref = repo.get_git_ref(f"tags/{tag}")
            return ref.object.type, ref.object.sha

        try:
            kind, sha = call(ref_object, f"read the tag {tag} of {self.full_name}")
            for _ in range(8):
                if kind == "commit":
                    return sha
                if kind != "tag":
                    raise UpstreamError(f"tag {tag!r} in {self.describe()} names a {kind}, not a commit")
                obj = call(lambda s=sha: repo.get_git_tag(s).object, f"read the tag object {sha[:12]} of {tag}")
                kind, sha = obj.type, obj.sha
        except PlatformError as exc:
            raise UpstreamError(str(exc)) from None
        raise UpstreamError(f"tag {tag!r} in {self.describe()} is a chain of more than 8 tag objects")

    def describe(self) -> str:
        return f"github:{self.full_name}"
