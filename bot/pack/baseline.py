"""The ``baseline-operators`` and ``template-components`` checks: operator components against an older
pack, and the components a template selects.

Facts (public CMSIS ExecuTorch templates such as Arm-Examples/CMSIS-Executorch; ExecuTorch's cmsis_pack/templates/PyTorch.ExecuTorch.pdsc.tpl at v1.4.1): the generated AI layer
(``ai_layer/ai_layer.clayer.yml``) lists ``components:`` such as
``Machine Learning:ExecuTorch Operators:Portable add``; a cproject may list
pack components too.  A component id has the csolution form
``[Cvendor::]Cclass[&Cbundle]:Cgroup[:Csub][&Cvariant][@version]``.  Only
ids of this pack are compared (Cclass ``Machine Learning``, a Cgroup
starting with ``ExecuTorch``, vendor absent or ``PyTorch``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from bot.errors import TemplateError
from bot.model import CheckResult
from bot.pack.pdsc import Pdsc

_ID = re.compile(r"^(?:(?P<vendor>[^:&@]+)::)?(?P<cclass>[^:&@]+?)(?:&(?P<bundle>[^:@]+?))?"
                 r":(?P<cgroup>[^:&@]+?)(?::(?P<csub>[^&@]+?))?(?:&(?P<variant>[^@]+?))?(?:@(?P<version>.+))?$")
PATTERNS = ("*.clayer.yml", "*.cproject.yml")


@dataclass(frozen=True)
class Selected:
    """A component a template file selects: ``path`` (relative POSIX), 1-based ``line``, the id ``text`` and its parts."""

    path: str
    line: int
    text: str
    cclass: str
    cgroup: str
    csub: str | None


def operator_delta(old: Pdsc, new: Pdsc) -> tuple[list[str], list[str]]:
    """(added, removed) operator Csubs (``"Portable add"``) of ``new`` against ``old``, sorted."""
    a = {c.csub for c in old.operators() if c.csub}
    b = {c.csub for c in new.operators() if c.csub}
    return sorted(b - a), sorted(a - b)


def _shape(c) -> tuple:
    """What a component is made of, its Cversion aside: files (category, name), defines, condition."""
    return (tuple(sorted((f.category, f.name) for f in c.files)), tuple(sorted(c.defines)),
            getattr(c, "condition", None))


def operators_changed(old: Pdsc, new: Pdsc) -> list[str]:
    """Operator Csubs in both packs whose files, ``#define`` or condition differ (``Cversion`` aside), sorted."""
    a = {c.csub: _shape(c) for c in old.operators() if c.csub}
    return sorted(c.csub for c in new.operators() if c.csub in a and a[c.csub] != _shape(c))


def baseline_check(old: Pdsc, new: Pdsc, old_name: str) -> tuple[CheckResult, list[str], list[str]]:
    """Check ``baseline-operators``: pass, or warn when operator components were removed; also returns the delta.

    ``data``: ``{"baseline", "added", "removed", "changed"}`` (Csubs; changed: :func:`operators_changed`).
    """
    added, removed = operator_delta(old, new)
    changed = operators_changed(old, new)
    data = {"baseline": old_name, "added": added, "removed": removed, "changed": changed}
    detail = (f"against {old_name}: {len(added)} operator components added, {len(removed)} removed, "
              f"{len(changed)} changed")
    if removed:
        return CheckResult("baseline-operators", "warn", detail + f" ({', '.join(removed[:8])})", data), added, removed
    return CheckResult("baseline-operators", "pass", detail, data), added, removed


def parse_component_id(text: str) -> dict | None:
    """Parts of a csolution component id, or None when it is not one."""
    m = _ID.match(text.strip())
    return m.groupdict() if m else None


def selected_components(template: Path) -> list[Selected]:
    """Components of this pack selected by ``*.clayer.yml``/``*.cproject.yml`` under ``template`` (a dir or one file).

    Raises :class:`TemplateError` (exit 2) naming the file and line for YAML
    that does not parse.
    """
    import yaml

    if template.is_file():
        files, base = [template], template.parent
    else:
        files = sorted(p for pat in PATTERNS for p in template.rglob(pat) if ".git" not in p.parts)
        base = template
    out: list[Selected] = []
    for f in files:
        rel = f.relative_to(base).as_posix()
        try:
            node = yaml.compose(f.read_text(encoding="utf-8-sig"), Loader=yaml.SafeLoader)
        except (yaml.YAMLError, RecursionError) as exc:   # RecursionError: nested too deeply
            mark = getattr(exc, "problem_mark", None)
            raise TemplateError(f"not valid YAML: {getattr(exc, 'problem', exc)}", path=rel,
                                line=mark.line + 1 if mark else None) from exc
        except (OSError, UnicodeDecodeError) as exc:
            raise TemplateError(f"cannot read: {exc}", path=rel) from exc
        for value in _component_values(node):
            parts = parse_component_id(value.value)
            if not parts or not _ours(parts):
                continue
            out.append(Selected(rel, value.start_mark.line + 1, value.value.strip(), parts["cclass"].strip(),
                                parts["cgroup"].strip(), (parts["csub"] or "").strip() or None))
    return out


def _ours(parts: dict) -> bool:
    return (parts["vendor"] in (None, "PyTorch") and parts["cclass"].strip() == "Machine Learning"
            and parts["cgroup"].strip().startswith("ExecuTorch"))


def _component_values(node):
    """Scalar values of every ``component:`` key in a composed YAML tree.

    Each node is visited once: an anchor used many times (``*a`` nested
    aliases) or a recursive alias (``a: &a [*a]``) is one shared node in the
    composed graph, so the walk stays linear and always ends.
    """
    from bot.yamlnodes import values_of

    yield from values_of(node, "component")


def template_check(template: Path, new: Pdsc) -> CheckResult:
    """Check ``template-components``: every component of this pack the template selects exists in ``new``."""
    selected = selected_components(template)
    missing = [s for s in selected if new.component(s.cclass, s.cgroup, s.csub) is None]
    if missing:
        names = "; ".join(f"{s.path}:{s.line}: {s.text}" for s in missing[:5])
        return CheckResult("template-components", "fail",
                           f"{len(missing)} component(s) the template selects are not in the new pack: {names}",
                           {"missing": [f"{s.path}:{s.line}: {s.text}" for s in missing]})
    if not selected:
        return CheckResult("template-components", "warn",
                           f"no *.clayer.yml or *.cproject.yml under {template} selects an ExecuTorch component")
    distinct = {(s.cclass, s.cgroup, s.csub) for s in selected}   # one component selected in two files is one
    files = {s.path for s in selected}
    where = (f" ({len(selected)} selections in {len(files)} files)" if len(selected) != len(distinct) else "")
    return CheckResult("template-components", "pass",
                       f"all {len(distinct)} ExecuTorch components the template selects{where} are in the pack")
