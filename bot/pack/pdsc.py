"""Hardened parsing of a pack's ``.pdsc`` manifest into small frozen values.

Facts (ExecuTorch's cmsis_pack/templates/PyTorch.ExecuTorch.pdsc.tpl at v1.4.1): the PDSC is XML, ``<package schemaVersion="1.7">``
with ``<vendor>``, ``<name>``, ``<url>``, ``<description overview=...>``,
``<license>``, ``<releases><release version date>``, ``<conditions>`` and
``<components>``.  Components carry ``Cclass``/``Cgroup``/``Csub`` (and
optionally ``Cbundle``/``Cvariant``, ``Cversion`` inherited from a
``<bundle>``), ``<file category name>`` children, and defines in
``<RTE_Components_h>`` (``#define RTE_ML_EXECUTORCH_OP_PORTABLE_ADD``).

The parser is hardened: the bytes are decoded first (UTF-8, or UTF-16 with a
byte-order mark; any other encoding is refused, so a ``<!DOCTYPE`` cannot
hide in UTF-32 or EBCDIC from the scan that follows); a PDSC never needs a
DOCTYPE, so any ``<!DOCTYPE``/``<!ENTITY`` in the decoded text is refused
before parsing (this stops external entities, parameter entities naming
local files, and the billion-laughs expansion), and lxml runs with entity resolution, DTD
loading and network access off and the huge-tree limits on.  Comments and
processing instructions are dropped while parsing, so an element's text is
read whole whatever comments it holds.
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass

from bot.errors import PackError

MAX_PDSC_BYTES = 32 << 20
#: Longest ``<RTE_Components_h>``/``<Pre_Include_*_h>`` text of one component (characters); a real one is a few lines.
MAX_DEFINES_TEXT = 1 << 18
# Matched against one stripped line at a time (never with re.M over the block: ``^\s*#`` there
# spans newlines and backtracks quadratically over a run of empty lines).
_DEFINE = re.compile(r"#[ \t]*define[ \t]+([A-Za-z_]\w*)(?:[ \t]+(.*))?")
_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_ENCODING_DECL = re.compile(r"""<\?xml[^>]{0,200}?\bencoding[ \t\r\n]*=[ \t\r\n]*["']([A-Za-z0-9._-]{1,40})["']""")


class PdscError(PackError):
    """The PDSC cannot be parsed or is unsafe; carries the PDSC path and line."""


@dataclass(frozen=True)
class PdscFile:
    """One ``<file>`` of a component: ``category`` (``sourceCpp``, ``include``, ``header`` ...), ``name``, source line."""

    category: str
    name: str
    line: int
    condition: str | None = None


@dataclass(frozen=True)
class Component:
    """One ``<component>`` (bundle attributes already inherited).

    ``defines`` are ``NAME`` or ``NAME=VALUE`` strings from the component's
    ``<RTE_Components_h>`` and ``<Pre_Include_*_h>`` texts.
    """

    cclass: str
    cgroup: str
    csub: str | None
    cversion: str | None
    line: int
    cbundle: str | None = None
    cvariant: str | None = None
    condition: str | None = None
    files: tuple = ()
    defines: tuple = ()

    @property
    def key(self) -> tuple:
        """What must be unique in a pack: (Cclass, Cbundle, Cgroup, Csub, Cvariant)."""
        return (self.cclass, self.cbundle, self.cgroup, self.csub, self.cvariant)

    @property
    def ident(self) -> str:
        """The csolution component id without vendor/version: ``Machine Learning:ExecuTorch Operators:Portable add``."""
        s = self.cclass + (f"&{self.cbundle}" if self.cbundle else "") + ":" + self.cgroup
        if self.csub:
            s += ":" + self.csub
        if self.cvariant:
            s += "&" + self.cvariant
        return s


@dataclass(frozen=True)
class Release:
    """``<release version date>`` with its source line."""

    version: str
    date: str | None
    line: int


@dataclass(frozen=True)
class Pdsc:
    """The parts of a PDSC the checks use.  ``path`` is the entry name inside the pack."""

    path: str
    vendor: str | None
    name: str | None
    url: str | None
    releases: tuple
    components: tuple
    license: str | None = None
    overview: str | None = None
    url_line: int | None = None

    def operators(self) -> list[Component]:
        """Components of ``Cgroup="ExecuTorch Operators"`` (ExecuTorch's cmsis_pack/templates/PyTorch.ExecuTorch.pdsc.tpl at v1.4.1)."""
        return [c for c in self.components if c.cgroup == "ExecuTorch Operators"]

    def component(self, cclass: str, cgroup: str, csub: str | None) -> Component | None:
        for c in self.components:
            if (c.cclass, c.cgroup, c.csub) == (cclass, cgroup, csub):
                return c
        return None


def _line_of(data: bytes, offset: int) -> int:
    return data.count(b"\n", 0, offset) + 1


def decode_pdsc(data: bytes, path: str) -> str:
    """The PDSC's text: UTF-8 (with or without a BOM) or UTF-16 with a BOM; raises :class:`PdscError` otherwise.

    XML 1.0 (section 4.3.3, "Character Encoding in Entities") lets a document
    without a BOM or an encoding declaration be UTF-8 only; CMSIS packs are
    UTF-8.  A UTF-32 BOM, a declared encoding other than UTF-8/UTF-16, or
    bytes that do not decode are refused, so that the ``<!DOCTYPE`` scan of
    :func:`parse_pdsc` sees exactly the text the XML parser would read.
    """
    if data.startswith((codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE)):
        raise PdscError("is UTF-32; a PDSC must be UTF-8 (or UTF-16 with a byte-order mark)", path=path)
    if data.startswith(codecs.BOM_UTF8):
        codec, body = "utf-8", data[len(codecs.BOM_UTF8):]
    elif data.startswith(codecs.BOM_UTF16_LE):
        codec, body = "utf-16-le", data[2:]
    elif data.startswith(codecs.BOM_UTF16_BE):
        codec, body = "utf-16-be", data[2:]
    else:
        codec, body = "utf-8", data
    try:
        text = body.decode(codec)
    except UnicodeDecodeError as exc:
        raise PdscError(f"is not {codec.upper()} text (byte {exc.start}); a PDSC must be UTF-8 "
                        "(or UTF-16 with a byte-order mark)", path=path, line=_line_of(body, exc.start)) from None
    if "\x00" in text:   # not XML (1.0, section 2.2); UTF-16/32 without a BOM decodes as "valid" UTF-8 like this
        raise PdscError("holds NUL characters (UTF-16 or UTF-32 without a byte-order mark?); a PDSC must be UTF-8 "
                        "(or UTF-16 with a byte-order mark)", path=path, line=text.count("\n", 0, text.index("\x00")) + 1)
    decl = _ENCODING_DECL.match(text)
    if decl and decl.group(1).lower().replace("_", "-") not in ("utf-8", "utf8", "utf-16", "utf16"):
        raise PdscError(f"declares encoding {decl.group(1)!r}; a PDSC must be UTF-8 (or UTF-16 with a byte-order "
                        "mark)", path=path, line=1)
    return text


def parse_pdsc(data: bytes, path: str) -> Pdsc:
    """Parse PDSC bytes; raises :class:`PdscError` naming ``path`` and the line.

    Decodes first (:func:`decode_pdsc`), refuses a DOCTYPE or ENTITY in the
    decoded text (external entities, parameter entities naming local files,
    billion laughs) before parsing, and anything that is not well-formed XML
    with a ``<package>`` root.  lxml then reads the decoded text re-encoded as
    UTF-8 (its own encoding detection is never used), with no network, no DTD
    and no entity resolution.
    """
    from lxml import etree  # imported here: keeps CLI start-up fast

    if len(data) > MAX_PDSC_BYTES:
        raise PdscError(f"{len(data)} bytes, more than {MAX_PDSC_BYTES}", path=path)
    text = decode_pdsc(data, path)
    upper = text.upper()   # XML names are case-sensitive, but refuse any spelling
    for marker in ("<!DOCTYPE", "<!ENTITY"):
        at = upper.find(marker)
        if at >= 0:
            raise PdscError("declares a DOCTYPE/ENTITY; DTDs and entities are refused in a PDSC",
                            path=path, line=text.count("\n", 0, at) + 1)
    # remove_comments: a comment inside an element (<vendor><!-- x -->PyTorch</vendor>) must not cut its text
    parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, dtd_validation=False,
                             huge_tree=False, remove_pis=True, remove_comments=True, collect_ids=False,
                             encoding="utf-8")
    try:
        root = etree.fromstring(text.encode("utf-8"), parser)
    except etree.XMLSyntaxError as exc:
        line = exc.position[0] if getattr(exc, "position", None) else None
        raise PdscError(f"not well-formed XML: {exc.msg}", path=path, line=line) from exc
    if root.getroottree().docinfo.doctype:
        raise PdscError("declares a DOCTYPE; DTDs are refused in a PDSC", path=path)
    if _local(root) != "package":
        raise PdscError(f"root element is <{_local(root)}>, expected <package>", path=path, line=root.sourceline)

    def text(tag: str) -> tuple[str | None, int | None]:
        el = _child(root, tag)
        return ((el.text or "").strip(), el.sourceline) if el is not None else (None, None)

    vendor, _ = text("vendor")
    name, _ = text("name")
    url, url_line = text("url")
    lic, _ = text("license")
    desc = _child(root, "description")
    overview = desc.get("overview") if desc is not None else None
    releases = []
    rel_parent = _child(root, "releases")
    if rel_parent is not None:
        for el in _children(rel_parent, "release"):
            releases.append(Release((el.get("version") or "").strip(), el.get("date"), el.sourceline))
    components = []
    comps = _child(root, "components")
    if comps is not None:
        for el in comps:
            tag = _local(el)
            if tag == "component":
                components.append(_component(el, {}, path))
            elif tag == "bundle":
                inherited = {"Cclass": el.get("Cclass"), "Cversion": el.get("Cversion"), "Cbundle": el.get("Cbundle")}
                for sub in _children(el, "component"):
                    components.append(_component(sub, inherited, path))
    return Pdsc(path=path, vendor=vendor, name=name, url=url, releases=tuple(releases),
                components=tuple(components), license=lic or None, overview=overview, url_line=url_line)


