"""The template's own model (``model:`` in ``.github/executorch-pack-bot.yml``): ``run-model --suite DIR --template
REPO`` runs it after the bot's suite; a delegated program (Ethos-U) is "not runnable in QEMU", which neither fails
the run nor blocks the pull request; a bad ``model:`` is exit 2 naming the settings file and line, nothing written.

Real builds (the sample pack's runtime, arm-none-eabi-gcc, qemu-system-arm); the suite is exported by the real
executorch wheel (.venv/executorch-host, as test_run_model_real_export.py), skipped without it.
"""

from __future__ import annotations

import json
import os
import sys

import pytest

import ptekit
from test_publish_model_results import EXACT, TITLE, blocking, planned, publish, results, section  # noqa: F401
from test_run_model_real_export import HOST

from bot.cli import main
from bot.config import load_config
from bot.modelrun.result import ModelResult, read_results, write_result
from bot.modelrun.suite import MODELS
from bot.report.modelrun import blocking_items, modelrun_section, proof
from bot.sample.packgen import write_demo_packs

SETTINGS = ".github/executorch-pack-bot.yml"
NOT_RUNNABLE = ("not runnable in QEMU: the program is delegated to EthosUBackend (run it on an Arm Corstone FVP "
                "with the NPU instead)")
needs_host = pytest.mark.needs("host-venv", "arm-gcc", "qemu")
#: Any program as --host-python: a bad setting is refused before it runs (the tests of that need no host venv).
ANY_PROGRAM = sys.executable


def template(tmp_path, settings: str, model: bytes | None = None, name="model/model.pte"):
    repo = tmp_path / "template"
    (repo / ".github").mkdir(parents=True)
    (repo / SETTINGS).write_text(settings)
    if model is not None:
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_bytes(model)
    return repo


@pytest.fixture(scope="module")
def pack(tmp_path_factory):
    return write_demo_packs(tmp_path_factory.mktemp("packs"), "1.5.1").good


@pytest.fixture(scope="module")
def suite(pack, tmp_path_factory):
    """The bot's suite exported once by the real wheel (run-model --suite exports it into the folder)."""
    d = tmp_path_factory.mktemp("suite")
    main(["run-model", str(pack), "--suite", str(d), "--host-python", HOST, "--results", str(d.parent / "first")])
    return d


@needs_host
def test_a_delegated_template_model_is_not_runnable_and_blocks_nothing(pack, suite, tmp_path, capsys):
    repo = template(tmp_path, "labels: [executorch]\nmodel: model/model.pte\n",
                    ptekit.single("aten::add", delegates=("EthosUBackend",)))
    code = main(["run-model", str(pack), "--suite", str(suite), "--host-python", HOST, "--template", str(repo),
                 "--results", str(tmp_path / "results"), "--label", "1.5.1"])
    out = capsys.readouterr().out
    # the sample runtime has add and mul only: linear_relu_add stops at select (exit 1), the template model does not
    assert code == 1
    assert sorted(p.name for p in (tmp_path / "results").iterdir()) == \
        sorted([f"{m}.json" for m in MODELS] + ["template.json"])
    raw = json.loads((tmp_path / "results/template.json").read_text())
    assert (raw["model"], raw["status"], raw["stage"], raw["error"]) == \
        ("template model/model.pte", "not-runnable", "select", NOT_RUNNABLE)
    assert f"run-model: template model/model.pte on 1.5.1: {NOT_RUNNABLE} (not a failure)" in out

    new = read_results(tmp_path / "results")
    text = modelrun_section(new)
    rows = [ln for ln in text.splitlines() if ln.startswith("| `")]
    assert rows[-1] == (f"| `template model/model.pte` | ⏭️ not runnable in QEMU: `{NOT_RUNNABLE}` | – | – | "
                        "not run |")
    matched = sum(r.status == "match" for r in new)
    assert text.splitlines()[2] == (
        f"{matched} of {len(MODELS)} model(s) exported by the new ExecuTorch run on the new pack's runtime in QEMU "
        "(`mps3-an547`, Cortex-M55) with outputs matching the host runtime. 1 delegated model(s) need an NPU that "
        "QEMU does not have: not a failure; run them on an Arm Corstone FVP with the template's own build "
        "(docs/model-run.md of executorch-pack-bot).")
    blocked = [b.split(":", 1)[0] for b in blocking_items(new)]
    assert "`linear_relu_add`" in blocked and "`template model/model.pte`" not in blocked


@needs_host
def test_a_template_model_without_a_delegate_runs_with_the_suite(pack, suite, tmp_path, capsys):
    repo = template(tmp_path, "model: ./models//add.pte\n", (suite / "add_mul.pte").read_bytes(),
                    name="models/add.pte")
    code = main(["run-model", str(pack), "--suite", str(suite), "--host-python", HOST, "--template", str(repo),
                 "--results", str(tmp_path / "results")])
    assert code == 1   # linear_relu_add, as above
    mine = json.loads((tmp_path / "results/template.json").read_text())
    suites = json.loads((tmp_path / "results/add_mul.json").read_text())
    assert (mine["model"], mine["status"], mine["outputs"]) == ("template models/add.pte", "match", [
        {**EXACT[0], "device": ["4.0625", "0.125", "1.0", "0.3125", "3.375", "2.75"], "host": ["4.0625", "0.125", "1.0", "0.3125", "3.375", "2.75"], "elements": 6}])
    assert mine["instructions"] == suites["instructions"] > 0
    text = modelrun_section(read_results(tmp_path / "results"))
    assert text.index("| `template models/add.pte` |") < text.index("<details>")   # linear_relu_add's error
    assert text.splitlines()[text.splitlines().index("| `template models/add.pte` | ✅ match | 0 (bit-exact) | "
                                                     f"{mine['instructions']:,} (new) | not run |") + 2] == (
        "`template models/add.pte` is the program the template ships (`model:` in its settings), exported by the "
        "template's current ExecuTorch: its row is that older export on the new pack's runtime, which says whether "
        "the template's model must be re-exported.")


