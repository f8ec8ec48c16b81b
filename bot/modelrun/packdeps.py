"""Components a selected operator requires from another pack (CMSIS-NN's ``CMSIS:NN Lib``), resolved as cpackget would.

A PDSC component names what it needs through its ``condition``: ``<require
Cclass Cgroup Csub>`` and ``<require condition>`` (Open-CMSIS-Pack "Pack
Description (.pdsc) Format", ``/package/conditions``).  The v1.4.1 ExecuTorch
pack's Cortex-M operators (``op_cortex_m_*``) require the condition
``CMSIS-NN``, which requires ``Cclass="CMSIS" Cgroup="NN Lib"``: a component
of ARM's ``ARM.CMSIS-NN`` pack, which the ExecuTorch pack does not ship (its
``<requirements>`` list only ``ARM::CMSIS``).

:func:`external_requirements` walks the selected components' conditions and
returns every ``require`` of a component no component of the pack itself
provides.  :func:`resolve` finds the pack providing one (:data:`PROVIDERS`):

1. a local pack given on the command line (``--dep-pack``: a ``.pack`` file or
   an unpacked folder) whose PDSC has the vendor and name (offline);
2. else the version the template's lock file pins (``*.cbuild-pack.yml``,
   ``resolved-pack: ARM::CMSIS-NN@V``), or else the newest the public pack
   index lists: the index (``index.pidx``: ``<pdsc url vendor name version>``)
   gives the pack's URL, the pack is ``URL + Vendor.Name.V.pack`` (cpackget's
   ``cmd/installer``).  A download is verified (a zip, a PDSC at its root with
   the vendor and name, a release V when a version was asked, the component
   present) and kept in the cache folder as ``Vendor.Name.V.pack``, with its
   sha256 beside it (``Vendor.Name.V.pack.sha256``).

The index and every pack are asked for over https only (:func:`https_only`;
plain http to a loopback address, a mirror on the runner itself, is the one
exception), a redirect included.  A kept pack is reused only when its bytes
still have the sha256 kept when it was downloaded and verified, and it
verifies again; else it is removed and downloaded again.  The sha256 is kept
in the same folder: it catches a pack replaced or truncated on its own, not a
writer of that folder who replaces both (the folder is the run-model job's,
where upstream code runs: its results are evidence from that job).

Every failure is a :class:`~bot.modelrun.StageError` at stage ``select``
naming what was asked and where.  :func:`component_sources` and
:func:`component_include_dirs` list the resolved component's ``<file>``
sources and header folders (CMSIS-NN's PDSC writes ``category="source"``:
the language comes from the extension).
"""

from __future__ import annotations

import os
import posixpath
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

from bot.modelrun import StageError
from bot.pack.pdsc import Component, Pdsc

#: (Cclass, Cgroup) -> (vendor, name) of the pack that provides it (ARM's CMSIS-NN pack, ARM.CMSIS-NN.pdsc).
PROVIDERS = {("CMSIS", "NN Lib"): ("ARM", "CMSIS-NN")}
#: The largest dependency pack downloaded (bytes); CMSIS-NN's pack is a few MB.
MAX_PACK = 64 << 20
#: Seconds a dependency pack's download may take.
MAX_SECONDS = 300
#: A pack version as it may appear in a file name (SemVer's characters; no '/', no "..").
_VERSION = re.compile(r"(?!.*\.\.)[0-9A-Za-z][0-9A-Za-z.+-]{0,63}")
#: A URL's scheme and user information (``https://user:token@``): RFC 3986, "3.2.1. User Information".
_USERINFO = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://)[^/?#@\s]*@")
_SOURCE_LANG = {".c": "c", ".cpp": "c++", ".cc": "c++", ".cxx": "c++", ".s": "assembler", ".S": "assembler-with-cpp"}


