"""Step 1 of the PR body: where the pack came from (built on the runner, release asset) and whether
PyTorch::ExecuTorch@V is on the public CMSIS pack index (the fake server's /pack/index.pidx)."""

from __future__ import annotations

import hashlib

import pytest

from bot.model import Bump
from bot.pack.public_index import PackIndexAnswer
from bot.plan import PinRow, Plan
from bot.report.evidence import PackProvenance
from bot.report.procedure import index_lines, pack_step
from fakegithub import TEMPLATE, UPSTREAM, Fault
from github_world import checkout, cli, planned_checkout, run_bot

RUN = f"https://github.com/{TEMPLATE}/actions/runs/77"
SHA = "ab" * 32


class Passed:
    failed = False
    checks = []


def _plan(tmp_path) -> Plan:
    return Plan(repo=tmp_path, bump=Bump("1.4.0", "1.5.1", "1.4.0", "1.5.1", "v1.4.0", "v1.5.1", ()),
                rows=[PinRow("PyTorch::ExecuTorch", "1.4.0", "1.5.1", "release tag v1.5.1")])


class _Ev:
    def __init__(self, pack):
        self.pack = pack


def test_a_pack_built_on_the_runner_names_the_tag_the_run_and_its_sha256(tmp_path):
    prov = PackProvenance(how="built", run_url=RUN, tag="v1.5.1", sha256=SHA)
    prov.record_index(PackIndexAnswer("PyTorch::ExecuTorch@1.5.1", True, "the index lists it", "https://i/x.pidx"))
    assert pack_step(_plan(tmp_path), _Ev(prov), Passed(), None) == [
        f"- [x] **1. The pack** `PyTorch::ExecuTorch@1.5.1`: built on the Arm runner from tag `v1.5.1` with "
        f"`build-pack` ([run]({RUN})) (sha256 `{SHA}`); verification: passed (`verify-pack`, section below)",
        "  - [x] on the public pack index (`cbuild setup --packs` finds it)"]


def test_a_pack_not_on_the_index_is_a_task_saying_what_it_means():
    assert index_lines("1.5.1", False, "the index lists no PyTorch::ExecuTorch pack") == [
        "  - [ ] on the public pack index that `cbuild setup --packs` reads: **not on it** (the index lists no "
        "PyTorch::ExecuTorch pack): `cbuild setup --packs` cannot download the pack, so until it is published there "
        "the template must use a local pack (`cpackget add PATH/PyTorch.ExecuTorch.1.5.1.pack`, the pack of this "
        "run) or wait"]


def test_could_not_tell_is_a_task_with_the_reason_made_inert():
    why = "cannot read the public pack index: HTTP 403 <!-- @team"
    assert index_lines("1.5.1", None, why) == [
        "  - [ ] on the public pack index that `cbuild setup --packs` reads: could not tell (cannot read the public "
        "pack index: HTTP 403 &lt;\\!\\-\\- @&#8203;team); `cpackget add PyTorch::ExecuTorch@1.5.1` tells"]


def test_an_index_that_was_not_asked_stays_not_checked():
    prov = PackProvenance()
    prov.record_index(PackIndexAnswer("PyTorch::ExecuTorch@1.5.1", None, "the check is off", "", asked=False))
    assert (prov.on_index, prov.index_why) == (None, None)
    assert index_lines("1.5.1", prov.on_index, prov.index_why) == [
        "  - [ ] on the public pack index that `cbuild setup --packs` reads: not checked by this run; "
        "`cpackget add PyTorch::ExecuTorch@1.5.1` tells"]


# ---------------------------------------------------------------- run, check and publish against the fake index
def _body(world):
    pulls = world.open_pulls(TEMPLATE)
    assert len(pulls) == 1
    return pulls[0]["body"]


def _index_line(body: str) -> str:
    return next(x for x in body.splitlines() if "on the public pack index" in x)


def test_run_ticks_a_pack_the_index_lists_and_sets_the_output(world, capsys, tmp_path, monkeypatch):
    world.pack_index = [("ARM", "CMSIS", "6.2.0"), ("PyTorch", "ExecuTorch", "1.5.1")]
    world.pack_pdscs["PyTorch.ExecuTorch.pdsc"] = (
        b'<?xml version="1.0"?><package><vendor>PyTorch</vendor><name>ExecuTorch</name><releases>'
        b'<release version="1.5.1"/><release version="1.4.0"/></releases></package>')
    monkeypatch.setenv("GITHUB_OUTPUT", str(tmp_path / "out"))
    assert run_bot(world, capsys) == 0
    assert _index_line(_body(world)) == "  - [x] on the public pack index (`cbuild setup --packs` finds it)"
    assert "pack-on-index<<" in (tmp_path / "out").read_text() and "\nyes\n" in (tmp_path / "out").read_text()
    assert world.count("GET", r"^/pack/index\.pidx$") == 1
    assert world.count("GET", r"^/pack/PyTorch\.ExecuTorch\.pdsc$") == 1   # the release is looked up in the PDSC


def test_run_reads_the_pdsc_when_the_index_names_another_version(world, capsys):
    world.pack_index = [("PyTorch", "ExecuTorch", "1.6.0")]
    world.pack_pdscs["PyTorch.ExecuTorch.pdsc"] = (
        b'<?xml version="1.0"?><package><vendor>PyTorch</vendor><name>ExecuTorch</name><releases>'
        b'<release version="1.6.0"/><release version="1.4.0"/></releases></package>')
    assert run_bot(world, capsys) == 0
    assert _index_line(_body(world)).startswith(
        "  - [ ] on the public pack index that `cbuild setup --packs` reads: **not on it** (the index lists "
        "PyTorch::ExecuTorch 1\\.6\\.0, and its PDSC has no release 1\\.5\\.1): ")


