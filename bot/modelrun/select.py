"""Pick the pack's components a program needs, and write the headers CMSIS-Toolbox would generate.

The components of one run are the base ones (``Machine Learning:ExecuTorch``
``Runtime``, ``Kernel Utils``, ``Kernel Registration``: the layout of
ExecuTorch's cmsis_pack/templates/PyTorch.ExecuTorch.pdsc.tpl at v1.4.1) and
exactly one operator component (``Cgroup="ExecuTorch Operators"``) per
operator of the ``.pte``.  An operator ``NS::NAME`` maps to the Csub
``KIND NAME`` (leading underscores dropped) where KIND is the library of its
namespace (:data:`KINDS`: ``aten`` -> ``Portable``, ``quantized_decomposed``
-> ``Quantized``, ``cortex_m`` -> ``Cortex-M``), or else to the component
whose source file is ``op_NAME.cpp`` in that library's folder; a quantized
operator also maps to the family its name starts with (``quantize_per_tensor``
-> ``Quantized quantize``, whose ``op_quantize.cpp`` holds the family).

``RTE_Components.h`` holds the ``<RTE_Components_h>`` text of each selected
component, and ``Pre_Include_Global.h`` its ``<Pre_Include_Global_h>`` text
(included in every compile with ``-include``), as CMSIS-Toolbox writes them
(Open-CMSIS-Pack's "Pack Description (.pdsc) Format", element ``component``).
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass

from bot.modelrun import StageError
from bot.pack.pdsc import Component, Pdsc

#: Operator namespace -> the Csub prefix of its kernel library in the pack.
KINDS = {"aten": "Portable", "quantized_decomposed": "Quantized", "cortex_m": "Cortex-M"}
#: Source folders of each library (the pack's src/ layout, ExecuTorch's build_pack.sh at v1.4.1).
KIND_DIRS = {"Portable": "kernels/portable/cpu/", "Quantized": "kernels/quantized/cpu/",
             "Cortex-M": "backends/cortex_m/ops/"}
#: Prim ops: registered by the runtime's prim-op library, which no component of the v1.4.1 pack holds.
PRIM_OPS = ("aten::sym_size", "aten::sym_numel", "aten::sym_stride", "aten::_local_scalar_dense")
PRIM_NAMESPACES = ("executorch_prim",)
BASE = (("Machine Learning", "ExecuTorch", "Runtime"), ("Machine Learning", "ExecuTorch", "Kernel Utils"),
        ("Machine Learning", "ExecuTorch", "Kernel Registration"))


@dataclass(frozen=True)
class Selection:
    """The components of one image: ``base`` (Runtime, Kernel Utils, Kernel Registration) then
    ``operators`` as ``(operator name, component)`` pairs in the program's order."""

    base: tuple
    operators: tuple

    @property
    def components(self) -> list[Component]:
        out = list(self.base)
        for _, c in self.operators:
            if c not in out:
                out.append(c)
        return out


def operator_component(pdsc: Pdsc, op: str) -> Component | None:
    """The operator component of ``pdsc`` for ``op`` (``"aten::add"``), or None; see the module docstring."""
    ns, _, name = op.partition("::")
    kind = KINDS.get(ns)
    if kind is None or not name:
        return None
    ops = pdsc.operators()
    want = f"{kind} {name.lstrip('_')}"
    for c in ops:
        if c.csub == want:
            return c
    tail = KIND_DIRS[kind] + f"op_{name}.cpp"
    for c in ops:
        if any(f.category in ("sourceCpp", "sourceC") and f.name.endswith(tail) for f in c.files):
            return c
    if kind == "Quantized":
        # one source holds a family: op_quantize.cpp has quantize_per_tensor, quantize_per_channel, ...
        # (ExecuTorch's kernels/quantized/cpu at v1.4.1): the longest Csub name that starts the operator's
        # name at a '_' boundary.
        best = None
        for c in ops:
            base = (c.csub or "")[len(kind) + 1:] if (c.csub or "").startswith(kind + " ") else None
            if base and name.startswith(base + "_") and (best is None or len(base) > len(best[0])):
                best = (base, c)
        if best is not None:
            return best[1]
    return None