@dataclass(frozen=True)
class Requirement:
    """A component the pack lacks: ``Cclass``/``Cgroup``/``Csub`` (None: any) and the component that needs it."""

    cclass: str
    cgroup: str
    csub: str | None
    needed_by: str

    @property
    def ident(self) -> str:
        """``"CMSIS:NN Lib"`` (``Cclass:Cgroup[:Csub]``)."""
        return ":".join(p for p in (self.cclass, self.cgroup, self.csub) if p)


@dataclass(frozen=True)
class DepOptions:
    """Where dependency packs come from: ``local`` packs (files or folders), the lock file's ``pins``
    (``{"ARM::CMSIS-NN": "7.0.0"}``), the index URL (``"off"``: not asked) and the ``cache`` folder."""

    local: tuple = ()
    pins: dict | None = None
    index_url: str = "off"
    cache: Path | None = None


@dataclass(frozen=True)
class ResolvedPack:
    """A dependency pack: its root folder, PDSC, the component, its version and where it came from."""

    root: Path
    pdsc: Pdsc
    component: Component
    version: str
    origin: str


def _local(el) -> str:
    tag = el.tag if isinstance(el.tag, str) else ""
    return tag.rsplit("}", 1)[-1]


def external_requirements(pdsc: Pdsc, pdsc_bytes: bytes, components: list[Component]) -> list[Requirement]:
    """Every ``require`` reached from ``components``' conditions that no component of ``pdsc`` satisfies.

    ``require`` elements without ``Cclass`` (``Dcore``, ``Tcompiler``) are device or toolchain
    conditions, not components, and are left to the build.  ``accept`` alternatives are not
    followed (the ExecuTorch PDSC uses them only for ``Dcore``).  Read with lxml without DTD,
    entities or network; call only on bytes :func:`bot.pack.pdsc.parse_pdsc` accepted.
    """
    from lxml import etree

    parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False,
                             remove_comments=True, remove_pis=True)
    root = etree.fromstring(pdsc_bytes, parser)
    conditions = {}
    for el in root.iter():
        if _local(el) == "condition" and el.get("id") and el.get("id") not in conditions:
            conditions[el.get("id")] = el

    def provided(cclass, cgroup, csub) -> bool:
        return any(c.cclass == cclass and c.cgroup == cgroup and (csub is None or c.csub == csub)
                   for c in pdsc.components)

    out: list[Requirement] = []
    for comp in components:
        todo, seen = [comp.condition] if comp.condition else [], set()
        while todo:
            cid = todo.pop()
            if cid in seen or cid not in conditions:
                continue
            seen.add(cid)
            for req in conditions[cid]:
                if _local(req) != "require":
                    continue
                if req.get("condition"):
                    todo.append(req.get("condition"))
                elif req.get("Cclass") and req.get("Cgroup"):
                    cclass, cgroup, csub = req.get("Cclass"), req.get("Cgroup"), req.get("Csub")
                    if not provided(cclass, cgroup, csub) and not any(
                            (r.cclass, r.cgroup, r.csub) == (cclass, cgroup, csub) for r in out):
                        out.append(Requirement(cclass, cgroup, csub, comp.ident))
    return out


def lock_pins(text: str) -> dict:
    """``{"ARM::CMSIS-NN": "7.0.0"}`` from a ``*.cbuild-pack.yml`` lock file's ``resolved-pack:`` items.

    The lock file (written by ``cbuild setup``) lists ``- resolved-pack: Vendor::Name@Version``; read
    as YAML, an item that is not of that form is skipped.  Raises :class:`ValueError` when it is not YAML, or
    when the document, ``cbuild-pack:`` or ``resolved-packs:`` has another shape (the file is not a lock file).
    """
    import yaml

    try:
        data = yaml.safe_load(text)
    except (yaml.YAMLError, RecursionError) as exc:   # RecursionError: nested too deeply
        raise ValueError(str(exc)) from None
    out = {}
    if data is not None and not isinstance(data, dict):
        raise ValueError(f"the document is {_kind(data)}, not a mapping with cbuild-pack:")
    section = (data or {}).get("cbuild-pack")
    if section is not None and not isinstance(section, dict):
        raise ValueError(f"cbuild-pack: is {_kind(section)}, not a mapping with resolved-packs:")
    items = (section or {}).get("resolved-packs")
    if items is not None and not isinstance(items, list):
        raise ValueError(f"resolved-packs: is {_kind(items)}, not a list of resolved-pack: items")
    for item in items or []:
        ref = item.get("resolved-pack") if isinstance(item, dict) else None
        if isinstance(ref, str) and "::" in ref and "@" in ref:
            key, _, version = ref.partition("@")
            out[key.strip()] = version.strip()
    return out


