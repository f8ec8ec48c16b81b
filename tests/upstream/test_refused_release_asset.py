"""A release asset that fails verification: ``fetch-pack --refusal-file`` records why and lets the workflow go
on (exit 0, ``asset-refused=true``); ``publish --asset-refusal`` says it in the PR body and the job summary,
with the pack built from the tag and a collapsed upstream report.  The trap is the sample's pack built
without the CMake cross-compile (bot/sample/packgen.py); GitHub is the fake.
"""

from __future__ import annotations

import hashlib
import json
import re

import pytest

from fakegithub import TEMPLATE, UPSTREAM, add_sample_release
from github_world import cli, planned_checkout
from packgen import DEMO_OPS, make_pack, upstream_release_spec

PACK = "PyTorch.ExecuTorch.1.5.1.pack"


def _release(world, pack_bytes: bytes) -> None:
    world.repo(UPSTREAM).releases = [r for r in world.repo(UPSTREAM).releases if r["tag_name"] != "v1.5.1"]
    add_sample_release(world, "v1.5.1", created_at="2026-09-01T00:00:00Z", assets={PACK: pack_bytes})


def _trap(world):
    return make_pack(world.tmp / "trap", version="1.5.1", operators=DEMO_OPS, flatbuffers=False,
                     generated_headers=False)


def _outputs(path) -> dict:
    """The step outputs written to ``$GITHUB_OUTPUT`` (``name<<DELIM``/value/``DELIM``)."""
    return {m[0]: m[2] for m in re.findall(r"(?ms)^([\w-]+)<<(\S+)\n(.*?)\n\2$", path.read_text())}


@pytest.fixture
def outputs(world, monkeypatch):
    path = world.tmp / "github_output"
    path.write_text("")
    monkeypatch.setenv("GITHUB_OUTPUT", str(path))
    return path


def fetch(capsys, dest, *extra):
    return cli(capsys, "fetch-pack", "--version", "1.5.1", "--dest", str(dest), "--upstream", f"github:{UPSTREAM}",
               *extra)


def test_a_trap_asset_is_refused_with_a_record_and_the_run_goes_on(world, capsys, outputs):
    trap = _trap(world)
    _release(world, trap.read_bytes())
    dest = world.tmp / "pack"
    code, out = fetch(capsys, dest, "--refusal-file", str(dest / "asset-refusal.json"))
    assert code == 0, out.err
    assert _outputs(outputs) == {"asset-refused": "true"}
    # the refused pack is not left where the PR job would take it as its pack
    assert sorted(p.name for p in dest.iterdir()) == ["asset-refusal.json"]
    rec = json.loads((dest / "asset-refusal.json").read_text())
    data = trap.read_bytes()
    assert rec == {
        "schema": 1, "asset": PACK, "url": rec["url"], "sha256": hashlib.sha256(data).hexdigest(),
        "size": len(data), "tag": "v1.5.1", "version": "1.5.1",
        "failing_checks": rec["failing_checks"],
        "missing": ["include/flatbuffers/", "include/executorch/schema/program_generated.h",
                    "include/executorch/schema/scalar_type_generated.h"],
        "warnings": rec["warnings"], "upstream_validator": None}
    assert f"/v1.5.1/{PACK}" in rec["url"]   # the asset's browser_download_url (the fake's form)
    assert [c["name"] for c in rec["failing_checks"]] == ["flatbuffers-headers", "generated-headers"]
    assert "release asset PyTorch.ExecuTorch.1.5.1.pack of v1.5.1 refused" in out.out
    assert "  missing entries: include/flatbuffers/, include/executorch/schema/program_generated.h" in out.out


def test_an_asset_with_upstreams_url_form_is_accepted_with_no_record(world, capsys, outputs):
    pack = make_pack(world.tmp / "up", upstream_release_spec("refs/tags/v1.5.1", operators=DEMO_OPS))
    _release(world, pack.read_bytes())
    dest = world.tmp / "pack"
    code, out = fetch(capsys, dest, "--refusal-file", str(dest / "asset-refusal.json"))
    assert code == 0, out.err
    assert _outputs(outputs) == {"asset-refused": "false"}
    assert sorted(p.name for p in dest.iterdir()) == [PACK]


def test_without_refusal_file_a_trap_still_fails_the_step(world, capsys, outputs):
    _release(world, _trap(world).read_bytes())
    code, _out = fetch(capsys, world.tmp / "pack")
    assert code == 1
    assert outputs.read_text() == ""


def test_a_refusal_file_that_is_a_folder_is_bad_usage_before_any_download(world, capsys):
    _release(world, _trap(world).read_bytes())
    folder = world.tmp / "r"
    folder.mkdir()
    code, out = fetch(capsys, world.tmp / "pack", "--refusal-file", str(folder))
    assert code == 2 and "--refusal-file" in out.err
    assert not (world.tmp / "pack").exists()


def _refused_then_built(world, capsys, outputs, monkeypatch, *extra):
    _release(world, _trap(world).read_bytes())
    refusal = world.tmp / "asset-refusal.json"
    assert fetch(capsys, world.tmp / "asset", "--refusal-file", str(refusal))[0] == 0
    built = make_pack(world.tmp / "built", version="1.5.1", operators=DEMO_OPS)
    co, plan = planned_checkout(world, capsys)
    summary = world.tmp / "summary.md"
    summary.write_text("")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    monkeypatch.setenv("GITHUB_RUN_ID", "91")
    code, out = cli(capsys, "publish", "--repo", str(co), "--plan-file", str(plan), "--pack", str(built),
                    "--pack-built", "--asset-refusal", str(refusal), "--pack-index-url", "off", *extra)
    return code, out, json.loads(refusal.read_text()), summary, built


