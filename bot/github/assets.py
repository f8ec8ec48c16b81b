"""The release asset ``PyTorch.ExecuTorch.V.pack``: find it, stream it to disk, check its sha256.

Facts: the pack file name is ``PyTorch.ExecuTorch.<pack version>.pack``
(the Open-CMSIS-Pack spec, pack version = SemVer form of the release);
GitHub gives each release asset a ``digest`` ``"sha256:HEX"`` (GitHub REST
docs, "Release assets") for assets uploaded since mid-2025; older assets
have none, and then only the size is checked.

The download streams in 1 MiB chunks (memory does not grow with the pack),
hashing while writing to ``NAME.part``; only a complete file whose digest
matches is renamed to its final name.  Failed requests are retried by the
session's adapter (``GithubRetry``: bot.github.client.make_retry); a transfer
that breaks while its body is read (connection reset, fewer bytes than
announced) is tried again here, within the same total wait, because no
library does that (tests/github/test_retries_from_the_library.py
``test_the_library_retry_does_not_retry_a_body_that_breaks_while_read``;
tests/github/test_github_units.py ``test_truncated_download_is_retried``); a
digest mismatch deletes the file and fails.

With a token, the asset comes through the API endpoint (GitHub REST docs,
"Get a release asset": ``GET /repos/OWNER/NAME/releases/assets/ID`` with
``Accept: application/octet-stream``), which also serves private
repositories; GitHub answers with a redirect to a signed URL on another
host, which is followed by hand without the ``Authorization`` header.
Without a token, ``browser_download_url`` is fetched as is.
"""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path
from typing import Callable, Optional

from bot.errors import CheckFailed, PackError
from bot.github.client import RetryPolicy, http_get, session
from bot.github.releases import Asset, Release
from bot.versions import to_semver

CHUNK = 1 << 20
#: Most bytes of a pack asset downloaded, whatever the release declares (a real pack is about 2 MB).
MAX_ASSET_BYTES = 256 << 20
#: wall-clock budget of one download attempt: 256 MiB at about 150 KiB/s; a server trickling bytes
#: just inside the read timeout is cut off here (the attempt counts as a broken transfer)
MAX_ASSET_SECONDS = 1800
_HEX64 = re.compile(r"[0-9A-Fa-f]{64}")
Progress = Callable[[int, Optional[int]], None]


def pack_asset_name(version: str) -> str:
    """``"1.5.1"`` -> ``"PyTorch.ExecuTorch.1.5.1.pack"``; ``"1.0.0rc1"`` -> ``"PyTorch.ExecuTorch.1.0.0-rc1.pack"``."""
    return f"PyTorch.ExecuTorch.{to_semver(version)}.pack"


def find_pack_asset(release: Optional[Release], version: str) -> Optional[Asset]:
    """The pack asset of ``release`` for ``version`` (exact file name, case included), or None."""
    return release.asset(pack_asset_name(version)) if release else None


