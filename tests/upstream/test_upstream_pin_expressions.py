"""How upstream states a pin in Python and what the bump makes of it: annotated constants, f-strings
whose placeholder is or is not a module constant, the flags of an unusable source and of a TOSA pin
upstream dropped, and ``--set`` on a TOSA package."""

from __future__ import annotations

from pathlib import Path

from bot.model import Flag, PinChange, PinSet, ResolvedPin
from bot.upstream.pinfiles import parse_python
from bot.upstream.pins import plan_changes, resolve_pinset
from bot.upstream.source import DirectorySource


def write_tag(root: Path, tag: str, files: dict[str, str]) -> DirectorySource:
    for rel, text in files.items():
        p = root / tag / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    return DirectorySource(root)


def test_annotated_constants_are_constants():
    facts = parse_python(b'TORCH_VERSION: str = "2.11.0"\nOTHER: int = 3\nBARE: str\n', "torch_pin.py", "v1.5.1")
    assert facts.constants == {"TORCH_VERSION": "2.11.0"}
    assert facts.assigned == {"TORCH_VERSION": '"2.11.0"', "OTHER": "3"}


def test_an_annotated_torch_version_resolves_torch(tmp_path):
    src = write_tag(tmp_path, "v1.5.1", {"torch_pin.py": 'TORCH_VERSION: str = "2.11.0"\n'})
    torch = resolve_pinset(src, "v1.5.1").get("torch")
    assert torch == ResolvedPin("torch", "2.11.0", "torch_pin.py TORCH_VERSION @ v1.5.1", spec="==2.11.0")


def test_an_fstring_with_a_module_constant_is_a_requirement_naming_the_constant():
    facts = parse_python(b'TORCHAO = "0.19.0"\nREQS = [f"torchao=={TORCHAO}"]\n', "install_requirements.py", "v1.5.1")
    assert [(r.name, r.version, r.line, r.via) for r in facts.requirements] == [("torchao", "0.19.0", 2, "TORCHAO")]


def test_an_fstring_whose_placeholder_is_not_a_module_constant_is_unresolved_not_guessed():
    facts = parse_python(b'def reqs(v):\n    return [f"torchao=={v}", f"torch >= {v}"]\n', "install_requirements.py", "v1")
    assert [(r.name, r.version, r.spec, r.line, r.problem) for r in facts.requirements] == [
        ("torchao", None, "==", 2, "an f-string whose placeholder is not a module-level string constant"),
        ("torch", None, ">=", 2, "an f-string whose placeholder is not a module-level string constant")]


def test_an_fstring_whose_placeholder_is_not_a_module_constant_is_never_a_pin(tmp_path):
    src = write_tag(tmp_path, "v1.5.1", {
        "install_requirements.py": 'def reqs(v):\n    return [f"torchao=={v}"]\n',
        "pyproject.toml": '[project]\ndependencies = ["torchao==0.15.0"]\n',
    })
    ps = resolve_pinset(src, "v1.5.1")
    assert ps.get("torchao") == ResolvedPin("torchao", "0.15.0",
                                            "pyproject.toml [project.dependencies] @ v1.5.1", spec="==0.15.0")
    assert ps.flags == (Flag("source-unusable",
                             "torchao: install_requirements.py @ v1.5.1: an f-string whose placeholder is not "
                             "a module-level string constant; using 0.15.0 from pyproject.toml [project.dependencies] @ v1.5.1",
                             path="install_requirements.py", line=None, blocking=False),)


def _pins(tag, version, tosa=()):
    return PinSet(tag=tag, executorch=version, pack=version, pins=(
        ResolvedPin("torch", "2.13.0", "torch_pin.py"), ResolvedPin("torchao", "0.18.0", "install_requirements.py"),
        ResolvedPin("ethos-u-vela", "5.1.0", "requirements-arm-ethos-u.txt")), tosa=tuple(tosa))


TOSA = "backends/arm/requirements-arm-tosa.txt"


def test_a_tosa_pin_upstream_dropped_is_a_non_blocking_removed_pin():
    current = _pins("v1.4.0", "1.4.0", [ResolvedPin("tosa-tools", "2026.5.0", TOSA)])
    target = _pins("v1.5.1", "1.5.1")
    changes, flags = plan_changes(current, target)
    assert [c.name for c in changes] == ["executorch", "torch", "torchao", "ethos-u-vela"]
    assert flags == (Flag("removed-pin", f"tosa-tools: {TOSA} no longer names it at v1.5.1 (it was 2026.5.0 at "
                                         "v1.4.0); left alone", path=TOSA, line=None, blocking=False),)


def test_set_on_a_tosa_package_wins_and_says_what_it_replaced():
    current = _pins("v1.4.0", "1.4.0", [ResolvedPin("tosa-tools", "2026.5.0", TOSA)])
    target = _pins("v1.5.1", "1.5.1", [ResolvedPin("tosa-tools", "2026.8.0", TOSA)])
    changes, flags = plan_changes(current, target, {"Tosa_Tools": "2026.9.0"})
    assert changes[-1] == PinChange("tosa-tools", "2026.5.0", "2026.9.0", "--set")
    assert flags == (Flag("set-override", f"tosa-tools: --set 2026.9.0 replaces 2026.8.0 from {TOSA}",
                          path=None, line=None, blocking=False),)


def test_set_on_a_tosa_package_when_the_current_version_has_no_tag():
    target = _pins("v1.5.1", "1.5.1", [ResolvedPin("tosa-tools", "2026.8.0", TOSA)])
    changes, flags = plan_changes(None, target, {"tosa-tools": "2026.8.0"})
    assert changes[-1] == PinChange("tosa-tools", None, "2026.8.0", "--set")
    assert [(f.code, f.path, f.blocking) for f in flags] == [("tosa-unknown", TOSA, True)]


def test_an_unresolved_target_pin_is_blocking_and_names_the_way_out():
    target = PinSet(tag="v1.5.1", executorch="1.5.1", pack="1.5.1", pins=(
        ResolvedPin("torch", None, reason="no exact pin at v1.5.1: torch_pin.py is absent"),
        ResolvedPin("torchao", "0.19.0", "x"), ResolvedPin("ethos-u-vela", "5.2.0", "y")))
    changes, flags = plan_changes(_pins("v1.4.0", "1.4.0"), target)
    assert [c.name for c in changes] == ["executorch", "torchao", "ethos-u-vela"]
    assert flags == (Flag("unresolved-pin", "torch: cannot resolve the pin at v1.5.1: no exact pin at v1.5.1: "
                          "torch_pin.py is absent; pass --set torch=VERSION", path=None, line=None, blocking=True),)
