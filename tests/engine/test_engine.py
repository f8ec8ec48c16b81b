"""End-to-end tests of the upgrade engine: update, audit and demo through the real CLI.

The sample template is on ExecuTorch 1.4.0; the sample upstream's newest
stable tag is v1.5.1 (torch 2.13.0 -> 2.14.0, torchao 0.18.0 -> 0.19.0,
ethos-u-vela 5.1.0 -> 5.2.0, tosa-tools 2026.5.0 -> 2026.8.0; ml_dtypes and
flatbuffers unchanged).
"""

from __future__ import annotations

import json

from helpers import run_cli, snapshot

UNTOUCHED = ["vcpkg-configuration.json", "documentation/results.md", "board/Corstone-300/README.md",
             "app/main.cpp", "model/model.pte"]


def test_update_writes_the_complete_bump(template, upstream_repo, capsys):
    before = snapshot(template)
    code, out, err = run_cli(capsys, "update", "--repo", template, "--upstream", upstream_repo)
    assert code == 0, err
    assert "Wrote" in out
    after = snapshot(template)
    text = {p: after[p][0].decode() for p in after if p != "model/model.pte"}

    sol = text["cmsis-executorch.csolution.yml"]
    assert "    - pack: PyTorch::ExecuTorch@1.5.1    # exact pin, not a range\n" in sol
    assert "# Build (after `cpackget add PyTorch::ExecuTorch@1.5.1`):" in sol
    # other packs, the toolbox version and the rc pack path are traps
    for trap in ("ARM::V2M_MPS3_SSE_300_BSP@1.5.0", "ARM::SSE_320_BSP@1.0.0", "created-for: CMSIS-Toolbox@2.15.0",
                 "release/3.1.5-rc.1", "ARM::CMSIS-NN@^7.0.0", "ARM::ethos-u-core-driver@>=1.25.2"):
        assert trap in sol
    assert "PyTorch::ExecuTorch@1.5.1" in text["app/app.cproject.yml"]
    assert '"PyTorch::ExecuTorch@1.5.1"' in text["model/model.cproject.yml"]
    assert "PyTorch::ExecuTorch@1.5.1" in text["ai_layer/ai_layer.clayer.yml"]
    lock = text["cmsis-executorch.cbuild-pack.yml"]
    assert "resolved-pack: PyTorch::ExecuTorch@1.5.1" in lock
    assert "        - PyTorch::ExecuTorch@1.5.1\n" in lock
    assert "resolved-pack: ARM::V2M_MPS3_SSE_300_BSP@1.5.0" in lock

    req = text["requirements.txt"].splitlines()
    for line in ("executorch==1.5.1", "torch==2.14.0", "torchao==0.19.0", "ethos-u-vela==5.2.0",
                 "torchvision==0.28.0", "numpy>=1.26", "pyyaml==6.0.2", "-r requirements-arm-tosa.txt",
                 "# ExecuTorch 1.5.1 targets torch 2.14.0 and torchao 0.19.0."):
        assert line in req
    tosa = text["requirements-arm-tosa.txt"].splitlines()
    assert "tosa-tools == 2026.8.0" in tosa
    assert "ml_dtypes == 0.5.1" in tosa and "flatbuffers == 24.3.25" in tosa

    prov = text["documentation/pack-provenance.md"]
    for new in ("releases/download/v1.5.1/", "cpackget add PyTorch::ExecuTorch@1.5.1", "`@^1.5.1` range",
                "- pack: PyTorch::ExecuTorch@1.5.1", "git checkout release/1.5", "--version 1.5.1-local",
                "release asset of the\nv1.5.1 tag"):
        assert new in prov, new
    # "PackChk 1.4.5" names another tool's version: it does not make the line mixed (it stays as written)
    assert "or `VERSION=1.5.1-local make pack`. PackChk 1.4.5 validates the result." in prov
    readme = text["README.md"]
    assert "cpackget add PyTorch::ExecuTorch@1.5.1" in readme and "executorch==1.5.1" in readme
    assert "here ExecuTorch 1.5.1:" in readme
    for trap in ("CMSIS-Toolbox 2.14.1", "Vela 5.1", "V1.0", "1.5 MB", "`>=3.10,<3.15`"):
        assert trap in readme
    assert "# ExecuTorch 1.5 declares requires-python" in text["setup_venv.py"]
    assert 'grep "Version: 2026.8.0"' in text[".github/workflows/build.yml"]
    for path in UNTOUCHED:
        assert after[path] == before[path], path


def test_dry_run_prints_diff_and_summary_and_writes_nothing(template, upstream_repo, capsys):
    before = snapshot(template)
    code, out, _ = run_cli(capsys, "update", "--repo", template, "--upstream", upstream_repo, "--dry-run")
    assert code == 0
    assert snapshot(template) == before
    assert "--- a/cmsis-executorch.csolution.yml" in out
    assert "-    - pack: PyTorch::ExecuTorch@1.4.0    # exact pin, not a range" in out
    assert "+    - pack: PyTorch::ExecuTorch@1.5.1    # exact pin, not a range" in out
    assert "ExecuTorch 1.4.0 -> 1.5.1 (v1.4.0 -> v1.5.1)" in out
    # pin table: name, old, new, source
    row = next(line for line in out.splitlines() if line.startswith("torchao "))
    assert "0.18.0" in row and "0.19.0" in row and "v1.5.1" in row
    assert any(line.startswith("tosa-tools ") for line in out.splitlines())
    assert not any(line.startswith("ml-dtypes ") for line in out.splitlines())  # unchanged upstream
    assert "Dry run: nothing written." in out
    # the historical measurement is listed, not edited
    assert "documentation/results.md:5" in out and "[history-mention]" in out


