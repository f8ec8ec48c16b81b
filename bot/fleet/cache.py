"""The fleet's cache between runs: ETags and what their answers said, kept in one JSON file.

In Actions the file lives in a folder kept by ``actions/cache`` (docs/fleet.md).
GitHub answers a request carrying ``If-None-Match: ETAG`` with ``304 Not
Modified`` when the resource is unchanged, and a 304 does not count against
the primary rate limit (GitHub REST docs, "Best practices for using the REST
API": conditional requests).  Entries:

* ``etags``: ``{request key: {"etag": str, "value": JSON}}``, ``value`` being
  what the plan kept of the answer (a tree's pin files, a pull-request
  listing's few fields), never the whole body;
* ``blobs``: ``{git blob sha: text}`` of pin files (a blob is immutable; a text is used only when its
  git blob sha is its key, so an edited cache cannot change what a pin file says);
* ``pins``: ``{digest of a template's pin files: {"current", "label", "branch", "error"}}``.

A missing, unreadable or malformed file is an empty cache (it only costs
requests); the file is written atomically.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Optional

FORMAT = 1
MAX_BLOB_CHARS = 1_000_000   # a pin file bigger than this is read again rather than kept


def blob_sha(text: str) -> str:
    """The git blob sha of a file whose bytes are ``text`` encoded as UTF-8 (undecodable bytes kept as surrogate
    escapes): sha1 of ``blob LENGTH\0`` and the bytes (git docs, "Git Internals - Git Objects")."""
    import hashlib

    data = text.encode("utf-8", "surrogateescape")
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


class FleetCache:
    """The cache file's content; :meth:`save` writes it back (only the entries used by this run are kept)."""

    def __init__(self, path: Optional[Path] = None):
        self.path = Path(path) if path else None
        self.etags: dict = {}
        self.blobs: dict = {}
        self.pins: dict = {}
        self._used: dict[str, set] = {"etags": set(), "blobs": set(), "pins": set()}
        if self.path is not None:
            self._load()

    def _load(self) -> None:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            return
        for name in ("etags", "blobs", "pins"):
            if isinstance(data.get(name), dict):
                setattr(self, name, data[name])

    def etag(self, key: str) -> Optional[dict]:
        """The cached ``{"etag", "value"}`` of a request key, or None."""
        got = self.etags.get(key)
        if isinstance(got, dict) and isinstance(got.get("etag"), str) and "value" in got:
            self._used["etags"].add(key)
            return got
        return None

    def put_etag(self, key: str, etag: str, value) -> None:
        self.etags[key] = {"etag": etag, "value": value}
        self._used["etags"].add(key)

    def blob(self, sha: str) -> Optional[str]:
        """The cached text of git blob ``sha``, or None; a text whose git blob sha is not ``sha`` (an edited or
        damaged cache file) is not returned: a blob's name is the hash of its content (git docs, "Git Objects")."""
        got = self.blobs.get(sha)
        if isinstance(got, str) and blob_sha(got) == sha:
            self._used["blobs"].add(sha)
            return got
        return None

    def keep_blobs(self, shas) -> None:
        """Keep these blobs in the saved file though this run did not read them (their answer was cached)."""
        self._used["blobs"].update(sha for sha in shas if sha in self.blobs)

    def put_blob(self, sha: str, text: str) -> None:
        """Keep ``text`` as blob ``sha`` when it is that blob (the file may have moved on since the tree was read)."""
        if len(text) <= MAX_BLOB_CHARS and blob_sha(text) == sha:
            self.blobs[sha] = text
            self._used["blobs"].add(sha)

    def pin_result(self, digest: str) -> Optional[dict]:
        got = self.pins.get(digest)
        if isinstance(got, dict):
            self._used["pins"].add(digest)
            return got
        return None

    def put_pin_result(self, digest: str, result: dict) -> None:
        self.pins[digest] = result
        self._used["pins"].add(digest)

    def save(self) -> None:
        """Write the entries this run used (others are dropped: the file does not grow forever); no-op without
        a path.  A file that cannot be written only costs requests next run: the error is swallowed."""
        if self.path is None:
            return
        data = {"format": FORMAT}
        for name in ("etags", "blobs", "pins"):
            store = getattr(self, name)
            data[name] = {k: store[k] for k in sorted(self._used[name]) if k in store}
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=".fleet-cache-", dir=self.path.parent)
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump(data, fh, separators=(",", ":"))
            os.replace(tmp, self.path)
        except OSError:
            pass
