"""A pack built in a job where upstream code ran is labelled in the pull request as what it is: built by this run,
by which job (``publish --pack-built-by``: the single workflow's build-pack job by default, the fleet's
``pack/KEY``), with its sha256 and the run's link; a release asset keeps its own label."""

from __future__ import annotations

import hashlib

import pytest

from helpers import run_cli
from packgen import make_pack
from test_workflow_trust import planned  # noqa: F401


@pytest.mark.parametrize("by, shown", [((), "`build-pack`"), (("--pack-built-by", "pack/acme-local-1"),
                                                              "`pack/acme-local-1`")])
def test_a_built_pack_names_the_job_that_built_it_and_its_sha256(tmp_path, planned, capsys, monkeypatch, by, shown):
    monkeypatch.setenv("GITHUB_SERVER_URL", "https://github.com")
    monkeypatch.setenv("GITHUB_REPOSITORY", "acme/fw")
    monkeypatch.setenv("GITHUB_RUN_ID", "77")
    tpl, plan = planned
    pack = make_pack(tmp_path / "pack")
    rc, out, err = run_cli(capsys, "publish", "--repo", tpl, "--plan-file", plan, "--pack", pack, "--pack-built",
                           *by, "--dry-run")
    assert rc == 0, err
    line = next(ln for ln in out.splitlines() if "**1. The pack**" in ln)
    sha = hashlib.sha256(pack.read_bytes()).hexdigest()
    assert (f"built on the Arm runner from tag `v1.5.1` with `build-pack` by this run's job {shown} "
            f"([run](https://github.com/acme/fw/actions/runs/77)) (sha256 `{sha}`)") in line