def _kind(value) -> str:
    """``"a list"``, ``"a string"``, ``"a number"``, ``"a mapping"`` or ``"a true/false"`` (a YAML value's kind)."""
    if isinstance(value, bool):
        return "a true/false"
    return {list: "a list", str: "a string", dict: "a mapping"}.get(type(value)) or \
        ("a number" if isinstance(value, (int, float)) else f"a {type(value).__name__}")


def _open_pack(path: Path, dest: Path, vendor: str, name: str, what: str):
    """Unpack and read the pack at ``path`` (file or folder) into ``dest``; returns (root, Pdsc); StageError when bad.

    ``what`` names the pack in errors (``the local pack PATH``, ``ARM::CMSIS-NN@V from URL``): a download is read
    from its temporary file, whose name means nothing to the reader."""
    from bot.errors import PackError
    from bot.pack.archive import Limits, UnsafeArchive, extract_safely, open_zip, scan_archive
    from bot.pack.pdsc import PdscError, parse_pdsc

    if path.is_dir():
        root = path
    else:
        try:
            with open_zip(path) as zf:
                scan = scan_archive(zf, Limits())
                if scan.problems:
                    raise StageError("select", f"{what}: unsafe archive: {scan.problems[0]}")
                shutil.rmtree(dest, ignore_errors=True)
                dest.mkdir(parents=True)
                extract_safely(zf, dest, Limits())
        except (UnsafeArchive, PackError) as exc:
            raise StageError("select", f"{what} is not a usable pack (zip): {exc}") from None
        except OSError as exc:
            raise StageError("select", f"{what}: cannot read: {exc.strerror or exc}") from None
        root = dest
    pdsc_file = root / f"{vendor}.{name}.pdsc"
    if not pdsc_file.is_file():
        raise StageError("select", f"{what} has no {vendor}.{name}.pdsc at its root")
    try:
        return root, parse_pdsc(pdsc_file.read_bytes(), pdsc_file.name)
    except PdscError as exc:
        raise StageError("select", f"{what}: {exc}") from None


def _check(root: Path, pdsc: Pdsc, req: Requirement, vendor: str, name: str, version: str | None, what: str,
           origin: str) -> ResolvedPack:
    if (pdsc.vendor, pdsc.name) != (vendor, name):
        raise StageError("select", f"{what}: its PDSC is {pdsc.vendor}::{pdsc.name}, not {vendor}::{name}")
    releases = [r.version for r in pdsc.releases]
    if version is not None and version not in releases:
        raise StageError("select", f"{what}: its PDSC has no release {version} (releases: "
                         + (", ".join(releases[:5]) or "none") + ")")
    comp = next((c for c in pdsc.components if c.cclass == req.cclass and c.cgroup == req.cgroup
                 and (req.csub is None or c.csub == req.csub)), None)
    if comp is None:
        raise StageError("select", f"{what}: {vendor}::{name} has no component {req.ident} "
                         f"(required by {req.needed_by})")
    return ResolvedPack(root, pdsc, comp, version or (releases[0] if releases else "?"), origin)


