"""The template's exact ExecuTorch pins must agree before a bump: grouping by PEP 440 version,
nightlies and local labels, and the error that names the odd pins and the ways out.

The sample template pins ExecuTorch 1.4.0; the sample upstream's newest stable tag is v1.5.1.
"""

from __future__ import annotations

import json

from helpers import run_cli, snapshot
from helpers import update as _update


def _one_odd_pin(template):
    req = template / "requirements.txt"
    req.write_text(req.read_text().replace("executorch==1.4.0", "executorch==1.3.0"))


def _audit(capsys, template, *extra):
    return run_cli(capsys, "audit", "--repo", template, *extra)


def _nightly(template, version="1.4.0.dev20260728"):
    req = template / "requirements.txt"
    req.write_text(req.read_text().replace("executorch==1.4.0", f"executorch=={version}"))


def _flags(out: str, code: str) -> list[dict]:
    return [f for f in json.loads(out)["flags"] if f["code"] == code]


def _clean(out: str, err: str) -> None:
    assert "Traceback" not in out + err and "internal error" not in out + err, err


def test_disagreeing_pins_error_groups_by_version_majority_first(template, upstream_repo, capsys):
    _one_odd_pin(template)
    before = snapshot(template)
    rc, out, err = _update(capsys, template, upstream_repo)
    assert rc == 2 and out == ""
    assert snapshot(template) == before
    # the first location named is the odd pin
    assert "error: requirements.txt:4: " in err
    assert "1.4.0: 6 pins; 1.3.0: 1 pin (requirements.txt:4)" in err
    assert max(len(line) for line in err.splitlines()) < 200


def test_audit_groups_disagreeing_pins_by_version(template, capsys):
    _one_odd_pin(template)
    rc, out, _ = _audit(capsys, template)
    assert rc == 1
    assert "FAIL: the ExecuTorch pins disagree: 1.4.0: 6 pins; 1.3.0: 1 pin (requirements.txt:4)" in out


def test_many_odd_pins_are_listed_one_group_a_line(template, upstream_repo, capsys):
    for i in range(8):
        (template / f"p{i}.cproject.yml").write_text(
            f"project:\n  packs:\n    - pack: PyTorch::ExecuTorch@1.{i % 3}.{i}\n")
    rc, out, err = _update(capsys, template, upstream_repo)
    assert rc == 2
    assert "disagree:\n  1.4.0: 7 pins\n  1.0.0: 1 pin (p0.cproject.yml:3)\n" in err
    assert all(len(line) < 200 for line in err.splitlines())


def test_a_nightly_of_the_pack_version_is_not_a_disagreement(template, upstream_repo, capsys):
    _nightly(template)
    rc, out, err = _update(capsys, template, upstream_repo, "--json")
    assert rc == 0, err
    data = json.loads(out)
    assert data["current"]["executorch"] == "1.4.0" and data["target"]["executorch"] == "1.5.1"
    assert "executorch==1.5.1\n" in (template / "requirements.txt").read_text()
    nightly = [f for f in data["flags"] if f["code"] == "nightly-pin"]
    assert len(nightly) == 1 and not nightly[0]["blocking"]
    assert nightly[0]["path"] == "requirements.txt" and nightly[0]["line"] == 4
    assert "1.4.0.dev20260728" in nightly[0]["message"]
    assert not [f for f in data["flags"] if f["code"] == "pin-was-different"]


def test_audit_accepts_a_nightly_of_the_pack_version(template, capsys):
    _nightly(template)
    rc, out, _ = _audit(capsys, template, "--json")
    assert rc == 0, out
    data = json.loads(out)
    assert data["agree"] is True and data["versions"] == ["1.4.0"]
    assert [f["code"] for f in data["flags"]] == ["nightly-pin"]


def test_a_nightly_of_another_version_still_disagrees(template, upstream_repo, capsys):
    _nightly(template, "1.3.0.dev20260101")
    before = snapshot(template)
    rc, out, err = _update(capsys, template, upstream_repo)
    assert rc == 2
    assert "1.3.0.dev20260101: 1 pin (requirements.txt:4)" in err
    assert snapshot(template) == before


def test_local_label_of_the_pack_version_agrees_with_it(template, upstream_repo, capsys):
    """``executorch==1.4.0+cpu`` beside pack 1.4.0 was a disagreement (exit 2), though the README
    keeps local labels and PEP 440 ``==1.4.0`` admits 1.4.0+cpu."""
    req = template / "requirements.txt"
    req.write_text(req.read_text().replace("executorch==1.4.0\n", "executorch==1.4.0+cpu\n"))
    rc, out, err = run_cli(capsys, "audit", "--repo", template)
    assert rc == 0, out
    rc, out, err = _update(capsys, template, upstream_repo)
    assert rc == 0, err
    assert "executorch==1.5.1+cpu\n" in req.read_text()


def test_template_pinning_only_a_nightly_is_bumped(tmp_path, upstream_repo, capsys):
    """A template whose only pin is ``executorch==1.4.0.dev...`` stopped with "has no SemVer form",
    naming no file: the nightly counts as its release, as it does beside a pack pin."""
    (tmp_path / "requirements.txt").write_text("executorch==1.4.0.dev20260728\ntorch==2.13.0\n")
    rc, out, err = _update(capsys, tmp_path, upstream_repo, "--json")
    assert rc == 0, err
    assert (tmp_path / "requirements.txt").read_text() == "executorch==1.5.1\ntorch==2.14.0\n"
    assert [(f["path"], f["line"]) for f in _flags(out, "nightly-pin")] == [("requirements.txt", 1)]


def test_post_release_pin_is_refused_naming_its_line(tmp_path, upstream_repo, capsys):
    (tmp_path / "requirements.txt").write_text("# pins\nexecutorch==1.4.0.post1\n")
    rc, out, err = _update(capsys, tmp_path, upstream_repo)
    assert rc == 2
    _clean(out, err)
    assert "requirements.txt:2:" in err and "no pack version" in err
    assert (tmp_path / "requirements.txt").read_text() == "# pins\nexecutorch==1.4.0.post1\n"


def test_stale_lock_disagreement_suggests_regenerating_it(capsys, template, upstream_repo):
    lock = template / "cmsis-executorch.cbuild-pack.yml"
    lock.write_text(lock.read_text().replace("PyTorch::ExecuTorch@1.4.0", "PyTorch::ExecuTorch@1.3.0"))
    code, out, err = _update(capsys, template, upstream_repo, "--dry-run")
    assert code == 2 and "the lock file is stale: regenerate it (cbuild setup" in err and "--packs" in err


def test_disagreement_error_names_the_ways_out(capsys, template, upstream_repo):
    req = template / "requirements.txt"
    req.write_text(req.read_text().replace("executorch==1.4.0", "executorch==1.3.0"))
    code, out, err = _update(capsys, template, upstream_repo, "--dry-run")
    # the odd pin is a requirement: the way out is to make the pins equal (or --exclude a copy); the
    # lock-file advice is for a stale lock only (it misleads when a cproject is the odd one)
    assert code == 2 and "--exclude" in err and "make them equal" in err and "cbuild setup" not in err


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
