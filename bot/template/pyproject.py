"""The template's own ``pyproject.toml``: exact pins in ``[project]`` and ``[dependency-groups]`` strings.

Facts: a template may state its Python side as a project (PEP 621
``[project] dependencies`` and ``[project.optional-dependencies]``, PEP 735
``[dependency-groups]``) instead of, or beside, ``requirements.txt``
(public CMSIS ExecuTorch templates such as Arm-Examples/CMSIS-Executorch name the packages: ``executorch``, ``torch``,
``torchao``, ``ethos-u-vela``, TOSA).  Each dependency is a PEP 508 string.

The file is parsed with :mod:`tomllib` to know which strings are
dependencies; each string is then located in the text by a small TOML string
scanner (:mod:`bot.template.tomltext`; comments skipped) inside its own array (found after its ``key =``),
and only the version characters inside the string are replaced, so every
other byte stays.  A dependency string that uses escapes or spans lines, or
whose array cannot be located while its text also appears elsewhere in the
file, is refused with :class:`ManagerError` when it must change: its span
cannot be told apart exactly.  ``check()`` re-parses the edited file and
asserts that the only difference is the planned dependency strings.  The
rules of the requirements manager apply (PEP 503 names in full, nightly and
local labels, ranges flagged).  Constraints elsewhere in the file (Poetry
tables, ``[tool.uv]``, ``[build-system] requires``: :func:`other_pins`) are
found and counted, never rewritten: one the new version breaks is a blocking
``unmanaged-pin`` flag.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from typing import Any, Optional

try:  # Python 3.11+
    import tomllib
except ModuleNotFoundError:  # pragma: no cover - Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

from packaging.requirements import InvalidRequirement, Requirement
from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version

from bot.model import Bump, Edit, Finding, Flag, ManagerResult, norm
from bot.template.interface import Manager, ManagerError
from bot.template.pep508 import empty_operator, specifier_empty_operator
from bot.template.publicversion import same_release
from bot.template.tomltext import array_tokens, key_position, string_tokens, token_value
from bot.textfile import TextDocument
from bot.versions import nightly_base

_CLAUSE = re.compile(r"(===|==|~=|!=|<=|>=|<|>)\s*([^\s,;()]+)")
_NAME = re.compile(r"\s*[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?\s*(?:\[[^\]]*\])?")


def load(doc: TextDocument) -> dict:
    """Parse ``doc`` with tomllib; raises :class:`ManagerError` naming the file and line."""
    try:
        return tomllib.loads(doc.text)
    except tomllib.TOMLDecodeError as exc:
        m = re.search(r"line (\d+)", str(exc))
        line = int(m.group(1)) if m else (doc.line_of(max(len(doc.text.rstrip()) - 1, 0))
                                         if "end of document" in str(exc) else None)
        raise ManagerError(f"invalid TOML: {exc}", path=doc.path, line=line) from None


def dependency_strings(data: dict) -> list[str]:
    """Every PEP 508 string of ``[project] dependencies``, ``[project.optional-dependencies]`` and
    ``[dependency-groups]`` (tables in ``include-group`` form are skipped), in document order."""
    out: list[str] = []
    for items in _managed_lists(data):
        out.extend(x for x in items if isinstance(x, str))
    return out


@dataclass(frozen=True)
class OtherPin:
    """A version constraint of a package in ``pyproject.toml`` outside the tables this manager rewrites.

    Attributes:
        where: the TOML location, ``"[tool.poetry.dependencies] torch"`` or ``"tool.uv.constraint-dependencies"``.
        name: the package name as written.
        spec: the constraint text (``"1.4.0"`` in Poetry, ``"==1.4.0"`` in a PEP 508 string).
        version: the exact version, or None for a range.
        specifier: the PEP 440 specifier, or None when the constraint is not PEP 440 (Poetry ``^1.4``).
        value: the PEP 508 string, or None for a Poetry table entry.
    """

    where: str
    name: str
    spec: str
    version: Optional[str]
    specifier: Optional[SpecifierSet]
    value: Optional[str]


def other_pins(data: dict) -> list[OtherPin]:
    """Every version constraint in ``data`` that :func:`dependency_strings` does not cover, in document order.

    Two kinds: Poetry dependency tables (``[tool.poetry.dependencies]``,
    ``[tool.poetry.dev-dependencies]``, ``[tool.poetry.group.NAME.dependencies]``;
    a value is a constraint string or a table with ``version``; a bare
    version means ``==`` in Poetry), and PEP 508 strings with a version clause
    in any other array (``[build-system] requires``, ``[tool.uv]
    constraint-dependencies``, ``[tool.pdm.dev-dependencies]`` ...).
    """
    managed = {id(x) for x in _managed_lists(data)}
    out: list[OtherPin] = []
    poetry = data.get("tool", {}).get("poetry") if isinstance(data.get("tool"), dict) else None
    tables: list[tuple[str, Any]] = []
    if isinstance(poetry, dict):
        tables += [("tool.poetry.dependencies", poetry.get("dependencies")),
                   ("tool.poetry.dev-dependencies", poetry.get("dev-dependencies"))]
        groups = poetry.get("group")
        if isinstance(groups, dict):
            tables += [(f"tool.poetry.group.{g}.dependencies", t.get("dependencies"))
                       for g, t in groups.items() if isinstance(t, dict)]
    poetry_tables = {id(t) for _, t in tables}
    for label, table in tables:
        if not isinstance(table, dict):
            continue
        for name, value in table.items():
            items = value if isinstance(value, list) else [value]  # multiple-constraint entries
            for item in items:
                spec = item.get("version") if isinstance(item, dict) else item
                if isinstance(spec, str) and spec.strip() not in ("", "*"):
                    out.append(_poetry_pin(f"[{label}] {name}", name, spec.strip()))

    def walk(node: Any, where: str) -> None:
        if isinstance(node, dict):
            if id(node) in poetry_tables:
                return
            for k, v in node.items():
                walk(v, f"{where}.{k}" if where else str(k))
        elif isinstance(node, list):
            if id(node) in managed:
                return
            for item in node:
                if isinstance(item, str):
                    if empty_operator(item) is not None:
                        continue  # not a requirement under any packaging version (bot.template.pep508)
                    try:
                        req = Requirement(item)
                    except InvalidRequirement:
                        continue
                    if req.specifier and not req.url:
                        specs = list(req.specifier)
                        exact = (len(specs) == 1 and specs[0].operator in ("==", "===")
                                 and not specs[0].version.endswith(".*"))
                        out.append(OtherPin(where, req.name, str(req.specifier),
                                            specs[0].version if exact else None, req.specifier, item))
                else:
                    walk(item, where)

    walk(data, "")
    return out


def _poetry_pin(where: str, name: str, spec: str) -> OtherPin:
    text = spec[2:].strip() if spec.startswith("==") else spec
    try:
        Version(text)
        return OtherPin(where, name, spec, text, SpecifierSet("==" + text), None)
    except InvalidVersion:
        pass
    if specifier_empty_operator(spec) is not None:  # packaging 25 took "===" alone, 26 refuses it
        return OtherPin(where, name, spec, None, None, None)
    try:
        return OtherPin(where, name, spec, None, SpecifierSet(spec), None)
    except InvalidSpecifier:
        return OtherPin(where, name, spec, None, None, None)


def _managed_lists_with_keys(data: dict) -> list[tuple[tuple[str, ...], str, list]]:
    """``[(table, key, list)]`` for the arrays :func:`dependency_strings` reads, in that order."""
    out = []
    project = data.get("project") if isinstance(data.get("project"), dict) else {}
    if isinstance(project.get("dependencies"), list):
        out.append((("project",), "dependencies", project["dependencies"]))
    for table, parts in ((project.get("optional-dependencies"), ("project", "optional-dependencies")),
                         (data.get("dependency-groups"), ("dependency-groups",))):
        if isinstance(table, dict):
            out.extend((parts, k, v) for k, v in table.items() if isinstance(v, list))
    return out


def _managed_lists(data: dict) -> list:
    """The list objects :func:`dependency_strings` reads."""
    project = data.get("project") if isinstance(data.get("project"), dict) else {}
    lists = [project.get("dependencies")]
    for table in (project.get("optional-dependencies"), data.get("dependency-groups")):
        if isinstance(table, dict):
            lists.extend(table.values())
    return [x for x in lists if isinstance(x, list)]


def _same(a: str, b: str) -> bool:
    try:
        return Version(a) == Version(b)
    except InvalidVersion:
        return a == b


#: Finding kind of a constraint outside the rewritten tables (:func:`other_pins`): listed by audit,
#: never rewritten, and left out of the current-version agreement check of ``update``.
UNMANAGED_KIND = "unmanaged-requirement"


class PyprojectManager(Manager):
    """Exact pins of ``bump.changes`` packages in the dependency strings of a template's ``pyproject.toml``.

    ``extract`` gives one Finding (kind ``"requirement"``) per dependency with a
    version clause, and one of kind :data:`UNMANAGED_KIND` per constraint
    outside those tables (Poetry, ``[tool.uv]``, build requires); ``update`` gives Edits (kind ``"requirement"``, only the
    version text) and flags (``range-pin`` blocking, ``nightly-pin`` and
    ``pin-was-different`` informational).  Raises :class:`ManagerError` for
    invalid TOML or a string it cannot locate exactly.
    """

    name = "pyproject"
    patterns = ("pyproject.toml",)

    def _entries(self, doc: TextDocument):
        """``[(requirement, string, token or None, line)]`` for every dependency string with a version clause.

        Each string is located in its own array (:func:`bot.template.tomltext.array_tokens`), so
        the same pin written again elsewhere (a uv constraint) does not make
        it ambiguous; when an array cannot be located, a string is located
        only when its value occurs exactly as often in the file as in the
        dependency arrays.
        """
        data = load(doc)
        lists = _managed_lists_with_keys(data)
        deps = [x for _, _, items in lists for x in items if isinstance(x, str)]
        if not deps:
            return []
        all_tokens = string_tokens(doc.text)
        tokens: dict[str, list] = {}
        for tok in all_tokens:
            value = tok[2] if tok[3] else token_value(tok)
            if value is not None:
                tokens.setdefault(value, []).append(tok)
        out = []
        counts: dict[str, int] = {}
        for table, key, items in lists:
            aligned = array_tokens(doc.text, all_tokens, table, key, items)
            for i, dep in enumerate(items):
                if not isinstance(dep, str):
                    continue
                found = tokens.get(dep, [])
                k = counts.get(dep, 0)
                counts[dep] = k + 1
                if empty_operator(dep) is not None:
                    continue  # no version after an operator: refused like packaging 26 does (bot.template.pep508)
                try:
                    req = Requirement(dep)
                except InvalidRequirement:
                    continue  # pip would refuse the project, not our file to judge
                if req.url or not req.specifier:
                    continue
                if aligned is not None:
                    at = aligned[i]
                    tok = at if at[3] else None
                else:
                    at = found[k] if len(found) == deps.count(dep) and k < len(found) else None
                    tok = at if at is not None and at[3] else None
                    at = at or (found[0] if found else None)
                line = doc.line_of(at[0]) if at else 1
                out.append((req, dep, tok, line))
        return out

    def _others(self, doc: TextDocument) -> list[tuple[OtherPin, int]]:
        """``[(pin, line)]`` for :func:`other_pins` (``python`` itself left out)."""
        pins = [p for p in other_pins(load(doc)) if norm(p.name) != "python"]
        if not pins:
            return []
        starts: dict[str, list[int]] = {}  # value -> token starts, in text order
        for t in string_tokens(doc.text):
            value = t[2] if t[3] else token_value(t)
            if value is not None:
                starts.setdefault(value, []).append(t[0])
        keys: dict[tuple, Optional[int]] = {}
        used: dict[tuple, int] = {}
        out = []
        for p in pins:
            # where: "[tool.poetry.dependencies] torch" (a table key) or "build-system.requires" (an array)
            parts = p.where[1:].replace("] ", ".").split(".") if p.where.startswith("[") else p.where.split(".")
            if p.value is None:
                parts = parts[:-1] + [p.name]
            key = tuple(parts)
            if key not in keys:
                keys[key] = key_position(doc.text, parts[:-1], parts[-1])
            at = keys[key]
            if p.value is not None:
                found = starts.get(p.value, [])
                i = max(bisect.bisect_left(found, at or 0), used.get((key, p.value), 0))
                if i < len(found):
                    at = found[i]
                    used[(key, p.value)] = i + 1
            out.append((p, doc.line_of(at) if at is not None else 1))
        return out

    def extract(self, doc: TextDocument) -> list[Finding]:
        out = []
        for req, dep, _, line in self._entries(doc):
            specs = list(req.specifier)
            exact = len(specs) == 1 and specs[0].operator in ("==", "===") and not specs[0].version.endswith(".*")
            version = specs[0].version if exact else str(req.specifier)
            out.append(Finding(doc.path, line, "requirement", norm(req.name), version, exact, dep))
        for p, line in self._others(doc):
            text = p.value if p.value is not None else f"{p.where} = {p.spec!r}"
            out.append(Finding(doc.path, line, UNMANAGED_KIND, norm(p.name), p.version or p.spec,
                               p.version is not None, text))
        out.sort(key=lambda f: f.line)
        return out

    def _unmanaged(self, doc: TextDocument, bump: Bump) -> list[Flag]:
        """``unmanaged-pin`` flags: constraints outside the rewritten tables that the new version breaks.

        Blocking when the constraint is an exact pin of another version, or a
        PEP 440 range that excludes the new version (the bumped template would
        not install); informational when it is Poetry syntax the bot cannot
        evaluate (``^1.4``).
        """
        flags = []
        for p, line in self._others(doc):
            change = bump.change_for(p.name)
            if change is None:
                continue
            if p.version is not None and same_release(p.version, change.new):
                continue      # ==2.14.0+cpu is a build of 2.14.0: it admits the release the bump pins
            if p.specifier is not None:
                try:
                    if p.specifier.contains(change.new, prereleases=True) and (
                            p.version is None or _same(p.version, change.new)):
                        continue
                except InvalidVersion:
                    pass
                why, blocking = f"does not admit {change.new}", True
            else:
                why, blocking = f"is a Poetry constraint the bot does not evaluate: check that it admits {change.new}", False
            what = f"{p.where}: {p.value!r}" if p.value is not None else f"{p.where} = {p.spec!r}"
            flags.append(Flag("unmanaged-pin", f"{what} {why}; the bot rewrites only the "
                              "[project] and [dependency-groups] dependency strings: edit this one in the "
                              f"same PR (by hand before `update`, or after `update --allow-flagged`; "
                              "it does not count when update checks that the pins agree)",
                              path=doc.path, line=line, blocking=blocking))
        return flags

    def update(self, doc: TextDocument, bump: Bump) -> ManagerResult:
        edits: list[Edit] = []
        flags: list[Flag] = []
        for req, dep, tok, line in self._entries(doc):
            change = bump.change_for(req.name)
            if change is None:
                continue
            specs = list(req.specifier)
            if len(specs) != 1 or specs[0].operator not in ("==", "===") or specs[0].version.endswith(".*"):
                flags.append(Flag("range-pin", f"{dep!r} is a range; the bump pins "
                                  f"{change.new} exactly, so it was left for you to change",
                                  path=doc.path, line=line, blocking=True))
                continue
            old = specs[0].version
            new = f"{change.new}+{old.split('+', 1)[1]}" if "+" in old and "+" not in change.new else change.new
            if old == new or _same(old, new):
                continue
            if tok is None:
                raise ManagerError(f"the dependency {dep!r} cannot be located exactly in the text (written "
                                   "with escapes, over several lines, or also elsewhere in the file); write it "
                                   "once as a plain \"NAME==X\" string", path=doc.path, line=line)
            start, _, raw, *_ = tok
            name = _NAME.match(raw)
            m = next((m for m in _CLAUSE.finditer(raw, name.end() if name else 0) if m.group(2) == old), None)
            if m is None:
                raise ManagerError(f"cannot locate the version of {dep!r}", path=doc.path, line=line)
            nightly = nightly_base(old)
            if nightly is not None and (change.old is None or _same(nightly, change.old)):
                flags.append(Flag("nightly-pin", f"{dep!r} is a nightly; rewritten to {new} "
                                  "like any other pin", path=doc.path, line=line, blocking=False))
            elif change.old and not _same(old.split("+", 1)[0], change.old):
                flags.append(Flag("pin-was-different", f"{req.name} was pinned at {old}, "
                                  f"not upstream's {change.old}; it is moved to {new} too",
                                  path=doc.path, line=line, blocking=False))
            s = start + m.start(2)
            edits.append(Edit(doc.path, s, s + len(old), old, new, line, "requirement",
                              f"{norm(req.name)} pin in pyproject.toml ({change.source})"))
        flags.extend(self._unmanaged(doc, bump))
        return ManagerResult(tuple(edits), tuple(flags))

    def check(self, before: TextDocument, after: TextDocument, edits: list[Edit]) -> None:
        """Re-parse ``after``: it must equal ``before`` with only the edited dependency strings changed.

        Each edited string is found in its dependency array (the item it is);
        when an array cannot be located, every string of the same value is
        expected to change (the planner edits such a string only when it is
        the value's only kind of occurrence).
        """
        data = load(before)
        toks = string_tokens(before.text)
        changed: dict[int, str] = {}  # token start -> new raw text
        mapping: dict[str, str] = {}
        for tok in toks:
            start, end, raw = tok[0], tok[1], tok[2]
            inside = [e for e in edits if start <= e.start and e.end <= end]
            if not inside:
                continue
            new = raw
            for e in sorted(inside, key=lambda e: -e.start):
                new = new[:e.start - start] + e.new + new[e.end - start:]
            changed[start] = new
            mapping[raw] = new
        expected = _replace(data, {})  # a deep copy
        placed = set()
        for (table, key, items), (_, _, mine) in zip(_managed_lists_with_keys(data),
                                                     _managed_lists_with_keys(expected)):
            aligned = array_tokens(before.text, toks, table, key, items)
            for i, tok in enumerate(aligned or ()):
                if tok is not None and tok[0] in changed:
                    mine[i] = changed[tok[0]]
                    placed.add(tok[0])
        if placed != set(changed):
            expected = _replace(data, mapping)
        try:
            got = load(after)
        except ManagerError as exc:
            raise ManagerError(f"the edited file no longer parses: {exc.message}", path=after.path,
                               line=exc.line) from None
        if expected != got:
            raise ManagerError("after the edits the file differs from the planned change; nothing written",
                               path=after.path)


def _replace(data: Any, mapping: dict[str, str]) -> Any:
    if isinstance(data, dict):
        return {k: _replace(v, mapping) for k, v in data.items()}
    if isinstance(data, list):
        return [_replace(v, mapping) for v in data]
    if isinstance(data, str):
        return mapping.get(data, data)
    return data
