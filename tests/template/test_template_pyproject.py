"""The template's own ``pyproject.toml``: dependency strings bumped byte for byte, constraints
outside the rewritten tables (Poetry, uv, build-system) read and flagged, TOML errors located.
"""

from __future__ import annotations

import json

from helpers import write, run_cli, snapshot
from helpers import update as _update

PYPROJECT = '''\
# The template's Python tools
[project]
name = "fw-template"
requires-python = ">=3.10"
dependencies = [
    "executorch==1.4.0",   # the pack's version
    'torch == 2.13.0',
    "torchvision==0.28.0",
    "numpy>=1.26",
]

[project.optional-dependencies]
arm = ["ethos-u-vela==5.1.0", "tosa-tools == 2026.5.0"]

[dependency-groups]
dev = ["torchao==0.18.0", {include-group = "lint"}]
lint = ["ruff"]

[tool.note]
text = "executorch==1.4.0 stays: not a dependency"
'''


def _audit(capsys, template, *extra):
    return run_cli(capsys, "audit", "--repo", template, *extra)


POETRY = '''[tool.poetry.dependencies]
python = "^3.10"
executorch = "1.4.0"
torch = {version = "2.13.0", source = "pytorch"}
numpy = "^1.26"

[tool.uv]
constraint-dependencies = ["torch==2.13.0"]

[build-system]
requires = ["setuptools", "executorch>=1.4,<1.5"]
'''


def _flags(out: str, code: str) -> list[dict]:
    return [f for f in json.loads(out)["flags"] if f["code"] == code]


def _clean(out: str, err: str) -> None:
    assert "Traceback" not in out + err and "internal error" not in out + err, err


POETRY_EXECUTORCH_ONLY = "[tool.poetry.dependencies]\npython = \"^3.10\"\nexecutorch = '1.4.0'\n"


def test_template_pyproject_dependencies_are_bumped_byte_for_byte(template, upstream_repo, capsys):
    (template / "pyproject.toml").write_text(PYPROJECT)
    rc, out, err = _update(capsys, template, upstream_repo, "--json")
    assert rc == 0, err
    expected = (PYPROJECT.replace('"executorch==1.4.0",', '"executorch==1.5.1",')
                .replace("torch == 2.13.0", "torch == 2.14.0").replace("ethos-u-vela==5.1.0", "ethos-u-vela==5.2.0")
                .replace("tosa-tools == 2026.5.0", "tosa-tools == 2026.8.0").replace("torchao==0.18.0", "torchao==0.19.0"))
    assert (template / "pyproject.toml").read_text() == expected
    assert 'text = "executorch==1.4.0 stays' in expected


def test_template_pyproject_pin_counts_in_the_audit(template, capsys):
    (template / "pyproject.toml").write_text(PYPROJECT.replace('"executorch==1.4.0",', '"executorch==1.3.0",'))
    rc, out, _ = _audit(capsys, template)
    assert rc == 1
    assert "1.3.0: 1 pin (pyproject.toml:6)" in out


def test_template_pyproject_duplicate_string_is_told_apart_by_its_array(template, upstream_repo, capsys):
    # Was refused (exit 2, "cannot be located exactly"): each dependency string is now located in its
    # own array, so the same text elsewhere is not ambiguous; it stays and is listed as a leftover.
    (template / "pyproject.toml").write_text(PYPROJECT.replace('text = "executorch==1.4.0 stays: not a dependency"',
                                                               'text = "executorch==1.4.0"'))
    rc, out, err = _update(capsys, template, upstream_repo, "--json")
    assert rc == 0, err
    text = (template / "pyproject.toml").read_text()
    assert '    "executorch==1.5.1",   # the pack\'s version' in text and 'text = "executorch==1.4.0"' in text
    assert [(f["path"], f["line"]) for f in json.loads(out)["flags"] if f["code"] == "leftover"] == [
        ("pyproject.toml", 20)]


def test_template_pyproject_escaped_string_is_refused(template, upstream_repo, capsys):
    (template / "pyproject.toml").write_text(PYPROJECT.replace('"executorch==1.4.0",', '"executorch\\u003d=1.4.0",'))
    before = snapshot(template)
    rc, out, err = _update(capsys, template, upstream_repo)
    assert rc == 2 and "pyproject.toml:6:" in err and "cannot be located exactly" in err
    assert snapshot(template) == before


def test_template_pyproject_invalid_toml_names_the_line(template, upstream_repo, capsys):
    (template / "pyproject.toml").write_text('[project]\ndependencies = ["executorch==1.4.0"\nname = 1\n')
    rc, out, err = _update(capsys, template, upstream_repo)
    assert rc == 2 and "pyproject.toml:3:" in err and "invalid TOML" in err


def test_pyproject_pins_outside_the_rewritten_tables_block_the_update(template, upstream_repo, capsys):
    """Poetry tables, uv constraints and build requirements were silently left at the old versions
    (the poetry executorch pin was not even a leftover): the bumped template would not install."""
    (template / "pyproject.toml").write_text(POETRY)
    before = snapshot(template)
    rc, out, err = _update(capsys, template, upstream_repo, "--json")
    assert rc == 1, err
    got = sorted((f["line"], f["blocking"]) for f in _flags(out, "unmanaged-pin"))
    assert got == [(3, True), (4, True), (8, True), (11, True)]
    msg = {f["line"]: f["message"] for f in _flags(out, "unmanaged-pin")}
    assert "[tool.poetry.dependencies] executorch = '1.4.0' does not admit 1.5.1" in msg[3]
    assert "tool.uv.constraint-dependencies: 'torch==2.13.0' does not admit 2.14.0" in msg[8]
    assert snapshot(template) == before and not json.loads(out)["written"]