def resolve(req: Requirement, options: DepOptions, work: Path, *, http=None, policy=None) -> ResolvedPack:
    """The pack providing ``req``, unpacked under ``work``; see the module docstring for the order.

    Raises :class:`StageError` (stage ``select``) naming the requirement, the pack and the failing
    step: no known provider, the local pack wrong, the index unreachable or without the pack, the
    download refused, the file not a zip, no PDSC, no such release or component.
    """
    key = PROVIDERS.get((req.cclass, req.cgroup))
    if key is None:
        raise StageError("select", f"{req.needed_by} requires {req.ident}, which the pack does not ship and no "
                                   "pack run-model can fetch provides")
    vendor, name = key
    pack_id = f"{vendor}::{name}"
    dest = work / "deps" / f"{vendor}.{name}"
    for path in options.local:
        path = Path(path)
        what = f"the local pack {path}"
        if not path.exists():
            raise StageError("select", f"{what}: no such file or folder")
        if _holds_pdsc(path, vendor, name, what):
            root, pdsc = _open_pack(path, dest, vendor, name, what)
            return _check(root, pdsc, req, vendor, name, None, what, f"local pack {path.name}")
    version = (options.pins or {}).get(pack_id)
    if options.index_url == "off":
        given = f" ({len(options.local)} local pack(s) given, none is {pack_id})" if options.local else ""
        raise StageError("select", f"{req.needed_by} requires {req.ident} from {pack_id}: no local pack gives it "
                                   f"(--dep-pack){given} and the pack index is off")
    return _download(req, vendor, name, version, options, dest, http=http, policy=policy)


def _holds_pdsc(path: Path, vendor: str, name: str, what: str) -> bool:
    """Whether the local pack (folder or ``.pack``) has ``Vendor.Name.pdsc`` at its root: it is the pack asked
    for (other local packs are for other requirements).  A file that is not a zip fails at select."""
    import zipfile

    if path.is_dir():
        return (path / f"{vendor}.{name}.pdsc").is_file()
    try:
        with zipfile.ZipFile(path) as zf:
            return f"{vendor}.{name}.pdsc" in zf.namelist()
    except (zipfile.BadZipFile, OSError, ValueError) as exc:
        raise StageError("select", f"{what} is not a usable pack (zip): {exc}") from None


def _redacted(text: str) -> str:
    """``text`` with the user information of every URL in it replaced: ``https://user:token@host/`` ->
    ``https://***@host/`` (RFC 3986 ``userinfo``): a private index's credentials never reach the result, the
    output or the pull request."""
    return _USERINFO.sub(r"\1***@", text)


def https_only(url: str, what: str) -> None:
    """Refuse (StageError at ``select``) a URL that is not ``https://``, unless it is ``http://`` to a loopback
    address (``localhost``, ``127.0.0.0/8``, ``::1``: nothing on the network between; RFC 6890).  ``what`` names the
    URL in the message (its user information redacted)."""
    import ipaddress
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
    except ValueError:
        parts, host = None, ""
    if parts is not None and parts.scheme.lower() == "https" and host:
        return
    if parts is not None and parts.scheme.lower() == "http":
        try:
            loopback = host == "localhost" or ipaddress.ip_address(host).is_loopback
        except ValueError:
            loopback = False
        if loopback:
            return
    raise StageError("select", f"{what}: {_redacted(url)!r} is not an https:// URL (dependency packs are fetched "
                               "over https only)")


def _download(req, vendor, name, version, options: DepOptions, dest: Path, *, http, policy) -> ResolvedPack:
    """:func:`_fetch_pack`, every message without the URLs' user information (:func:`_redacted`)."""
    try:
        return _fetch_pack(req, vendor, name, version, options, dest, http=http, policy=policy)
    except StageError as exc:
        raise StageError(exc.stage, _redacted(exc.message), [_redacted(ln) for ln in exc.lines]) from None


