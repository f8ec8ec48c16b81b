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

A missing, unreadable, malformed or too deeply nested file, or one over
:data:`MAX_FILE_BYTES`, is an empty cache (it only costs
requests); the file is written atomically.

Trust.  On a ``304`` the plan believes the value kept beside the ETag, and a
pin answer is believed for its digest: whoever can write the file can make the
plan see any template as up to date (GitHub answers 304 to the true ETag of
a resource, which anyone who can read the repository can learn).  In Actions
the file is restored by ``actions/cache``, which any job of a workflow run on
the calling repository's default branch can write (a person with write
access, or code that such a job runs).  So with a key (``key``: the fleet
workflow passes the App's private key, a secret only the jobs that mint
tokens hold, and someone holding it could act as the App anyway), the file
carries an HMAC-SHA256 (RFC 2104, Python's :mod:`hmac`) of all its entries,
and a file whose HMAC does not verify is an empty cache: a forged, edited or
mixed file only costs requests.  Without a key (a local run) the file is
trusted as its folder is.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import tempfile
from pathlib import Path
from typing import Optional

FORMAT = 1
MAX_BLOB_CHARS = 1_000_000   # a pin file bigger than this is read again rather than kept
#: A cache file larger than this is not read (an empty cache): a few thousand templates' pin files and listings
#: fit many times over, and the whole file is parsed in memory.
MAX_FILE_BYTES = 200_000_000


def blob_sha(text: str) -> str:
    """The git blob sha of a file whose bytes are ``text`` encoded as UTF-8 (undecodable bytes kept as surrogate
    escapes): sha1 of ``blob LENGTH\0`` and the bytes (git docs, "Git Internals - Git Objects")."""
    import hashlib

    data = text.encode("utf-8", "surrogateescape")
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def mac_key(secret: str) -> bytes:
    """The HMAC key derived from ``secret`` (SHA-256 of a fixed prefix and the secret: the secret itself is never
    used as the key, so the HMAC tells nothing of it)."""
    return hashlib.sha256(b"executorch-pack-bot fleet cache\0" + secret.encode("utf-8", "surrogateescape")).digest()


class FleetCache:
    """The cache file's content; :meth:`save` writes it back (only the entries used by this run are kept)."""

    def __init__(self, path: Optional[Path] = None, key: Optional[str] = None):
        """``key``: the secret the file's HMAC is made with (:func:`mac_key` of it), or None for no HMAC.
        :attr:`refused` says why a file was set aside ("" when it was used or absent)."""
        self.path = Path(path) if path else None
        self._key = mac_key(key) if key else None
        self.refused = ""
        self.etags: dict = {}
        self.blobs: dict = {}
        self.pins: dict = {}
        self._used: dict[str, set] = {"etags": set(), "blobs": set(), "pins": set()}
        if self.path is not None:
            self._load()

    def _mac(self, data: dict) -> str:
        body = {k: v for k, v in data.items() if k != "mac"}
        text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
        return hmac.new(self._key, text.encode("ascii"), hashlib.sha256).hexdigest()

    def _load(self) -> None:
        try:
            if not self.path.is_file():   # a FIFO would block the read for ever; a folder is no cache
                return
            with open(self.path, "rb") as fh:
                raw = fh.read(MAX_FILE_BYTES + 1)
            if len(raw) > MAX_FILE_BYTES:
                self.refused = f"larger than {MAX_FILE_BYTES} bytes: not used"
                return
            data = json.loads(raw.decode("utf-8"))
        except (OSError, ValueError, RecursionError):   # RecursionError: JSON nested too deeply for the parser
            return
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            return
        if self._key is not None and not (isinstance(data.get("mac"), str)
                                          and hmac.compare_digest(data["mac"], self._mac(data))):
            self.refused = "its HMAC does not verify (written without the key, or edited): not used"
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
        if self._key is not None:
            data["mac"] = self._mac(data)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=".fleet-cache-", dir=self.path.parent)
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump(data, fh, separators=(",", ":"))
            os.replace(tmp, self.path)
        except OSError:
            pass
