"""Every test that uses an optional part (tests/worlds/optional_parts.py) carries its ``needs`` mark, so that the README's
test command skips it on a fresh machine (saying how to get the part) and fails it under CI=true.

A test "uses" a part when the part's helper appears in the test or in anything it reaches in the test files: its
fixtures (by parameter name), the module functions it calls, the names it imports from other test modules, each
followed to its own uses. The helpers, per part, are the names below (imported from the helper module that owns
them) and the source patterns below (a tool looked up on PATH, a run-model build).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import optional_parts

TESTS = Path(__file__).resolve().parents[1]   # tests/

#: (module the name is imported from, name) -> the parts it needs.
HELPERS: dict[tuple[str, str], tuple[str, ...]] = {
    ("actworld", "ActWorld"): ("act", "wheelhouse"),
    ("actworld", "act_binary"): ("act",),
    ("actworld", "session_site"): ("wheelhouse",),
    ("fleetactworld", "FleetActWorld"): ("act", "wheelhouse"),
    ("actions_expressions", "evaluate"): ("expressions",),
    ("actions_expressions", "evaluate_templates"): ("expressions",),
    ("webhook_payloads", "example"): ("webhooks",),
    ("webhook_payloads", "comment_event"): ("webhooks",),
    ("webhook_payloads", "review_event"): ("webhooks",),
    ("webhook_payloads", "issue_edited_event"): ("webhooks",),
    ("webhook_payloads", "synchronize_event"): ("webhooks",),
    ("openapi_contract", "contract"): ("openapi",),
    ("openapi_contract", "flow_exchanges"): ("openapi",),
    ("openapi_contract", "check_exchanges"): ("openapi",),
    ("test_run_model_real_export", "HOST"): ("host-venv",),
    ("optional_parts", "HOST"): ("host-venv",),
}
#: Source patterns -> the parts they need.  A run-model call builds with the Arm toolchain and boots QEMU, except
#: in a test of its usage or bad input (it asks for --help, or asserts exit 2: refused before anything is built).
PATTERNS: list[tuple[re.Pattern, tuple[str, ...]]] = [
    (re.compile(r"which\(\s*[\"']arm-none-eabi-g"), ("arm-gcc",)),
    (re.compile(r"which\(\s*[\"']qemu-system-arm"), ("qemu",)),
    (re.compile(r"which\(\s*[\"']ccache"), ("ccache",)),
    (re.compile(r"which\(\s*[\"']cmake"), ("cmake",)),
    (re.compile(r"executorch-host"), ("host-venv",)),
    (RUN_MODEL := re.compile(r"main\(\s*\[\s*[\"']run-model[\"']"), ("arm-gcc", "qemu")),
]
BEFORE_BUILD = re.compile(r"code\s*==\s*2\b|\(code, [^)]*\)\s*==\s*\(2\b|\]\)\s*==\s*2\b|[\"']--help[\"']")
#: The ``workflow`` mark (scenarios under act) stands for these parts (tests/conftest.py requires them).
WORKFLOW_PARTS = ("act", "wheelhouse")


@dataclass
class Module:
    """One parsed test file: its functions, where its imported names come from, its marks."""

    name: str
    tree: ast.Module
    text: str
    functions: dict[str, ast.FunctionDef] = field(default_factory=dict)
    imported: dict[str, tuple[str, str]] = field(default_factory=dict)   # local name -> (module, name)
    modules: dict[str, str] = field(default_factory=dict)                # local alias -> module
    mark_names: dict[str, set[str]] = field(default_factory=dict)        # ``needs_x = pytest.mark.needs(...)``
    module_parts: set[str] = field(default_factory=set)


def _parts_of_mark(node: ast.AST, aliases: dict[str, set[str]]) -> set[str]:
    """The parts a mark expression names: ``pytest.mark.needs("a")``, ``needs_alias``, ``pytest.mark.workflow``,
    or a list of them."""
    out: set[str] = set()
    for sub in ast.walk(node):
        if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute) and sub.func.attr == "needs":
            out |= {a.value for a in sub.args if isinstance(a, ast.Constant)}
        elif isinstance(sub, ast.Attribute) and sub.attr == "workflow":
            out |= set(WORKFLOW_PARTS)
        elif isinstance(sub, ast.Name) and sub.id in aliases:
            out |= aliases[sub.id]
    return out


@lru_cache(maxsize=None)
def module(name: str) -> Module | None:
    path = next(TESTS.rglob(f"{name}.py"), None)
    if path is None or not path.is_file():
        return None
    text = path.read_text(encoding="utf-8")
    m = Module(name, ast.parse(text), text)
    for node in m.tree.body:
        if isinstance(node, ast.FunctionDef):
            m.functions[node.name] = node
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for a in node.names:
                m.imported[a.asname or a.name] = (node.module, a.name)
        elif isinstance(node, ast.Import):
            for a in node.names:
                m.modules[a.asname or a.name] = a.name
        elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            target = node.targets[0].id
            parts = _parts_of_mark(node.value, m.mark_names)
            if target == "pytestmark":
                m.module_parts |= parts
            elif parts:
                m.mark_names[target] = parts
    return m


def _own_parts(m: Module, fn: ast.FunctionDef) -> set[str]:
    out: set[str] = set()
    for dec in fn.decorator_list:
        out |= _parts_of_mark(dec, m.mark_names)
    return out


def uses(m: Module, fn: ast.FunctionDef, seen: set | None = None, before_build: bool | None = None) -> dict[str, str]:
    """The parts ``fn`` uses (transitively), each with the first helper that shows it (``module.function: helper``)."""
    seen = set() if seen is None else seen
    if before_build is None:
        before_build = bool(BEFORE_BUILD.search(ast.get_source_segment(m.text, fn) or ""))
    if (m.name, fn.name) in seen:
        return {}
    seen.add((m.name, fn.name))
    found: dict[str, str] = {}
    source = ast.get_source_segment(m.text, fn) or ""
    for pattern, parts in PATTERNS:
        hit = pattern.search(source)
        if hit and not (pattern is RUN_MODEL and before_build):
            for p in parts:
                found.setdefault(p, f"{m.name}.{fn.name}: {hit.group(0)!r}")
    names = {a.arg for a in fn.args.args + fn.args.kwonlyargs}
    imported, modules = dict(m.imported), dict(m.modules)   # and the imports inside the function
    for sub in ast.walk(fn):
        if isinstance(sub, ast.ImportFrom) and sub.module and sub.level == 0:
            imported.update({a.asname or a.name: (sub.module, a.name) for a in sub.names})
        elif isinstance(sub, ast.Import):
            modules.update({a.asname or a.name: a.name for a in sub.names})
    for sub in ast.walk(fn):
        if isinstance(sub, ast.Name):
            names.add(sub.id)
        elif isinstance(sub, ast.Attribute) and isinstance(sub.value, ast.Name) and sub.value.id in modules:
            for p in HELPERS.get((modules[sub.value.id], sub.attr), ()):
                found.setdefault(p, f"{m.name}.{fn.name}: {sub.value.id}.{sub.attr}")
    for name in sorted(names):
        if name in imported:
            origin = imported[name]
            for p in HELPERS.get(origin, ()):
                found.setdefault(p, f"{m.name}.{fn.name}: {origin[0]}.{origin[1]}")
            other = module(origin[0]) if origin[0].startswith("test_") else None
            if other and origin[1] in other.functions:
                for p, why in uses(other, other.functions[origin[1]], seen, before_build).items():
                    found.setdefault(p, why)
        elif name in m.functions and name != fn.name:
            for p, why in uses(m, m.functions[name], seen, before_build).items():
                found.setdefault(p, why)
    return found


def _tests(m: Module):
    for node in m.tree.body:
        if isinstance(node, ast.FunctionDef) and node.name.startswith("test"):
            yield node, set()
        elif isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
            class_parts: set[str] = set()
            for dec in node.decorator_list:
                class_parts |= _parts_of_mark(dec, m.mark_names)
            for item in node.body:
                if isinstance(item, ast.FunctionDef) and item.name.startswith("test"):
                    yield item, class_parts


def unmarked() -> list[str]:
    """``file::test: needs PART (helper)`` for every test using a part it is not marked with."""
    out = []
    for path in sorted(TESTS.rglob("test_*.py")):
        m = module(path.stem)
        for fn, class_parts in _tests(m):
            marked = m.module_parts | class_parts | _own_parts(m, fn)
            for part, why in sorted(uses(m, fn).items()):
                if part not in marked:
                    out.append(f"{path.name}::{fn.name}: needs {part!r} ({why})")
    return out


def test_every_test_using_an_optional_part_is_marked_with_it():
    assert unmarked() == []


def test_every_mark_names_a_known_part():
    names = set(optional_parts.PARTS)
    bad = []
    for path in sorted(TESTS.rglob("test_*.py")):
        m = module(path.stem)
        marked = set(m.module_parts)
        for fn, class_parts in _tests(m):
            marked |= class_parts | _own_parts(m, fn)
        bad += [f"{path.name}: {p!r}" for p in sorted(marked - names)]
    assert bad == []


def test_the_check_sees_a_helper_through_a_fixture_of_another_module():
    # test_run_model_template_model's ``suite`` fixture exports with the host venv: a test asking for it uses it
    m = module("test_run_model_template_model")
    assert "host-venv" in uses(m, m.functions["suite"])