def _fetch_pack(req, vendor, name, version, options: DepOptions, dest: Path, *, http, policy) -> ResolvedPack:
    from bot.errors import BotError
    from bot.github.client import RetryPolicy, session
    from bot.pack.public_index import _fetch, index_entry

    pack_id = f"{vendor}::{name}"
    url = options.index_url
    if version is not None and not _VERSION.fullmatch(version):
        raise StageError("select", f"{pack_id}: the lock file pins {version!r}, which is not a pack version")
    hit = _cached(req, vendor, name, version, options, dest)
    if hit is not None:
        return hit
    https_only(url, f"{req.ident} ({pack_id}): the pack index")
    http = http or session()
    policy = policy or RetryPolicy.from_env()
    try:
        # kept with its ETag beside the packs: asked again with If-None-Match (a 304 reuses it)
        index = _fetch(http, url, "read the public pack index", policy, options.cache)
    except BotError as exc:
        raise StageError("select", f"{req.ident} ({pack_id}): the pack index {url} cannot be read: {exc.message}") \
            from None
    except OSError as exc:
        raise StageError("select", f"{req.ident} ({pack_id}): the pack index {url} cannot be read: {exc}") from None
    if index is None:
        raise StageError("select", f"{req.ident} ({pack_id}): the pack index {url} answered 404 (not found)")
    try:
        entry = index_entry(index, url, vendor, name)
    except BotError as exc:
        raise StageError("select", f"{req.ident} ({pack_id}): {exc.message}") from None
    if entry is None:
        raise StageError("select", f"{req.ident}: the pack index {url} lists no {pack_id} pack")
    pinned = version is not None
    version = version or entry["version"]
    if not _VERSION.fullmatch(version or ""):
        raise StageError("select", f"{pack_id}: the version {version!r} is not a pack version")
    hit = None if pinned else _cached(req, vendor, name, version, options, dest)
    if hit is not None:   # the index's newest is the one kept: no download
        return hit
    base = entry["url"]
    if not base.lower().startswith(("https://", "http://")):
        raise StageError("select", f"{pack_id}: the pack index gives a URL that is not http(s): {base!r}")
    https_only(base, f"{pack_id}: the pack index gives a URL")
    pack_url = base.rstrip("/") + f"/{vendor}.{name}.{version}.pack"
    what = f"{pack_id}@{version} from {pack_url}"
    try:
        data = _get_pack(http, pack_url, policy, what)
    except BotError as exc:
        raise StageError("select", f"{what}: the download failed: {exc.message}") from None
    except OSError as exc:
        raise StageError("select", f"{what}: the download failed: {exc}") from None
    if data is None:
        raise StageError("select", f"{what}: answered 404 (not found)")
    store = options.cache if options.cache is not None else dest.parent
    file = store / f"{vendor}.{name}.{version}.pack"
    part = _write_part(store, file, data, what)
    digest = None
    try:
        root, pdsc = _open_pack(part, dest, vendor, name, what)
        resolved = _check(root, pdsc, req, vendor, name, version, what, f"pack index {_redacted(url)}")
        import hashlib
        digest = _write_part(store, _digest_file(file), hashlib.sha256(data).hexdigest().encode() + b"\n", what)
        os.replace(part, file)   # a rename: a symbolic link planted at ``file`` is replaced, never followed
        os.replace(digest, _digest_file(file))
    except OSError as exc:
        for left in (part, digest):
            if left is not None:
                left.unlink(missing_ok=True)
        raise StageError("select", f"{what}: cannot keep the pack as {file}: {exc.strerror or exc}") from None
    except StageError:
        for left in (part, digest):
            if left is not None:
                left.unlink(missing_ok=True)
        raise
    return resolved


