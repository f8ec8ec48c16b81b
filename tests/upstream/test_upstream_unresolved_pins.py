"""Upstream pins that cannot be resolved at a tag are unresolved pins naming the file, line and
tag, never a guess or an internal error.

Inputs are upstream trees as they can look at a tag (a trailing backslash, ``===`` pins, a
package named twice, a ``TORCH_VERSION`` that is not a version string).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.upstream.pinfiles import parse_python, parse_requirement_file
from bot.upstream.pins import plan_changes, resolve_pinset
from bot.upstream.source import DirectorySource
from helpers import write, snapshot
from helpers import update as _update

TOSA = "backends/arm/requirements-arm-tosa.txt"


ETHOS = "backends/arm/requirements-arm-ethos-u.txt"


def write_tag(root: Path, tag: str, path: str, text: str) -> None:
    p = root / tag / path
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text)


def test_continuation_at_end_of_file_keeps_the_last_requirement():
    """pip joins a trailing backslash at EOF with nothing; the last requirement used to vanish."""
    reqs = parse_requirement_file(b"ml_dtypes == 0.5.1\ntosa-tools == 2026.8.0 \\", TOSA, "v1.5.1")
    assert [(r.name, r.version) for r in reqs] == [("ml-dtypes", "0.5.1"), ("tosa-tools", "2026.8.0")]


@pytest.mark.parametrize("line", ["ethos-u-vela === 5.2.0-custom\n", "ethos-u-vela ===\n"])
def test_arbitrary_equality_pin_upstream_is_unresolved_not_an_internal_error(tags, line):
    write_tag(tags, "v1.5.1", ETHOS, line)
    write_tag(tags, "v1.5.1", "pyproject.toml", "[project]\nname = 'executorch'\n")
    src = DirectorySource(tags)
    target = resolve_pinset(src, "v1.5.1")
    vela = target.get("ethos-u-vela")
    assert not vela.resolved and "===" in vela.reason
    changes, flags = plan_changes(resolve_pinset(src, "v1.4.0"), target)
    assert [f.code for f in flags if f.blocking] == ["unresolved-pin"]


def test_arbitrary_equality_tosa_pin_through_the_cli(tags, template, capsys):
    write_tag(tags, "v1.5.1", TOSA, "ml_dtypes === \ntosa-tools == 2026.8.0\n")
    before = snapshot(template)
    code = _update(capsys, template, tags)[0]
    assert code == 1  # flagged, nothing written; no internal error (exit 2 from the last-resort handler)
    assert snapshot(template) == before


@pytest.mark.parametrize("path", [TOSA, ETHOS])
def test_package_pinned_twice_with_different_versions_is_not_guessed(tags, path):
    name = "tosa-tools" if path == TOSA else "ethos-u-vela"
    write_tag(tags, "v1.5.1", path, f"{name} == 2026.8.0\n{name} == 2026.9.0\n")
    write_tag(tags, "v1.5.1", "pyproject.toml", "[project]\nname = 'executorch'\n")
    src = DirectorySource(tags)
    target = resolve_pinset(src, "v1.5.1")
    pin = target.get(name)
    assert not pin.resolved
    assert "2026.8.0" in pin.reason and "2026.9.0" in pin.reason and f"{path}:2" in pin.reason


def test_same_package_twice_with_the_same_version_resolves(tags):
    write_tag(tags, "v1.5.1", TOSA, "tosa-tools == 2026.8.0 ; python_version < '3.12'\n"
                                 "tosa-tools == 2026.8.0 ; python_version >= '3.12'\n")
    assert resolve_pinset(DirectorySource(tags), "v1.5.1").get("tosa-tools").version == "2026.8.0"


@pytest.mark.parametrize("value", ["2.14", "'latest'", "b'2.14.0'", "'2.14.0 ; evil'"])
def test_unusable_torch_version_is_flagged_when_a_later_source_is_used(tags, value):
    """torch_pin.py holds TORCH_VERSION but not a version: falling back silently was a guess."""
    write_tag(tags, "v1.5.1", "torch_pin.py", f"TORCH_VERSION = {value}\n")
    target = resolve_pinset(DirectorySource(tags), "v1.5.1")
    assert target.get("torch").version == "2.14.0"  # install_requirements.py's torch==2.14.0
    msgs = [f.message for f in target.flags if f.code == "source-unusable"]
    assert len(msgs) == 1 and "torch_pin.py" in msgs[0] and "TORCH_VERSION" in msgs[0], target.flags


def test_unusable_vela_requirement_is_flagged_when_the_pyproject_extra_is_used(tags):
    write_tag(tags, "v1.5.1", ETHOS, "ethos-u-vela === 5.2.0-custom\n")
    target = resolve_pinset(DirectorySource(tags), "v1.5.1")
    assert target.get("ethos-u-vela").version == "5.2.0"  # the pyproject ethos_u extra
    assert [f.path for f in target.flags if f.code == "source-unusable"] == [ETHOS]


@pytest.mark.parametrize("line", ["ethos-u-vela ===\n", "ethos-u-vela ==\n", "ethos-u-vela >= 5.0, <\n"])
def test_upstream_operator_without_version_is_an_unresolved_pin(tags, line):
    """packaging 26.4 refuses ``name ===`` (25.x parsed it) and both refuse ``name ==``: was exit 2 / internal."""
    write(tags, f"v1.5.1/{ETHOS}", line)
    write(tags, "v1.5.1/pyproject.toml", "[project]\nname = 'executorch'\n")
    src = DirectorySource(tags)
    vela = resolve_pinset(src, "v1.5.1").get("ethos-u-vela")
    assert vela.version is None and "has no version" in vela.reason and ETHOS in vela.reason
    _, flags = plan_changes(resolve_pinset(src, "v1.4.0"), resolve_pinset(src, "v1.5.1"))
    assert [f.code for f in flags if f.blocking] == ["unresolved-pin"]


def test_upstream_requirement_file_line_keeps_its_number():
    reqs = parse_requirement_file(b"ml_dtypes == 0.5.1\ntosa-tools ===\n", TOSA, "v1.5.1")
    assert [(r.name, r.version, r.line) for r in reqs] == [("ml-dtypes", "0.5.1", 1), ("tosa-tools", None, 2)]
    assert "=== has no version" in reqs[1].why_unresolved()


def test_upstream_python_string_without_version_is_read_the_same_way():
    facts = parse_python(b'REQS = ["torchao===", "torch==2.14.0"]\n', "install_requirements.py", "v1.5.1")
    assert [(r.name, r.version) for r in facts.requirements] == [("torchao", None), ("torch", "2.14.0")]
    assert "has no version" in facts.requirements[0].why_unresolved()


def test_upstream_pyproject_extra_without_version_is_unresolved_not_an_error(tags):
    (tags / "v1.5.1" / ETHOS).unlink()
    write(tags, "v1.5.1/pyproject.toml", "[project]\nname = 'executorch'\n"
                                          "[project.optional-dependencies]\nethos_u = ['ethos-u-vela ==']\n")
    vela = resolve_pinset(DirectorySource(tags), "v1.5.1").get("ethos-u-vela")
    assert vela.version is None and "has no version" in vela.reason


def test_url_pin_upstream_reads_as_a_sentence(tags):
    write(tags, f"v1.5.1/{ETHOS}", "ethos-u-vela @ git+https://example.invalid/vela.git@5.2.0\n")
    write(tags, "v1.5.1/pyproject.toml", "[project]\nname = 'executorch'\n")
    reason = resolve_pinset(DirectorySource(tags), "v1.5.1").get("ethos-u-vela").reason
    assert "gives pinned" not in reason and f"{ETHOS} @ v1.5.1: pinned by a URL" in reason


def test_torch_version_that_is_a_range_is_not_garbled(tags):
    write(tags, "v1.5.1/torch_pin.py", "TORCH_VERSION = '>=2.14'\n")
    write(tags, "v1.5.1/install_requirements.py", "X = 1\n")
    torch = resolve_pinset(DirectorySource(tags), "v1.5.1").get("torch")
    assert "==>=" not in torch.reason and "'>=2.14' is not a version" in torch.reason
