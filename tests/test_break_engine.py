"""Adversarial regression tests for the upgrade engine (``update``, ``audit``).

Each test holds a fault found by feeding the engine the odd, broken or
hostile inputs real templates and real upstream trees have: the expected
values are the project's rules (DESIGN.md "Rules that hold everywhere"):
a clear error naming the file and line, exit 2 for bad input and 1 for a
flagged item, the checkout byte-identical after a refusal, no traceback and
no "internal error", no silent wrong or missing edit, no guessing.
"""

from __future__ import annotations

import json

import pytest

from helpers import assert_refused, run_cli
from helpers import update as _update


# --------------------------------------------------------------------------- files a pin manager must not skip

def test_pin_file_with_a_nul_byte_is_refused_not_skipped(template, upstream_repo, capsys):
    """A requirements file with a NUL byte used to be skipped as binary: its pin stayed at 1.4.0."""
    req = template / "requirements.txt"
    req.write_bytes(req.read_bytes() + b"\0\n")
    assert_refused(capsys, template, upstream_repo, message=["requirements.txt:12:", "NUL"])


def test_utf16_requirements_file_is_refused_not_skipped(template, upstream_repo, capsys):
    """``pip freeze > requirements.txt`` in PowerShell writes UTF-16; its pins must not be ignored."""
    req = template / "requirements.txt"
    req.write_bytes(req.read_text().encode("utf-16"))
    assert_refused(capsys, template, upstream_repo, message=["requirements.txt", "UTF-16"])


def test_large_csolution_is_still_bumped(template, upstream_repo, capsys):
    """A csolution over the 2 MB prose limit used to be skipped: its pack pin silently stayed at 1.4.0."""
    sol = template / "cmsis-executorch.csolution.yml"
    sol.write_bytes(b"# " + b"x" * (3 * 1024 * 1024) + b"\n" + sol.read_bytes())
    rc, out, err = _update(capsys, template, upstream_repo)
    assert rc == 0, err
    assert b"PyTorch::ExecuTorch@1.5.1" in sol.read_bytes()
    assert b"PyTorch::ExecuTorch@1.4.0" not in sol.read_bytes()


# --------------------------------------------------------------------------- requirement files

def test_cr_only_requirements_file_is_bumped_like_pip_reads_it(template, upstream_repo, capsys):
    """pip splits requirement files on any line break (str.splitlines); CR-only files were refused."""
    req = template / "requirements.txt"
    req.write_bytes(b"executorch==1.4.0\rtorch==2.13.0\r")
    rc, out, err = _update(capsys, template, upstream_repo)
    assert rc == 0, err
    assert req.read_bytes() == b"executorch==1.5.1\rtorch==2.14.0\r"


def test_cr_only_file_errors_name_the_right_line(template, upstream_repo, capsys):
    req = template / "requirements.txt"
    req.write_bytes(b"executorch==1.4.0\rtorch==2.13.0\rnot ( valid\r")
    assert_refused(capsys, template, upstream_repo, message=["requirements.txt:3:"])


def test_editable_install_of_executorch_is_flagged(template, upstream_repo, capsys):
    """``-e git+...executorch@v1.4.0`` installs 1.4.0 whatever the pack says: it must not pass silently."""
    req = template / "requirements.txt"
    req.write_text(req.read_text().replace(
        "executorch==1.4.0\n", "-e git+https://github.com/pytorch/executorch@v1.4.0#egg=executorch\n"))
    rc, out, err = _update(capsys, template, upstream_repo, "--dry-run", "--json")
    data = json.loads(out)
    flags = [f for f in data["flags"] if f["path"] == "requirements.txt" and f["code"] != "companion-pin"]
    assert [f["code"] for f in flags] == ["url-requirement"], flags
    assert flags[0]["line"] == 4


# --------------------------------------------------------------------------- CMSIS YAML