def download_asset(asset: Asset, dest: Path, *, progress: Optional[Progress] = None,
                   policy: Optional[RetryPolicy] = None, http=None, token: Optional[str] = None) -> Path:
    """Stream ``asset`` into the folder ``dest``; return the path of the complete, checked file.

    Args:
        asset: from :func:`find_pack_asset`.
        dest: a folder (created if missing).
        progress: called with (bytes so far, total bytes or None) after each chunk.
        policy: retries of a broken transfer (default from the environment).
        http: a ``requests.Session`` (default: a fresh one without a token;
            the token is only set on the API request, never on the redirect).
        token: the GitHub token; with one, the asset's API endpoint is used.

    Raises:
        CheckFailed: the sha256 differs from the asset's ``digest`` (the file
            is deleted; exit 1), or the server sends more bytes than the
            asset's declared size or than :data:`MAX_ASSET_BYTES` (the
            transfer stops there and the partial file is deleted).
        PackError: the transfer failed for good, ``digest`` is not a sha256,
            or the declared size is over :data:`MAX_ASSET_BYTES` (nothing is
            downloaded).
    """
    import requests
    import urllib3

    from bot.github.client import BodyTooSlow, body_chunks

    policy = policy or RetryPolicy.from_env()
    want = None
    if asset.digest:
        algo, _, hexd = asset.digest.strip().partition(":")
        if algo.lower() != "sha256" or not _HEX64.fullmatch(hexd):
            raise PackError(f"release asset {asset.name}: unsupported digest {asset.digest!r} (expected sha256:HEX)")
        want = hexd.lower()
    if not asset.name or "/" in asset.name or "\\" in asset.name or asset.name in (".", ".."):
        raise PackError(f"release asset name {asset.name!r} is not a plain file name")
    if asset.size and asset.size > MAX_ASSET_BYTES:
        raise PackError(f"release asset {asset.name}: {asset.size} bytes declared, more than the limit of "
                        f"{MAX_ASSET_BYTES}; nothing was downloaded")
    cap = min(asset.size, MAX_ASSET_BYTES) if asset.size else MAX_ASSET_BYTES
    http = http or session()
    dest = Path(dest)
    try:
        dest.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise PackError(f"cannot create the folder: {exc.strerror or exc}", path=str(dest)) from None
    final = dest / asset.name
    part = dest / (asset.name + ".part")
    last = ""
    for attempt in range(policy.attempts):
        h = hashlib.sha256()
        got = 0
        try:
            r = _open(http, asset, token, policy)
            total = _content_length(r) or (asset.size or None)
            if total and total > cap:
                r.close()
                raise CheckFailed(f"release asset {asset.name}: the server announces {total} bytes, more than "
                                  f"{cap} ({'the declared size' if cap == asset.size else 'the limit'}); "
                                  "nothing was kept")
            with open(part, "wb") as fh:
                for chunk in body_chunks(r, size=CHUNK, seconds=MAX_ASSET_SECONDS):
                    if got + len(chunk) > cap:
                        r.close()
                        raise _TooLarge(cap)
                    fh.write(chunk)
                    h.update(chunk)
                    got += len(chunk)
                    if progress:
                        progress(got, total)
            expected = asset.size or total
            if expected and got != expected:
                raise _Short(f"got {got} of {expected} bytes")
        except (requests.ConnectionError, requests.exceptions.ChunkedEncodingError,
                requests.exceptions.ContentDecodingError, requests.Timeout, _Short, BodyTooSlow,
                urllib3.exceptions.HTTPError) as exc:
            last = str(exc) if isinstance(exc, (_Short, BodyTooSlow)) else type(exc).__name__
            _remove(part)
            if not policy.again(attempt):   # a broken body: no library retries it (test_truncated_download_is_retried)
                raise policy.transient(f"download {asset.name}", attempt + 1, last)
            continue
        except _TooLarge as exc:
            _remove(part)
            raise CheckFailed(f"release asset {asset.name}: the server sent more than {exc.cap} bytes "
                              f"({'the declared size' if exc.cap == asset.size else 'the limit'}); "
                              "the transfer was stopped and the partial file deleted") from None
        except OSError as exc:   # disk full, no permission, a folder in the way: not worth retrying
            _remove(part)
            raise PackError(f"cannot write the download: {exc.strerror or exc}", path=str(part)) from None
        if want and h.hexdigest() != want:
            _remove(part)
            raise CheckFailed(f"release asset {asset.name}: sha256 {h.hexdigest()} does not match the "
                              f"release's digest {want}; the download was deleted")
        try:
            os.replace(part, final)
        except OSError as exc:
            _remove(part)
            raise PackError(f"cannot move the download into place: {exc.strerror or exc}", path=str(final)) from None
        return final
    raise policy.transient(f"download {asset.name}", 0, "no attempt was allowed")


_REDIRECTS = (301, 302, 303, 307, 308)


class _TooLarge(Exception):
    """More bytes arrived than the cap allows (not retried: the server is not short, it is over)."""

    def __init__(self, cap: int):
        super().__init__(cap)
        self.cap = cap


def _content_length(r) -> int:
    try:
        return max(0, int(r.headers.get("Content-Length") or 0))
    except ValueError:
        return 0


def _open(http, asset: Asset, token: Optional[str], policy: RetryPolicy):
    """The streaming response with the asset's bytes (see the module docstring for which URL is used)."""
    from urllib.parse import urljoin

    what = f"download {asset.name}"
    if not (token and asset.api_url):
        return http_get(http, asset.download_url, what=what, policy=policy, stream=True)
    headers = {"Accept": "application/octet-stream", "Authorization": f"Bearer {token}"}
    r = http_get(http, asset.api_url, what=what, policy=policy, stream=True, headers=headers,
                 ok=(200,) + _REDIRECTS, allow_redirects=False)
    if r.status_code == 200:
        return r
    location = r.headers.get("Location")
    r.close()
    if not location:
        raise PackError(f"release asset {asset.name}: the API answered HTTP {r.status_code} without a Location")
    # A fresh request without the token: the signed URL is on another host (and needs none).
    return http_get(http, urljoin(asset.api_url, location), what=what, policy=policy, stream=True)


def _remove(path: Path) -> None:
    """Delete a partial download if it is a file; never raises."""
    try:
        if path.is_file():
            path.unlink()
    except OSError:
        pass


class _Short(Exception):
    """A transfer that ended before all bytes arrived."""
