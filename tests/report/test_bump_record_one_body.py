"""One bump record, one renderer: the workflow's path (``update --plan-file`` then ``publish --plan-file``) and
``run`` give the same PR body for the same inputs, apart from the lines that say where the pack came from.

The workflow's path used to rebuild the plan without its edits and gather no upstream evidence: its body said
"0 pin edits, 0 prose edits", "no pack pin was rewritten", "no requirement rewritten" and had no upstream
changes, so a ``.pte`` schema change was not a blocking task there.  GitHub is the fake; the upstream is the
shipped sample's releases.
"""

from __future__ import annotations

import hashlib
import json
import re

from fakegithub import TEMPLATE, UPSTREAM, add_sample_release
from github_world import checkout, cli
from packgen import DEMO_OPS, make_pack

PACK = "PyTorch.ExecuTorch.1.5.1.pack"
SCHEMA_EDIT = b"namespace executorch_flatbuffer;\ntable Program {\n  version: uint;\n  segments: [string];\n}\n"


def _release(world, *, schema_change: bool = False):
    pack = make_pack(world.tmp / "packs", version="1.5.1", operators=DEMO_OPS)
    world.repo(UPSTREAM).releases = [r for r in world.repo(UPSTREAM).releases if r["tag_name"] != "v1.5.1"]
    rel = add_sample_release(world, "v1.5.1", created_at="2026-09-01T00:00:00Z", assets={PACK: pack.read_bytes()})
    if schema_change:
        world.add_file(UPSTREAM, "v1.5.1", "schema/program.fbs", SCHEMA_EDIT)
    return pack, rel["assets"][0]["browser_download_url"]


def workflow_path(world, capsys, pack, url, *, dry_run=True, update_pack=True, extra=()):
    """The pull-request job's commands, in its order: previous-pack, update --plan-file, publish --plan-file."""
    co = checkout(world)
    up = f"github:{UPSTREAM}"
    folder = world.tmp / f"pack{world.runs}"
    folder.mkdir()
    (folder / PACK).write_bytes(pack.read_bytes())
    baseline = world.tmp / f"baseline{world.runs}"
    assert cli(capsys, "previous-pack", "--repo", str(co), "--upstream", up, "--dest", str(baseline))[0] == 0
    plan = world.tmp / f"plan{world.runs}.json"
    code, out = cli(capsys, "update", "--repo", str(co), "--upstream", up, "--allow-flagged", "--plan-file",
                    str(plan), *(("--pack", str(folder)) if update_pack else ()))
    assert code == 0, out.err
    code, out = cli(capsys, "publish", "--repo", str(co), "--plan-file", str(plan), "--pack", str(folder),
                    "--baseline", str(baseline), "--pack-url", url, "--upstream", up, "--pack-index-url", "off",
                    *(("--dry-run",) if dry_run else ()), *extra)
    assert code == 0, out.err
    return _body(re.split(r"\nBump ExecuTorch to 1\.5\.1(?: \(blocked: [^()]*\))?\n\n", out.out, maxsplit=1)[1]) \
        if dry_run else None, plan


def _body(text: str) -> str:
    """The PR body in a dry run's output: up to its last line, the hidden fingerprint marker."""
    return re.match(r"(?s).*?<!-- executorch-pack-bot:fingerprint=[0-9a-f]{64} -->\n", text).group(0)


def run_path(world, capsys, extra=()):
    code, out = cli(capsys, "run", "--repo", str(checkout(world)), "--upstream", f"github:{UPSTREAM}", "--dry-run",
                    "--pack-index-url", "off", *extra)
    assert code == 0, out.err
    return _body(re.split(r"Would open pull request: Bump ExecuTorch to 1\.5\.1(?: \(blocked: [^()]*\))?\n\n",
                          out.out, maxsplit=1)[1])


def test_the_workflow_body_counts_the_edits_and_shows_the_schema_change_as_blocking(world, capsys):
    pack, url = _release(world, schema_change=True)
    body, plan_file = workflow_path(world, capsys, pack, url)
    record = json.loads(plan_file.read_text())
    kinds = [e["kind"] for e in record["edits"]]
    pins = sum(k in ("pack-pin", "pack-id-case", "requirement", "script") for k in kinds)
    assert pins > 0 and kinds.count("prose") > 0
    assert (f"{pins} pin edits, {kinds.count('prose')} prose edits, {kinds.count('lock')} lock "
            f"entr{'y' if kinds.count('lock') == 1 else 'ies'} in {len(record['files'])} files.") in body
    assert "no pack pin was rewritten" not in body and "no requirement rewritten" not in body
    assert "- [x] **2. csolution/cproject pins**" in body and "- [x] **3. Python requirements**" in body
    assert "### Upstream changes that matter" in body
    blocking = body.split("### Blocking items", 1)[1].split("\n### ", 1)[0]
    assert ("- [ ] `pte-schema`: re-export the models: the `.pte` schema changed between `v1.4.0` and `v1.5.1` "
            "(`schema/program.fbs` edited)") in blocking


