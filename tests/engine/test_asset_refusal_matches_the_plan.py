"""publish --asset-refusal says in the PR body that the release asset of the bump's tag was refused: a refusal
record of another tag, version or asset name (a stale file, another job's) would put a false statement there, so it
is bad input naming the file (exit 2), before anything is pushed."""

from __future__ import annotations

import json

import pytest

from fakegithub import TEMPLATE
from github_world import cli, planned_checkout
from packgen import DEMO_OPS, make_pack

PACK = "PyTorch.ExecuTorch.1.5.1.pack"
GOOD = {"schema": 1, "asset": PACK, "url": None, "sha256": "0" * 64, "size": 1, "tag": "v1.5.1", "version": "1.5.1",
        "failing_checks": [{"name": "generated-headers", "detail": "missing"}], "missing": [], "warnings": [],
        "upstream_validator": None}


@pytest.mark.parametrize("key, value, said", [
    ("tag", "v9.9.9", "tag 'v9.9.9'"),
    ("version", "9.9.9", "version '9.9.9'"),
    ("asset", "PyTorch.ExecuTorch.9.9.9.pack", "asset 'PyTorch.ExecuTorch.9.9.9.pack'"),
])
def test_a_refusal_of_another_release_is_bad_input(world, capsys, key, value, said):
    co, plan = planned_checkout(world, capsys)
    built = make_pack(world.tmp / "built", version="1.5.1", operators=DEMO_OPS)
    path = world.tmp / "refusal.json"
    path.write_text(json.dumps(dict(GOOD, **{key: value})))
    code, out = cli(capsys, "publish", "--repo", str(co), "--plan-file", str(plan), "--pack", str(built),
                    "--pack-built", "--asset-refusal", str(path), "--pack-index-url", "off")
    assert code == 2 and out.out == ""
    assert (f"{path}: --asset-refusal: the refusal record is about {said}, not the release asset of this bump "
            "(v1.5.1, PyTorch.ExecuTorch.1.5.1.pack)") in out.err
    assert world.open_pulls(TEMPLATE) == []


def test_the_refusal_of_this_release_is_accepted(world, capsys):
    co, plan = planned_checkout(world, capsys)
    built = make_pack(world.tmp / "built", version="1.5.1", operators=DEMO_OPS)
    path = world.tmp / "refusal.json"
    path.write_text(json.dumps(GOOD))
    code, out = cli(capsys, "publish", "--repo", str(co), "--plan-file", str(plan), "--pack", str(built),
                    "--pack-built", "--asset-refusal", str(path), "--pack-index-url", "off", "--dry-run")
    assert code == 0, out.err
    assert "### The release asset was refused" in out.out


def test_a_refusal_file_that_cannot_be_written_leaves_no_pack_and_no_partial_record(world, capsys, monkeypatch):
    from test_refused_release_asset import _release, _trap, fetch
    _release(world, _trap(world).read_bytes())
    dest = world.tmp / "pack"
    blocked = world.tmp / "blocked"
    blocked.write_text("a file where the record's folder would be\n")
    code, out = fetch(capsys, dest, "--refusal-file", str(blocked / "asset-refusal.json"))
    assert code == 2 and f"--refusal-file {blocked / 'asset-refusal.json'}: cannot write" in out.err
    assert sorted(p.name for p in dest.iterdir()) == []          # the refused pack is not handed on
    assert blocked.read_text() == "a file where the record's folder would be\n"