def test_json_plan_has_stable_keys(template, upstream_repo, capsys, tmp_path):
    plan_file = tmp_path / "plan.json"
    code, out, _ = run_cli(capsys, "update", "--repo", template, "--upstream", upstream_repo, "--dry-run",
                           "--json", "--plan-file", plan_file)
    assert code == 0
    data = json.loads(out)
    assert set(data) >= {"schema", "repo", "current", "target", "nothing_to_do", "pins", "edits", "flags",
                         "files", "fingerprint", "written"}
    assert data["current"] == {"executorch": "1.4.0", "pack": "1.4.0", "tag": "v1.4.0"}
    assert data["target"] == {"executorch": "1.5.1", "pack": "1.5.1", "tag": "v1.5.1"}
    assert data["written"] is False
    pins = {p["name"]: p for p in data["pins"]}
    assert pins["PyTorch::ExecuTorch"]["new"] == "1.5.1"
    assert pins["torch"]["old"] == "2.13.0" and pins["torch"]["new"] == "2.14.0"
    assert "torch_pin.py" in pins["torch"]["source"]
    assert json.loads(plan_file.read_text()) == data


def test_second_run_has_nothing_to_do(template, upstream_repo, capsys):
    assert run_cli(capsys, "update", "--repo", template, "--upstream", upstream_repo)[0] == 0
    before = snapshot(template)
    code, out, _ = run_cli(capsys, "update", "--repo", template, "--upstream", upstream_repo)
    assert code == 0
    assert "Nothing to change." in out
    assert snapshot(template) == before


def test_update_to_an_explicit_version(template, upstream_repo, capsys):
    code, out, err = run_cli(capsys, "update", "--repo", template, "--upstream", upstream_repo,
                             "--version", "v1.5.1", "--dry-run")
    assert code == 0, err
    assert "ExecuTorch 1.4.0 -> 1.5.1" in out


def test_audit_agrees_then_fails_on_a_disagreeing_cproject(template, capsys):
    code, out, _ = run_cli(capsys, "audit", "--repo", template)
    assert code == 0
    assert "OK: every ExecuTorch pin is 1.4.0." in out
    p = template / "model" / "model.cproject.yml"
    p.write_text(p.read_text().replace("@1.4.0", "@1.3.1"))
    code, out, _ = run_cli(capsys, "audit", "--repo", template, "--json")
    assert code == 1
    data = json.loads(out)
    assert data["agree"] is False
    assert sorted(data["versions"]) == ["1.3.1", "1.4.0"]
    assert any(pin["path"] == "model/model.cproject.yml" and pin["line"] == 3 for pin in data["pins"])


def test_audit_lists_prose_naming_another_version(template, capsys):
    code, out, _ = run_cli(capsys, "audit", "--repo", template)
    assert code == 0
    assert "documentation/results.md:5" in out  # "22 fps with ExecuTorch 1.4.1"


def test_demo_prints_a_complete_bump(capsys):
    code, out, err = run_cli(capsys, "demo")
    assert code == 0, err
    for expected in ("+    - pack: PyTorch::ExecuTorch@1.5.1", "+executorch==1.5.1", "+torch==2.14.0",
                     "+torchao==0.19.0", "+ethos-u-vela==5.2.0", "+tosa-tools == 2026.8.0",
                     "+cd executorch && git checkout release/1.5", "resolved-pack: PyTorch::ExecuTorch@1.5.1",
                     "audit: every ExecuTorch pin is 1.5.1"):
        assert expected in out, expected
    assert "-ml_dtypes" not in out and "V2M_MPS3_SSE_300_BSP@1.5.1" not in out


def _repin(template, old: str, new: str) -> None:
    for p in template.rglob("*"):
        if p.is_file() and p.suffix in (".yml", ".txt"):
            p.write_text(p.read_text().replace(f"@{old}", f"@{new}").replace(f"executorch=={old}",
                                                                               f"executorch=={new}"))


def test_template_ahead_of_upstream_has_nothing_to_do(template, upstream_repo, capsys):
    _repin(template, "1.4.0", "1.6.0")
    before = snapshot(template)
    code, out, err = run_cli(capsys, "update", "--repo", template, "--upstream", upstream_repo)
    assert code == 0, err
    assert "Nothing to change." in out and "[ahead-of-upstream]" in out
    assert snapshot(template) == before


def test_untagged_current_version_blocks_only_when_tosa_is_pinned(template, upstream_repo, capsys):
    _repin(template, "1.4.0", "1.4.2")  # no v1.4.2 tag upstream: the TOSA diff is unknown
    code, out, _ = run_cli(capsys, "update", "--repo", template, "--upstream", upstream_repo, "--dry-run")
    assert code == 1 and "[tosa-unknown]" in out
    (template / "requirements-arm-tosa.txt").unlink()
    req = template / "requirements.txt"
    req.write_text(req.read_text().replace("-r requirements-arm-tosa.txt\n", ""))
    code, out, _ = run_cli(capsys, "update", "--repo", template, "--upstream", upstream_repo, "--dry-run")
    assert code == 0, out
    assert "[tosa-unknown]" not in out