def test_a_delegated_model_alone_is_a_passed_proof_in_the_pr(planned, capsys, tmp_path):  # noqa: F811
    new = results(tmp_path / "new", ModelResult("add_mul", "1.5.1", "match", outputs=EXACT, instructions=2900))
    old = results(tmp_path / "old", ModelResult("add_mul", "1.4.0", "match", outputs=EXACT, instructions=3000))
    for folder, label in ((new, "1.5.1"), (old, "1.4.0")):   # as run-model --template writes it
        write_result(ModelResult("template model/model.pte", label, "not-runnable", "select", NOT_RUNNABLE),
                     folder / "template.json")
    rc, out = publish(capsys, planned, "--model-results", str(new), "--model-results-old", str(old))
    assert rc == 0, out.err
    assert "; model run passed" in out.out and blocking(out.out) == []
    assert (f"| `template model/model.pte` | ⏭️ not runnable in QEMU: `{NOT_RUNNABLE}` | – | – | "
            "not runnable in QEMU |") in section(out.out)
    assert "draft: yes" not in out.out
    assert proof(read_results(new)) == "pass"


@pytest.mark.parametrize("settings, line, why", [
    ("labels: [a]\nmodel: /abs/model.pte\n", 2, "model: '/abs/model.pte' is not a path relative to the repository"),
    ("model: ../other/model.pte\n", 1, "model: '../other/model.pte' leaves the repository"),
    ("\n\nmodel: model/model.onnx\n", 3, "model: 'model/model.onnx' is not a .pte file"),
    ("model: [model.pte]\n", 1, "model: expected a non-empty string"),
    ('model: "model/a\\0.pte"\n', 1, "model: 'model/a\\x00.pte' holds a control character or a lone surrogate"),
    ('model: "model/\\ud800.pte"\n', 1, "model: 'model/\\ud800.pte' holds a control character or a lone surrogate"),
    ("model: model\\\\model.pte\n", 1, "is not a path relative to the repository root"),
    ("model: model/absent.pte\n", 1, "model: model/absent.pte: No such file or directory in the template"),
    ("draft: auto\nmodel: model/model.pte\n", 2, "model: template/model/model.pte: not an ExecuTorch program"),
])
def test_a_bad_model_setting_is_exit_2_with_file_and_line_and_nothing_written(pack, tmp_path, capsys, monkeypatch,
                                                                              settings, line, why):
    # the placeholder the sample template ships is not an ExecuTorch program
    template(tmp_path, settings, b"\x7fELF\x00binary model placeholder\x00")
    monkeypatch.chdir(tmp_path)
    before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
    code = main(["run-model", str(pack), "--suite", "suite", "--host-python", ANY_PROGRAM, "--template", "template",
                 "--results", "results"])
    err = capsys.readouterr().err
    assert code == 2
    assert f"{SETTINGS}:{line}: " in err and why in err, err
    assert "Traceback" not in err
    assert sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*")) == before   # no suite, no results


def test_a_symlinked_model_is_refused(pack, tmp_path, capsys):
    repo = template(tmp_path, "model: model/model.pte\n")
    (repo / "model").mkdir()
    outside = tmp_path / "outside.pte"
    outside.write_bytes(ptekit.add_mul())
    os.symlink(outside, repo / "model/model.pte")
    code = main(["run-model", str(pack), "--suite", str(tmp_path / "s"), "--host-python", ANY_PROGRAM,
                 "--template", str(repo)])
    assert code == 2
    assert f"{SETTINGS}:1: model: model/model.pte is a symbolic link" in capsys.readouterr().err


def test_the_model_setting_is_validated_with_the_others(tmp_path):
    repo = template(tmp_path, "branch: bot/x\nmodel: ./model/./model.pte\n")
    config = load_config(repo)
    assert (config.model, config.model_line) == ("model/model.pte", 2)
    assert load_config(template(tmp_path / "b", "draft: never\n")).model is None


def test_template_needs_the_suite(pack, tmp_path, capsys):
    code = main(["run-model", str(pack), "--pte", str(tmp_path / "x.pte"), "--template", str(tmp_path)])
    assert code == 2 and "--template needs --suite" in capsys.readouterr().err


def test_the_bump_record_keeps_a_not_runnable_result_and_passes_the_proof():
    import json as _json

    from bot.report.record import add_model_run, model_run_from

    new = [ModelResult("add_mul", "1.5.1", "match", outputs=EXACT, instructions=5, ticks=1),
           ModelResult("template model/model.pte", "1.5.1", "not-runnable", "select", NOT_RUNNABLE,
                       operators=["aten::add"])]
    record = {"proofs": {"verify-pack": "pass", "compile": "pass", "model-run": "not-run"}}
    add_model_run(record, new, None)
    back = _json.loads(_json.dumps(record))
    assert back["proofs"]["model-run"] == "pass"
    assert back["model_run"]["new"][1]["status"] == "not-runnable"
    assert model_run_from(back) == (new, None, None)
