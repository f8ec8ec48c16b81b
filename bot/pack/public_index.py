"""Is ``PyTorch::ExecuTorch@V`` on the public CMSIS pack index that ``cbuild setup --packs`` reads?

Facts (Open-CMSIS-Pack spec, "Pack Index Files"; cpackget ``cmd/installer``):

- cpackget's public index is ``https://www.keil.com/pack/index.pidx``
  (``DefaultPublicIndex``: ``KeilDefaultPackRoot + "index.pidx"``); ``cpackget
  init`` / ``update-index`` copy it to ``$CMSIS_PACK_ROOT/.Web/index.pidx``,
  and ``cbuild setup --packs`` installs missing packs through cpackget.
- The index is XML: ``<index><pindex><pdsc url="U" vendor="PyTorch"
  name="ExecuTorch" version="L"/>...</pindex></index>``, one ``<pdsc>`` per
  pack, ``version`` its newest release.
- cpackget resolves ``Vendor::Name@V`` by finding the ``<pdsc>`` of
  ``Vendor``/``Name`` (a pack without one is not public), then reading the
  pack's PDSC ``U + Vendor.Name.pdsc``: ``V`` must be one of its
  ``<releases><release version="V">`` (else ``ErrPackVersionNotFoundInPdsc``,
  "pack version not found in the pdsc file"); the pack is then downloaded
  from the release's ``url`` attribute or ``U + Vendor.Name.V.pack``
  (cpackget ``cmd/installer/root.go``, ``FindPackURL``: "read .Web/PDSC file
  into pdscXML; releaseTag = pdscXML.FindReleaseTagByVersion(pack.Version)").
  The index's own ``version`` attribute is not consulted for V: an index
  naming V whose PDSC is stale or missing still fails the install
  (cpackget issues #139 and #357).

So V is on the index only when the index has a ``<pdsc>`` for the pack AND
the PDSC it points to lists a release V, whatever version the index names;
a PDSC that cannot be read is "could not tell", never "on it".  The index URL is
``--pack-index-url`` or ``EXECUTORCH_PACK_BOT_PACK_INDEX_URL`` (``off``: not
asked).  With ``EXECUTORCH_PACK_BOT_CACHE`` set, the index is kept there and
asked again with ``If-None-Match``/``If-Modified-Since`` (a 304 reuses it).
Nothing here raises for a fault of the index: the answer says "could not tell"
and why; the run goes on.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Optional

from bot.errors import BotError, UsageError

DEFAULT_PACK_INDEX = "https://www.keil.com/pack/index.pidx"
ENV = "EXECUTORCH_PACK_BOT_PACK_INDEX_URL"
OFF = "off"
VENDOR, NAME = "PyTorch", "ExecuTorch"
#: Bytes read at most from the index or a PDSC (the public index is a few MB).
MAX_BYTES = 64 * 1024 * 1024
#: Seconds one body (the index or a PDSC) may take to arrive; a few MB take seconds from a working server.
MAX_SECONDS = 120
_clock = time.monotonic


@dataclass(frozen=True)
class PackIndexAnswer:
    """The answer for one pack version.

    Attributes:
        pack: ``"PyTorch::ExecuTorch@1.5.1"``.
        listed: True (on the index), False (not on it), None (could not tell,
            or not asked).
        why: one sentence (index text in it is foreign: render it through
            :mod:`bot.inert`).
        index_url: the index asked ("" when not asked).
        asked: False when the check is off (``--pack-index-url off``).
    """

    pack: str
    listed: Optional[bool]
    why: str
    index_url: str = ""
    asked: bool = True

    @property
    def state(self) -> str:
        """``"yes"``, ``"no"``, ``"unknown"`` (could not tell) or ``"not-checked"``: the ``pack-on-index`` output."""
        if not self.asked:
            return "not-checked"
        return {True: "yes", False: "no"}.get(self.listed, "unknown")

    def summary(self) -> str:
        """One line for the log and the job summary."""
        if self.listed is True:
            return f"{self.pack} is on the public pack index ({self.why})"
        if self.listed is False:
            return f"{self.pack} is not on the public pack index: {self.why}"
        if not self.asked:
            return f"{self.pack}: the public pack index was not asked ({self.why})"
        return f"could not tell whether {self.pack} is on the public pack index: {self.why}"


def pack_index_url(value: Optional[str] = None, env: Mapping[str, str] = os.environ) -> str:
    """The index URL: ``value`` (the flag), else ``$EXECUTORCH_PACK_BOT_PACK_INDEX_URL``, else the public index.

    Returns ``"off"`` when the check is turned off.  Raises
    :class:`~bot.errors.UsageError` for a value that is neither ``off`` nor an
    http(s) URL.
    """
    raw = (value if value is not None else env.get(ENV, "")).strip() or DEFAULT_PACK_INDEX
    if raw.lower() == OFF:
        return OFF
    if not raw.lower().startswith(("https://", "http://")) or any(c.isspace() for c in raw):
        where = "--pack-index-url" if value is not None else f"${ENV}"
        raise UsageError(f"{where}: expected an http(s) URL of an index.pidx, or 'off' (got {raw!r})")
    return raw


def _cache_files(cache: Path, url: str) -> tuple[Path, Path]:
    key = hashlib.sha256(url.encode()).hexdigest()[:16]
    return cache / f"pack-index-{key}.pidx", cache / f"pack-index-{key}.json"


def _read_body(r, url: str) -> bytes:
    """The body of a streamed response, at most :data:`MAX_BYTES` and :data:`MAX_SECONDS` (PlatformError beyond).

    Read through :func:`bot.github.client.body_chunks`, so the wall-clock
    limit holds against a server that trickles a byte at a time.
    """
    from bot.errors import PlatformError
    from bot.github.client import BodyTooSlow, body_chunks

    out = bytearray()
    import urllib3

    try:
        for chunk in body_chunks(r, size=1 << 16, seconds=MAX_SECONDS, clock=_clock):
            out += chunk
            if len(out) > MAX_BYTES:
                raise PlatformError(f"{url} is larger than {MAX_BYTES // (1024 * 1024)} MiB")
    except BodyTooSlow:
        raise PlatformError(f"{url} took longer than {MAX_SECONDS} s to send ({len(out):,} bytes so far)") from None
    except urllib3.exceptions.HTTPError as exc:   # read1 is urllib3's own: requests does not wrap its faults
        raise PlatformError(f"{url}: the connection broke while reading ({type(exc).__name__})") from None
    finally:
        r.close()
    return bytes(out)


def _fetch(http, url: str, what: str, policy, cache: Optional[Path]) -> Optional[bytes]:
    """The bytes at ``url`` (None for a 404), asked conditionally when ``cache`` holds an earlier copy.

    Raises :class:`~bot.errors.PlatformError` when it cannot be read.
    """
    from bot.github.client import http_get

    body_file = meta_file = None
    headers: dict[str, str] = {}
    if cache is not None:
        body_file, meta_file = _cache_files(cache, url)
        try:
            meta = json.loads(meta_file.read_text(encoding="utf-8")) if body_file.is_file() else {}
        except (OSError, ValueError):
            meta = {}
        if isinstance(meta, dict):
            if isinstance(meta.get("etag"), str):
                headers["If-None-Match"] = meta["etag"]
            if isinstance(meta.get("last_modified"), str):
                headers["If-Modified-Since"] = meta["last_modified"]
    r = http_get(http, url, what=what, policy=policy, headers=headers, stream=True, ok=(200, 304, 404))
    if r.status_code == 404:
        r.close()
        return None
    if r.status_code == 304 and body_file is not None:
        r.close()
        try:
            return body_file.read_bytes()
        except OSError:   # the copy went away between the two reads: ask again without a condition
            r = http_get(http, url, what=what, policy=policy, stream=True, ok=(200, 404))
            if r.status_code == 404:
                r.close()
                return None
    data = _read_body(r, url)
    if body_file is not None and (r.headers.get("ETag") or r.headers.get("Last-Modified")):
        try:
            cache.mkdir(parents=True, exist_ok=True)
            _replace(body_file, data)
            _replace(meta_file, json.dumps({"etag": r.headers.get("ETag"),
                                            "last_modified": r.headers.get("Last-Modified")}).encode("utf-8"))
        except OSError:
            pass   # a cache that cannot be written only costs a full download next time
    return data


def _replace(path: Path, data: bytes) -> None:
    """Write ``data`` to a new file of a fresh name beside ``path`` (``O_EXCL``), then rename it over ``path``: a
    symbolic link planted in the cache folder is replaced, never written through.  OSError when it cannot."""
    import tempfile

    fd, tmp = tempfile.mkstemp(prefix=path.name + ".part-", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _parse(data: bytes, url: str):
    """The XML root of ``data``; PlatformError when it is not XML or declares a DOCTYPE/ENTITY.

    Hardened as :func:`bot.pack.pdsc.parse_pdsc`: the bytes are decoded
    first (:func:`bot.pack.pdsc.decode_pdsc`: UTF-8, or UTF-16 with a BOM;
    UTF-32, UTF-7, EBCDIC and other declared encodings are refused, so a
    ``<!DOCTYPE`` cannot hide from the scan in an encoding lxml would read),
    an index or PDSC never needs a DTD, so one is refused before parsing
    (external entities, the billion-laughs expansion), and lxml reads the
    decoded text as UTF-8 without entities, DTD or network.
    """
    from lxml import etree

    from bot.errors import PlatformError
    from bot.pack.pdsc import PdscError, decode_pdsc

    try:
        text = decode_pdsc(data, url)
    except PdscError as exc:
        raise PlatformError(f"{url} {exc.message.replace('a PDSC must', 'it must')}") from None
    upper = text.upper()
    if "<!DOCTYPE" in upper or "<!ENTITY" in upper:
        raise PlatformError(f"{url} declares a DOCTYPE/ENTITY; DTDs and entities are refused")
    parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, dtd_validation=False,
                             huge_tree=False, remove_pis=True, remove_comments=True, collect_ids=False,
                             encoding="utf-8")
    try:
        root = etree.fromstring(text.encode("utf-8"), parser)
    except etree.XMLSyntaxError as exc:
        raise PlatformError(f"{url} is not XML ({exc.msg})") from None
    if root is None:
        raise PlatformError(f"{url} is empty")
    return root


def _local(el) -> str:
    tag = el.tag if isinstance(el.tag, str) else ""
    return tag.rsplit("}", 1)[-1]


def index_entry(data: bytes, url: str, vendor: str = VENDOR, name: str = NAME) -> Optional[dict]:
    """The attributes (``url``, ``vendor``, ``name``, ``version``) of the index's ``<pdsc>`` for the pack, or None.

    ``data`` is an ``index.pidx``.  Vendor and name are matched exactly, case
    included, as cpackget keys its index (``Vendor.Name.Version``,
    ``PdscTag.Key`` in cpackget's ``cmd/xml/pidx.go``): an entry spelled
    ``pytorch``/``executorch`` is not the pack ``PyTorch::ExecuTorch``.
    Raises :class:`~bot.errors.PlatformError` when it is not XML or its root
    is not ``<index>``.
    """
    from bot.errors import PlatformError

    root = _parse(data, url)
    if _local(root) != "index":
        raise PlatformError(f"{url} is not a pack index (root element <{_local(root)}>, expected <index>)")
    for el in root.iter():
        if _local(el) == "pdsc" and el.get("vendor") == vendor and el.get("name") == name:
            return {k: el.get(k) or "" for k in ("url", "vendor", "name", "version")}
    return None


def pdsc_releases(data: bytes, url: str) -> tuple[str, ...]:
    """The ``version`` of every ``<releases><release>`` of a PDSC (PlatformError when it is not XML)."""
    root = _parse(data, url)
    return tuple(el.get("version") or "" for el in root.iter()
                 if _local(el) == "release" and el.getparent() is not None and _local(el.getparent()) == "releases")


def check_pack_index(version: str, *, url: Optional[str] = None, http=None, policy=None,
                     cache: Optional[Path] = None) -> PackIndexAnswer:
    """Ask the public pack index whether ``PyTorch::ExecuTorch@version`` can be installed from it.

    Args:
        version: the pack version (SemVer, ``"1.5.1"``; the Open-CMSIS-Pack spec).
        url: the index URL (default :func:`pack_index_url`); ``"off"``: nothing
            is asked and the answer says so.
        http: a ``requests.Session`` (default: the bot's session, no token).
        policy: the retry policy (default ``RetryPolicy.from_env()``).
        cache: where the index and its ETag are kept (default
            ``$EXECUTORCH_PACK_BOT_CACHE``; None: no conditional request).

    Costs one GET of the index (or a 304), plus one GET of the pack's PDSC
    (always: the index's ``version`` alone does not make V installable).  Never raises for a fault of the
    index or the network: the answer is "could not tell" with the reason.
    """
    from bot.github.client import RetryPolicy, session
    from bot.github.releases import cache_dir

    pack = f"{VENDOR}::{NAME}@{version}"
    url = url or pack_index_url()
    if url == OFF:
        return PackIndexAnswer(pack, None, "the check is off (--pack-index-url off)", "", asked=False)
    http = http or session()
    policy = policy or RetryPolicy.from_env()
    cache = cache if cache is not None else cache_dir()
    try:
        data = _fetch(http, url, "read the public pack index", policy, cache)
        if data is None:
            return PackIndexAnswer(pack, None, f"the index {url} answered 404 (not found)", url)
        entry = index_entry(data, url)
        if entry is None:
            return PackIndexAnswer(pack, False, f"the index lists no {VENDOR}::{NAME} pack", url)
        base = entry["url"]
        if not base.lower().startswith(("https://", "http://")):
            return PackIndexAnswer(pack, None, f"the index lists {VENDOR}::{NAME} {entry['version']} with a PDSC "
                                              f"URL that is not http(s): {base!r}", url)
        pdsc_url = base.rstrip("/") + f"/{VENDOR}.{NAME}.pdsc"
        pdsc = _fetch(http, pdsc_url, f"read the PDSC {VENDOR}.{NAME}.pdsc the pack index names", policy, None)
        if pdsc is None:
            return PackIndexAnswer(pack, None, f"the index lists {VENDOR}::{NAME} {entry['version']}, but its PDSC "
                                               f"{pdsc_url} answered 404 (not found)", url)
        if version in pdsc_releases(pdsc, pdsc_url):
            return PackIndexAnswer(pack, True, f"the index lists {VENDOR}::{NAME} {entry['version']}, and its PDSC "
                                               f"has a release {version}", url)
        return PackIndexAnswer(pack, False, f"the index lists {VENDOR}::{NAME} {entry['version']}, and its PDSC "
                                            f"has no release {version}", url)
    except BotError as exc:
        return PackIndexAnswer(pack, None, exc.message, url)
    except OSError as exc:   # a socket fault requests did not wrap
        return PackIndexAnswer(pack, None, f"{type(exc).__name__}: {exc}", url)
