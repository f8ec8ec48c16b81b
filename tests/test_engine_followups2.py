"""Regression tests from the second new-user trial of the engine (issue 2 follow-ups).

Each section holds one item: the value asserted is the right one, and the test
failed before the change that made it pass.  Inputs are written here, modelled
on FORMATS.md; the template is the shipped sample (ExecuTorch 1.4.0) and the
upstream the sample tag folders (v1.4.0, v1.5.1).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from bot.sample import UPSTREAM_DIR
from bot.template.pep508 import empty_operator
from bot.upstream.pins import parse_python, parse_requirement_file, plan_changes, resolve_pinset
from bot.upstream.source import DirectorySource
from helpers import run_cli, snapshot

TOSA = "backends/arm/requirements-arm-tosa.txt"
ETHOS = "backends/arm/requirements-arm-ethos-u.txt"


@pytest.fixture
def tags(tmp_path) -> Path:
    """A writable copy of the sample tag folders (v1.4.0, v1.5.1)."""
    root = tmp_path / "tags"
    for name in ("v1.4.0", "v1.5.1"):
        shutil.copytree(UPSTREAM_DIR / name, root / name)
    return root


def write(root: Path, rel: str, text: str) -> None:
    p = root / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text)


def update(capsys, template, upstream, *extra):
    return run_cli(capsys, "update", "--repo", template, "--upstream", upstream, *extra)


def audit(capsys, template, *extra):
    return run_cli(capsys, "audit", "--repo", template, *extra)


# --------------------------------------------------------------------------------------
# 1. An operator with no version: the same answer under packaging 25.x and 26.x
# --------------------------------------------------------------------------------------

@pytest.mark.parametrize("text, op", [("ethos-u-vela ===", "==="), ("x==", "=="), ("x >= 1.0, <", "<"),
                                      ("x[extra] ~= ; python_version < '3.12'", "~="), ("x (==)", "=="),
                                      ("x==1.0", None), ("x", None), ("x @ https://h/x.whl", None),
                                      ("x===1.0-custom", None), ("x==1.0,", None)])
def test_empty_operator_is_found_before_packaging_sees_it(text, op):
    assert empty_operator(text) == op


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


def test_template_requirement_without_version_names_the_line(capsys, template, upstream_repo):
    (template / "requirements.txt").write_text("numpy\nexecutorch ===\n")
    before = snapshot(template)
    code, out, err = update(capsys, template, upstream_repo, "--dry-run")
    assert code == 2 and "requirements.txt:2:" in err and "=== has no version" in err
    assert "Traceback" not in err and snapshot(template) == before


def test_template_pyproject_poetry_operator_without_version_is_no_specifier():
    from bot.template.pyproject import other_pins
    pins = other_pins({"tool": {"poetry": {"dependencies": {"executorch": "==="}}}})
    assert [(p.name, p.version, p.specifier) for p in pins] == [("executorch", None, None)]
