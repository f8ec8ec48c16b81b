"""run: the PR body carries the evidence of the run (asset provenance, the PDSC's file lists, upstream history)."""

from __future__ import annotations

import hashlib

from fakegithub import TEMPLATE, UPSTREAM
from test_github_lifecycle import _pack_release, world  # noqa: F401


def test_a_verified_asset_is_step_one_ticked_with_its_url_and_sha256(world, tmp_path):
    _pack_release(world, tmp_path)
    rel = next(r for r in world.fake.repo(UPSTREAM).releases if r["tag_name"] == "v1.5.1")
    asset = rel["assets"][0]
    sha = hashlib.sha256(world.fake.assets[asset["id"]]).hexdigest()
    assert world.run()[0] == 0
    body = world.fake.open_pulls(TEMPLATE)[0]["body"]
    assert (f"- [x] **1. The pack** `PyTorch::ExecuTorch@1.5.1`: the release asset `{asset['browser_download_url']}` "
            f"(sha256 `{sha}`); verification: passed (`verify-pack`, section below)") in body
    # the verified pack's <file> lists map the template's components to upstream paths
    assert "has upstream source files that changed (paths from the pack's `<file>` lists" in body
    assert "- `Machine Learning:ExecuTorch Operators:Portable add`: 1 source file of its own changed: " \
           "`kernels/portable/cpu/op_add.cpp`" in body
    assert "History: [compare v1\\.4\\.0...v1\\.5\\.1]" in body and "1 commit in `v1.5.1` not in `v1.4.0`." in body