@pytest.mark.parametrize("entry", [
    "    - PyTorch::ExecuTorch@1.4.0\n",            # a string item, not a `pack:` mapping
    "    - pack: PyTorch::ExecuTorch @1.4.0\n",     # a space before @
])
def test_unrecognised_executorch_pack_entry_is_refused(template, upstream_repo, capsys, entry):
    """An ExecuTorch pack entry the manager cannot read used to be ignored and left at 1.4.0."""
    sol = template / "cmsis-executorch.csolution.yml"
    text = sol.read_text()
    sol.write_text(text.replace("    - pack: PyTorch::ExecuTorch@1.4.0    # exact pin, not a range\n", entry))
    line = text[:text.index("    - pack: PyTorch::ExecuTorch@1.4.0")].count("\n") + 1
    assert_refused(capsys, template, upstream_repo,
                   message=[f"cmsis-executorch.csolution.yml:{line}:", "PyTorch::ExecuTorch"])


def test_duplicate_yaml_key_is_named(template, upstream_repo, capsys):
    """PyYAML keeps the last of two equal keys; the error said '1 entries but only 2 written out'."""
    sol = template / "cmsis-executorch.csolution.yml"
    sol.write_text("solution:\n  packs:\n    - pack: PyTorch::ExecuTorch@1.4.0\n"
                   "  packs:\n    - pack: PyTorch::ExecuTorch@1.3.0\n")
    assert_refused(capsys, template, upstream_repo,
                   message=["cmsis-executorch.csolution.yml:4:", "duplicate key 'packs'", "line 2"])


# --------------------------------------------------------------------------- prose

def test_release_url_of_another_project_named_like_executorch_is_not_touched(template, upstream_repo, capsys):
    """``acme/cmsis-executorch/releases/download/v1.4.0`` is the template's own release, not ExecuTorch's."""
    doc = template / "documentation" / "firmware.md"
    text = ("# Firmware\n\nPrebuilt: https://github.com/acme/cmsis-executorch/releases/download/v1.4.0/fw.zip\n"
            "Source: https://github.com/acme/cmsis-executorch/tree/v1.4.0/app\n")
    doc.write_text(text)
    rc, out, err = _update(capsys, template, upstream_repo)
    assert rc == 0, err
    assert doc.read_text() == text


# --------------------------------------------------------------------------- command line

def test_plan_file_that_cannot_be_written_changes_nothing(template, upstream_repo, capsys, tmp_path):
    """An unwritable --plan-file used to escape as an internal error after the template was written."""
    assert_refused(capsys, template, upstream_repo, "--plan-file", tmp_path / "missing" / "plan.json",
                   message=["plan.json"])


def test_same_set_given_twice_is_refused(template, upstream_repo, capsys):
    assert_refused(capsys, template, upstream_repo, "--set", "torch=2.15.0", "--set", "Torch=2.16.0",
                   message=["--set", "torch", "twice"])


# --------------------------------------------------------------------------- audit

def test_audit_never_calls_different_non_version_pins_equal(template, capsys):
    """Every pin that was not a PEP 440 version fell into one bucket: 1.4.0-foo 'agreed' with 1.5.0-bar."""
    for f in template.rglob("*.yml"):
        text = f.read_text()
        if "PyTorch::ExecuTorch@1.4.0" in text:
            new = "1.5.0-bar" if f.name == "model.cproject.yml" else "1.4.0-foo"
            f.write_text(text.replace("PyTorch::ExecuTorch@1.4.0", f"PyTorch::ExecuTorch@{new}"))
    req = template / "requirements.txt"
    req.write_text(req.read_text().replace("executorch==1.4.0\n", ""))
    rc, out, err = run_cli(capsys, "audit", "--repo", template, "--json")
    data = json.loads(out)
    assert rc == 1 and data["agree"] is False
    assert sorted(data["versions"]) == ["1.4.0-foo", "1.5.0-bar"]


def test_constraints_file_pins_move_with_the_requirements(template, upstream_repo, capsys):
    """``constraints.txt`` (pip -c) kept executorch==1.4.0 while requirements.txt moved: pip then fails."""
    con = template / "constraints.txt"
    con.write_text("executorch==1.4.0\ntorch==2.13.0  # ExecuTorch 1.4.0\n")
    rc, out, err = _update(capsys, template, upstream_repo)
    assert rc == 0, err
    assert con.read_text() == "executorch==1.5.1\ntorch==2.14.0  # ExecuTorch 1.5.1\n"
