"""The ExecuTorch pack entries of csolution, cproject and clayer files and the cbuild-pack lock:
bumped in large files, refused or flagged when not recognised, miscased or missing.
"""

from __future__ import annotations

import json

import pytest

from helpers import plan_json as _plan_json, assert_refused, run_cli, snapshot
from helpers import update as _update


def _audit(capsys, template, *extra):
    return run_cli(capsys, "audit", "--repo", template, *extra)


def test_large_csolution_is_still_bumped(template, upstream_repo, capsys):
    """A csolution over the 2 MB prose limit used to be skipped: its pack pin silently stayed at 1.4.0."""
    sol = template / "cmsis-executorch.csolution.yml"
    sol.write_bytes(b"# " + b"x" * (3 * 1024 * 1024) + b"\n" + sol.read_bytes())
    rc, out, err = _update(capsys, template, upstream_repo)
    assert rc == 0, err
    assert b"PyTorch::ExecuTorch@1.5.1" in sol.read_bytes()
    assert b"PyTorch::ExecuTorch@1.4.0" not in sol.read_bytes()


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


def test_miscased_pack_id_is_a_blocking_flag_and_stays_byte_identical(template, upstream_repo, capsys):
    proj = template / "app" / "app.cproject.yml"
    proj.write_text(proj.read_text().replace("PyTorch::ExecuTorch@1.4.0", "pytorch::executorch@1.4.0"))
    lock = template / "cmsis-executorch.cbuild-pack.yml"
    lock.write_text(lock.read_text().replace("        - PyTorch::ExecuTorch@1.4.0", "        - Pytorch::ExecuTorch@1.4.0"))
    before = snapshot(template)
    rc, out, err = _update(capsys, template, upstream_repo, "--json")
    assert rc == 1, err
    case = [f for f in json.loads(out)["flags"] if f["code"] == "pack-id-case"]
    assert [(f["path"], f["line"], f["blocking"]) for f in case] == [
        ("app/app.cproject.yml", 4, True), ("cmsis-executorch.cbuild-pack.yml", 11, True)]
    assert "the pack ID is PyTorch::ExecuTorch" in case[0]["message"]
    assert not [f for f in json.loads(out)["flags"] if f["code"] == "leftover"]
    assert snapshot(template) == before
    rc, out, _ = _audit(capsys, template)
    assert rc == 1 and "pack-id-case" in out and "app/app.cproject.yml:4" in out


def test_lock_file_without_executorch_entry_is_flagged(capsys, template, upstream_repo):
    lock = template / "cmsis-executorch.cbuild-pack.yml"
    lock.write_text("cbuild-pack:\n  resolved-packs:\n    - resolved-pack: ARM::CMSIS@6.0.0\n"
                    "      selected-by-pack:\n        - ARM::CMSIS\n")
    plan = _plan_json(capsys, template, upstream_repo)
    mine = [(f["code"], f["path"], f["blocking"]) for f in plan["flags"] if f["code"] == "lock-missing-pack"]
    assert mine == [("lock-missing-pack", "cmsis-executorch.cbuild-pack.yml", False)]
    code, out, err = _audit(capsys, template)
    assert "[lock-missing-pack]" in out
