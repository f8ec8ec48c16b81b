"""What changed upstream between two release tags that matters to a template.

Computed from the two tags through an :class:`~bot.upstream.source.UpstreamSource`
(``changed_paths``, ``ancestry``, ``read``), the same way the pins are read:

- the ``.pte`` format: whether ``schema/*.fbs`` changed beyond comments and
  white space (the files are tokenised: ``//`` and ``/* */`` comments
  dropped, string literals kept whole; a ``.pte`` written by the old exporter
  loads in the new runtime only when the schema tokens are equal);
- for each ExecuTorch component the template selects, whether the upstream
  files behind it changed (:func:`component_paths` maps a component to
  upstream paths from the pack's ``<file>`` list, or by the operator naming convention of ExecuTorch's cmsis_pack/templates/PyTorch.ExecuTorch.pdsc.tpl at v1.4.1 when no PDSC is at hand);
- the Arm backends (``backends/arm/``, ``backends/cortex_m/``): files changed,
  Python pass classes (``class ...Pass``) and operator files (``op_*.py``,
  ``op_*.cpp``) added or removed;
- whether the old tag is an ancestor of the new one, and the commit count.

Upstream files are foreign: every name taken from them is rendered through
:mod:`bot.inert` by :mod:`bot.report`.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from typing import Iterable, Optional

from bot.errors import UpstreamError

SCHEMA_DIR = "schema/"
BACKENDS = ("backends/arm/", "backends/cortex_m/")
MAX_SOURCE_BYTES = 1 << 20      # an upstream Python or schema file larger than this is not parsed (named as such)

# One token of a FlatBuffers schema; each alternative is anchored on its first character, so the scan is linear.
_FBS_TOKEN = re.compile(r'//[^\n]*|/\*(?:[^*]|\*(?!/))*(?:\*/|\Z)|"(?:[^"\\\n]|\\.)*"?|[A-Za-z_][\w.]*|\d[\w.]*|\S')


def schema_tokens(text: str) -> list[str]:
    """The tokens of a FlatBuffers schema without comments or white space (flatc grammar: ``//`` and ``/* */``)."""
    return [t for t in _FBS_TOKEN.findall(text) if not t.startswith(("//", "/*"))]


@dataclass(frozen=True)
class SchemaChange:
    """One ``schema/*.fbs`` file that changed between the tags.

    ``kind``: ``"added"``, ``"removed"``, ``"edited"`` (tokens differ),
    ``"comments"`` (only comments or white space differ) or ``"unread"``
    (too large or not UTF-8: counted as a real change).
    """

    path: str
    kind: str

    @property
    def real(self) -> bool:
        """True when a ``.pte`` written with the old schema may not load: anything but a comment-only edit."""
        return self.kind != "comments"


@dataclass(frozen=True)
class ComponentChange:
    """A component the template selects and the upstream files behind it that changed.

    ``ident``: the csolution component id (``Machine Learning:ExecuTorch Operators:Portable add``);
    ``paths``: upstream paths (or folder prefixes ending ``/``) the component is built from;
    ``changed``: the changed upstream paths among them, sorted;
    ``by_convention``: True when ``paths`` came from the naming convention, not a PDSC.
    """

    ident: str
    paths: tuple[str, ...]
    changed: tuple[str, ...]
    by_convention: bool = False


@dataclass(frozen=True)
class BackendChange:
    """Changes under one backend folder: ``files`` changed (sorted), pass classes and operators added/removed."""

    folder: str
    files: tuple[str, ...] = ()
    passes_added: tuple[str, ...] = ()
    passes_removed: tuple[str, ...] = ()
    operators_added: tuple[str, ...] = ()
    operators_removed: tuple[str, ...] = ()
    unread: tuple[str, ...] = ()


@dataclass
class UpstreamChanges:
    """Everything :func:`upstream_changes` found between ``old_tag`` and ``new_tag``.

    ``paths`` is None when the source cannot list changed paths (then the
    schema, component and backend parts are unknown, not "unchanged").
    """

    old_tag: str
    new_tag: str
    paths: Optional[list[str]] = None
    ancestor: Optional[bool] = None
    commits: Optional[int] = None
    schema: list[SchemaChange] = field(default_factory=list)
    components: list[ComponentChange] = field(default_factory=list)
    backends: list[BackendChange] = field(default_factory=list)
    error: Optional[str] = None

    @property
    def schema_changed(self) -> bool:
        """True when any ``schema/*.fbs`` changed beyond comments (the models must be re-exported)."""
        return any(s.real for s in self.schema)


def _decode(data: Optional[bytes]) -> Optional[str]:
    if data is None or len(data) > MAX_SOURCE_BYTES:
        return None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return None


def _is_schema(path: str) -> bool:
    return path.startswith(SCHEMA_DIR) and path.endswith(".fbs") and "/" not in path[len(SCHEMA_DIR):]


def schema_changes(source, old_tag: str, new_tag: str, paths: Iterable[str]) -> list[SchemaChange]:
    """Classify each changed ``schema/*.fbs`` path (see :class:`SchemaChange`)."""
    out = []
    for path in sorted(p for p in paths if _is_schema(p)):
        old, new = source.read(old_tag, path), source.read(new_tag, path)
        if old is None or new is None:
            out.append(SchemaChange(path, "added" if old is None else "removed"))
            continue
        a, b = _decode(old), _decode(new)
        if a is None or b is None:
            out.append(SchemaChange(path, "unread"))
        else:
            out.append(SchemaChange(path, "comments" if schema_tokens(a) == schema_tokens(b) else "edited"))
    return out


def pack_to_upstream(name: str) -> Optional[str]:
    """The upstream path of a pack ``<file name>``: ``src/X`` -> ``X``, ``include/executorch/X`` -> ``X``; else None.

    the v1.4.1 release asset: the pack copies upstream sources under ``src/``
    (``src/kernels/portable/cpu/op_add.cpp``) and headers under
    ``include/executorch/``; other ``include/`` trees (c10, flatbuffers) are
    not upstream ExecuTorch paths and are left out.
    """
    n = name.replace("\\", "/").lstrip("./")
    for prefix in ("src/", "include/executorch/"):
        if n.startswith(prefix) and len(n) > len(prefix):
            return n[len(prefix):]
    return None


_OP_GROUPS = {"Portable": "kernels/portable/cpu/", "Quantized": "kernels/quantized/cpu/",
              "Cortex-M": "backends/cortex_m/ops/"}
_CORE = {"Runtime": ("runtime/", "schema/"), "Kernel Utils": ("kernels/portable/cpu/util/",),
         "Kernel Registration": ("kernels/", "codegen/"), "Backend EthosU": ("backends/arm/runtime/",)}


def convention_paths(cgroup: str, csub: Optional[str]) -> tuple[str, ...]:
    """Upstream paths of a component by the naming of ExecuTorch's cmsis_pack/templates/PyTorch.ExecuTorch.pdsc.tpl at v1.4.1 (``Portable add`` -> ``op_add.cpp``).

    Operators: ``op_<op>`` files (and ``op__<op>``: the Csub drops leading
    underscores) in the group's kernel folder; the core components map to
    their folders.  Empty for a component the convention does not cover.
    """
    sub = (csub or "").strip()
    if cgroup == "ExecuTorch Operators":
        group, _, op = sub.partition(" ")
        folder = _OP_GROUPS.get(group)
        if not folder or not op:
            return ()
        return tuple(f"{folder}{pre}{op}.{ext}" for pre in ("op_", "op__") for ext in ("cpp", "h"))
    return _CORE.get(sub, ())


def component_paths(selected, pdsc=None) -> list[tuple[str, tuple[str, ...], bool]]:
    """``[(component id, upstream paths, by_convention)]`` for each selected component.

    ``selected``: :class:`bot.pack.baseline.Selected` values (``cclass``,
    ``cgroup``, ``csub``, ``text``); ``pdsc``: a :class:`bot.pack.pdsc.Pdsc`
    or None.  With a PDSC, a component's ``<file>`` names mapped by
    :func:`pack_to_upstream` (a folder entry keeps its trailing ``/``); a
    component the PDSC lacks, or whose files map to no upstream path, falls
    back to :func:`convention_paths`.
    """
    out, seen = [], set()
    for s in selected:
        ident = f"{s.cclass}:{s.cgroup}" + (f":{s.csub}" if s.csub else "")
        if ident in seen:
            continue
        seen.add(ident)
        comp = pdsc.component(s.cclass, s.cgroup, s.csub) if pdsc is not None else None
        paths = ()
        if comp is not None:
            paths = tuple(dict.fromkeys(p for p in (pack_to_upstream(f.name) for f in comp.files) if p))
        if paths:
            out.append((ident, paths, False))
        else:   # not in the PDSC, or its <file> list names no upstream source (only include/)
            out.append((ident, convention_paths(s.cgroup, s.csub), True))
    return out


def _matches(path: str, prefixes: tuple[str, ...]) -> bool:
    return any(path == p or (p.endswith("/") and path.startswith(p)) for p in prefixes)


def component_changes(components, paths: list[str]) -> list[ComponentChange]:
    """For each ``(id, upstream paths, by_convention)``, the changed paths among ``paths`` that it is built from."""
    return [ComponentChange(ident, prefixes, tuple(p for p in paths if _matches(p, prefixes)), conv)
            for ident, prefixes, conv in components]


_PASS_CLASS = re.compile(r"Pass$")


def _pass_classes(text: Optional[str]) -> Optional[set[str]]:
    """Top-level ``class ...Pass`` names of Python source, or None when it cannot be parsed."""
    if text is None:
        return set()
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    return {n.name for n in tree.body if isinstance(n, ast.ClassDef) and _PASS_CLASS.search(n.name)}


def _operator_name(path: str) -> Optional[str]:
    """``backends/arm/operators/op_add.py`` -> ``add``; ``backends/cortex_m/ops/op_quantize.cpp`` -> ``quantize``."""
    base = path.rsplit("/", 1)[-1]
    m = re.fullmatch(r"op_(\w+)\.(?:py|cpp)", base)
    return m.group(1) if m else None


def backend_changes(source, old_tag: str, new_tag: str, paths: list[str]) -> list[BackendChange]:
    """One :class:`BackendChange` per folder of :data:`BACKENDS` with any changed file."""
    out = []
    for folder in BACKENDS:
        files = [p for p in paths if p.startswith(folder)]
        if not files:
            continue
        p_add, p_rem, o_add, o_rem, unread = set(), set(), set(), set(), []
        for path in files:
            old, new = source.read(old_tag, path), source.read(new_tag, path)
            op = _operator_name(path)
            if op and (old is None) != (new is None):
                (o_add if old is None else o_rem).add(op)
            if path.endswith(".py"):
                a, b = _pass_classes(_decode(old)), _pass_classes(_decode(new))
                if a is None or b is None or (old is not None and _decode(old) is None) \
                        or (new is not None and _decode(new) is None):
                    unread.append(path)
                    continue
                p_add |= b - a
                p_rem |= a - b
        moved = p_add & p_rem
        out.append(BackendChange(folder, tuple(files), tuple(sorted(p_add - moved)), tuple(sorted(p_rem - moved)),
                                 tuple(sorted(o_add)), tuple(sorted(o_rem)), tuple(unread)))
    return out


def upstream_changes(source, old_tag: str, new_tag: str, components=()) -> UpstreamChanges:
    """What changed between ``old_tag`` and ``new_tag`` (see the module docstring).

    ``components``: ``[(id, upstream paths, by_convention)]`` from
    :func:`component_paths`.  Never raises for what upstream holds: a source
    error is kept in ``error`` (the report says the changes are unknown).
    """
    ch = UpstreamChanges(old_tag, new_tag)
    try:
        ch.ancestor, ch.commits = source.ancestry(old_tag, new_tag)
        paths = source.changed_paths(old_tag, new_tag)
        if paths is None:
            return ch
        ch.paths = list(paths)
        ch.schema = schema_changes(source, old_tag, new_tag, ch.paths)
        ch.components = component_changes(components, ch.paths)
        ch.backends = backend_changes(source, old_tag, new_tag, ch.paths)
    except UpstreamError as exc:
        ch.error = str(exc)
    return ch