def test_run_and_the_workflow_give_the_same_body_but_for_where_the_pack_came_from(world, capsys):
    pack, url = _release(world, schema_change=True)
    by_run = run_path(world, capsys)
    by_workflow, _plan = workflow_path(world, capsys, pack, url)
    sha = hashlib.sha256(pack.read_bytes()).hexdigest()

    def origin(line: str) -> bool:
        return "**1. The pack**" in line or line.startswith("- The pack:") or "pack source" in line.lower()

    a = [x for x in by_run.splitlines() if not origin(x)]
    b = [x for x in by_workflow.splitlines() if not origin(x)]
    assert a == b
    # the pack's origin lines: the release asset, named with the same URL and sha256 on both paths
    assert [x for x in by_run.splitlines() if origin(x)] and sha in by_workflow and url in by_workflow


def test_run_and_the_workflow_give_the_same_body_with_model_results(world, capsys, tmp_path):
    from bot.modelrun.result import ModelResult, write_result

    new, old = tmp_path / "new", tmp_path / "old"
    new.mkdir(), old.mkdir()
    outs = [{"index": 0, "exact": True, "max_abs_diff": 0.0, "problem": None}]
    write_result(ModelResult("add_mul", "1.5.1", "match", outputs=outs, instructions=3100), new / "add_mul.json")
    write_result(ModelResult("linear_relu_add", "1.5.1", "mismatch", error="output 0 differs",
                             outputs=[{"index": 0, "exact": False, "max_abs_diff": 0.5, "problem": None}],
                             instructions=9000), new / "linear_relu_add.json")
    write_result(ModelResult("add_mul", "1.4.0", "fail", stage="load", error="InvalidProgram (0x23)"),
                 old / "add_mul.json")
    extra = ("--model-results", str(new), "--model-results-old", str(old))
    pack, url = _release(world, schema_change=True)
    by_run = run_path(world, capsys, extra)
    by_workflow, _plan = workflow_path(world, capsys, pack, url, extra=extra)

    def origin(line: str) -> bool:
        return "**1. The pack**" in line or line.startswith("- The pack:") or "pack source" in line.lower()

    a = [x for x in by_run.splitlines() if not origin(x)]
    b = [x for x in by_workflow.splitlines() if not origin(x)]
    assert a == b
    assert "; model run **failed**" in by_workflow
    section = by_workflow.split("### Runs on a simulated Cortex-M55", 1)[1].split("\n### ", 1)[0]
    assert "| `add_mul` | ✅ match | 0 (bit-exact) | 3,100 (new) | refused at load: `InvalidProgram (0x23)` |" \
        in section
    assert "| `linear_relu_add` | ❌ outputs differ | 0.5 | 9,000 (new) | not run |" in section
    assert by_workflow.index("### Pack verification") < by_workflow.index("### Runs on a simulated Cortex-M55")
    blocking = by_workflow.split("### Blocking items", 1)[1].split("\n### ", 1)[0]
    assert ("- [ ] `model-run`: `linear_relu_add`: the new pack's runtime gives different outputs from the host "
            "runtime (max difference 0.5)") in blocking
    assert "`add_mul`" not in blocking   # refused by the old pack: a reason to re-export, not to block


def test_publish_of_a_record_without_upstream_evidence_says_it_was_not_gathered(world, capsys):
    pack, url = _release(world, schema_change=True)
    _body, plan_file = workflow_path(world, capsys, pack, url)
    record = json.loads(plan_file.read_text())
    record["upstream"] = None          # a stage without upstream access wrote it
    plan_file.write_text(json.dumps(record))
    co = world.tmp / f"co{world.runs}"
    code, out = cli(capsys, "publish", "--repo", str(co), "--plan-file", str(plan_file), "--dry-run",
                    "--pack-index-url", "off")
    assert code == 0, out.err
    body = out.out
    assert ("### Upstream changes that matter\n\nNot gathered: upstream ExecuTorch was not read when this bump was "
            "planned, so the `.pte` schema, the components the template selects and the Arm backends were not "
            "compared; a new run of the workflow reads it.") in body
    assert "`pte-schema`" not in body and "loads as before" not in body


