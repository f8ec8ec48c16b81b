"""Listing a repository's GitHub releases, with ETag conditional requests across runs.

Facts (GitHub REST docs, "List releases" and "Conditional requests"): the
releases list is paginated with ``Link`` headers, newest first by creation
date (not by version: CASES.md C09); each release has ``tag_name``,
``draft``, ``prerelease``, ``html_url`` and ``assets`` (``name``, ``size``,
``digest`` = ``"sha256:HEX"`` when GitHub computed one,
``browser_download_url``).  A request with ``If-None-Match: ETAG`` answers
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

from bot.github.client import RetryPolicy, call


@dataclass(frozen=True)
class Asset:
    """One release asset: ``name``, ``size`` (bytes), ``digest`` (``"sha256:HEX"`` or None), ``download_url``."""

    name: str
    size: int
    digest: Optional[str]
    download_url: str


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
        return cls(tag=d.get("tag_name") or "", draft=bool(d.get("draft")), prerelease=bool(d.get("prerelease")),
                   created_at=d.get("created_at") or "", html_url=d.get("html_url") or "",
                   body=d.get("body") or "",
                   assets=tuple(Asset(a.get("name", ""), int(a.get("size") or 0), a.get("digest"),
                                      a.get("browser_download_url", "")) for a in d.get("assets") or ()))


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
    """Every release of ``full_name`` (``"OWNER/NAME"``), in the API's order.

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
    cached = None
    if cfile and cfile.is_file():
        try:
            cached = json.loads(cfile.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            cached = None

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
        return status, hdrs, json.loads(body)

    etag = cached.get("etag") if cached else None
    status, hdrs, data = call(lambda: get(path, {"per_page": 100}, etag), f"list the releases of {full_name}", policy)
    if status == 304 and cached is not None:
        return [Release.from_json(d) for d in cached["releases"]]
    items = list(data)
    first_etag = {k.lower(): v for k, v in hdrs.items()}.get("etag")
    nxt = _next_link(hdrs)
    single_page = nxt is None
    while nxt:
        url = nxt
        status, hdrs, data = call(lambda: get(url, None, None), f"list the releases of {full_name}", policy)
        items.extend(data)
        nxt = _next_link(hdrs)
    if cfile and single_page and first_etag:
        try:
            cfile.parent.mkdir(parents=True, exist_ok=True)
            cfile.write_text(json.dumps({"etag": first_etag, "releases": items}), encoding="utf-8")
        except OSError:
            pass  # a cache that cannot be written only costs requests
    return [Release.from_json(d) for d in items]


def _next_link(headers: dict) -> Optional[str]:
    """The ``rel="next"`` URL of a ``Link`` header (RFC 8288), or None."""
    link = {k.lower(): v for k, v in headers.items()}.get("link")
    if not link:
        return None
    for part in link.split(","):
        seg = part.split(";")
        if len(seg) >= 2 and any(s.strip() == 'rel="next"' for s in seg[1:]):
            return seg[0].strip().strip("<>")
    return None
