"""conda environment files (``environment.yml``, ``environment-*.yml``): the pip section is a requirement list.

Format (conda docs, "Managing environments: creating an environment file
manually"): a YAML mapping whose ``dependencies:`` list holds conda package
specs (``- python=3.11``, ``- pytorch=2.13.0``, ``- conda-forge::numpy>=1.26``)
and optionally one mapping ``- pip:`` whose list holds pip requirement
strings, installed by pip exactly like the lines of a ``requirements.txt``.

Rewriting: every exact pin of the pip section naming a package the bump
changes is moved like a ``requirements.txt`` line (only the version
characters).  A conda-level spec of such a package (``pytorch`` is conda's
name of ``torch``) is never rewritten (conda builds are versioned apart from
PyPI wheels): it is a non-blocking ``conda-pin`` item in ``update``, and in
``audit`` while its version differs from the template's pin.
"""

from __future__ import annotations

import re
from typing import Optional

from packaging.requirements import InvalidRequirement, Requirement

from bot.model import Bump, Edit, Finding, Flag, ManagerResult, norm
from bot.template.interface import Manager, ManagerError
from bot.textfile import TextDocument

#: conda package names that are another name of a pip package.
CONDA_NAMES = {"pytorch": "torch"}
#: Packages whose conda-level spec is listed (the Python pins a bump moves).
CONDA_LISTED = ("executorch", "torch", "torchao", "ethos-u-vela", "tosa-tools")
#: A conda match spec: ``[channel::]name[ op version[ build]]`` (op ``=``, ``==``, ``>=`` ... or a space).
_CONDA_SPEC = re.compile(r"^(?:[\w.\-]+::)?(?P<name>[A-Za-z0-9][A-Za-z0-9._\-]*)[ \t]*"
                         r"(?P<op>==|=|>=|<=|>|<|!=|~=)?[ \t]*(?P<v>\d[\w.*+!]*)?")
_CLAUSE = re.compile(r"(===|==|~=|!=|<=|>=|<|>)\s*([^\s,;()]+)")


