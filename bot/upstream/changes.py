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
- the Arm backends (``backends/arm/``, ``backends/cortex_m/``): files changed
  (a rename counted once, test files counted apart), Python pass classes
  (``class ...Pass``) and operator files (``op_*.py``, ``op_*.cpp``) added,
  removed or renamed, from non-test sources only (:func:`is_test_path`: a
  ``DummyPass`` in ``backends/arm/test/`` is no pass of the backend);
- renames: the source's own rename detection (``git diff -M``, see
  :meth:`bot.upstream.source.UpstreamSource.renames`), so ``op_cat.py`` ->
  ``op_tosa_concat.py`` is one renamed file, not one removed and one added;
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
    ``by_convention``: True when ``paths`` came from the naming convention, not a PDSC;
    ``generated``: the pack file the pack build generates for this component (``Kernel Registration``:
    ``src/registration/RegisterAllKernels.cpp``, FORMATS.md), which has no upstream source file; else "";
    ``not_compared``: the component's PDSC ``<file>`` names no upstream path stands for (``include/``, a folder of
    headers copied from many upstream folders): their changes are not known.
    """

    ident: str
    paths: tuple[str, ...]
    changed: tuple[str, ...]
    by_convention: bool = False
    generated: str = ""
    not_compared: tuple[str, ...] = ()


@dataclass(frozen=True)
class BackendChange:
    """Changes under one backend folder.

    ``files``: the changed files, sorted, a renamed file once (under its new path); ``renamed``: the
    ``(old path, new path)`` pairs among them; ``tests``: how many of ``files`` are test files
    (:func:`is_test_path`); pass classes and operators added/removed/renamed come from non-test files only
    (``operators_renamed``: ``(old, new)`` operator names of a renamed ``op_*`` file).
    """

    folder: str
    files: tuple[str, ...] = ()
    passes_added: tuple[str, ...] = ()
    passes_removed: tuple[str, ...] = ()
    operators_added: tuple[str, ...] = ()
    operators_removed: tuple[str, ...] = ()
    unread: tuple[str, ...] = ()
    renamed: tuple[tuple[str, str], ...] = ()
    operators_renamed: tuple[tuple[str, str], ...] = ()
    tests: int = 0


@dataclass
class UpstreamChanges:
    """Everything :func:`upstream_changes` found between ``old_tag`` and ``new_tag``.

    ``paths`` is None when the source cannot list changed paths (then the
    schema, component and backend parts are unknown, not "unchanged").
    ``paths`` lists a renamed file twice (its old path removed, its new path
    added: a component built from the old path changed); ``renames`` holds
    the ``(old, new)`` pairs the source detected (None: it cannot detect
    renames) and ``rename_method`` how (``git diff -M``...);
    :attr:`files_changed` counts a rename once.
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
    renames: Optional[list[tuple[str, str]]] = None
    rename_method: Optional[str] = None

    @property
    def files_changed(self) -> Optional[int]:
        """Files changed between the tags, a renamed file counted once (None when the paths are not known)."""
        if self.paths is None:
            return None
        return len(self.paths) - len(self.renames or ())

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
    if any(n == g or n.startswith(g) for g in GENERATED):
        return None
    for prefix in ("src/", "include/executorch/"):
        if n.startswith(prefix) and len(n) > len(prefix):
            return n[len(prefix):]
    return None


#: Pack files the pack build generates (FORMATS.md: ``src/registration/RegisterAllKernels.cpp``), not copied from
#: an upstream source file: no upstream path stands for them.
GENERATED = ("src/registration/",)
#: The component whose pack file is generated, and that file.
GENERATED_COMPONENTS = {"Kernel Registration": "src/registration/RegisterAllKernels.cpp"}

_OP_GROUPS = {"Portable": "kernels/portable/cpu/", "Quantized": "kernels/quantized/cpu/",
              "Cortex-M": "backends/cortex_m/ops/"}
# The core components by the pack's layout; a name ending ``*`` is a base-name prefix inside its folder (the
# EthosU component is the EthosU backend's own files, not every file of backends/arm/runtime/: the VGF backend
# lives there too).  Kernel Registration has no upstream file (:data:`GENERATED_COMPONENTS`).
_CORE = {"Runtime": ("runtime/", "schema/"), "Kernel Utils": ("kernels/portable/cpu/util/",),
         "Kernel Registration": (),
         "Backend EthosU": ("backends/arm/runtime/EthosUBackend*", "backends/arm/runtime/VelaBinStream*")}


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