def test_an_unreachable_index_never_fails_the_run(world, capsys, monkeypatch):
    monkeypatch.setenv("EXECUTORCH_PACK_BOT_ATTEMPTS", "2")
    world.faults.append(Fault("GET", r"^/pack/index\.pidx$", 503, {"message": "busy"}, times=2))
    co = checkout(world)
    code, out = cli(capsys, "run", "--repo", str(co), "--upstream", f"github:{UPSTREAM}")
    assert code == 0 and len(world.open_pulls(TEMPLATE)) == 1
    assert _index_line(_body(world)) == (
        "  - [ ] on the public pack index that `cbuild setup --packs` reads: could not tell (gave up trying to read "
        "the public pack index after 2 attempts \\(last: HTTP 503: busy\\)); `cpackget add PyTorch::ExecuTorch@1.5.1` "
        "tells")
    assert ("warning: could not tell whether PyTorch::ExecuTorch@1.5.1 is on the public pack index: gave up trying "
            "to read the public pack index after 2 attempts (last: HTTP 503: busy)\n") in out.err
    assert world.count("GET", r"^/pack/index\.pidx$") == 2


def test_run_with_the_check_off_asks_nothing(world, capsys):
    assert run_bot(world, capsys, "--pack-index-url", "off") == 0
    assert "not checked by this run" in _index_line(_body(world))
    assert world.count("GET", r"^/pack/") == 0


def test_a_bad_index_url_is_bad_usage_before_anything_changes(world, capsys):
    code = run_bot(world, capsys, "--pack-index-url", "keil.com/pack/index.pidx")
    assert code == 2
    assert world.open_pulls(TEMPLATE) == [] and world.count("GET", r"^/repos/") == 0


def test_check_prints_whether_the_pack_is_on_the_index(world, capsys, tpl):
    from github_world import check
    code, out = check(capsys, tpl)
    assert code == 0
    assert "pack-on-index=no\n" in out.out
    assert "# PyTorch::ExecuTorch@1.5.1 is not on the public pack index: the index lists no PyTorch::ExecuTorch " \
           "pack\n" in out.err


def test_publish_says_a_pack_was_built_on_the_runner(world, capsys, monkeypatch):
    co, plan = planned_checkout(world, capsys)
    from packgen import DEMO_OPS, PackSpec, make_pack
    pack_dir = world.tmp / "pack"
    # publish verifies it itself (every check but the compile check), against the template's components too
    built = make_pack(pack_dir, PackSpec(operators=DEMO_OPS)).read_bytes()
    monkeypatch.setenv("GITHUB_RUN_ID", "77")
    world.pack_index = [("PyTorch", "ExecuTorch", "1.5.1")]
    world.pack_pdscs["PyTorch.ExecuTorch.pdsc"] = (
        b'<?xml version="1.0"?><package><vendor>PyTorch</vendor><name>ExecuTorch</name><releases>'
        b'<release version="1.5.1"/><release version="1.4.0"/></releases></package>')
    code, _ = cli(capsys, "publish", "--repo", str(co), "--plan-file", str(plan),
                  "--pack", str(pack_dir), "--pack-built")
    assert code == 0
    lines = _body(world).splitlines()
    i = next(n for n, x in enumerate(lines) if "**1. The pack**" in x)
    assert lines[i:i + 2] == [
        f"- [x] **1. The pack** `PyTorch::ExecuTorch@1.5.1`: built on the Arm runner from tag `v1.5.1` with "
        f"`build-pack` by this run's job `build-pack` ([run]({RUN})) (sha256 `{hashlib.sha256(built).hexdigest()}`); "
        "verification: "
        "passed (`verify-pack`, section below)",
        "  - [x] on the public pack index (`cbuild setup --packs` finds it)"]


def test_publish_names_the_release_asset_it_was_given(world, capsys):
    co, plan = planned_checkout(world, capsys)
    from packgen import PackSpec, make_pack
    pack = make_pack(world.tmp, PackSpec(flatbuffers=False))   # verified by publish itself: here it fails
    url = "https://github.com/pytorch/executorch/releases/download/v1.5.1/PyTorch.ExecuTorch.1.5.1.pack"
    code, out = cli(capsys, "publish", "--repo", str(co), "--plan-file", str(plan), "--pack", str(pack),
                    "--pack-url", url, "--dry-run")
    assert code == 0
    step = next(x for x in out.out.splitlines() if "**1. The pack**" in x)
    assert step == (f"- [ ] **1. The pack** `PyTorch::ExecuTorch@1.5.1`: the release asset `{url}` (sha256 "
                    f"`{hashlib.sha256(pack.read_bytes()).hexdigest()}`); verification: **failed** (section below)")


@pytest.mark.parametrize("extra", [["--pack-built", "--pack-url", "https://x/p.pack"]])
def test_built_and_asset_are_exclusive(world, capsys, extra):
    co, plan = planned_checkout(world, capsys)
    with pytest.raises(SystemExit) as e:
        cli(capsys, "publish", "--repo", str(co), "--plan-file", str(plan), *extra, "--dry-run")
    assert e.value.code == 2


def test_a_missing_pack_is_bad_usage_naming_the_option(world, capsys):
    co, plan = planned_checkout(world, capsys)
    code, out = cli(capsys, "publish", "--repo", str(co), "--plan-file", str(plan), "--pack", str(world.tmp / "nope"),
                    "--pack-built", "--dry-run")
    assert code == 2
    assert f"--pack {world.tmp / 'nope'}: cannot read" in out.err
    assert world.open_pulls(TEMPLATE) == []
