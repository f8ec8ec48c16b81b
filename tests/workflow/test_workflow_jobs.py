"""The reusable workflow's bot steps, run in order with the REAL bot, as the runner would.

test_workflows.py checks the rules every job must follow; this file checks
that the steps of a job fit together: that the arguments one step passes
(plan file, pack report) are the ones the next step's command needs.  Each
``uses: ./.executorch-pack-bot`` step's ``with:`` is rendered (inputs,
needs outputs, secrets) and run through action.yml's own shell steps
(tests/workflow/test_action.py's ActionRun) against a copy of the sample template
and the sample upstream git repository.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
import yaml

from test_action import ActionRun

ROOT = Path(__file__).resolve().parents[2]
WORKFLOW = yaml.safe_load((ROOT / ".github/workflows/executorch-pack-bot.yml").read_text())
EXPR = re.compile(r"\$\{\{\s*([^}]*?)\s*\}\}")


def _render(value, context: dict[str, str]) -> str:
    def sub(m: re.Match) -> str:
        expr = m.group(1)
        assert expr in context, f"the test does not know the expression {expr!r}"
        return context[expr]
    return EXPR.sub(sub, str(value))


def bot_steps(job: str) -> list[dict]:
    """The ``with:`` mappings of a job's steps that run the bot's own action, in order."""
    return [s.get("with", {}) for s in WORKFLOW["jobs"][job]["steps"] if s.get("uses") == "./.executorch-pack-bot"]


BUILT = "needs.build-pack.result == 'success' && '--pack-built' || ''"
ASSET = "needs.build-pack.result != 'success' && needs.watch.outputs.pack-url != '' && '--pack-url' || ''"
ASSET_URL_EXPR = "needs.build-pack.result != 'success' && needs.watch.outputs.pack-url || ''"
ASSET_URL = "https://github.com/pytorch/executorch/releases/download/v1.5.1/PyTorch.ExecuTorch.1.5.1.pack"


@pytest.mark.parametrize("origin", ["build-pack", "fetch-pack"])
def test_pull_request_job_steps_fit_together_in_a_dry_run(tmp_path, upstream_repo, origin):
    import hashlib

    from bot.commands.demo import copy_template

    from packgen import make_pack

    copy_template(tmp_path / "template")
    pack = make_pack(tmp_path / "pack")   # the artifact: the pack the build or fetch job left
    if origin == "build-pack":   # and, from the build job, the compile check's result
        (tmp_path / "pack" / "compile-result.json").write_text('{"status": "pass", "detail": "all 2 compile"}')
    sha = hashlib.sha256(pack.read_bytes()).hexdigest()
    context = {
        BUILT: "--pack-built" if origin == "build-pack" else "",
        ASSET: "--pack-url" if origin == "fetch-pack" else "",
        ASSET_URL_EXPR: ASSET_URL if origin == "fetch-pack" else "",
        "inputs.upstream": str(upstream_repo),
        "needs.watch.outputs.target": "1.5.1",
        "inputs.set": "",
        "inputs.dry-run": "true",
        "steps.app-token.outputs.token || secrets.token || github.token": "ghs_dummy",
        "needs.ai-layer.result == 'success' && '--include ai_layer' || ''": "",
        "needs.fetch-pack.outputs.asset-refused == 'true' && '--asset-refusal pack/asset-refusal.json' || ''": "",
        "needs.build-pack.result == 'success' && '--compile-result pack/compile-result.json' || ''":
            "--compile-result pack/compile-result.json" if origin == "build-pack" else "",
        "needs.watch.outputs.recreate == 'true' && '--recreate' || ''": "",
        "inputs.commit": "",
        # the run-model job: it handed over results (a match, and the cross check) on the build path;
        # it failed on the fetch path, which the PR then says (a blocking item)
        "needs.run-model.result == 'success' && needs.run-model.outputs.outcome == 'success' && "
        "'--model-results run-model/new' || ''": "--model-results run-model/new" if origin == "build-pack" else "",
        "needs.run-model.result == 'success' && needs.run-model.outputs.outcome == 'success' && "
        "needs.run-model.outputs.cross-check == 'true' && '--model-results-old run-model/old' || ''":
            "--model-results-old run-model/old" if origin == "build-pack" else "",
        "needs.run-model.result == 'success' && needs.run-model.outputs.outcome || needs.run-model.result":
            "success" if origin == "build-pack" else "failure",
    }
    if origin == "build-pack":
        from bot.modelrun.result import ModelResult, write_result
        for side, label in (("new", "1.5.1"), ("old", "1.4.0")):
            (tmp_path / "run-model" / side).mkdir(parents=True)
            write_result(ModelResult("add_mul", label, "match", instructions=3000 if side == "old" else 2900,
                                     outputs=[{"index": 0, "exact": True, "max_abs_diff": 0.0, "problem": None}]),
                         tmp_path / "run-model" / side / "add_mul.json")
    steps = bot_steps("pull-request")
    assert [s["command"] for s in steps] == ["previous-pack", "update", "publish"]
    runner = ActionRun(tmp_path, bot="real")
    procs = []
    for with_ in steps:
        inputs = {k: _render(v, context) for k, v in with_.items()}
        results = runner.run(inputs)
        _sid, proc, _outs = results[-1]
        procs.append(proc)
        assert proc.returncode == 0, (with_, proc.stdout, proc.stderr)
    publish = procs[-1].stdout
    # the title; a blocked PR says why in it (the sample pack lacks a component the template's ai_layer selects)
    assert re.search(r"\nBump ExecuTorch to 1\.5\.1( \(blocked: [^()]*\))?\n", publish), publish[:600]
    # the pack was verified in this job and its report reached the PR body (with the build job's compile bit)
    assert "Pack verification: `PyTorch.ExecuTorch.1.5.1.pack`" in publish
    assert ("build job: all 2 compile" in publish) is (origin == "build-pack")
    step1 = next(x for x in publish.splitlines() if "**1. The pack**" in x)
    if origin == "build-pack":   # the provenance of a pack built on the runner, with the pack's sha256
        assert f"built on the Arm runner from tag `v1.5.1` with `build-pack`" in step1 and f"(sha256 `{sha}`)" in step1
    else:
        assert f"the release asset `{ASSET_URL}` (sha256 `{sha}`)" in step1
    assert "PyTorch::ExecuTorch" in publish and "1.4.0" in publish
    # the run-model job's results, or its failure, reached the PR body
    if origin == "build-pack":
        assert "| `add_mul` | ✅ match | 0 (bit-exact) | 3,000 → 2,900 (-3.3%) | loads and matches |" in publish
        assert "; model run passed" in publish
    else:
        assert "- [ ] `model-run`: the model run failed: The `run-model` job of " in publish
        assert "ended with `failure` and handed over no result" in publish and "; model run **failed**" in publish
    # the bump was applied in the runner's checkout, where publish read it
    assert "PyTorch::ExecuTorch@1.5.1" in (tmp_path / "template" / "app" / "app.cproject.yml").read_text()


# ------------------------------------------------- every update that prepares the PR lets flagged items through
UPDATE_JOBS = ("build-pack", "ai-layer", "run-model", "pull-request")


def test_every_update_step_runs_with_allow_flagged():
    """README: the PR is a draft when a blocking item is flagged, so no job's update may stop on one."""
    seen = 0
    for job in WORKFLOW["jobs"]:
        for with_ in bot_steps(job):
            if with_.get("command") == "update":
                seen += 1
                assert "--allow-flagged" in str(with_.get("args", "")).split(), (job, with_)
    assert seen == len(UPDATE_JOBS)


