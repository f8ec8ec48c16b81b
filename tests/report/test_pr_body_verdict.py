"""The body a reviewer decides from: five verdict lines first, nothing claimed without evidence, no escape
shown as text, long lists counted and collapsed, and whether ``cbuild setup --packs`` gets the verified pack."""

from __future__ import annotations

import hashlib
from pathlib import Path

from bot.model import Bump, CheckResult, Flag
from bot.pack.report import PackReport
from bot.plan import PinRow, Plan
from bot.report import pr_body
from bot.report.evidence import Evidence, PackProvenance
from bot.upstream.changes import BackendChange, SchemaChange, UpstreamChanges

UPSTREAM = "pytorch/executorch"
ASSET = "https://github.com/pytorch/executorch/releases/download/v1.5.1/PyTorch.ExecuTorch.1.5.1.pack"
SHA = hashlib.sha256(b"pack").hexdigest()


def plan(tmp_path: Path, rows=None, flags=()) -> Plan:
    p = Plan(repo=tmp_path, bump=Bump("1.4.0", "1.5.1", "1.4.0", "1.5.1", "v1.4.0", "v1.5.1"),
             rows=rows or [PinRow("PyTorch::ExecuTorch", "1.4.0", "1.5.1", "release tag v1.5.1"),
                           PinRow("executorch", "1.4.0", "1.5.1", "release tag v1.5.1"),
                           PinRow("torch", "2.13.0", "2.14.0", "torch_pin.py TORCH_VERSION @ v1.5.1")],
             flags=list(flags))
    p.contents["requirements.txt"] = b"x"
    p.originals["requirements.txt"] = b"y"
    return p


def report(url_check=None, archive="974 entries, 6077516 bytes unpacked, CRCs verified", compile_=None):
    checks = [CheckResult("archive", "pass", archive),
              url_check or CheckResult("url", "pass", "PyTorch.ExecuTorch.pdsc:6: "
                                                      "https://github.com/pytorch/executorch/releases/download/v1.5.1/")]
    if compile_:
        checks.append(CheckResult("compile", compile_, "build job: all 3 Runtime sources compile"))
    return PackReport(pack="PyTorch.ExecuTorch.1.5.1.pack", version="1.5.1", checks=checks)


def changes(schema=(), backends=()):
    return UpstreamChanges("v1.4.0", "v1.5.1", paths=["x"], ancestor=True, commits=3, schema=list(schema),
                           backends=list(backends))


def verdict_lines(body: str) -> list[str]:
    return body.split("### Verdict\n\n", 1)[1].split("\n\n", 1)[0].splitlines()


def test_five_verdict_lines_for_a_verified_release_asset(tmp_path):
    ev = Evidence(changes=changes(), pack=PackProvenance(how="asset", url=ASSET, sha256=SHA, on_index=True),
                  proofs={"verify-pack": "pass", "compile": "not-run", "model-run": "not-run"})
    body = pr_body(plan(tmp_path), upstream=UPSTREAM, pack_report=report(), evidence=ev)
    assert body.index("### Verdict") < body.index("### Maintenance procedure")
    assert verdict_lines(body) == [
        "- ✅ **Exporter = runtime**: `executorch==1.5.1` and `PyTorch::ExecuTorch@1.5.1` are the same release",
        "- ✅ **Pins = upstream's** at `v1.5.1`: `executorch==1.5.1` (the tag), `torch==2.14.0` "
        "([torch_pin.py](https://github.com/pytorch/executorch/blob/v1.5.1/torch_pin.py))",
        f"- ✅ **Pack**: the [release asset]({ASSET}), sha256 `{SHA}`; verified (`verify-pack`); `cbuild setup --packs` "
        "downloads the file the PDSC `<url>` names, the release asset verified here (same URL, sha256 above); the "
        "public index lists the pack",
        "- ✅ **`.pte` schema**: `schema/*.fbs` unchanged between `v1.4.0` and `v1.5.1`",
        "- ➖ **Proofs**: pack verification passed; compile of the Runtime sources not run; model run not run",
        "- ➖ **Not proven by this pull request**: the template's own build: not run by the bot (the compile check "
        "builds only the pack's Runtime sources); prove it with step 4 of the maintenance procedure (`cbuild`) or "
        "the template's CI; a model run: not run here; prove it with `executorch-pack-bot run-model` on this pack "
        "(docs/model-run.md) or the workflow's `run-model` job; the template's CI: not read by this run; see the "
        "checks of this pull request; the model on the Ethos-U NPU: the bot runs no hardware (`run-model` uses a "
        "simulated Cortex-M55 in QEMU, with no NPU); prove it with the hardware test plan below."]


