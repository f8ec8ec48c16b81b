"""Listing a repository's GitHub releases, with ETag conditional requests across runs.

Facts (GitHub REST docs, "List releases" and "Conditional requests"): the
releases list is paginated with ``Link`` headers, newest first by creation
date (not by version: devcontainers/features#1646); each release has ``tag_name``,
``draft``, ``prerelease``, ``html_url`` and ``assets`` (``name``, ``size``,
``digest`` = ``"sha256:HEX"`` when GitHub computed one,
``browser_download_url``, and ``url``, the API endpoint of the asset).  A request with ``If-None-Match: ETAG`` answers
304 when nothing changed, and a 304 does not count against the rate limit.

Which release is the target is decided by :mod:`bot.upstream.releases`
(stable = exactly ``vX.Y.Z``, not draft, not prerelease, compared with
``packaging.version``); this module only lists.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from bot.errors import PlatformError
from bot.github import pages
from bot.github.client import RetryPolicy, call

MAX_PAGES = 100   # 10,000 releases at per_page=100; past it the listing is cut short, and says so


@dataclass(frozen=True)
class Asset:
    """One release asset: ``name``, ``size`` (bytes), ``digest`` (``"sha256:HEX"`` or None), ``download_url``
    (``browser_download_url``) and ``api_url`` (the API's ``url``: ``.../releases/assets/ID``, "" when absent)."""

    name: str
    size: int
    digest: Optional[str]
    download_url: str
    api_url: str = ""


@dataclass(frozen=True)
class Release:
    """One GitHub release: its ``tag``, flags, creation time (ISO 8601), page URL, notes and assets."""

    tag: str
    draft: bool
    prerelease: bool
    created_at: str
    html_url: str
    body: str
    assets: tuple[Asset, ...] = ()

    def asset(self, name: str) -> Optional[Asset]:
        """The asset with exactly this file name, or None."""
        return next((a for a in self.assets if a.name == name), None)

    @classmethod
    def from_json(cls, d: dict) -> "Release":
        """A release from one item of the "List releases" answer.

        Fields of the wrong JSON type count as missing (a ``tag_name`` that is
        not a string is no version tag; a ``size`` that is not a whole number
        is unknown, so only the digest is checked), never as an error that
        stops the listing of every other release.
        """
        assets = d.get("assets")
        return cls(tag=_text(d.get("tag_name")), draft=bool(d.get("draft")),   # odd values: not stable
                   prerelease=bool(d.get("prerelease")),
                   created_at=_text(d.get("created_at")), html_url=_text(d.get("html_url")),
                   body=_text(d.get("body")),
                   assets=tuple(Asset(_text(a.get("name")), _size(a.get("size")), _text(a.get("digest")) or None,
                                      _text(a.get("browser_download_url")), _text(a.get("url")))
                                for a in (assets if isinstance(assets, list) else ()) if isinstance(a, dict)))


def _text(v) -> str:
    """A JSON string field, or "" when it is missing, null or not a string."""
    return v if isinstance(v, str) else ""


def _size(v) -> int:
    """A JSON size in bytes, or 0 (unknown) when it is missing or not a non-negative whole number."""
    return v if isinstance(v, int) and not isinstance(v, bool) and v >= 0 else 0


def cache_dir(env=os.environ) -> Optional[Path]:
    """Where ETags and cached listings live: ``EXECUTORCH_PACK_BOT_CACHE`` (None: no cache).

    In Actions, point it at a folder kept by ``actions/cache`` so a scheduled
    no-op run is answered by one 304.
    """
    d = env.get("EXECUTORCH_PACK_BOT_CACHE")
    return Path(d) if d else None


def _cache_file(cache: Path, base_url: str, full_name: str) -> Path:
    key = hashlib.sha256(f"{base_url} {full_name}".encode()).hexdigest()[:16]
    return cache / f"releases-{key}.json"


def list_releases(gh, full_name: str, *, cache: Optional[Path] = None,
                  policy: Optional[RetryPolicy] = None) -> list[Release]:
    """Every release of ``full_name`` (``"OWNER/NAME"``), in the API's order, as a
    :class:`bot.github.pages.Listing` (every page, through the one reader; ``complete`` False and a
    warning when :data:`MAX_PAGES` cut it: the oldest releases, as GitHub lists newest first).

    Uses PyGithub's requester (auth, base URL, timeouts) page by page with
    ``per_page=100``: one request for a repository with up to 100 releases.
    With ``cache``, the first page is asked with ``If-None-Match``; a 304
    reuses the cached listing (only cached when it fitted in one page).

    Raises :class:`~bot.errors.PlatformError` when the repository cannot be
    listed (unknown repository, a fault that outlasts the retries).
    """
    from github import GithubException

    req = gh.requester
    path = f"/repos/{full_name}/releases"
    cfile = _cache_file(cache, req.base_url, full_name) if cache else None
    cached = _read_cache(cfile) if cfile else None
    what = f"list the releases of {full_name}"

    def get(url: str, params: Optional[dict], etag: Optional[str]):
        headers = {"If-None-Match": etag} if etag else None
        status, hdrs, body = req.requestJson("GET", url, parameters=params, headers=headers)
        if status == 304:
            return status, hdrs, None
        if status >= 400:
            try:
                data = json.loads(body) if body else {}
            except ValueError:
                data = {"message": body}
            raise GithubException(status, data, hdrs)
        try:
            data = json.loads(body)
        except ValueError:
            raise PlatformError(f"cannot {what}: GitHub answered HTTP {status} with a body that is not JSON") from None
        if not isinstance(data, list) or not all(isinstance(x, dict) for x in data):
            raise PlatformError(f"cannot {what}: GitHub answered HTTP {status} with JSON that is not a list of "
                                "releases")
        return status, hdrs, data

    etag = cached["etag"] if cached else None
    status, hdrs, data = call(lambda: get(path, {"per_page": 100}, etag), what, policy)
    if status == 304 and cached is not None:
        return pages.Listing((Release.from_json(d) for d in cached["releases"]), pages=1, what=what)
    if status == 304:   # "not modified" without a cached copy to reuse: ask again, unconditionally
        status, hdrs, data = call(lambda: get(path, {"per_page": 100}, None), what, policy)
        if status == 304:
            raise PlatformError(f"cannot {what}: GitHub answered 304 Not Modified to an unconditional request")
    first_etag = {k.lower(): v for k, v in hdrs.items()}.get("etag")

    def page(url: str):
        status, hdrs, data = call(lambda: get(url, None, None), what, policy)
        if status == 304:
            raise PlatformError(f"cannot {what}: GitHub answered 304 Not Modified to an unconditional request")
        return hdrs, data

    items = pages.follow((hdrs, data), page, what=what, max_pages=MAX_PAGES)   # the one reader: every page
    single_page = items.pages == 1
    if cfile and single_page and first_etag:
        try:
            cfile.parent.mkdir(parents=True, exist_ok=True)
            cfile.write_text(json.dumps({"etag": first_etag, "releases": items}), encoding="utf-8")
        except OSError:
            pass  # a cache that cannot be written only costs requests
    return pages.Listing((Release.from_json(d) for d in items), complete=items.complete, pages=items.pages,
                         what=what)


def _read_cache(cfile: Path) -> Optional[dict]:
    """The cached listing ``{"etag": str, "releases": [dict]}``, or None when absent or not of that shape."""
    try:
        cached = json.loads(cfile.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if (isinstance(cached, dict) and isinstance(cached.get("etag"), str) and cached["etag"]
            and isinstance(cached.get("releases"), list) and all(isinstance(x, dict) for x in cached["releases"])):
        return cached
    return None


def _next_link(headers: dict) -> Optional[str]:
    """The ``rel="next"`` URL of a ``Link`` header (RFC 8288), or None: :func:`bot.github.pages.next_link`."""
    return pages.next_link(headers)
