"""CMSIS solution files: the ``PyTorch::ExecuTorch`` pack pin in csolution, cproject and clayer files.

Facts (CMSIS-Toolbox docs/YML-Input-Format.md, "packs:"): a ``*.csolution.yml`` holds ``solution: packs:``,
a ``*.cproject.yml`` ``project: packs:`` and a ``*.clayer.yml`` ``layer:
packs:``; each item is ``- pack: VENDOR::NAME[@VERSION]`` (exact ``@X.Y.Z``, or
a range ``@^X``, ``@~X``, ``@>=X``), sometimes with a local ``path:``.  Only
the items whose pack is exactly ``PyTorch::ExecuTorch`` (case-sensitive, not a
prefix of another name) are ours; other packs, ``created-for:
CMSIS-Toolbox@...`` and every comment stay byte-identical.

How: the file is composed with PyYAML (``SafeLoader``) to learn its structure;
each pack value is a scalar node whose start/end marks are its exact span in
the text, so an edit replaces only the version characters after ``@`` and
every other byte (quotes, CRLF, alignment, comments) survives.  A pack entry
that cannot be located as a simple one-line scalar (anchors, aliases, merge
keys, escapes, folded scalars) is refused with :class:`ManagerError` rather
than guessed.  The span helpers here are shared with :mod:`bot.template.lockfile`.
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass
from typing import Any, Callable, Iterator, Optional

import yaml

from bot.model import Bump, Edit, Finding, Flag, ManagerResult
from bot.template.interface import Manager, ManagerError
from bot.textfile import TextDocument

PACK = "PyTorch::ExecuTorch"
_STR_TAG = "tag:yaml.org,2002:str"
# A CMSIS pack version range starts with one of these operators (CMSIS-Toolbox pack syntax).
_RANGE = re.compile(r"^(\^|~|>=|>|<=|<|=)")

YamlPath = tuple  # keys (str) and list indices (int) from the document root


# --------------------------------------------------------------------------- shared YAML span helpers

@dataclass(frozen=True)
class PackValue:
    """One located ``PyTorch::ExecuTorch[@V]`` scalar.

    Attributes:
        path: the YAML path of the scalar, e.g. ``("solution", "packs", 0, "pack")``.
        start / end: offsets of the unquoted value in ``doc.text``.
        value: the scalar value, ``"PyTorch::ExecuTorch@1.4.0"``.
        line: 1-based line of ``start``.
    """

    path: YamlPath
    start: int
    end: int
    value: str
    line: int

    @property
    def version(self) -> Optional[str]:
        """The version expression after ``@`` (``"1.4.0"``, ``"^1.4.0"``), or None when unversioned."""
        return self.value.split("@", 1)[1] if "@" in self.value else None

    @property
    def version_start(self) -> int:
        """Offset in ``doc.text`` of the first character after ``@`` (== ``end`` when unversioned)."""
        return self.start + len(PACK) + 1 if "@" in self.value else self.end

    @property
    def exact(self) -> bool:
        """True for an exact pin (``@1.4.0``); False for a range or an unversioned entry."""
        v = self.version
        return v is not None and not _RANGE.match(v)


def is_executorch(value: Any) -> bool:
    """True when a YAML value names the ExecuTorch pack exactly: ``PyTorch::ExecuTorch`` or ``PyTorch::ExecuTorch@...``."""
    return isinstance(value, str) and (value == PACK or value.startswith(PACK + "@"))


#: libyaml's loader when PyYAML was built with it (same nodes and character-offset marks, about 10x faster).
_SafeLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def load(doc: TextDocument) -> tuple[Optional[yaml.Node], Any]:
    """Compose and construct ``doc`` with PyYAML's SafeLoader: ``(root node or None, python data)``.

    Raises :class:`ManagerError` naming the file and the line of PyYAML's
    ``problem_mark`` when the text is not valid YAML (or holds several documents).
    """
    loader = _SafeLoader(doc.text)
    try:
        node = loader.get_single_node()
        data = loader.construct_document(node) if node is not None else None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        what = exc.problem or exc.context or "syntax error"
        raise ManagerError(f"invalid YAML: {what}", path=doc.path,
                           line=doc.line_of(mark.index) if mark else None) from None
    except (yaml.YAMLError, RecursionError) as exc:   # RecursionError: nested too deeply
        pos = getattr(exc, "position", None)
        raise ManagerError(f"invalid YAML: {exc}", path=doc.path,
                           line=doc.line_of(pos) if isinstance(pos, int) else None) from None
    finally:
        loader.dispose()
    _refuse_duplicate_keys(doc, node)
    return node, data


def _refuse_duplicate_keys(doc: TextDocument, node: Optional[yaml.Node]) -> None:
    """Raise :class:`ManagerError` at the second of two equal plain keys in one mapping.

    PyYAML keeps the last value silently (YAML 1.2 says keys must be unique), so a
    pin under the first key would be neither read nor bumped.
    """
    stack = [node] if node is not None else []
    seen_nodes: set[int] = set()
    while stack:
        n = stack.pop()
        if id(n) in seen_nodes:
            continue
        seen_nodes.add(id(n))
        if isinstance(n, yaml.MappingNode):
            first: dict[str, yaml.Node] = {}
            for key, value in n.value:
                if isinstance(key, yaml.ScalarNode) and key.tag == _STR_TAG:
                    if key.value in first:
                        raise ManagerError(
                            f"duplicate key {key.value!r} (first at line "
                            f"{doc.line_of(first[key.value].start_mark.index)}); YAML keeps only the last "
                            "one, so remove or merge one of them", path=doc.path,
                            line=doc.line_of(key.start_mark.index))
                    first[key.value] = key
                stack.append(value)
        elif isinstance(n, yaml.SequenceNode):
            stack.extend(n.value)


def walk_nodes(node: Optional[yaml.Node], path: YamlPath = ()) -> Iterator[tuple[YamlPath, yaml.Node]]:
    """Every node under ``node`` with its YAML path (mapping keys that are not plain strings are not followed)."""
    if node is None:
        return
    yield path, node
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            if isinstance(key, yaml.ScalarNode) and key.tag == _STR_TAG:
                yield from walk_nodes(value, path + (key.value,))
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            yield from walk_nodes(item, path + (i,))


def walk_data(data: Any, path: YamlPath = ()) -> Iterator[tuple[YamlPath, Any]]:
    """Every value of a constructed YAML tree with its path (the constructed twin of :func:`walk_nodes`)."""
    yield path, data
    if isinstance(data, dict):
        for k, v in data.items():
            if isinstance(k, str):
                yield from walk_data(v, path + (k,))
    elif isinstance(data, list):
        for i, v in enumerate(data):
            yield from walk_data(v, path + (i,))


def scalar_span(doc: TextDocument, node: yaml.ScalarNode, path: YamlPath) -> tuple[int, int]:
    """Offsets ``(start, end)`` of a scalar's value inside ``doc.text``, quotes excluded.

    Only a one-line plain, single-quoted or double-quoted (without escapes)
    scalar can be located exactly; anything else (an anchor, an alias, a
    folded or escaped scalar) raises :class:`ManagerError` saying the layout
    is not supported.
    """
    start, end = node.start_mark.index, node.end_mark.index
    raw = doc.text[start:end]
    value = node.value
    ok = False
    style = node.style or None  # libyaml says "" for a plain scalar, PyYAML None
    if style is None:
        ok = raw == value
    elif style == "'":
        ok = "'" not in value and raw == f"'{value}'"
    elif style == '"':
        ok = "\\" not in raw and raw == f'"{value}"'
    if not ok or "\n" in raw:
        raise ManagerError(
            f"the value {value!r} at {format_path(path)} is written in a layout that is not "
            "supported (anchor, alias, escape or multi-line scalar); write it as a plain "
            "`pack: PyTorch::ExecuTorch@X` item", path=doc.path, line=doc.line_of(node.start_mark.index))
    if style is not None:
        start, end = start + 1, end - 1
    return start, end


def locate(doc: TextDocument, node: Optional[yaml.Node], data: Any,
           positions: Callable[[YamlPath], bool]) -> list[PackValue]:
    """Locate every ExecuTorch pack scalar whose YAML path satisfies ``positions``.

    The composed nodes and the constructed data are both searched; when the
    data holds more ExecuTorch entries at such positions than the text shows
    (aliases, merge keys), or one node is reached twice, :class:`ManagerError`
    says the layout is not supported.  Returns the values in file order.
    """
    found: list[PackValue] = []
    seen: set[int] = set()
    for path, n in walk_nodes(node):
        if isinstance(n, yaml.ScalarNode) and positions(path) and is_executorch(n.value):
            if id(n) in seen:
                raise ManagerError(f"{PACK} entry reached through a YAML alias at {format_path(path)}; "
                                   "this layout is not supported", path=doc.path,
                                   line=doc.line_of(n.start_mark.index))
            seen.add(id(n))
            start, end = scalar_span(doc, n, path)
            found.append(PackValue(path, start, end, n.value, doc.line_of(start)))
    in_data = sum(1 for p, v in walk_data(data) if positions(p) and is_executorch(v))
    if in_data != len(found):
        raise ManagerError(f"the file holds {in_data} {PACK} pack entries but only {len(found)} are "
                           "written out plainly (anchors, aliases or merge keys?); this layout is not "
                           "supported", path=doc.path)
    found.sort(key=lambda p: p.start)
    return found


#: A scalar that is nothing but an ExecuTorch pack reference, with any spacing.  Letter case
#: counts: ``pytorch::executorch`` is another pack ID to CMSIS and stays untouched.
_PACK_REFERENCE = re.compile(r"\s*PyTorch\s*::\s*ExecuTorch\s*(?:@\S*)?\s*")


def refuse_unread_references(doc: TextDocument, node: Optional[yaml.Node], values: list[PackValue]) -> None:
    """Raise :class:`ManagerError` for an ExecuTorch pack reference the manager did not locate.

    A scalar whose whole value is a pack reference (``PyTorch::ExecuTorch@1.4.0`` as a bare
    list item instead of a ``pack:`` mapping, ``PyTorch::ExecuTorch @1.4.0`` with a space)
    would otherwise be neither read nor bumped: the template would keep the old version there
    while every other pin moves.
    """
    located = {v.start for v in values}
    for path, n in walk_nodes(node):
        if not isinstance(n, yaml.ScalarNode) or not isinstance(n.value, str):
            continue
        start = n.start_mark.index
        if not _PACK_REFERENCE.fullmatch(n.value) or any(start <= s <= n.end_mark.index for s in located):
            continue
        raise ManagerError(
            f"{n.value.strip()!r} at {format_path(path)} names the ExecuTorch pack but is not a "
            f"`- pack: {PACK}@X` item the bot can read (a `pack:` key, no spaces in the pack ID); "
            "correct it so that the bump can move it", path=doc.path, line=doc.line_of(start))


def miscased_ids(doc: TextDocument, node: Optional[yaml.Node], positions: Callable[[YamlPath], bool]) -> list[Finding]:
    """``Finding(kind="pack-id-case")`` for each pack entry spelling the ExecuTorch pack ID in another letter case.

    ``pytorch::executorch@1.4.0`` is another pack ID to CMSIS (the pack ID is
    ``PyTorch::ExecuTorch``, ExecuTorch's cmsis_pack/templates/PyTorch.ExecuTorch.pdsc.tpl at v1.4.1: vendor and name must agree
    exactly, including case): it is never rewritten, and the engine turns
    each finding into a blocking flag naming the line.
    """
    out = []
    for path, n in walk_nodes(node):
        if not (isinstance(n, yaml.ScalarNode) and isinstance(n.value, str) and positions(path)):
            continue
        head = n.value.strip().split("@", 1)[0].replace(" ", "")
        if head.lower() == PACK.lower() and head != PACK:
            out.append(Finding(doc.path, doc.line_of(n.start_mark.index), "pack-id-case", n.value.strip(),
                               n.value.split("@", 1)[1].strip() if "@" in n.value else None, True, n.value))
    return out


def format_path(path: YamlPath) -> str:
    """``("solution", "packs", 0, "pack")`` -> ``"solution.packs[0].pack"``."""
    out = ""
    for p in path:
        out += f"[{p}]" if isinstance(p, int) else (("." if out else "") + str(p))
    return out or "(document)"


def _node_at(node: Optional[yaml.Node], path: YamlPath) -> Optional[yaml.Node]:
    for p, n in walk_nodes(node):
        if p == path:
            return n
    return None


def _first_difference(a: Any, b: Any, path: YamlPath = ()) -> Optional[YamlPath]:
    if type(a) is not type(b):
        return path
    if isinstance(a, dict):
        if list(a.keys()) != list(b.keys()):
            return path
        for k in a:
            d = _first_difference(a[k], b[k], path + (k,))
            if d is not None:
                return d
        return None
    if isinstance(a, list):
        if len(a) != len(b):
            return path
        for i, (x, y) in enumerate(zip(a, b)):
            d = _first_difference(x, y, path + (i,))
            if d is not None:
                return d
        return None
    return None if a == b else path


def _get(data: Any, path: YamlPath) -> Any:
    for p in path:
        data = data[p]
    return data


def _set(data: Any, path: YamlPath, value: Any) -> None:
    _get(data, path[:-1])[path[-1]] = value


def check_yaml(before: TextDocument, after: TextDocument, edits: list[Edit],
               positions: Callable[[YamlPath], bool], extra: Optional[dict] = None) -> None:
    """Assert that ``after`` differs from ``before`` only by the planned pack version strings.

    Every edit overlapping an ExecuTorch pack scalar of ``before`` must
    replace exactly its version (after ``@``) with a plain version; the
    expected tree is ``before``'s tree with those new values, and it must
    equal ``after``'s tree.  Edits elsewhere (comments) must not change the
    tree, except at the YAML paths of ``extra`` (``{path: expected new
    value}``, the moved ``path:`` of a local pack).  Raises
    :class:`ManagerError` naming the file (and line) otherwise.
    """
    node_b, data_b = load(before)
    values = locate(before, node_b, data_b, positions)
    expected = copy.deepcopy(data_b)
    for e in edits:
        for v in values:
            if e.end <= v.start or e.start >= v.end:
                continue
            if e.start != v.version_start or e.end != v.end or not e.new or _RANGE.match(e.new) \
                    or any(c.isspace() or c in "@#'\"" for c in e.new):
                raise ManagerError(f"a planned edit ({e.old!r} -> {e.new!r}) does not replace just the "
                                   f"version of {v.value}", path=before.path, line=v.line)
            _set(expected, v.path, before.text[v.start:e.start] + e.new)
    for p, value in (extra or {}).items():
        _set(expected, p, value)
    try:
        node_a, data_a = load(after)
    except ManagerError as exc:
        raise ManagerError(f"the edited file no longer parses: {exc.message}",
                           path=after.path, line=exc.line) from None
    diff = _first_difference(expected, data_a)
    if diff is not None:
        n = _node_at(node_a, diff)
        raise ManagerError(f"after the edits {format_path(diff)} differs from the planned change "
                           f"(expected {_short(_get_or_none(expected, diff))}, "
                           f"found {_short(_get_or_none(data_a, diff))}); nothing written",
                           path=after.path, line=after.line_of(n.start_mark.index) if n is not None else None)


def _get_or_none(data: Any, path: YamlPath) -> Any:
    try:
        return _get(data, path)
    except (KeyError, IndexError, TypeError):
        return None


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def pin_edits(doc: TextDocument, values: list[PackValue], bump: Bump, *, kind: str, why: str,
              what: str) -> ManagerResult:
    """Edits and flags moving every located ExecuTorch pin from ``bump.old_pack`` to ``bump.new_pack``.

    An exact pin already at ``new_pack`` gives no edit; an exact pin at
    another version than ``old_pack`` is still moved and gets a non-blocking
    ``pin-was-different`` flag; a range gives a blocking ``range-pin`` flag
    and no edit; an unversioned entry is left alone.  ``what`` names the
    entry kind in messages (``"pack pin"``, ``"lock entry"``).
    """
    edits: list[Edit] = []
    flags: list[Flag] = []
    for v in values:
        version = v.version
        if version is None:
            continue
        if not v.exact:
            flags.append(Flag("range-pin", f"{v.value} is a range {what}; the "
                              f"ExecuTorch pack pin must be exact ({PACK}@{bump.new_pack}), so it was "
                              "left for you to change", path=doc.path, line=v.line, blocking=True))
            continue
        if version == bump.new_pack:
            continue
        if version != bump.old_pack:
            flags.append(Flag("pin-was-different", f"{what} {v.value} was not at "
                              f"the current version {bump.old_pack}; it is moved to {bump.new_pack} too",
                              path=doc.path, line=v.line, blocking=False))
        edits.append(Edit(path=doc.path, start=v.version_start, end=v.end, old=version,
                          new=bump.new_pack, line=v.line, kind=kind, why=why))
    return ManagerResult(edits=tuple(edits), flags=tuple(flags))


# --------------------------------------------------------------------------- the manager

def _is_pack_position(path: YamlPath) -> bool:
    """``...packs[i].pack``: the value of a ``pack:`` key in an item of a ``packs:`` list."""
    return len(path) >= 3 and path[-1] == "pack" and isinstance(path[-2], int) and path[-3] == "packs"


def _path_value(node: Optional[yaml.Node], item_path: YamlPath) -> Optional[yaml.ScalarNode]:
    n = _node_at(node, item_path + ("path",))
    return n if isinstance(n, yaml.ScalarNode) else None


class CmsisManager(Manager):
    """The ``PyTorch::ExecuTorch`` pins of ``*.csolution.yml``, ``*.cproject.yml``, ``*.clayer.yml`` (and ``.yaml``).

    ``extract`` gives one Finding (kind ``"pack-pin"``) per ExecuTorch item of
    a ``packs:`` list: version None when unversioned, ``exact=False`` for a
    range.  ``update`` moves exact pins to ``bump.new_pack`` (Edit kind
    ``"pack-pin"``, old/new are only the version text).  Raises
    :class:`ManagerError` for invalid YAML (file and line) and for layouts it
    cannot locate exactly.
    """

    name = "cmsis"
    patterns = tuple(f"*.{k}.{e}" for k in ("csolution", "cproject", "clayer") for e in ("yml", "yaml"))

    def _values(self, doc: TextDocument) -> tuple[Optional[yaml.Node], list[PackValue]]:
        node, data = load(doc)
        values = locate(doc, node, data, _is_pack_position)
        refuse_unread_references(doc, node, values)
        return node, values

    def extract(self, doc: TextDocument) -> list[Finding]:
        """Pack pins (kind ``"pack-pin"``) and mis-cased pack IDs (kind ``"pack-id-case"``, :func:`miscased_ids`)."""
        node, values = self._values(doc)
        return [Finding(path=doc.path, line=v.line, kind="pack-pin", name=PACK, version=v.version,
                        exact=v.exact or v.version is None, text=v.value) for v in values] \
            + miscased_ids(doc, node, _is_pack_position)

    def update(self, doc: TextDocument, bump: Bump) -> ManagerResult:
        """Move exact pins to ``bump.new_pack``; a ``path:`` naming the old pack moves with its pin.

        A ``path:`` beside a moved pin that names the old pack
        (``../packs/PyTorch.ExecuTorch.1.4.0-local``, :func:`path_version_span`)
        gets an Edit of kind ``"pack-path"`` replacing just the version; a
        ``path:`` that does not name it keeps the non-blocking ``pack-path``
        flag (the reviewer points it at the new pack).
        """
        node, values = self._values(doc)
        result = pin_edits(doc, values, bump, kind="pack-pin", why=f"{PACK} pack pin", what="pack pin")
        flags = list(result.flags)
        edits = list(result.edits)
        for e in result.edits:
            v = next(v for v in values if v.end == e.end)
            local = _path_value(node, v.path[:-1])
            if local is None:
                continue
            span = path_version_span(local.value, e.old)
            if span is not None:
                start, end = scalar_span(doc, local, v.path[:-1] + ("path",))
                edits.append(Edit(path=doc.path, start=start + span[0], end=start + span[1], old=e.old,
                                  new=bump.new_pack, line=doc.line_of(start), kind="pack-path",
                                  why=f"local path of the {PACK} pack"))
                continue
            flags.append(Flag("pack-path", f"{PACK} is taken from the local "
                              f"path {local.value!r}; the pin moves to {bump.new_pack} but the path "
                              "does not name the old pack version, so it is not changed",
                              path=doc.path, line=v.line, blocking=False))
        edits.sort(key=lambda x: x.start)
        return ManagerResult(edits=tuple(edits), flags=tuple(flags))

    def check(self, before: TextDocument, after: TextDocument, edits: list[Edit]) -> None:
        check_yaml(before, after, edits, _is_pack_position, extra=_path_positions(before, edits))


def path_version_span(path_text: str, version: str) -> Optional[tuple[int, int]]:
    """Span of ``version`` in a local pack path that names it as the pack's version, or None.

    The path must hold ``PyTorch.ExecuTorch.VERSION`` (the folder or file
    name ``build_pack.sh`` writes, ExecuTorch's cmsis_pack/templates/PyTorch.ExecuTorch.pdsc.tpl at v1.4.1) followed by the end,
    ``/`` or ``.pack``: ``../packs/PyTorch.ExecuTorch.1.4.0-local`` and
    ``./PyTorch.ExecuTorch.1.4.0-local/`` name ``1.4.0-local``;
    ``PyTorch.ExecuTorch.1.4.0-local.2`` does not name ``1.4.0-local``.
    """
    m = re.search(r"(?:^|[/\\])PyTorch\.ExecuTorch\.(" + re.escape(version) + r")(?=$|[/\\]|\.pack$)", path_text)
    return (m.start(1), m.end(1)) if m else None


def _path_positions(doc: TextDocument, edits: list[Edit]) -> dict:
    """``{yaml path of a path: scalar: its expected new value}`` for the ``"pack-path"`` edits."""
    moved = [e for e in edits if e.kind == "pack-path"]
    if not moved:
        return {}
    node, _ = load(doc)
    out = {}
    placed = 0
    for p, n in walk_nodes(node):
        if not (isinstance(n, yaml.ScalarNode) and p and p[-1] == "path"):
            continue
        mine = [e for e in moved if n.start_mark.index <= e.start <= n.end_mark.index]
        if not mine:
            continue
        placed += len(mine)
        start, end = scalar_span(doc, n, p)
        value = doc.text[start:end]
        for e in sorted(mine, key=lambda x: -x.start):
            if not (start <= e.start and e.end <= end):
                raise ManagerError("a planned path edit does not lie inside the path value",
                                   path=doc.path, line=e.line)
            value = value[:e.start - start] + e.new + value[e.end - start:]
        out[p] = value
    if placed != len(moved):
        raise ManagerError("a planned path edit does not lie inside a path: value", path=doc.path)
    return out