def _blocking_template(tmp_path):
    """The sample template plus a pyproject constraint the bump breaks (a blocking ``unmanaged-pin``)."""
    from bot.commands.demo import copy_template

    tpl = copy_template(tmp_path / "template")
    (tpl / "pyproject.toml").write_text('[project]\nname = "fw"\nversion = "0"\n\n'
                                        '[tool.uv]\nconstraint-dependencies = ["executorch<1.5"]\n')
    return tpl


@pytest.mark.parametrize("job", UPDATE_JOBS)
def test_update_steps_move_a_template_with_a_blocking_item(tmp_path, upstream_repo, job):
    tpl = _blocking_template(tmp_path)
    context = {"inputs.upstream": str(upstream_repo), "needs.watch.outputs.target": "1.5.1", "inputs.set": ""}
    steps = [s for s in bot_steps(job) if s["command"] == "update"]
    assert len(steps) == 1
    if "--pack pack" in str(steps[0].get("args", "")):   # the pull-request job's update reads the pack's file lists
        from packgen import make_pack
        make_pack(tmp_path / "pack")
    runner = ActionRun(tmp_path, bot="real")
    results = runner.run({k: _render(v, context) for k, v in steps[0].items()})
    _sid, proc, _outs = results[-1]
    assert proc.returncode == 0, (proc.stdout, proc.stderr)
    assert "unmanaged-pin" in proc.stdout
    assert "PyTorch::ExecuTorch@1.5.1" in (tpl / "app" / "app.cproject.yml").read_text()