def _write_part(store: Path, file: Path, data: bytes, what: str) -> Path:
    """``data`` in a new file of a fresh name beside ``file`` (``file.name`` + ``.part-XXXX``, made with
    ``O_EXCL``: a file or symbolic link planted in the cache folder is never written through); StageError when
    the cache folder cannot be made or written."""
    import tempfile

    try:
        store.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=file.name + ".part-", dir=store)
    except OSError as exc:
        raise StageError("select", f"{what}: cannot keep the pack in {store}: {exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        raise StageError("select", f"{what}: cannot keep the pack in {store}: {exc.strerror or exc}") from None
    return Path(tmp)


def _cached(req, vendor: str, name: str, version: str | None, options: DepOptions, dest: Path):
    """The :class:`ResolvedPack` of ``Vendor.Name.V.pack`` in the cache when it is there and still verifies
    (a copy that does not is removed and fetched again), else None."""
    if options.cache is None or version is None:
        return None
    cached = options.cache / f"{vendor}.{name}.{version}.pack"
    if not cached.is_file():
        return None
    if not _digest_matches(cached):
        cached.unlink(missing_ok=True)
        return None
    try:
        root, pdsc = _open_pack(cached, dest, vendor, name, f"the cached pack {cached}")
        return _check(root, pdsc, req, vendor, name, version, f"the cached pack {cached}", f"cache {cached.name}")
    except StageError:
        cached.unlink(missing_ok=True)
        return None


def _digest_file(pack: Path) -> Path:
    return pack.with_name(pack.name + ".sha256")


def _digest_matches(pack: Path) -> bool:
    """Whether ``pack``'s bytes have the sha256 kept beside it when it was downloaded (no regular file kept, or
    another sha256: False)."""
    import hashlib

    kept = _digest_file(pack)
    try:
        if kept.is_symlink() or not kept.is_file() or pack.is_symlink():
            return False
        want = kept.read_text(encoding="ascii").strip()
        return re.fullmatch(r"[0-9a-f]{64}", want) is not None and hashlib.sha256(pack.read_bytes()).hexdigest() == want
    except (OSError, UnicodeDecodeError):
        return False


def _get_pack(http, url: str, policy, what: str = "") -> bytes | None:
    """The bytes at ``url`` (None for a 404), at most :data:`MAX_PACK` bytes in :data:`MAX_SECONDS` seconds; a
    redirect to a URL :func:`https_only` refuses is refused (StageError)."""
    from bot.errors import PlatformError
    from bot.github.client import BodyTooSlow, body_chunks, http_get

    r = http_get(http, url, what="download a pack a component requires", policy=policy, stream=True, ok=(200, 404))
    try:
        https_only(r.url or url, f"{what or url}: redirected to")
    except StageError:
        r.close()
        raise
    if r.status_code == 404:
        r.close()
        return None
    out = bytearray()
    try:
        for chunk in body_chunks(r, size=1 << 16, seconds=MAX_SECONDS):
            out += chunk
            if len(out) > MAX_PACK:
                raise PlatformError(f"{url} is larger than {MAX_PACK >> 20} MiB")
    except BodyTooSlow:
        raise PlatformError(f"{url} took longer than {MAX_SECONDS} s to send") from None
    finally:
        r.close()
    return bytes(out)


def component_sources(resolved: ResolvedPack) -> list[tuple[str, str]]:
    """``[(language, absolute path)]`` of the component's source files (``source``, ``sourceC``, ``sourceCpp``,
    ``sourceAsm``; the language of ``source`` from its extension), in the PDSC's order."""
    out = []
    for f in resolved.component.files:
        if f.category not in ("source", "sourceC", "sourceCpp", "sourceAsm"):
            continue
        name = posixpath.normpath(f.name)
        ext = posixpath.splitext(name)[1]
        lang = {"sourceC": "c", "sourceCpp": "c++"}.get(f.category) or _SOURCE_LANG.get(ext) \
            or _SOURCE_LANG.get(ext.lower())
        if lang is None:
            continue
        item = (lang, str(resolved.root / name))
        if item not in out:
            out.append(item)
    return out


def component_include_dirs(resolved: ResolvedPack) -> list[str]:
    """Absolute include folders: the folder of each ``header`` file and each ``include`` folder."""
    out = []
    for f in resolved.component.files:
        d = None
        if f.category == "include":
            d = f.name.rstrip("/") or "."
        elif f.category == "header":
            d = posixpath.dirname(f.name) or "."
        if d is not None:
            p = str(resolved.root / posixpath.normpath(d))
            if p not in out:
                out.append(p)
    return out


def entries(resolved: ResolvedPack) -> list[str]:
    """The pack-relative entries of the component's sources and include folders (for the pack-root check)."""
    root = str(resolved.root)
    return [p[len(root) + 1:] if p.startswith(root + "/") else p
            for p in [s for _, s in component_sources(resolved)] + component_include_dirs(resolved)]
