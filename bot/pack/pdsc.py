"""Hardened parsing of a pack's ``.pdsc`` manifest into small frozen values.

Facts (FORMATS.md section 3): the PDSC is XML, ``<package schemaVersion="1.7">``
with ``<vendor>``, ``<name>``, ``<url>``, ``<description overview=...>``,
``<license>``, ``<releases><release version date>``, ``<conditions>`` and
``<components>``.  Components carry ``Cclass``/``Cgroup``/``Csub`` (and
optionally ``Cbundle``/``Cvariant``, ``Cversion`` inherited from a
``<bundle>``), ``<file category name>`` children, and defines in
``<RTE_Components_h>`` (``#define RTE_ML_EXECUTORCH_OP_PORTABLE_ADD``).

The parser is hardened: a PDSC never needs a DOCTYPE, so any ``<!DOCTYPE``
is refused before parsing (this stops external entities and the
billion-laughs expansion), and lxml runs with entity resolution, DTD
loading and network access off and the huge-tree limits on.  Comments and
processing instructions are dropped while parsing, so an element's text is
read whole whatever comments it holds.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from bot.errors import PackError

MAX_PDSC_BYTES = 32 << 20
_DEFINE = re.compile(r"^\s*#\s*define\s+([A-Za-z_]\w*)(?:[ \t]+(.*?))?\s*$", re.M)


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
        """Components of ``Cgroup="ExecuTorch Operators"`` (FORMATS.md section 3)."""
        return [c for c in self.components if c.cgroup == "ExecuTorch Operators"]

    def component(self, cclass: str, cgroup: str, csub: str | None) -> Component | None:
        for c in self.components:
            if (c.cclass, c.cgroup, c.csub) == (cclass, cgroup, csub):
                return c
        return None


def _line_of(data: bytes, offset: int) -> int:
    return data.count(b"\n", 0, offset) + 1


def parse_pdsc(data: bytes, path: str) -> Pdsc:
    """Parse PDSC bytes; raises :class:`PdscError` naming ``path`` and the line.

    Refuses a DOCTYPE (external entities, billion laughs) before parsing, and
    anything that is not well-formed XML with a ``<package>`` root.
    """
    from lxml import etree  # imported here: keeps CLI start-up fast

    if len(data) > MAX_PDSC_BYTES:
        raise PdscError(f"{len(data)} bytes, more than {MAX_PDSC_BYTES}", path=path)
    for marker in (b"<!DOCTYPE", b"<!ENTITY", "<!DOCTYPE".encode("utf-16-le"), "<!DOCTYPE".encode("utf-16-be")):
        at = data.find(marker)
        if at >= 0:
            raise PdscError("declares a DOCTYPE/ENTITY; DTDs and entities are refused in a PDSC",
                            path=path, line=_line_of(data, at))
    # remove_comments: a comment inside an element (<vendor><!-- x -->PyTorch</vendor>) must not cut its text
    parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, dtd_validation=False,
                             huge_tree=False, remove_pis=True, remove_comments=True, collect_ids=False)
    try:
        root = etree.fromstring(data, parser)
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
                components.append(_component(el, {}))
            elif tag == "bundle":
                inherited = {"Cclass": el.get("Cclass"), "Cversion": el.get("Cversion"), "Cbundle": el.get("Cbundle")}
                for sub in _children(el, "component"):
                    components.append(_component(sub, inherited))
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


def _component(el, inherited: dict) -> Component:
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
            for m in _DEFINE.finditer(block.text):
                defines.append(m.group(1) + (f"={m.group(2)}" if m.group(2) else ""))
    return Component(cclass=attr("Cclass") or "", cgroup=el.get("Cgroup") or "", csub=el.get("Csub"),
                     cversion=attr("Cversion"), line=el.sourceline, cbundle=attr("Cbundle"),
                     cvariant=el.get("Cvariant"), condition=el.get("condition"), files=tuple(files),
                     defines=tuple(defines))
