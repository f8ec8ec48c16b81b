"""What ``audit`` reports: a range pin or a pin file linked out of the repository fails it, a clean
sample passes, and the folders it did not scan are named.
"""

from __future__ import annotations

import json
import os

from helpers import write, run_cli


def _audit(capsys, template, *extra):
    return run_cli(capsys, "audit", "--repo", template, *extra)


def test_audit_fails_on_a_range_pin_even_when_the_exact_pins_agree(template, capsys):
    proj = template / "app" / "app.cproject.yml"
    proj.write_text(proj.read_text().replace("PyTorch::ExecuTorch@1.4.0", "PyTorch::ExecuTorch@^1.4.0"))
    rc, out, err = _audit(capsys, template)
    assert rc == 1, out
    assert "range-pin" in out and "app/app.cproject.yml:4" in out
    assert "FAIL" in out and "blocking" in out
    rc, out, _ = _audit(capsys, template, "--json")
    assert rc == 1
    data = json.loads(out)
    assert data["agree"] is True and data["ok"] is False


def test_audit_fails_on_a_pin_file_linked_out_of_the_repository(template, tmp_path, capsys):
    outside = tmp_path / "outside.cproject.yml"
    outside.write_text("project:\n  packs:\n    - pack: PyTorch::ExecuTorch@1.4.0\n")
    os.symlink(outside, template / "extra.cproject.yml")
    rc, out, _ = _audit(capsys, template)
    assert rc == 1
    assert "symlink-outside-repo" in out and "extra.cproject.yml" in out


def test_audit_of_the_clean_sample_passes(template, capsys):
    rc, out, _ = _audit(capsys, template)
    assert rc == 0, out
    assert "OK: every ExecuTorch pin is 1.4.0." in out


def test_a_clean_audit_prints_one_verdict_line(template, capsys):
    # the OK line was followed by "FAIL: every ExecuTorch pin is 1.4.0, but 0 blocking items are flagged"
    rc, out, _ = _audit(capsys, template)
    assert rc == 0
    assert [ln for ln in out.splitlines() if ln.startswith(("OK:", "FAIL:"))] == ["OK: every ExecuTorch pin is 1.4.0."]


def test_audit_names_the_skipped_folders_that_exist(capsys, template):
    write(template, "vendor/requirements.txt", "executorch==1.3.0\n")
    write(template, "build/log.txt", "x\n")
    (template / ".git").mkdir(exist_ok=True)
    code, out, err = _audit(capsys, template)
    assert "not scanned: build/, vendor/" in out and ".git/" not in out
    data = json.loads(_audit(capsys, template, "--json")[1])
    assert data["not_scanned"] == ["build", "vendor"]