def test_the_verdict_names_what_was_not_proven_and_how(tmp_path):
    from types import SimpleNamespace

    wf = SimpleNamespace(path=".github/workflows/build.yml", name="build", unread=False, runs=False, why="-",
                         on_pr=False, dispatch=False)
    never = SimpleNamespace(workflows=[wf], running=[], default_token=False, dispatchable=[], branch="b")
    ev = Evidence(changes=changes(), ci=never, proofs={"verify-pack": "pass", "compile": "pass", "model-run": "pass"})
    line = verdict_lines(pr_body(plan(tmp_path), upstream=UPSTREAM, pack_report=report(), evidence=ev))[-1]
    assert line.startswith("- ➖ **Not proven by this pull request**: the template's own build: not run by the bot")
    assert "a model run" not in line          # run-model passed: proven
    assert "the template's CI: it will not run on this pull request" in line
    assert "the model on the Ethos-U NPU" in line
    soon = SimpleNamespace(workflows=[wf], running=[wf], default_token=False, dispatchable=[], branch="b")
    ev.ci = soon
    line = verdict_lines(pr_body(plan(tmp_path), upstream=UPSTREAM, pack_report=report(), evidence=ev))[-1]
    assert "the template's CI: not yet run when this was written (1 workflow will run on this pull request)" in line


def test_a_verdict_line_is_ticked_only_when_everything_it_names_passed(tmp_path):
    # the pack verified but the public index not asked, the compile and the model run not run: neither line is ✅
    ev = Evidence(changes=changes(), pack=PackProvenance(how="asset", url=ASSET, sha256=SHA, on_index=None),
                  proofs={"verify-pack": "pass", "compile": "not-run", "model-run": "not-run"})
    lines = verdict_lines(pr_body(plan(tmp_path), upstream=UPSTREAM, pack_report=report(), evidence=ev))
    assert lines[2].startswith("- ➖ **Pack**: ") and lines[2].endswith("; the public index was not asked")
    assert lines[4] == ("- ➖ **Proofs**: pack verification passed; compile of the Runtime sources not run; model run "
                        "not run")
    # every proof passed and the index lists the pack: both are ✅; not yet listed: a warning
    ev.proofs = {"verify-pack": "pass", "compile": "pass", "model-run": "pass"}
    ev.pack.on_index = True
    lines = verdict_lines(pr_body(plan(tmp_path), upstream=UPSTREAM, pack_report=report(), evidence=ev))
    assert lines[2].startswith("- ✅ **Pack**: ") and lines[4] == (
        "- ✅ **Proofs**: pack verification passed; compile of the Runtime sources passed; model run passed")
    ev.pack.on_index = False
    line = verdict_lines(pr_body(plan(tmp_path), upstream=UPSTREAM, pack_report=report(), evidence=ev))[2]
    assert line.startswith("- ⚠️ **Pack**: ") and line.endswith("; the public index does **not** list it yet")


def test_verdict_says_what_is_wrong_or_not_known(tmp_path):
    rows = [PinRow("PyTorch::ExecuTorch", "1.4.0", "1.5.1", "release tag v1.5.1"),
            PinRow("executorch", "1.4.0", "1.5.0", "release tag v1.5.1"),
            PinRow("torchao", "0.18.0", "0.19.0", "--set")]
    ev = Evidence(changes=changes([SchemaChange("schema/program.fbs", "edited")]),
                  pack=PackProvenance(how="built", sha256=SHA, tag="v1.5.1"),
                  proofs={"verify-pack": "fail", "compile": "fail", "model-run": "not-run"})
    body = pr_body(plan(tmp_path, rows), upstream=UPSTREAM, pack_report=report(compile_="fail"), evidence=ev)
    lines = verdict_lines(body)
    assert lines[0] == ("- ❌ **Exporter = runtime**: `executorch==1.5.0` and `PyTorch::ExecuTorch@1.5.1` are "
                        "**different releases**")
    assert lines[1].startswith("- ⚠️ **Pins = upstream's** at `v1.5.1` except some:") and \
        lines[1].endswith("; set by hand (`--set`): `torchao==0.19.0`")
    assert lines[2].startswith(f"- ❌ **Pack**: built from the tag `v1.5.1`, sha256 `{SHA}`; verification **failed**; ")
    assert lines[2].endswith("`cbuild setup --packs` downloads the published pack, **not this built one**: install "
                             "this run's pack with `cpackget add PyTorch.ExecuTorch.1.5.1.pack` to build what was "
                             "verified")
    assert lines[3] == ("- ❌ **`.pte` schema**: **changed** between `v1.4.0` and `v1.5.1`: re-export the models "
                        "(a blocking item)")
    assert lines[4] == ("- ❌ **Proofs**: pack verification **failed**; compile of the Runtime sources **failed**; model "
                        "run not run")


