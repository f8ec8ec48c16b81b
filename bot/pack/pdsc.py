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
    with a ``<package>`` root.  lxml then reads the decoded text as UTF-8 (its
    own encoding detection is never used), with no network, no DTD and no
    entity resolution.

    The document is read as a stream of elements (:func:`lxml.etree.iterparse`):
    each child of the root and each component is turned into values when it
    ends, then dropped from the tree, so memory holds the values, not the tree.
    Read: the first ``<vendor>``, ``<name>``, ``<url>``, ``<license>``,
    ``<description>`` and ``<releases>`` of the root, and the components of its
    first ``<components>`` (directly, or in a ``<bundle>``, whose Cclass,
    Cversion and Cbundle they inherit).  A component that cannot be read is
    reported only once the whole document has parsed, so a malformed document
    is always reported as such first.
    """
    from io import BytesIO

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
    del upper
    # the bytes lxml reads: the decoded text as UTF-8 (the input itself when it is UTF-8 without a BOM)
    raw = data if data[:3] != b"\xef\xbb\xbf" and not data.startswith((b"\xff\xfe", b"\xfe\xff")) else text.encode("utf-8")
    del text
    # remove_comments: a comment inside an element (<vendor><!-- x -->PyTorch</vendor>) must not cut its text
    events = etree.iterparse(BytesIO(raw), events=("end",), tag=_STREAMED, resolve_entities=False, no_network=True,
                             load_dtd=False, dtd_validation=False, huge_tree=False, remove_pis=True,
                             remove_comments=True, collect_ids=False, encoding="utf-8")
    texts: dict = {}            # vendor/name/url/license -> (stripped text, line)
    overview = None
    releases: list = []
    components: list = []
    seen: set = set()           # local names of the root's children that have ended
    deferred: PdscError | None = None
    try:
        for _, el in events:
            parent = el.getparent()
            if parent is None:
                continue
            tag = _local(el)
            grand = parent.getparent()
            if grand is None:                       # a child of the root
                if tag not in seen:
                    seen.add(tag)
                    if tag in ("vendor", "name", "url", "license"):
                        texts[tag] = ((el.text or "").strip(), el.sourceline)
                    elif tag == "description":
                        overview = el.get("overview")
                    elif tag == "releases":
                        releases = [Release((r.get("version") or "").strip(), r.get("date"), r.sourceline)
                                    for r in el.iterchildren("{*}release")]
                _drop(el, parent)
            elif tag == "component" and "components" not in seen:
                inherited = None
                if grand.getparent() is None and _local(parent) == "components":
                    inherited = {}
                elif (_local(parent) == "bundle" and _local(grand) == "components"
                      and grand.getparent() is not None and grand.getparent().getparent() is None):
                    inherited = {"Cclass": parent.get("Cclass"), "Cversion": parent.get("Cversion"),
                                 "Cbundle": parent.get("Cbundle")}
                if inherited is not None:
                    try:
                        components.append(_component(el, inherited, path))
                    except PdscError as exc:
                        deferred = deferred or exc
                    _drop(el, parent)
    except etree.XMLSyntaxError as exc:
        raise _syntax_error(etree, raw, exc, path) from exc
    root = events.root
    if root.getroottree().docinfo.doctype:
        raise PdscError("declares a DOCTYPE; DTDs are refused in a PDSC", path=path)
    if _local(root) != "package":
        raise PdscError(f"root element is <{_local(root)}>, expected <package>", path=path, line=root.sourceline)
    if deferred is not None:
        raise deferred
    vendor, _ = texts.get("vendor", (None, None))
    name, _ = texts.get("name", (None, None))
    url, url_line = texts.get("url", (None, None))
    lic, _ = texts.get("license", (None, None))
    return Pdsc(path=path, vendor=vendor, name=name, url=url, releases=tuple(releases),
                components=tuple(components), license=lic or None, overview=overview, url_line=url_line)


def _syntax_error(etree, raw: bytes, exc, path: str) -> PdscError:
    """The :class:`PdscError` for a document the streaming parser refused, worded and placed by the tree parser.

    The streaming parser reads in chunks and words some errors after the fact: an undefined entity
    (``&foo;``) comes out as "no element found" at line 0, a too-long attribute at the line the
    chunk ended, not the line holding it.  The tree parser (the same options) reads the whole
    document and says what and where; it runs only on this error path.  Should it accept the
    document, the streaming parser's own message is kept (at line 1 or later).
    """
    parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, dtd_validation=False,
                             huge_tree=False, remove_pis=True, remove_comments=True, collect_ids=False,
                             encoding="utf-8")
    try:
        etree.fromstring(raw, parser)
    except etree.XMLSyntaxError as tree_exc:
        exc = tree_exc
    position = getattr(exc, "position", None)
    line = max(position[0], 1) if position else None
    return PdscError(f"not well-formed XML: {exc.msg}", path=path, line=line)


#: The elements :func:`parse_pdsc` is told of when they end (in any namespace): what it reads, and the
#: large children of the root it frees (a child of the root also frees the children before it).
_STREAMED = tuple("{*}" + t for t in ("component", "vendor", "name", "url", "license", "description", "releases",
                                      "components", "conditions", "taxonomy", "apis", "examples", "boards"))


def _drop(el, parent) -> None:
    """Free an element that has been read: its content, and the siblings before it (read already)."""
    el.clear(keep_tail=True)
    while el.getprevious() is not None:
        del parent[0]


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


#: The component children whose text holds ``#define`` lines, in the order their defines are listed.
_DEFINE_BLOCKS = ("RTE_Components_h", "Pre_Include_Global_h", "Pre_Include_Local_Component_h")


def _component(el, inherited: dict, path: str) -> Component:
    """One ``<component>`` element as a :class:`Component`: its first ``<files>`` and first block of each
    :data:`_DEFINE_BLOCKS` tag count (children are visited once)."""
    get = el.get
    fparent = None
    blocks: dict = {}
    for c in el:
        tag = _local(c)
        if tag == "files":
            if fparent is None:
                fparent = c
        elif tag in _DEFINE_BLOCKS and tag not in blocks:
            blocks[tag] = c
    files = []
    if fparent is not None:
        for f in fparent.iterchildren("{*}file"):
            fget = f.get
            files.append(PdscFile(fget("category") or "", fget("name") or "", f.sourceline, fget("condition")))
    defines = []
    for tag in _DEFINE_BLOCKS:
        block = blocks.get(tag)
        if block is not None and block.text:
            if len(block.text) > MAX_DEFINES_TEXT:
                raise PdscError(f"<{tag}> holds {len(block.text)} characters, more than {MAX_DEFINES_TEXT}",
                                path=path, line=block.sourceline)
            for line in _LINE_BREAK.split(block.text):
                m = _DEFINE.fullmatch(line.strip())
                if m:
                    value = (m.group(2) or "").strip()
                    defines.append(m.group(1) + (f"={value}" if value else ""))

    def attr(n: str):
        v = get(n)
        return v if v is not None else inherited.get(n)

    return Component(cclass=attr("Cclass") or "", cgroup=get("Cgroup") or "", csub=get("Csub"),
                     cversion=attr("Cversion"), line=el.sourceline, cbundle=attr("Cbundle"),
                     cvariant=get("Cvariant"), condition=get("condition"), files=tuple(files),
                     defines=tuple(defines))
