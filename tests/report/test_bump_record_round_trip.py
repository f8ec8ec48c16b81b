"""The bump record (bot/report/record.py) read back gives every field written, equal, through JSON, for every
schema the reader accepts: the plan (pins, the bump's changes and restated pins, edits with their new text, flags
with their ``blocking``, the mentions accounting), the upstream and template evidence (``stated_pythons``...), the
pack stage (the pack's provenance with its ``tag``, the verification with ``template_missing``, the proofs: the
compile check's status) and the run-model results.  A field lost on the way would change the PR body on the
workflow's path (``update --plan-file`` then ``publish --plan-file``) and nowhere else."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.model import Bump, CheckResult, Edit, Flag, PinChange
from bot.modelrun.result import ModelResult
from bot.pack.report import PackReport
from bot.plan import PinRow, Plan
from bot.report.evidence import Evidence, PackProvenance
from bot.report.record import (SCHEMA, SCHEMAS, RecordedMentions, add_model_run, add_pack, model_run_from,
                               pack_report_from, plan_from_record, read_parts, record_of, upstream_spec_label)
from bot.template.hardware import Board, Measurement
from bot.upstream.changes import BackendChange, ComponentChange, SchemaChange, UpstreamChanges

CONTENTS = {"README.md": b"ExecuTorch 1.5.1\n", "requirements.txt": b"torch==2.8.0\n"}
# the bump's Python changes differ from the pin table's rows on purpose (another source, a row not in the bump):
# a reader falling back to the rows (the schema-1 reading) would not give them back
BUMP = Bump("1.4.0", "1.5.1", "1.4.0", "1.5.1", "v1.4.0", "v1.5.1",
            changes=(PinChange("torch", "2.7.0", "2.8.0", "install_requirements.py"),
                     PinChange("torchao", None, "0.12.0", "")),
            restated=(("torch", "2.7.0"), ("executorch", "1.4.0")))
ROWS = [PinRow("PyTorch::ExecuTorch", "1.4.0", "1.5.1", "release asset"),
        PinRow("torch", "2.7.0", "2.8.0", "upstream pins"),
        PinRow("torchvision", "0.22.0", "0.23.0", "upstream pins"),
        PinRow("torchao", None, "0.12.0", "upstream pins")]
EDITS = [Edit("README.md", 11, 16, "1.4.0", "1.5.1", 1, "prose", "the current version"),
         Edit("requirements.txt", 7, 12, "2.7.0", "2.8.0", 1, "requirement", "")]
FLAGS = [Flag("pte-schema", "re-export the models", "schema/program.fbs", 3, True),
         Flag("measurement", "a measured number", "README.md", 9, False),
         Flag("review", "read it", None, None, True)]
MENTIONS = {"version": "1.4.0", "tracked": ["1.4.0"], "counts": {"moved": 2, "history": 1, "other": 0, "review": 1},
            "review": [{"path": "README.md", "line": 4}], "items": []}
CHANGES = UpstreamChanges(
    "v1.4.0", "v1.5.1", paths=["schema/program.fbs", "kernels/portable/add.cpp"], ancestor=True, commits=7,
    schema=[SchemaChange("schema/program.fbs", "edited")],
    components=[ComponentChange("Machine Learning:ExecuTorch Operators:Portable add", ("kernels/portable/",),
                                ("kernels/portable/add.cpp",), True),
                ComponentChange("Machine Learning:ExecuTorch:Runtime", ("runtime/",), (), False)],
    backends=[BackendChange("backends/arm", files=("backends/arm/a.py",), passes_added=("PassA",),
                            passes_removed=("PassB",), operators_added=("aten.add",), operators_removed=("aten.sub",),
                            unread=("backends/arm/big.py",))],
    error=None)
PROVENANCE = PackProvenance(how="built", url="https://example.invalid/p.pack", sha256="ab" * 32,
                            run_url="https://github.com/o/t/actions/runs/5", on_index=False, tag="v1.5.1",
                            index_why="PyTorch::ExecuTorch@1.5.1 is not on the index")
REFUSAL = {"asset": "PyTorch.ExecuTorch.1.5.1.pack", "why": "its sha256 differs", "url": "https://example.invalid/a"}


def evidence() -> Evidence:
    return Evidence(changes=CHANGES, selected=("Portable add", "Portable mul"),
                    boards=[Board("AVH", "Corstone-300", "SSE-300-MPS3", "project.csolution.yml", 12),
                            Board("FVP", None, None, "project.csolution.yml", 20)],
                    measurements=[Measurement("README.md", 30, "3100 instructions on 1.4.0", True)],
                    stated_pythons=[("README.md", 5, "Python 3.10 to 3.12"), ("docs/setup.md", 2, "Python 3.11")],
                    requires_python=(">=3.10", ">=3.11"), version_txt="1.5.1",
                    skipped=[("v1.6.0rc1", "a release candidate")], command="executorch-pack-bot update --to 1.5.1",
                    upstream="pytorch/executorch", old_vela="4.2.0",
                    pin_lines={"torch": ("install_requirements.py", 12), "torchao": ("pyproject.toml", 40)})


def report(*checks: CheckResult) -> PackReport:
    return PackReport(pack="PyTorch.ExecuTorch.1.5.1.pack", version="1.5.1", checks=list(checks),
                      operators_added=["Portable div"], operators_removed=["Portable sub"], baseline="old.pack",
                      operators_changed=["Portable add"],
                      template_missing=["project.cproject.yml:7: Machine Learning:ExecuTorch Operators:Portable sub"],
                      baseline_note="the previous release has no pack asset", baseline_source="the template's path:")


def plan(tmp_path: Path, bump=BUMP) -> Plan:
    p = Plan(repo=tmp_path, bump=bump, rows=list(ROWS), edits=list(EDITS), flags=list(FLAGS),
             contents=dict(CONTENTS), originals=dict(CONTENTS))
    p.mentions = RecordedMentions(json.loads(json.dumps(MENTIONS)))
    return p


def through_json(record: dict) -> dict:
    return json.loads(json.dumps(record))


def full_record(tmp_path: Path) -> dict:
    rec = record_of(plan(tmp_path), evidence(), upstream_spec="github:pytorch/executorch", upstream_ran=True,
                    pdsc=True)
    add_pack(rec, PROVENANCE, report(CheckResult("pdsc", "pass", "ok"), CheckResult("compile", "warn", "2 warnings",
                                                                                    {"warnings": 2})),
             refusal=REFUSAL, note="built from the tag")
    new = [ModelResult("add_mul", "1.5.1", "match", outputs=[{"index": 0, "exact": True, "max_abs_diff": 0.0,
                                                              "problem": None}], instructions=3100, ticks=99),
           ModelResult("linear", "1.5.1", "mismatch", error="output 0 differs", tolerance=0.5,
                       outputs=[{"index": 0, "exact": False, "max_abs_diff": 0.75, "problem": None}])]
    old = [ModelResult("add_mul", "1.4.0", "fail", stage="load", error="InvalidProgram (0x23)")]
    add_model_run(rec, new, old)
    return rec


def test_the_plan_reads_back_field_by_field(tmp_path):
    rec = through_json(full_record(tmp_path))
    assert rec["schema"] == SCHEMA and SCHEMA in SCHEMAS
    back = plan_from_record(rec, tmp_path, CONTENTS)
    assert back.bump == BUMP
    assert back.rows == ROWS
    assert back.flags == FLAGS
    assert [f.blocking for f in back.flags] == [True, False, True]
    assert [(e.path, e.old, e.new, e.line, e.kind, e.why) for e in back.edits] == \
        [(e.path, e.old, e.new, e.line, e.kind, e.why) for e in EDITS]
    assert back.contents == CONTENTS and back.originals == CONTENTS
    assert back.mentions.to_json() == MENTIONS
    assert back.mentions.counts() == MENTIONS["counts"]
    assert back.to_json() == {k: v for k, v in rec.items() if k in back.to_json()} | {"schema": 1}
    assert back.fingerprint() == plan(tmp_path).fingerprint()


def test_the_bump_written_is_the_one_read_back_not_the_pin_table(tmp_path):
    rec = through_json(record_of(plan(tmp_path)))
    assert rec["bump"] == {"changes": [{"name": "torch", "old": "2.7.0", "new": "2.8.0",
                                        "source": "install_requirements.py"},
                                       {"name": "torchao", "old": None, "new": "0.12.0", "source": ""}],
                           "restated": [["torch", "2.7.0"], ["executorch", "1.4.0"]]}
    assert plan_from_record(rec, tmp_path, CONTENTS).bump == BUMP


def test_a_bump_without_python_changes_reads_back_without_them(tmp_path):
    bump = Bump("1.4.0", "1.5.1", "1.4.0", "1.5.1", "v1.4.0", "v1.5.1")
    rec = through_json(record_of(plan(tmp_path, bump)))
    assert plan_from_record(rec, tmp_path, CONTENTS).bump == bump


def test_the_evidence_reads_back_field_by_field(tmp_path):
    rec = through_json(full_record(tmp_path))
    ev, want = read_parts(rec), evidence()
    assert ev.changes == want.changes
    assert (ev.version_txt, ev.pin_lines, ev.skipped, ev.requires_python) == \
        (want.version_txt, want.pin_lines, want.skipped, want.requires_python)
    assert ev.upstream_ran is True
    assert (ev.selected, ev.boards, ev.measurements, ev.stated_pythons, ev.old_vela, ev.command) == \
        (want.selected, want.boards, want.measurements, want.stated_pythons, want.old_vela, want.command)
    assert ev.pack == PROVENANCE and ev.pack.tag == "v1.5.1"
    assert ev.refusal == REFUSAL
    assert ev.proofs == {"verify-pack": "pass", "compile": "warn", "model-run": "fail"}
    new, old, job = ev.model_run
    assert [r.to_json() for r in new] == rec["model_run"]["new"]
    assert [r.to_json() for r in old] == rec["model_run"]["old"]
    assert job is None
    assert (rec["upstream"]["name"], rec["upstream"]["spec"], rec["upstream"]["pdsc"]) == \
        ("pytorch/executorch", "github:pytorch/executorch", True)
    assert rec["pack"]["note"] == "built from the tag"
    assert rec["stages"] == {"update": True, "publish": True}


def test_the_pack_verification_reads_back_field_by_field(tmp_path):
    rec = through_json(full_record(tmp_path))
    want = report(CheckResult("pdsc", "pass", "ok"), CheckResult("compile", "warn", "2 warnings", {"warnings": 2}))
    back = pack_report_from(rec)
    assert back.to_json() == want.to_json()
    assert back.template_missing == want.template_missing
    assert [c.data for c in back.checks] == [{}, {"warnings": 2}]


@pytest.mark.parametrize("checks, proofs", [
    ([CheckResult("pdsc", "pass"), CheckResult("compile", "pass")], {"verify-pack": "pass", "compile": "pass"}),
    ([CheckResult("pdsc", "pass"), CheckResult("compile", "fail", "error: x")], {"verify-pack": "fail",
                                                                                  "compile": "fail"}),
    ([CheckResult("pdsc", "fail", "bad"), CheckResult("compile", "warn")], {"verify-pack": "fail", "compile": "warn"}),
    ([CheckResult("pdsc", "pass")], {"verify-pack": "pass", "compile": "not-run"}),
])
def test_the_proofs_are_the_pack_report_s_and_read_back(tmp_path, checks, proofs):
    rec = through_json(add_pack(record_of(plan(tmp_path)), PROVENANCE, report(*checks)))
    assert rec["proofs"] == {**proofs, "model-run": "not-run"}
    assert read_parts(rec).proofs == rec["proofs"]


def test_a_markdown_only_report_keeps_its_text_and_verdict(tmp_path):
    from bot.github.flow import MarkdownReport

    for text, verdict in (("**Passed** for version 1.5.1\n", "pass"), ("**Failed** for version 1.5.1\n", "fail")):
        rec = through_json(add_pack(record_of(plan(tmp_path)), PROVENANCE, MarkdownReport(text)))
        assert rec["pack"]["verification"] is None and rec["pack"]["report_markdown"] == text
        assert rec["proofs"] == {"verify-pack": verdict, "compile": "not-run", "model-run": "not-run"}
        back = pack_report_from(rec)
        assert isinstance(back, MarkdownReport) and back.text == text


def test_no_pack_report_proves_nothing_and_reads_back_as_none(tmp_path):
    rec = record_of(plan(tmp_path))
    rec["proofs"] = {"verify-pack": "pass", "compile": "pass", "model-run": "pass"}   # said before the pack stage
    rec = through_json(add_pack(rec, PackProvenance(), None))
    assert rec["proofs"] == {"verify-pack": "not-run", "compile": "not-run", "model-run": "not-run"}
    assert pack_report_from(rec) is None
    assert rec["pack"]["verification"] is None and rec["pack"]["report_markdown"] is None
    assert rec["stages"] == {"update": True, "publish": True}


def test_a_record_without_stages_gets_the_publish_stage(tmp_path):
    rec = record_of(plan(tmp_path))
    rec["stages"] = None
    assert add_pack(rec, PROVENANCE)["stages"] == {"update": True, "publish": True}


def test_the_update_stage_alone_says_which_parts_did_not_run(tmp_path):
    rec = through_json(record_of(plan(tmp_path), evidence(), upstream_spec="github:pytorch/executorch",
                                 upstream_ran=False))
    assert rec["stages"] == {"update": True, "publish": False}
    assert rec["upstream"] is None and rec["pack"] is None and rec.get("model_run") is None
    assert rec["proofs"] == {"verify-pack": "not-run", "compile": "not-run", "model-run": "not-run"}
    ev = read_parts(rec)
    assert ev.upstream_ran is False and ev.changes is None and ev.model_run is None
    assert ev.stated_pythons == evidence().stated_pythons
    assert ev.pack == PackProvenance() and ev.refusal is None


def test_no_evidence_writes_no_upstream_or_template_part(tmp_path):
    rec = through_json(record_of(plan(tmp_path), None, upstream_spec="github:pytorch/executorch", upstream_ran=True))
    assert rec["upstream"] is None and rec["template"] is None


def test_without_a_bump_there_is_no_upstream_part(tmp_path):
    p = plan(tmp_path, None)
    rec = through_json(record_of(p, evidence(), upstream_spec="github:pytorch/executorch", upstream_ran=True))
    assert rec["bump"] is None and rec["upstream"] is None and rec["current"] is None
    assert plan_from_record(rec, tmp_path, {}).bump is None


def test_a_template_that_states_no_python_reads_back_as_none(tmp_path):
    ev = evidence()
    ev.stated_pythons = None
    rec = through_json(record_of(plan(tmp_path), ev, upstream_ran=True, upstream_spec="github:pytorch/executorch"))
    assert rec["template"]["stated_pythons"] is None and read_parts(rec).stated_pythons is None
    ev.requires_python = None
    rec = through_json(record_of(plan(tmp_path), ev, upstream_ran=True, upstream_spec="github:pytorch/executorch"))
    assert rec["upstream"]["requires_python"] is None and read_parts(rec).requires_python is None


def test_a_local_upstream_path_is_named_the_local_repository(tmp_path):
    mirror = tmp_path / "mirror"
    ev = evidence()
    ev.changes = UpstreamChanges("v1.4.0", "v1.5.1", error=f"git diff failed in {mirror}/.git: bad object")
    rec = through_json(record_of(plan(tmp_path), ev, upstream_spec=str(mirror), upstream_ran=True))
    assert rec["upstream"]["spec"] == "a local repository"
    assert rec["upstream"]["changes"]["error"] == "git diff failed in the local repository/.git: bad object"
    assert str(tmp_path) not in json.dumps(rec["upstream"])
    assert read_parts(rec).changes.error == "git diff failed in the local repository/.git: bad object"
    # a spec through a symbolic link: the resolved path the error names is hidden too, the longer one first
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    ev.changes = UpstreamChanges("v1.4.0", "v1.5.1", error=f"in {tmp_path / 'real'}/x and {tmp_path / 'link'}")
    rec = through_json(record_of(plan(tmp_path), ev, upstream_spec=str(tmp_path / "link"), upstream_ran=True))
    assert rec["upstream"]["changes"]["error"] == "in the local repository/x and the local repository"
    # a GitHub upstream's error is kept as it is
    rec = through_json(record_of(plan(tmp_path), ev, upstream_spec="github:pytorch/executorch", upstream_ran=True))
    assert rec["upstream"]["changes"]["error"] == ev.changes.error


@pytest.mark.parametrize("spec, label", [(None, None), ("github:pytorch/executorch", "github:pytorch/executorch"),
                                         ("/srv/mirror/executorch", "a local repository"),
                                         ("github", "a local repository")])
def test_the_upstream_spec_label(spec, label):
    assert upstream_spec_label(spec) == label


def test_a_schema_1_plan_file_reads_with_the_python_pins_as_the_bump(tmp_path):
    p = plan(tmp_path)
    rec = through_json(p.to_json())
    assert rec["schema"] == 1 and 1 in SCHEMAS
    back = plan_from_record(rec, tmp_path, CONTENTS)
    assert back.bump == Bump("1.4.0", "1.5.1", "1.4.0", "1.5.1", "v1.4.0", "v1.5.1",
                             changes=(PinChange("torch", "2.7.0", "2.8.0", "upstream pins"),
                                      PinChange("torchvision", "0.22.0", "0.23.0", "upstream pins"),
                                      PinChange("torchao", None, "0.12.0", "upstream pins")))
    assert (back.rows, back.flags) == (ROWS, FLAGS)
    assert [(e.path, e.old, e.new, e.line, e.kind, e.why) for e in back.edits] == \
        [(e.path, e.old, e.new, e.line, e.kind, e.why) for e in EDITS]
    ev = read_parts(rec)
    assert (ev.upstream_ran, ev.changes, ev.pack, ev.proofs, ev.model_run, ev.stated_pythons) == \
        (False, None, PackProvenance(), {}, None, None)
    assert pack_report_from(rec) is None


def test_a_schema_1_row_without_a_new_value_or_of_a_pack_is_no_python_change(tmp_path):
    rec = {"schema": 1, "current": {"executorch": "1.4.0", "pack": "1.4.0", "tag": "v1.4.0"},
           "target": {"executorch": "1.5.1", "pack": "1.5.1", "tag": "v1.5.1"},
           "pins": [{"name": "PyTorch::ExecuTorch", "old": "1.4.0", "new": "1.5.1"},
                    {"name": "torch", "old": "2.7.0", "new": None}, {"name": "torchao", "new": "0.12.0"}],
           "edits": [{"path": "a.txt"}], "flags": [{"code": "c", "message": "m"}]}
    back = plan_from_record(rec, tmp_path, {})
    assert back.bump.changes == (PinChange("torchao", None, "0.12.0", ""),)
    assert back.bump.restated == ()
    assert back.rows == [PinRow("PyTorch::ExecuTorch", "1.4.0", "1.5.1", ""), PinRow("torch", "2.7.0", None, ""),
                         PinRow("torchao", None, "0.12.0", "")]
    assert back.flags == [Flag("c", "m", None, None, True)]
    assert [(e.path, e.old, e.new, e.line, e.kind, e.why) for e in back.edits] == [("a.txt", "", "", 0, "", "")]
    assert back.mentions is None


def test_model_results_with_a_job_result_and_no_old_pack(tmp_path):
    rec = through_json(add_model_run(add_pack(record_of(plan(tmp_path)), PROVENANCE), [], None, job="failure"))
    assert rec["model_run"] == {"new": [], "old": None, "job": "failure"}
    assert rec["proofs"]["model-run"] == "fail"
    assert model_run_from(rec) == ([], None, "failure")
    # a job result is kept only when no result was handed over
    done = [ModelResult("add_mul", "1.5.1", "match")]
    rec = through_json(add_model_run(record_of(plan(tmp_path)), done, None, job="success"))
    assert rec["model_run"]["job"] is None and rec["proofs"]["model-run"] == "pass"
    assert rec["proofs"]["verify-pack"] == "not-run"
    rec = record_of(plan(tmp_path))
    rec["proofs"] = None
    assert add_model_run(rec, done)["proofs"] == {"model-run": "pass"}


def test_the_rendering_stage_adds_this_run_and_the_template_s_ci(tmp_path, monkeypatch):
    from bot.report.record import evidence_from_record

    wf = tmp_path / ".github" / "workflows"
    wf.mkdir(parents=True)
    (wf / "ci.yml").write_text("on: [pull_request]\njobs:\n  build:\n    runs-on: ubuntu-latest\n    steps: []\n")
    rec = through_json(full_record(tmp_path))
    monkeypatch.setenv("GITHUB_REPOSITORY", "other/repo")
    monkeypatch.setenv("GITHUB_RUN_ID", "1")
    monkeypatch.setenv("EXECUTORCH_PACK_BOT_DEFAULT_TOKEN", "false")
    for flag, token in (("true", True), ("false", False), ("", None), ("yes", None)):
        env = {"GITHUB_REPOSITORY": "acme/t", "GITHUB_RUN_ID": "42", "GITHUB_SERVER_URL": "https://ghe.example",
               "EXECUTORCH_PACK_BOT_DEFAULT_TOKEN": flag}
        ev = evidence_from_record(rec, repo=tmp_path, base="main", branch="bot/b", upstream="acme/executorch", env=env)
        assert ev.upstream == "acme/executorch"
        assert ev.run_url == "https://ghe.example/acme/t/actions/runs/42"
        assert (ev.ci.base, ev.ci.branch, ev.ci.default_token) == ("main", "bot/b", token)
        assert [w.path for w in ev.ci.workflows] == [".github/workflows/ci.yml"]
        assert ev.pack == PROVENANCE and ev.stated_pythons == evidence().stated_pythons
    ev = evidence_from_record(rec, repo=tmp_path, base=None, branch="x", upstream="acme/executorch",
                              default_token=True, env={"EXECUTORCH_PACK_BOT_DEFAULT_TOKEN": "false"})
    assert (ev.run_url, ev.ci.base, ev.ci.default_token) == (None, None, True)
    ev = evidence_from_record(rec, repo=tmp_path, base="main", branch="x", upstream="acme/executorch")
    assert ev.run_url == "https://github.com/other/repo/actions/runs/1" and ev.ci.default_token is False


def test_the_body_rendered_from_the_record_shows_its_parts(tmp_path):
    from bot.report.record import render_record

    wf = tmp_path / ".github" / "workflows"
    wf.mkdir(parents=True)
    (wf / "pr.yml").write_text("name: PR checks\non:\n  pull_request:\n    branches: [main]\njobs:\n  a:\n"
                               "    runs-on: ubuntu-latest\n    steps: []\n")
    (wf / "push.yml").write_text("name: Bot pushes\non:\n  push:\n    branches: ['bot/*']\njobs:\n  a:\n"
                                 "    runs-on: ubuntu-latest\n    steps: []\n")
    rec = through_json(full_record(tmp_path))
    rec["pack"]["refusal"] = None     # its own shape (bot.report.refusal), tested there
    env = {"GITHUB_REPOSITORY": "acme/t", "GITHUB_RUN_ID": "42"}
    plain = render_record(rec, repo=tmp_path, contents=CONTENTS, upstream="acme/executorch", base="main",
                          branch="bot/b", env=env)
    assert "PyTorch.ExecuTorch.1.5.1.pack" in plain.full and "Portable sub" in plain.full
    assert "acme/executorch" in plain.full and "v1.5.1" in plain.full
    assert "- PR checks (`.github/workflows/pr.yml`): runs (pull_request)" in plain.full     # the base is main
    assert "- Bot pushes (`.github/workflows/push.yml`): runs (push to the bot branch)" in plain.full   # bot/b
    with_files = render_record(rec, repo=tmp_path, contents=CONTENTS, upstream="acme/executorch", base="main",
                               branch="bot/b", included=("zz/b.txt", "aa/a.txt"), env=env)
    assert with_files.full.index("aa/a.txt") < with_files.full.index("zz/b.txt")
    assert "https://github.com/acme/t/actions/runs/42" in with_files.full     # this run rebuilt them
    by_token = render_record(rec, repo=tmp_path, contents=CONTENTS, upstream="acme/executorch", base="main",
                             branch="bot/b", default_token=True, env=env)
    assert "2 of 2 workflows will run on this pull request" in plain.full
    assert "0 of 2 workflows will run on this pull request (opened with `GITHUB_TOKEN`: none runs)." in by_token.full
    assert "aa/a.txt" not in plain.full
    rec["pack"]["verification"] = None
    rec["pack"]["note"] = "NOTE: no pack in this run"
    noted = render_record(rec, repo=tmp_path, contents=CONTENTS, upstream="acme/executorch", base="main",
                          branch="bot/b", env=env)
    assert "NOTE: no pack in this run" in noted.full


def test_a_record_without_the_template_part_reads_the_template_from_the_checkout(tmp_path):
    from bot.report.record import render_record

    (tmp_path / "project.csolution.yml").write_text("solution:\n  target-types:\n    - type: CheckoutBoard\n"
                                                    "      board: B1\n      device: D1\n")
    rec = through_json(full_record(tmp_path))
    rec["pack"]["refusal"] = None
    kw = dict(repo=tmp_path, contents=CONTENTS, upstream="acme/executorch", base="main", branch="b", env={})
    recorded = render_record(rec, **kw).full
    assert "target type `AVH` (`Corstone-300` / `SSE-300-MPS3`) from `project.csolution.yml:12`" in recorded
    assert "CheckoutBoard" not in recorded          # the record's own part wins over the checkout
    rec["template"] = None                          # an older update: what the template holds is read here
    here = render_record(rec, **kw).full
    assert "target type `CheckoutBoard` (`B1` / `D1`) from `project.csolution.yml:3`" in here
    assert "AVH" not in here
    assert "executorch-pack-bot update --repo . --upstream github:acme/executorch --version 1.5.1" in here


def test_a_bump_change_written_without_its_source_reads_with_none_stated(tmp_path):
    rec = through_json(record_of(plan(tmp_path)))
    rec["bump"]["changes"] = [{"name": "torch", "new": "2.8.0"}]
    assert plan_from_record(rec, tmp_path, CONTENTS).bump.changes == (PinChange("torch", None, "2.8.0", ""),)


def test_a_record_without_flags_or_edits_reads_with_none(tmp_path):
    rec = through_json(record_of(plan(tmp_path)))
    del rec["flags"], rec["edits"]
    back = plan_from_record(rec, tmp_path, CONTENTS)
    assert (back.flags, back.edits, back.rows) == ([], [], ROWS)


def test_a_verification_with_only_its_required_keys_reads_with_empty_parts():
    rec = {"pack": {"verification": {"pack": "P.pack", "version": "1.5.1"}}}
    back = pack_report_from(rec)
    assert (back.pack, back.version, back.checks, back.operators_added, back.operators_removed,
            back.operators_changed, back.template_missing, back.baseline, back.baseline_note,
            back.baseline_source) == ("P.pack", "1.5.1", [], [], [], [], [], None, None, None)
    rec["pack"]["verification"]["checks"] = [{"name": "pdsc", "status": "pass"}]
    rec["pack"]["verification"]["operators"] = {}
    back = pack_report_from(rec)
    assert [(c.name, c.status, c.detail, c.data) for c in back.checks] == [("pdsc", "pass", "", {})]
    assert (back.operators_added, back.operators_changed, back.template_missing) == ([], [], [])