def test_a_pdsc_url_of_another_folder_means_the_bot_cannot_vouch_for_the_download(tmp_path):
    warn = CheckResult("url", "warn", "upstream form", {
        "declared": "https://github.com/pytorch/executorch/releases/download/1.5.1/",
        "expected": "https://github.com/pytorch/executorch/releases/download/v1.5.1/", "upstream_form": True})
    ev = Evidence(changes=changes(), pack=PackProvenance(how="asset", url=ASSET, sha256=SHA))
    line = verdict_lines(pr_body(plan(tmp_path), upstream=UPSTREAM, pack_report=report(warn), evidence=ev))[2]
    assert line.endswith("the PDSC `<url>` (`https://github.com/pytorch/executorch/releases/download/1.5.1/`) does "
                         "not name the release asset verified here, and `cbuild setup --packs` downloads from that "
                         "`<url>`: before merging, download `PyTorch.ExecuTorch.1.5.1.pack` from it and compare its "
                         "sha256 with the one above (a different or missing file is not what was verified)")
    ev = Evidence(changes=changes(), pack=PackProvenance(how="verified-here"))
    line = verdict_lines(pr_body(plan(tmp_path), upstream=UPSTREAM, pack_report=report(), evidence=ev))[2]
    assert line.endswith("; whether `cbuild setup --packs` downloads this very file: could not tell")


def test_no_unbacked_claim_about_old_pte_files(tmp_path):
    for schema in ([], [SchemaChange("schema/program.fbs", "comments")]):
        body = pr_body(plan(tmp_path), upstream=UPSTREAM, evidence=Evidence(changes=changes(schema)))
        assert "loads as before" not in body


def test_an_unpacked_size_is_not_escaped_twice(tmp_path):
    body = pr_body(plan(tmp_path), upstream=UPSTREAM, pack_report=report(), evidence=Evidence(changes=changes()))
    row = next(x for x in body.splitlines() if x.startswith("| `archive` |"))
    assert row == "| `archive` | ✅ pass | 974 entries, 6077516 bytes unpacked, CRCs verified |"


def test_operator_sources_renamed_upstream_are_renames_not_removals(tmp_path):
    ops = [f"op{i}" for i in range(31)]
    pairs = tuple((f"backends/arm/operators/op_{o}.py", f"backends/arm/operators/op_tosa_{o}.py") for o in ops)
    arm = BackendChange("backends/arm/", files=tuple(n for _o, n in pairs) + ("backends/arm/operators/op_new_op.py",),
                        operators_added=("new_op",), renamed=pairs,
                        operators_renamed=tuple((o, f"tosa_{o}") for o in ops))
    ch = changes(backends=[arm])
    ch.paths = [p for pair in pairs for p in pair] + ["backends/arm/operators/op_new_op.py"]
    ch.renames, ch.rename_method = list(pairs), "`git diff -M`, at least 50% similar content"
    body = pr_body(plan(tmp_path), upstream=UPSTREAM, evidence=Evidence(changes=ch))
    assert "32 files changed between the tags (31 renamed files counted once; renames found with `git diff -M`" in body
    section = body.split("#### Arm backends\n\n", 1)[1]
    assert section.startswith("32 files changed under the Arm backend folders (`backends/arm/` 32; 0 of them test "
                              "files; 31 renamed, counted once). In non-test Python sources, pass classes "
                              "(`class …Pass`): 0 added, 0 removed. Operator source files (`op_*.py`, `op_*.cpp`, "
                              "non-test): 1 added, 0 removed, 31 renamed.\n\n<details><summary>Arm backend changes "
                              "in detail</summary>")
    assert "operator sources removed" not in section
    assert "operator sources renamed: `op_op0` → `op_tosa_op0`" in section and "… and 21 more" in section


def test_the_same_answer_is_said_once_for_items_of_one_kind(tmp_path):
    flags = [Flag("history-mention", f"names ExecuTorch 1.{i}.0", "README.md", i, False) for i in range(1, 4)]
    body = pr_body(plan(tmp_path, flags=flags), upstream=UPSTREAM, evidence=Evidence(changes=changes()))
    section = body.split("### For the reviewer (3)\n\nInformational; nothing here blocks the merge.\n\n", 1)[1]
    assert section.split("\n\n", 1)[0].splitlines() == [
        "- `history-mention` (3) — left as written: it records history.",
        "  - `README.md:1`: names ExecuTorch 1\\.1\\.0",
        "  - `README.md:2`: names ExecuTorch 1\\.2\\.0",
        "  - `README.md:3`: names ExecuTorch 1\\.3\\.0"]
    assert body.count("it records history") == 1