def component_paths(selected, pdsc=None) -> list[tuple]:
    """``[(component id, upstream paths, by_convention[, pack file names not compared])]`` for each selected
    component (the fourth item only when the PDSC lists a file no upstream path stands for, such as ``include/``).

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
        paths, unmapped = (), ()
        if comp is not None:
            paths = tuple(dict.fromkeys(p for p in (pack_to_upstream(f.name) for f in comp.files) if p))
            # a <file> entry no upstream path stands for (the folder entry include/ of the Runtime's headers):
            # named, so the body does not call the component unchanged on its strength
            unmapped = tuple(f.name for f in comp.files if pack_to_upstream(f.name) is None
                             and not any(f.name.startswith(g) for g in GENERATED))
        if paths:
            out.append((ident, paths, False) + ((unmapped,) if unmapped else ()))
        elif comp is not None and (s.csub or "").strip() in GENERATED_COMPONENTS:
            out.append((ident, (), False))      # the PDSC names only the generated file
        else:   # not in the PDSC, or its <file> list names no upstream source (only include/)
            out.append((ident, convention_paths(s.cgroup, s.csub), True))
    return out


def _matches(path: str, prefixes: tuple[str, ...]) -> bool:
    """``path`` is one of ``prefixes``: equal, under a folder ending ``/``, or in a folder with a base name starting
    as a pattern ending ``*`` does."""
    for p in prefixes:
        if path == p or (p.endswith("/") and path.startswith(p)):
            return True
        if p.endswith("*"):
            folder, _, stem = p[:-1].rpartition("/")
            if path.rpartition("/")[0] == folder and path.rpartition("/")[2].startswith(stem):
                return True
    return False


def component_changes(components, paths: list[str]) -> list[ComponentChange]:
    """For each ``(id, upstream paths, by_convention)``, the changed paths among ``paths`` that it is built from."""
    out = []
    for ident, prefixes, conv, *rest in components:
        csub = ident.rsplit(":", 1)[-1] if ident.count(":") >= 2 else ""
        out.append(ComponentChange(ident, prefixes, tuple(p for p in paths if _matches(p, prefixes)), conv,
                                   GENERATED_COMPONENTS.get(csub, "") if not prefixes else "",
                                   tuple(rest[0]) if rest else ()))
    return out


_TEST_DIRS = {"test", "tests", "testing"}


def is_test_path(path: str) -> bool:
    """True for an upstream test file: a folder named ``test``/``tests``/``testing`` on its path
    (``backends/arm/test/misc/test_custom_partition.py``), or a base name ``test_*``, ``*_test.*`` or
    ``conftest.py`` (pytest's and ExecuTorch's layout)."""
    parts = path.split("/")
    base = parts[-1]
    stem = base.rsplit(".", 1)[0]
    return (any(p in _TEST_DIRS for p in parts[:-1]) or base.startswith("test_") or stem.endswith("_test")
            or base == "conftest.py")


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


def backend_changes(source, old_tag: str, new_tag: str, paths: list[str],
                    renames: Iterable[tuple[str, str]] = ()) -> list[BackendChange]:
    """One :class:`BackendChange` per folder of :data:`BACKENDS` with any changed file.

    ``renames``: ``(old path, new path)`` pairs (:meth:`UpstreamSource.renames`); a pair is one changed file and
    an ``op_*`` pair one renamed operator.  Pass classes and operators are read from non-test files only.
    """
    pairs = [(a, b) for a, b in renames]
    new_of = {a: b for a, b in pairs}
    old_of = {b: a for a, b in pairs}
    out = []
    for folder in BACKENDS:
        files = [p for p in paths if p.startswith(folder) and not (p in new_of and new_of[p].startswith(folder))]
        if not files:
            continue
        ren = tuple((old_of[p], p) for p in files if p in old_of and old_of[p].startswith(folder))
        p_add, p_rem, o_add, o_rem, o_ren, unread = set(), set(), set(), set(), set(), []
        for path in files:
            before = old_of.get(path, path)
            if is_test_path(path) and is_test_path(before):
                continue
            old, new = source.read(old_tag, before), source.read(new_tag, path)
            op, op_before = _operator_name(path), _operator_name(before)
            if before != path and op and op_before:
                if op != op_before:
                    o_ren.add((op_before, op))
            elif op and (old is None) != (new is None):
                (o_add if old is None else o_rem).add(op)
            if path.endswith(".py") or before.endswith(".py"):
                a, b = _pass_classes(_decode(old)), _pass_classes(_decode(new))
                if a is None or b is None or (old is not None and _decode(old) is None) \
                        or (new is not None and _decode(new) is None):
                    unread.append(path)
                    continue
                p_add |= b - a
                p_rem |= a - b
        moved = p_add & p_rem
        out.append(BackendChange(folder, tuple(files), tuple(sorted(p_add - moved)), tuple(sorted(p_rem - moved)),
                                 tuple(sorted(o_add)), tuple(sorted(o_rem)), tuple(unread), ren,
                                 tuple(sorted(o_ren)), sum(1 for p in files if is_test_path(p))))
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
        found = source.renames(old_tag, new_tag)
        if found is not None:
            listed = set(ch.paths)
            ch.renames = [(a, b) for a, b in found if a in listed and b in listed]
            ch.rename_method = source.rename_method
        ch.schema = schema_changes(source, old_tag, new_tag, ch.paths)
        ch.components = component_changes(components, ch.paths)
        ch.backends = backend_changes(source, old_tag, new_tag, ch.paths, ch.renames or ())
    except UpstreamError as exc:
        ch.error = str(exc)
    return ch
