"""A release-asset pack that crossed jobs is checked against the digest GitHub publishes for the asset, recorded by
the job that read the release (the single workflow's watch job, the fleet's plan job) before any job ran upstream
code, and passed on through job outputs or the matrix: never against a sha256 that travels in the artifact itself
(a pack job could replace another version's artifact and its pack.sha256 together).  The workflows' own check
scripts are run here on a pack, a replaced pack, and an artifact carrying a matching forged pack.sha256."""

from __future__ import annotations

import hashlib
import subprocess
from pathlib import Path
from types import SimpleNamespace

import pytest
import yaml

from bot.github.flow import CheckState

ROOT = Path(__file__).resolve().parents[2]
SINGLE = yaml.safe_load((ROOT / ".github/workflows/executorch-pack-bot.yml").read_text())["jobs"]
FLEET = yaml.safe_load((ROOT / ".github/workflows/executorch-pack-bot-fleet.yml").read_text())["jobs"]
SINGLE_STEP = next(s for s in SINGLE["pull-request"]["steps"] if "sha256sum --check" in s.get("run", ""))
FLEET_STEP = next(s for s in FLEET["pull-request"]["steps"] if "sha256sum --check" in s.get("run", ""))
ASSET = b"PK the release's pack"


def _artifact(tmp_path: Path, data: bytes) -> Path:
    pack = tmp_path / "pack"
    pack.mkdir()
    (pack / "PyTorch.ExecuTorch.1.5.1.pack").write_bytes(data)
    # what a pack job that replaced the artifact would write beside it: a sha256 that matches its own file
    (pack / "pack.sha256").write_text(f"{hashlib.sha256(data).hexdigest()}  PyTorch.ExecuTorch.1.5.1.pack\n")
    return tmp_path


def _run(step: dict, cwd: Path, env: dict) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", "-e", "-c", step["run"]], cwd=cwd, text=True, capture_output=True,
                          env={"PATH": "/usr/bin:/bin", **env})


CASES = [(SINGLE_STEP, {}), (FLEET_STEP, {"SOURCE": "release-asset"})]


@pytest.mark.parametrize("step, extra", CASES, ids=["single", "fleet"])
def test_the_asset_itself_passes(tmp_path, step, extra):
    p = _run(step, _artifact(tmp_path, ASSET), {"DIGEST": hashlib.sha256(ASSET).hexdigest(), **extra})
    assert (p.returncode, p.stdout) == (0, "PyTorch.ExecuTorch.1.5.1.pack: OK\n"), p.stderr


@pytest.mark.parametrize("step, extra", CASES, ids=["single", "fleet"])
def test_a_replaced_pack_with_its_own_sha256_is_refused(tmp_path, step, extra):
    p = _run(step, _artifact(tmp_path, b"PK a tampered runtime"), {"DIGEST": hashlib.sha256(ASSET).hexdigest(),
                                                                   **extra})
    assert p.returncode == 1 and "PyTorch.ExecuTorch.1.5.1.pack: FAILED" in p.stdout


@pytest.mark.parametrize("step, extra", CASES, ids=["single", "fleet"])
def test_no_recorded_digest_is_refused(tmp_path, step, extra):
    p = _run(step, _artifact(tmp_path, ASSET), {"DIGEST": "", **extra})
    assert p.returncode == 1 and "recorded no sha256 digest of the release asset" in p.stdout


def test_the_recorded_digest_comes_from_the_job_that_read_the_release():
    assert SINGLE_STEP["env"] == {"DIGEST": "${{ needs.watch.outputs.pack-sha256 }}"}
    assert SINGLE["watch"]["outputs"]["pack-sha256"] == "${{ steps.check.outputs.pack-sha256 }}"
    assert FLEET_STEP["env"]["DIGEST"] == "${{ matrix.sha256 }}"   # the plan's row (fleet-plan read the release)


def _state(digest):
    asset = SimpleNamespace(download_url="https://github.com/pytorch/executorch/releases/download/v1.5.1/"
                                         "PyTorch.ExecuTorch.1.5.1.pack", digest=digest)
    return CheckState(current="1.4.0", target="1.5.1", target_tag="v1.5.1", update_needed=True, asset=asset)


def test_check_records_the_assets_digest():
    sha = hashlib.sha256(ASSET).hexdigest()
    out = _state("sha256:" + sha).outputs()
    assert (out["pack-source"], out["pack-sha256"]) == ("release-asset", sha)


@pytest.mark.parametrize("digest", [None, "", "md5:abc", "sha256:XYZ"])
def test_an_asset_without_a_sha256_digest_is_built(digest):
    out = _state(digest).outputs()
    assert (out["pack-source"], out["pack-url"], out["pack-sha256"]) == ("build", "", "")
