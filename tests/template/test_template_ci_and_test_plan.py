"""The template's own CI on the bot's PR, the hardware test plan, and the maintenance procedure checklist."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.model import Bump, Edit, PinChange
from bot.plan import PinRow, Plan
from bot.report import pr_body
from bot.report.evidence import Evidence, PackProvenance
from bot.report.procedure import procedure_section
from bot.report.review import ci_notice
from bot.template.ci import Workflow, read_workflow, template_ci
from bot.template.hardware import Board, Measurement, boards, measurements

BRANCH = "executorch-pack-bot/executorch"


def _wf(text: str, base="main"):
    return read_workflow(".github/workflows/ci.yml", text, base=base, branch=BRANCH)


@pytest.mark.parametrize("text, on_pr, on_push", [
    ("on: [push, pull_request]\n", True, True),
    ("on: pull_request\n", True, False),
    ("on:\n  pull_request:\n    branches: [main]\n", True, False),
    ("on:\n  pull_request:\n    branches: [release/*]\n  push:\n    branches: [main]\n", False, False),
    ("on:\n  pull_request:\n    branches: ['**', '!main']\n", False, False),
    ("on:\n  pull_request:\n    branches-ignore: [main]\n", False, False),
    ("on:\n  push:\n    branches: ['executorch-pack-bot/**']\n", False, True),
    ("on:\n  schedule:\n    - cron: '0 3 * * *'\n  workflow_dispatch:\n", False, False),
])
def test_which_workflows_run_on_the_bot_pr(text, on_pr, on_push):
    w = _wf(text)
    assert (w.on_pr, w.on_push, w.unread) == (on_pr, on_push, False)


def test_a_workflow_that_does_not_parse_is_named_not_guessed():
    assert _wf("on: [push\n") == Workflow(".github/workflows/ci.yml", "ci.yml", unread=True,
                                          why="does not parse as YAML")


def test_no_workflow_running_is_said_near_the_top_with_the_dispatch_command(tmp_path):
    wf = tmp_path / ".github/workflows"
    wf.mkdir(parents=True)
    (wf / "nightly.yml").write_text("name: nightly\non:\n  schedule:\n    - cron: '0 3 * * *'\n  workflow_dispatch:\n")
    (wf / "release.yml").write_text("on:\n  pull_request:\n    branches: [release/*]\n")
    ci = template_ci(tmp_path, base="main", branch=BRANCH)
    assert ci.running == [] and [w.path for w in ci.dispatchable] == [".github/workflows/nightly.yml"]
    assert ci_notice(ci) == (
        "> [!WARNING]\n> **The template's CI will not run on this pull request**: no workflow triggers on a pull "
        "request into this base branch or a push to the bot branch.\n"
        "> Start it by hand: `gh workflow run nightly.yml --ref executorch-pack-bot/executorch`.")
    body = pr_body(_plan(tmp_path), upstream="pytorch/executorch", evidence=Evidence(ci=ci))
    assert body.index("The template's CI will not run") < body.index("### Maintenance procedure")
    assert "- release\\.yml (`.github/workflows/release.yml`): does not run: `pull_request` only for other base " \
           "branches" in body


def test_a_pr_opened_with_github_token_runs_nothing(tmp_path):
    wf = tmp_path / ".github/workflows"
    wf.mkdir(parents=True)
    (wf / "build.yml").write_text("on: [push, pull_request]\n")
    ci = template_ci(tmp_path, base="main", branch=BRANCH, default_token=True)
    assert ci.running == [] and ci_notice(ci).startswith(
        "> [!WARNING]\n> **The template's CI will not run on this pull request**: the pull request was opened "
        "with `GITHUB_TOKEN`, whose events start no workflow.\n> No workflow has `workflow_dispatch`")
    assert ci_notice(template_ci(tmp_path, base="main", branch=BRANCH, default_token=False)) == ""


def test_the_action_tells_the_bot_when_the_token_is_github_token(monkeypatch, tmp_path):
    from bot.report.evidence import gather
    wf = tmp_path / ".github/workflows"
    wf.mkdir(parents=True)
    (wf / "build.yml").write_text("on: [pull_request]\n")
    ev = gather(_plan(tmp_path), None, env={"EXECUTORCH_PACK_BOT_DEFAULT_TOKEN": "true"})
    assert ev.ci.default_token is True and ev.ci.running == []


# ---------------------------------------------------------------- hardware test plan
def test_boards_come_from_the_csolution_target_types(template):
    assert boards(template) == [Board("SSE-300", None, "ARM::SSE-300-MPS3", "cmsis-executorch.csolution.yml", 22)]


def test_doc_numbers_measured_before_the_bump_are_listed(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs/results.md").write_text(
        "# Results\n\nInference: 1,234,567 cycles with ExecuTorch 1.4.0.\nOutput CRC32: 0x1a2b3c4d\n"
        "Runs at 30 fps.\nNothing measured here, version 1.4.0.\n")
    assert measurements(tmp_path, ("1.4.0",)) == [
        Measurement("docs/results.md", 3, "Inference: 1,234,567 cycles with ExecuTorch 1.4.0.", True),
        Measurement("docs/results.md", 4, "Output CRC32: 0x1a2b3c4d", False),
        Measurement("docs/results.md", 5, "Runs at 30 fps.", False)]


def test_a_line_that_only_describes_what_a_run_prints_quotes_no_measurement(tmp_path):
    (tmp_path / "README.md").write_text(
        "The application prints the cycle count of 1 inference on the UART.\n"
        "It reports the CRC32 of each of the 3 outputs.\n"
        "It prints about 1,234 cycles on Corstone-300.\n")
    assert measurements(tmp_path, ()) == [
        Measurement("README.md", 3, "It prints about 1,234 cycles on Corstone-300.", False)]


def test_rows_of_a_table_whose_header_names_a_measurement_are_measured_lines(tmp_path):
    (tmp_path / "results.md").write_text(
        "| model | fps | notes |\n|---|---|---|\n| MobileNetV2 | 22 | with ExecuTorch 1.4.1 |\n"
        "| ResNet-8 | 61 | measured with ExecuTorch 1.3.0 |\n\n| model | size |\n|---|---|\n| ResNet-8 | 96 |\n")
    assert measurements(tmp_path, ("1.4.0",)) == [
        Measurement("results.md", 3, "| MobileNetV2 | 22 | with ExecuTorch 1.4.1 |", False),
        Measurement("results.md", 4, "| ResNet-8 | 61 | measured with ExecuTorch 1.3.0 |", False)]


def test_the_measured_numbers_note_names_the_releases_the_lines_cite(tmp_path):
    # the note is true of every line cited: the releases the lines name, and the old pins for those naming none
    ev = Evidence(measurements=[Measurement("r.md", 5, "| MobileNetV2 | 22 fps with ExecuTorch 1.4.1 |", False),
                                Measurement("r.md", 6, "| ResNet-8 | 61 | measured with ExecuTorch 1.3.0 |", False),
                                Measurement("r.md", 7, "Runs at 30 fps.", False)], old_vela="5.1.0")
    body = pr_body(_plan(tmp_path), upstream="pytorch/executorch", evidence=ev)
    assert ("> 3 lines of the docs quote measured numbers (cycles, fps, CRCs, latency) taken before this bump to "
            "ExecuTorch `1.5.1`: 2 lines name the ExecuTorch release each was measured with (`1.3.0`, `1.4.1`); "
            "1 line names no release (the template was on ExecuTorch `1.4.0` and Vela `5.1.0` before this bump). "
            "Re-measure them on hardware or mark them as history.") in body
    assert "or earlier" not in body
    for n in (5, 6, 7):
        assert f"- `r.md:{n}`: " in body


def test_the_test_plan_names_each_board_and_warns_about_old_numbers(tmp_path):
    ev = Evidence(boards=[Board("Corstone-320", "ARM::V2M-MPS3-SSE-320", None, "app.csolution.yml", 9)],
                  measurements=[Measurement("docs/r.md", 3, "22 fps @team", True)], old_vela="5.1.0")
    body = pr_body(_plan(tmp_path), upstream="pytorch/executorch", evidence=ev)
    assert ("- [ ] target type `Corstone-320` (`ARM::V2M-MPS3-SSE-320`) from `app.csolution.yml:9`: flash, run the "
            "sample, compare timing and output with the docs' numbers") in body
    assert ("> 1 line of the docs quote measured numbers (cycles, fps, CRCs, latency) taken before this bump to "
            "ExecuTorch `1.5.1`: 1 line names no release (the template was on ExecuTorch `1.4.0` and Vela `5.1.0` "
            "before this bump). Re-measure them on hardware or mark them as history.") in body
    assert "- `docs/r.md:3`: `22 fps @team` (names the old version)" in body


# ---------------------------------------------------------------- maintenance procedure
def _plan(tmp_path: Path, tosa: bool = False) -> Plan:
    changes = (PinChange("torch", "2.13.0", "2.14.0", "torch_pin.py TORCH_VERSION @ v1.5.1"),)
    if tosa:
        changes += (PinChange("tosa-tools", "2026.5.0", "2026.8.0", "backends/arm/requirements-arm-tosa.txt @ v1.5.1"),)
    p = Plan(repo=tmp_path, bump=Bump("1.4.0", "1.5.1", "1.4.0", "1.5.1", "v1.4.0", "v1.5.1", changes),
             rows=[PinRow("PyTorch::ExecuTorch", "1.4.0", "1.5.1", "release tag v1.5.1")],
             edits=[Edit("s.csolution.yml", 0, 1, "1", "2", 3, "pack-pin"),
                    Edit("requirements.txt", 0, 1, "1", "2", 1, "requirement")] +
                   ([Edit("requirements-arm-tosa.txt", 0, 1, "1", "2", 1, "requirement")] if tosa else []))
    p.contents["s.csolution.yml"] = b"x"
    return p


def test_the_four_steps_ticked_when_done(tmp_path):
    ev = Evidence(pack=PackProvenance(how="asset", url="https://example.invalid/p.pack", sha256="ab" * 32,
                                      on_index=True),
                  rebuild_run_url="https://github.com/o/t/actions/runs/5")

    class Rep:
        failed = False
        checks = []
    text = procedure_section(_plan(tmp_path, tosa=True), ev, Rep(), None)
    assert text.splitlines() == [
        "### Maintenance procedure", "",
        f"- [x] **1. The pack** `PyTorch::ExecuTorch@1.5.1`: the release asset `https://example.invalid/p.pack` "
        f"(sha256 `{'ab' * 32}`); verification: passed (`verify-pack`, section below)",
        "  - [x] on the public pack index (`cbuild setup --packs` finds it)",
        "- [x] **2. csolution/cproject pins**: 1 file (`s.csolution.yml`); no `cbuild-pack.yml` lock entry to update",
        "- [x] **3. Python requirements**: 2 files (`requirements-arm-tosa.txt`, `requirements.txt`); upstream "
        "sources: `backends/arm/requirements-arm-tosa.txt`, `torch_pin.py TORCH_VERSION`; TOSA pins carried over: "
        "`tosa-tools==2026.8.0`",
        "- [x] **4. Rebuild** the venv, the AI layer and the project: done by the workflow "
        "([run](https://github.com/o/t/actions/runs/5))"]


def test_steps_the_bot_could_not_do_are_tasks_with_exact_commands(tmp_path):
    (tmp_path / "create_ai_layer.py").write_text("# the template's AI layer generator\n")
    ev = Evidence(boards=[Board("SSE-300", None, "ARM::SSE-300-MPS3", "cmsis-executorch.csolution.yml", 22)])
    text = procedure_section(_plan(tmp_path), ev, None, "The release v1.5.1 has no pack asset.")
    lines = text.splitlines()
    assert lines[2] == ("- [ ] **1. The pack** `PyTorch::ExecuTorch@1.5.1`: not obtained by this run (The release "
                        "v1.5.1 has no pack asset); verification: not run")
    assert lines[3] == ("  - [ ] on the public pack index that `cbuild setup --packs` reads: not checked by this run; "
                        "`cpackget add PyTorch::ExecuTorch@1.5.1` tells")
    assert ("TOSA: upstream's `requirements-arm-tosa.txt` pins did not change between the tags (nothing to carry)"
            in lines[5])
    assert lines[6:] == [
        "- [ ] **4. Rebuild** the venv, the AI layer and the project: not done by this run; on a checkout of this "
        "branch:", "", "  ```sh", "  python3 -m venv .venv && . .venv/bin/activate",
        "  pip install -r requirements.txt", "  cpackget add PyTorch::ExecuTorch@1.5.1",
        "  cbuild setup cmsis-executorch.csolution.yml --active SSE-300 --packs",
        "  python3 create_ai_layer.py cmsis-executorch.cbuild-mlops.yml",
        "  cbuild cmsis-executorch.csolution.yml --active SSE-300", "  ```"]


def test_a_template_without_create_ai_layer_py_is_not_told_to_run_it(tmp_path):
    ev = Evidence(boards=[Board("SSE-300", None, "ARM::SSE-300-MPS3", "cmsis-executorch.csolution.yml", 22)])
    lines = procedure_section(_plan(tmp_path), ev, None, "The release v1.5.1 has no pack asset.").splitlines()
    assert lines[6:] == [
        "- [ ] **4. Rebuild** the venv and the project: not done by this run; on a checkout of this "
        "branch:", "", "  ```sh", "  python3 -m venv .venv && . .venv/bin/activate",
        "  pip install -r requirements.txt", "  cpackget add PyTorch::ExecuTorch@1.5.1",
        "  cbuild setup cmsis-executorch.csolution.yml --active SSE-300 --packs",
        "  cbuild cmsis-executorch.csolution.yml --active SSE-300", "  ```"]


def test_the_rebuild_uses_the_templates_own_venv_script(tmp_path):
    (tmp_path / "setup_venv.sh").write_text("#!/bin/sh\npython3 -m venv .venv\n.venv/bin/pip install -r requirements.txt\n")
    ev = Evidence(boards=[Board("SSE-300", None, "ARM::SSE-300-MPS3", "cmsis-executorch.csolution.yml", 22)])
    lines = procedure_section(_plan(tmp_path), ev, None, "The release v1.5.1 has no pack asset.").splitlines()
    assert lines[6:10] == [
        "- [ ] **4. Rebuild** the venv and the project: not done by this run; on a checkout of this "
        "branch:", "", "  ```sh", "  ./setup_venv.sh"]
    assert "  pip install -r requirements.txt" not in lines and "  . .venv/bin/activate" in lines
    # a rewritten requirements file the script does not install is installed after it
    (tmp_path / "setup_venv.sh").write_text("#!/bin/sh\npython3 -m venv .venv\n")
    lines = procedure_section(_plan(tmp_path), ev, None, "x").splitlines()
    assert lines[9:12] == ["  ./setup_venv.sh", "  . .venv/bin/activate", "  pip install -r requirements.txt"]
