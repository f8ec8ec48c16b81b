"""The release asset ``PyTorch.ExecuTorch.V.pack``: find it, stream it to disk, check its sha256.

Facts: the pack file name is ``PyTorch.ExecuTorch.<pack version>.pack``
(FORMATS.md section 3, pack version = SemVer form of the release);
GitHub gives each release asset a ``digest`` ``"sha256:HEX"`` (GitHub REST
docs, "Release assets") for assets uploaded since mid-2025; older assets
have none, and then only the size is checked.

The download streams in 1 MiB chunks (memory does not grow with the pack),
hashing while writing to ``NAME.part``; only a complete file whose digest
matches is renamed to its final name.  A broken transfer (connection reset,
fewer bytes than announced) is retried with the client's retry policy; a
digest mismatch deletes the file and fails.
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
        http: a ``requests.Session`` (default: a fresh one without a token,
            so the token never travels to the download host).

    Raises:
        CheckFailed: the sha256 differs from the asset's ``digest`` (the file
            is deleted; exit 1).
        PackError: the transfer failed for good, or ``digest`` is not a sha256.
    """
    import requests

    policy = policy or RetryPolicy.from_env()
    want = None
    if asset.digest:
        algo, _, hexd = asset.digest.strip().partition(":")
        if algo.lower() != "sha256" or not _HEX64.fullmatch(hexd):
            raise PackError(f"release asset {asset.name}: unsupported digest {asset.digest!r} (expected sha256:HEX)")
        want = hexd.lower()
    if not asset.name or "/" in asset.name or "\\" in asset.name or asset.name in (".", ".."):
        raise PackError(f"release asset name {asset.name!r} is not a plain file name")
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
            r = http_get(http, asset.download_url, what=f"download {asset.name}", policy=policy, stream=True)
            total = int(r.headers.get("Content-Length") or 0) or (asset.size or None)
            with open(part, "wb") as fh:
                for chunk in r.iter_content(CHUNK):
                    fh.write(chunk)
                    h.update(chunk)
                    got += len(chunk)
                    if progress:
                        progress(got, total)
            expected = asset.size or total
            if expected and got != expected:
                raise _Short(f"got {got} of {expected} bytes")
        except (requests.ConnectionError, requests.exceptions.ChunkedEncodingError,
                requests.exceptions.ContentDecodingError, requests.Timeout, _Short) as exc:
            last = str(exc) if isinstance(exc, _Short) else type(exc).__name__
            _remove(part)
            if attempt + 1 >= policy.attempts or not policy.wait(attempt, None):
                raise PackError(policy.gave_up(f"download {asset.name}", attempt + 1, last))
            continue
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
    raise PackError(policy.gave_up(f"download {asset.name}", 0, "no attempt was allowed"))


def _remove(path: Path) -> None:
    """Delete a partial download if it is a file; never raises."""
    try:
        if path.is_file():
            path.unlink()
    except OSError:
        pass


class _Short(Exception):
    """A transfer that ended before all bytes arrived."""
