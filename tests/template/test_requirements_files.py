"""Requirement files as pip reads them: requirements folders and pip-tools inputs, constraints
files, CR-only line ends, editable installs, operators without a version.
"""

from __future__ import annotations

import json

import pytest

from bot.template.pep508 import empty_operator
from helpers import assert_refused, snapshot
from helpers import update as _update


def test_requirements_folder_and_pip_tools_inputs_are_bumped(template, upstream_repo, capsys):
    (template / "requirements").mkdir()
    (template / "requirements" / "base.txt").write_text("# ExecuTorch 1.4.0 stack\nexecutorch==1.4.0\ntorch==2.13.0\n")
    (template / "requirements" / "dev.txt").write_text("-r base.txt\ntorchao==0.18.0\npytest\n")
    (template / "requirements.in").write_text("executorch==1.4.0\n")
    (template / "dev-requirements.in").write_text("torch == 2.13.0  # keep\n")
    rc, out, err = _update(capsys, template, upstream_repo)
    assert rc == 0, err
    assert (template / "requirements" / "base.txt").read_text() == \
        "# ExecuTorch 1.5.1 stack\nexecutorch==1.5.1\ntorch==2.14.0\n"
    assert (template / "requirements" / "dev.txt").read_text() == "-r base.txt\ntorchao==0.19.0\npytest\n"
    assert (template / "requirements.in").read_text() == "executorch==1.5.1\n"
    assert (template / "dev-requirements.in").read_text() == "torch == 2.14.0  # keep\n"


def test_constraints_file_pins_move_with_the_requirements(template, upstream_repo, capsys):
    """``constraints.txt`` (pip -c) kept executorch==1.4.0 while requirements.txt moved: pip then fails."""
    con = template / "constraints.txt"
    con.write_text("executorch==1.4.0\ntorch==2.13.0  # ExecuTorch 1.4.0\n")
    rc, out, err = _update(capsys, template, upstream_repo)
    assert rc == 0, err
    assert con.read_text() == "executorch==1.5.1\ntorch==2.14.0  # ExecuTorch 1.5.1\n"


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


@pytest.mark.parametrize("text, op", [("ethos-u-vela ===", "==="), ("x==", "=="), ("x >= 1.0, <", "<"),
                                      ("x[extra] ~= ; python_version < '3.12'", "~="), ("x (==)", "=="),
                                      ("x==1.0", None), ("x", None), ("x @ https://h/x.whl", None),
                                      ("x===1.0-custom", None), ("x==1.0,", None)])
def test_empty_operator_is_found_before_packaging_sees_it(text, op):
    assert empty_operator(text) == op


def test_template_requirement_without_version_names_the_line(capsys, template, upstream_repo):
    (template / "requirements.txt").write_text("numpy\nexecutorch ===\n")
    before = snapshot(template)
    code, out, err = _update(capsys, template, upstream_repo, "--dry-run")
    assert code == 2 and "requirements.txt:2:" in err and "=== has no version" in err
    assert "Traceback" not in err and snapshot(template) == before