def test_pyproject_poetry_pin_that_disagrees_fails_the_audit(template, capsys):
    (template / "pyproject.toml").write_text(POETRY.replace('executorch = "1.4.0"', 'executorch = "1.3.0"'))
    rc, out, err = run_cli(capsys, "audit", "--repo", template)
    assert rc == 1, out
    assert "1.3.0: 1 pin (pyproject.toml:3)" in out


def test_pyproject_constraints_that_admit_the_new_version_are_not_flagged(template, upstream_repo, capsys):
    (template / "pyproject.toml").write_text('[build-system]\nrequires = ["torch>=2.0"]\n'
                                             '[tool.poetry.dependencies]\ntorchao = "*"\n')
    rc, out, err = _update(capsys, template, upstream_repo, "--dry-run", "--json")
    assert rc == 0, err
    assert _flags(out, "unmanaged-pin") == []


def test_pyproject_escaped_dependency_is_refused_at_its_own_line(template, upstream_repo, capsys):
    """The refusal named line 1 for a dependency written with an escape on line 4."""
    (template / "pyproject.toml").write_text('[project]\nname = "fw"\n\ndependencies = ["executorch\\u003d=1.4.0"]\n')
    before = snapshot(template)
    rc, out, err = _update(capsys, template, upstream_repo)
    assert rc == 2
    _clean(out, err)
    assert "pyproject.toml:4:" in err and "cannot be located exactly" in err
    assert snapshot(template) == before


def test_pyproject_truncated_toml_names_its_last_line(template, upstream_repo, capsys):
    """tomllib says "at end of document" for an unclosed array: the error had no line."""
    (template / "pyproject.toml").write_text('[project]\nname = "fw"\ndependencies = ["executorch==1.4.0",\n')
    rc, out, err = _update(capsys, template, upstream_repo)
    assert rc == 2
    _clean(out, err)
    assert "pyproject.toml:3: invalid TOML" in err


def test_pyproject_pin_repeated_as_a_uv_constraint_is_bumped_in_project_and_flagged_there(
        template, upstream_repo, capsys):
    """The same ``executorch==1.4.0`` in ``[project]`` and ``[tool.uv] constraint-dependencies``
    made the update impossible (exit 2, "cannot be located exactly")."""
    (template / "pyproject.toml").write_text('[project]\nname = "fw"\ndependencies = [ # pins [see docs]\n'
                                             '  "executorch==1.4.0",\n]\n[tool.uv]\n'
                                             'constraint-dependencies = ["executorch==1.4.0"]\n')
    rc, out, err = _update(capsys, template, upstream_repo, "--dry-run", "--json")
    assert rc == 1, err
    data = json.loads(out)
    assert [(e["path"], e["line"], e["new"]) for e in data["edits"] if e["path"] == "pyproject.toml"] == [
        ("pyproject.toml", 4, "1.5.1")]
    assert [(f["line"], f["blocking"]) for f in _flags(out, "unmanaged-pin")] == [(7, True)]


def test_pyproject_repeated_unmanaged_pins_are_located_one_by_one(template, upstream_repo, capsys):
    """Each constraint is located in its own array, and a repeated one at its next occurrence (the
    lookup is now indexed: a 25,000-string pyproject.toml took 107 s, now about 6 s)."""
    (template / "pyproject.toml").write_text('[build-system]\nrequires = ["torch==2.13.0"]\n[tool.uv]\n'
                                             'constraint-dependencies = [\n  "torch==2.13.0",\n'
                                             '  "torch==2.13.0",\n]\n')
    rc, out, err = _update(capsys, template, upstream_repo, "--dry-run", "--json")
    assert rc == 1, err
    assert [f["line"] for f in _flags(out, "unmanaged-pin")] == [2, 5, 6]


def test_template_pyproject_poetry_operator_without_version_is_no_specifier():
    from bot.template.pyproject import other_pins
    pins = other_pins({"tool": {"poetry": {"dependencies": {"executorch": "==="}}}})
    assert [(p.name, p.version, p.specifier) for p in pins] == [("executorch", None, None)]


def test_unmanaged_pin_edited_by_hand_first_does_not_stop_update(capsys, template, upstream_repo):
    """The flag said "change it by hand"; doing so made update refuse with "pins disagree" (exit 2)."""
    write(template, "pyproject.toml", POETRY_EXECUTORCH_ONLY.replace("1.4.0", "1.5.1"))
    code, out, err = _update(capsys, template, upstream_repo)
    assert code == 0, err
    assert "executorch==1.5.1" in (template / "requirements.txt").read_text()
    assert (template / "pyproject.toml").read_text() == POETRY_EXECUTORCH_ONLY.replace("1.4.0", "1.5.1")


def test_unmanaged_pin_message_says_to_edit_it_in_the_same_pr(capsys, template, upstream_repo):
    write(template, "pyproject.toml", POETRY_EXECUTORCH_ONLY)
    code, out, err = _update(capsys, template, upstream_repo, "--dry-run")
    assert code == 1
    flag = [ln for ln in out.splitlines() if "[unmanaged-pin]" in ln]
    assert len(flag) == 1 and "same PR" in flag[0] and "--allow-flagged" in flag[0]
    last = out.strip().splitlines()[-1]
    assert "--set" not in last and "pyproject.toml constraint in the same PR" in last


def test_audit_still_lists_the_unmanaged_pin(capsys, template):
    write(template, "pyproject.toml", POETRY_EXECUTORCH_ONLY.replace("1.4.0", "1.5.1"))
    code, out, err = _audit(capsys, template, "--json")
    data = json.loads(out)
    assert code == 1 and not data["agree"]
    assert any(p["path"] == "pyproject.toml" and p["line"] == 3 for p in data["pins"])