def test_the_pr_says_the_asset_was_refused_and_the_pack_was_built_from_the_tag(world, capsys, outputs,
                                                                               monkeypatch):
    code, out, rec, summary, built = _refused_then_built(world, capsys, outputs, monkeypatch)
    assert code == 0, out.err
    body = world.open_pulls(TEMPLATE)[0]["body"]
    section = body.split("### The release asset was refused\n\n", 1)[1].split("\n\n### ", 1)[0]
    head, details = section.split("<details>", 1)
    assert head.splitlines()[:3] == [
        f"The release `v1.5.1` carries `{PACK}`, which failed verification, so **this pull request's pack was "
        "built from the tag `v1.5.1`** instead (step 1 below).", "",
        f"- asset: `{rec['url']}`"]
    assert f"- sha256: `{rec['sha256']}` ({rec['size']} bytes)" in head
    assert "- failing checks (2): `flatbuffers-headers`: " in head and "`generated-headers`: " in head
    assert ("- missing entries: `include/flatbuffers/`, `include/executorch/schema/program_generated.h`, "
            "`include/executorch/schema/scalar_type_generated.h`") in head
    # the upstream report, collapsed, to paste into an ExecuTorch issue
    assert details.startswith("<summary>An upstream report to paste into an ExecuTorch issue</summary>")
    assert "- `include/flatbuffers/`" in details and "validate_pack.py" in details
    assert f"executorch-pack-bot verify-pack {PACK} --version 1.5.1" in details
    assert details.rstrip().endswith("</details>")
    # step 1 names the built pack, with the sha256 of the pack this PR uses, not the refused one
    sha = hashlib.sha256(built.read_bytes()).hexdigest()
    assert f"built on the Arm runner from tag `v1.5.1` with `build-pack`" in body and sha in body
    # the job summary says the same
    assert "### The release asset was refused" in summary.read_text()
    assert rec["sha256"] in summary.read_text()


def test_asset_refusal_with_pack_url_is_bad_usage(world, capsys, outputs, monkeypatch):
    _release(world, _trap(world).read_bytes())
    refusal = world.tmp / "asset-refusal.json"
    assert fetch(capsys, world.tmp / "asset", "--refusal-file", str(refusal))[0] == 0
    co, plan = planned_checkout(world, capsys)
    built = make_pack(world.tmp / "built", version="1.5.1", operators=DEMO_OPS)
    code, out = cli(capsys, "publish", "--repo", str(co), "--plan-file", str(plan), "--pack", str(built),
                    "--pack-url", "https://example.invalid/p.pack", "--asset-refusal", str(refusal))
    assert code == 2 and "--asset-refusal" in out.err
    assert world.open_pulls(TEMPLATE) == []


def test_a_file_that_is_not_a_refusal_record_is_bad_usage_naming_it(world, capsys):
    co, plan = planned_checkout(world, capsys)
    bad = world.tmp / "bad.json"
    bad.write_text('{"schema": 1, "asset": "x"}\n')
    built = make_pack(world.tmp / "built", version="1.5.1", operators=DEMO_OPS)
    code, out = cli(capsys, "publish", "--repo", str(co), "--plan-file", str(plan), "--pack", str(built),
                    "--pack-built", "--asset-refusal", str(bad))
    assert code == 2 and str(bad) in out.err and "refusal record" in out.err
    assert world.open_pulls(TEMPLATE) == []


def test_foreign_text_of_a_refusal_renders_inert():
    from bot.report.refusal import refusal_section
    rec = {"schema": 1, "asset": "PyTorch.ExecuTorch.1.5.1.pack", "url": "https://x.invalid/p.pack?a=@team",
           "sha256": "0" * 64, "size": 10, "tag": "v1.5.1", "version": "1.5.1",
           "failing_checks": [{"name": "generated-headers", "detail": "@user <!-- hide **VERIFIED SAFE** #12"}],
           "missing": ["include/@owner/x.h"], "warnings": [], "upstream_validator": None}
    text = refusal_section(rec)
    outside = "\n".join(line for line in text.split("```sh")[0].splitlines())
    assert "@user" not in outside and "<!--" not in outside and "**VERIFIED" not in outside
    assert "@&#8203;user &lt;\\!\\-\\- hide \\*\\*VERIFIED SAFE\\*\\* \\#&#8203;12" in outside
    assert text.count("<details>") == text.count("</details>") == 1


def test_a_forged_refusal_record_is_refused(world, capsys):
    co, plan = planned_checkout(world, capsys)
    built = make_pack(world.tmp / "built", version="1.5.1", operators=DEMO_OPS)
    good = {"schema": 1, "asset": PACK, "url": None, "sha256": "0" * 64, "size": 1, "tag": "v1.5.1",
            "version": "1.5.1", "failing_checks": [], "missing": [], "warnings": [], "upstream_validator": None}
    for key, bad in (("sha256", "0" * 63), ("size", "1"), ("size", True), ("asset", 5), ("missing", [1])):
        rec = dict(good, **{key: bad})
        path = world.tmp / "r.json"
        path.write_text(json.dumps(rec))
        code, out = cli(capsys, "publish", "--repo", str(co), "--plan-file", str(plan), "--pack", str(built),
                        "--pack-built", "--asset-refusal", str(path), "--dry-run")
        assert code == 2 and key in out.err, (key, out.err)