def test_the_record_carries_each_stage(world, capsys):
    pack, url = _release(world)
    _body, plan_file = workflow_path(world, capsys, pack, url)
    record = json.loads(plan_file.read_text())
    assert record["schema"] == 2 and record["written"] is True
    assert record["stages"] == {"update": True, "publish": False}
    assert record["upstream"]["name"] == UPSTREAM and record["upstream"]["spec"] == f"github:{UPSTREAM}"
    assert record["upstream"]["pdsc"] is True
    assert record["upstream"]["pin_lines"]["torch"] == ["torch_pin.py", 3]   # TORCH_VERSION = "2.14.0"
    assert record["upstream"]["changes"]["schema"] == [{"path": "schema/program.fbs", "kind": "comments"}]
    assert record["template"]["selected"] and record["template"]["boards"]
    assert record["mentions"]["counts"]["moved"] > 0
    assert record["pack"] is None
    assert record["proofs"] == {"verify-pack": "not-run", "compile": "not-run", "model-run": "not-run"}
    assert all(set(e) == {"path", "line", "kind", "old", "new", "why"} for e in record["edits"])


def test_a_local_upstream_path_is_not_kept_in_the_record(tmp_path, capsys):
    from bot.commands.demo import copy_template
    from bot.sample import build_upstream_repo

    upstream = build_upstream_repo(tmp_path / "mirror" / "executorch.git", bare=True)
    tpl = copy_template(tmp_path / "template")
    plan_file = tmp_path / "plan.json"
    code, out = cli(capsys, "update", "--repo", str(tpl), "--upstream", str(upstream), "--allow-flagged",
                    "--plan-file", str(plan_file))
    assert code == 0, out.err
    record = json.loads(plan_file.read_text())
    assert record["upstream"]["spec"] == "a local repository"
    code, out = cli(capsys, "publish", "--repo", str(tpl), "--plan-file", str(plan_file), "--dry-run",
                    "--pack-index-url", "off")
    assert code == 0, out.err
    assert str(tmp_path) not in out.out.split("\nBump ExecuTorch", 1)[1]
    assert re.search(r"\d+ pin edits, \d+ prose edits", out.out) and not re.search(r"\b0 pin edits", out.out)


def test_update_pack_that_cannot_be_read_is_bad_usage_and_writes_nothing(world, capsys):
    _release(world)
    co = checkout(world)
    plan = world.tmp / "plan.json"
    before = {p: p.read_bytes() for p in co.rglob("*") if p.is_file() and ".git" not in p.parts}
    code, out = cli(capsys, "update", "--repo", str(co), "--upstream", f"github:{UPSTREAM}", "--plan-file",
                    str(plan), "--pack", str(world.tmp / "no-such-folder"))
    assert code == 2 and "--pack" in out.err
    assert not plan.exists()
    assert {p: p.read_bytes() for p in co.rglob("*") if p.is_file() and ".git" not in p.parts} == before


def test_a_plan_of_schema_1_still_publishes_and_says_what_it_lacks(world, capsys):
    pack, url = _release(world)
    _body, plan_file = workflow_path(world, capsys, pack, url)
    record = json.loads(plan_file.read_text())
    old = {k: record[k] for k in ("repo", "current", "target", "nothing_to_do", "pins", "edits", "flags", "files",
                                  "fingerprint", "mentions", "written")}
    old["schema"] = 1
    plan_file.write_text(json.dumps(old))
    co = world.tmp / f"co{world.runs}"
    code, out = cli(capsys, "publish", "--repo", str(co), "--plan-file", str(plan_file), "--dry-run",
                    "--pack-index-url", "off")
    assert code == 0, out.err
    assert "Not gathered: upstream ExecuTorch was not read when this bump was planned" in out.out
    assert "- ❔ **`.pte` schema**: not compared (upstream ExecuTorch was not read when this bump was planned)" in out.out
    assert re.search(r"\n[1-9]\d* pin edits, [1-9]\d* prose edits", out.out)
    assert "- [ ] target type `SSE-300`" in out.out      # the template's facts are read from the checkout