def _local(el) -> str:
    tag = el.tag
    if not isinstance(tag, str):
        return ""
    return tag.rsplit("}", 1)[-1]


def _child(el, tag: str):
    for c in el:
        if _local(c) == tag:
            return c
    return None


def _children(el, tag: str):
    return [c for c in el if _local(c) == tag]


def _component(el, inherited: dict, path: str) -> Component:
    def attr(n: str):
        v = el.get(n)
        return v if v is not None else inherited.get(n)

    files = []
    fparent = _child(el, "files")
    if fparent is not None:
        for f in _children(fparent, "file"):
            files.append(PdscFile(f.get("category") or "", f.get("name") or "", f.sourceline, f.get("condition")))
    defines = []
    for tag in ("RTE_Components_h", "Pre_Include_Global_h", "Pre_Include_Local_Component_h"):
        block = _child(el, tag)
        if block is not None and block.text:
            if len(block.text) > MAX_DEFINES_TEXT:
                raise PdscError(f"<{tag}> holds {len(block.text)} characters, more than {MAX_DEFINES_TEXT}",
                                path=path, line=block.sourceline)
            for line in _LINE_BREAK.split(block.text):
                m = _DEFINE.fullmatch(line.strip())
                if m:
                    value = (m.group(2) or "").strip()
                    defines.append(m.group(1) + (f"={value}" if value else ""))
    return Component(cclass=attr("Cclass") or "", cgroup=el.get("Cgroup") or "", csub=el.get("Csub"),
                     cversion=attr("Cversion"), line=el.sourceline, cbundle=attr("Cbundle"),
                     cvariant=el.get("Cvariant"), condition=el.get("condition"), files=tuple(files),
                     defines=tuple(defines))