class CondaManager(Manager):
    """The ``dependencies:`` of a conda environment file: pip-section pins (kind ``"requirement"``)
    and conda-level specs of the Python pins (kind ``"conda-pin"``, read only)."""

    name = "conda"
    patterns = ("environment.yml", "environment.yaml", "environment-*.yml", "environment-*.yaml",
                "environment_*.yml", "environment_*.yaml", "*.environment.yml", "conda-env*.yml")

    def matches(self, relpath: str) -> bool:
        """By :attr:`patterns` (every one a YAML name: the suffix is tested first, a template has thousands of files)."""
        return relpath.endswith((".yml", ".yaml")) and super().matches(relpath)

    def _entries(self, doc: TextDocument):
        """``[(section, line, value, start, end)]``: ``section`` ``"pip"`` or ``"conda"``; ``start/end``
        the offsets of the scalar's value in ``doc.text`` (quotes excluded)."""
        import yaml

        if "dependencies" not in doc.text:
            return []
        try:
            root = yaml.compose(doc.text, Loader=yaml.SafeLoader)
        except (yaml.YAMLError, RecursionError) as exc:   # RecursionError: nested too deeply
            mark = getattr(exc, "problem_mark", None)
            raise ManagerError(f"invalid YAML: {getattr(exc, 'problem', None) or exc}", path=doc.path,
                               line=mark.line + 1 if mark else None) from None
        if not isinstance(root, yaml.MappingNode):
            return []
        deps = next((v for k, v in root.value if isinstance(k, yaml.ScalarNode) and k.value == "dependencies"), None)
        if not isinstance(deps, yaml.SequenceNode):
            return []
        out = []

        def scalar(section: str, node) -> None:
            if not isinstance(node, yaml.ScalarNode) or not isinstance(node.value, str):
                return
            s, e = node.start_mark.index, node.end_mark.index
            raw = doc.text[s:e]
            if node.style in ("'", '"'):
                s, e = s + 1, e - 1
                raw = doc.text[s:e]
            if raw != node.value:  # escapes or a folded scalar: located only when written plainly
                return
            out.append((section, node.start_mark.line + 1, node.value, s, e))

        for item in deps.value:
            if isinstance(item, yaml.MappingNode):
                for k, v in item.value:
                    if isinstance(k, yaml.ScalarNode) and k.value == "pip" and isinstance(v, yaml.SequenceNode):
                        for x in v.value:
                            scalar("pip", x)
            else:
                scalar("conda", item)
        return out

    def extract(self, doc: TextDocument) -> list[Finding]:
        """Pip-section requirements (kind ``"requirement"``, exact or a range) and conda-level specs
        of :data:`CONDA_LISTED` packages (kind ``"conda-pin"``, ``name`` the pip name)."""
        out = []
        for section, line, value, _, _ in self._entries(doc):
            if section == "pip":
                req = _requirement(value)
                if req is None or req.url or not req.specifier:
                    continue
                specs = list(req.specifier)
                exact = len(specs) == 1 and specs[0].operator in ("==", "===") and not specs[0].version.endswith("*")
                out.append(Finding(doc.path, line, "requirement", norm(req.name),
                                   specs[0].version if exact else str(req.specifier), exact, value))
            else:
                m = _CONDA_SPEC.match(value)
                if m and m.group("v"):
                    name = CONDA_NAMES.get(norm(m.group("name")), norm(m.group("name")))
                    if name in CONDA_LISTED:
                        out.append(Finding(doc.path, line, "conda-pin", name, m.group("v"),
                                           m.group("op") in ("=", "==", None), value))
        return out

    def update(self, doc: TextDocument, bump: Bump) -> ManagerResult:
        """Edits (kind ``"requirement"``) of the pip section's exact pins of changed packages;
        a ``conda-pin`` flag per conda-level spec of a changed package not already at its new version;
        a blocking ``range-pin`` for a pip-section range of a changed package."""
        edits: list[Edit] = []
        flags: list[Flag] = []
        for section, line, value, s, _ in self._entries(doc):
            if section == "conda":
                m = _CONDA_SPEC.match(value)
                if not (m and m.group("v")):
                    continue
                name = CONDA_NAMES.get(norm(m.group("name")), norm(m.group("name")))
                change = bump.change_for(name)
                if change is not None and m.group("v") != change.new:
                    flags.append(Flag("conda-pin", f"the conda-level spec {value!r} pins {name}; the bot "
                                      f"does not rewrite conda specs (conda builds are versioned apart from "
                                      f"PyPI): move it to {change.new} by hand, or list it under "
                                      "ignore-mentions:", path=doc.path, line=line, blocking=False))
                continue
            req = _requirement(value)
            if req is None or req.url:
                continue
            change = bump.change_for(req.name)
            if change is None:
                continue
            clauses = [(m.group(1), m.group(2), m.start(2)) for m in _CLAUSE.finditer(value)]
            if len(clauses) != 1 or clauses[0][0] not in ("==", "==="):
                flags.append(Flag("range-pin", f"{value} is a range; the bump pins {change.new} exactly, so it "
                                  "was left for you to change", path=doc.path, line=line, blocking=True))
                continue
            _, old, at = clauses[0]
            if old == change.new:
                continue
            edits.append(Edit(doc.path, s + at, s + at + len(old), old, change.new, line, "requirement",
                              f"{norm(req.name)} pin in the pip section ({change.source})"))
        return ManagerResult(tuple(edits), tuple(flags))

    def check(self, before: TextDocument, after: TextDocument, edits: list[Edit]) -> None:
        """The edited file parses as YAML and equals the original with only the edited versions changed."""
        import yaml
        try:
            new = yaml.safe_load(after.text)
        except (yaml.YAMLError, RecursionError) as exc:   # RecursionError: nested too deeply
            raise ManagerError(f"the edited file no longer parses: {exc}", path=after.path) from None
        old = yaml.safe_load(before.text)
        if _shape(old) != _shape(new):
            raise ManagerError("the edited file's dependencies changed shape; nothing written", path=after.path)


def _shape(data) -> Optional[list]:
    """The dependency names (conda and pip) in order: what an edit of versions must not change."""
    if not isinstance(data, dict) or not isinstance(data.get("dependencies"), list):
        return None
    out = []
    for d in data["dependencies"]:
        if isinstance(d, dict):
            out.append({k: [(_requirement(x).name if isinstance(x, str) and _requirement(x) else x)
                            for x in (v or [])] if isinstance(v, list) else v for k, v in d.items()})
        else:
            out.append(d)
    return out


def _requirement(text: str) -> Optional[Requirement]:
    try:
        return Requirement(text)
    except InvalidRequirement:
        return None