def select(pdsc: Pdsc, operators: list[str]) -> Selection:
    """The :class:`Selection` for ``operators`` (``["aten::add", ...]``, overloads dropped).

    Raises :class:`StageError` (stage ``select``) naming every operator the
    pack lacks (a prim op says it is in no component), or a base component
    that is missing.
    """
    base = []
    for key in BASE:
        c = pdsc.component(*key)
        if c is None:
            raise StageError("select", f"{pdsc.path}: the pack has no {':'.join(key)} component")
        base.append(c)
    chosen, missing = [], []
    for op in operators:
        if op in PRIM_OPS or op.partition("::")[0] in PRIM_NAMESPACES:
            missing.append(f"{op} (a prim op: no component of the pack holds the prim-op library)")
            continue
        c = operator_component(pdsc, op)
        if c is None:
            ns = op.partition("::")[0]
            why = (f"no operator component {KINDS[ns]} {op.partition('::')[2].lstrip('_')}" if ns in KINDS
                   else f"namespace {ns!r} maps to no kernel library of the pack")
            missing.append(f"{op} ({why})")
        else:
            chosen.append((op, c))
    if missing:
        raise StageError("select", f"the program needs {len(missing)} operator(s) the pack lacks: "
                         + "; ".join(missing), missing)
    return Selection(tuple(base), tuple(chosen))


def define_blocks(pdsc_bytes: bytes) -> dict:
    """``{(Cclass, Cgroup, Csub): {"RTE_Components_h": text, "Pre_Include_Global_h": text}}`` of a PDSC.

    Read with lxml without network, DTD or entities; call only on bytes
    :func:`bot.pack.pdsc.parse_pdsc` accepted (it refuses a DOCTYPE first).
    Bundled components inherit the bundle's Cclass.
    """
    from lxml import etree

    parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False,
                             remove_comments=True, remove_pis=True)
    root = etree.fromstring(pdsc_bytes, parser)
    out: dict = {}
    for el in root.iter("{*}component", "component"):
        parent = el.getparent()
        cclass = el.get("Cclass") or (parent.get("Cclass") if parent is not None else None) or ""
        blocks = {}
        for child in el:
            tag = child.tag.rsplit("}", 1)[-1] if isinstance(child.tag, str) else ""
            if tag in ("RTE_Components_h", "Pre_Include_Global_h") and tag not in blocks:
                blocks[tag] = child.text or ""
        out.setdefault((cclass, el.get("Cgroup") or "", el.get("Csub")), blocks)
    return out


def _header(guard: str, parts: list[tuple[str, str]]) -> str:
    lines = ["/* Generated by executorch-pack-bot run-model from the pack's PDSC, as CMSIS-Toolbox would. */",
             f"#ifndef {guard}", f"#define {guard}", ""]
    for ident, text in parts:
        body = [ln.strip() for ln in text.splitlines() if ln.strip()]
        if body:
            lines.append(f"/* {ident} */")
            lines += body
            lines.append("")
    lines.append(f"#endif /* {guard} */")
    return "\n".join(lines) + "\n"


def generated_headers(selection: Selection, blocks: dict) -> dict:
    """``{"RTE_Components.h": text, "Pre_Include_Global.h": text}`` for the selected components."""
    rte, pre = [], []
    for c in selection.components:
        b = blocks.get((c.cclass, c.cgroup, c.csub), {})
        rte.append((c.ident, b.get("RTE_Components_h", "")))
        pre.append((c.ident, b.get("Pre_Include_Global_h", "")))
    return {"RTE_Components.h": _header("RTE_COMPONENTS_H", rte),
            "Pre_Include_Global.h": _header("PRE_INCLUDE_GLOBAL_H", pre)}


def sources(selection: Selection) -> list[tuple[str, str]]:
    """``[(language, pack entry)]`` of every ``sourceCpp``/``sourceC`` file of the selected components."""
    out = []
    for c in selection.components:
        for f in c.files:
            if f.category in ("sourceCpp", "sourceC"):
                item = ("c++" if f.category == "sourceCpp" else "c", posixpath.normpath(f.name))
                if item not in out:
                    out.append(item)
    return out


def include_dirs(selection: Selection) -> list[str]:
    """Pack-relative include folders: ``include`` files (folders) and the folders of ``header`` files."""
    out = []
    for c in selection.components:
        for f in c.files:
            d = None
            if f.category == "include":
                d = f.name.rstrip("/") or "."
            elif f.category == "header":
                d = posixpath.dirname(f.name) or "."
            if d and d not in out:
                out.append(d)
    return out
