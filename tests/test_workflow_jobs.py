"""The reusable workflow's bot steps, run in order with the REAL bot, as the runner would.

test_workflows.py checks the rules every job must follow; this file checks
that the steps of a job fit together: that the arguments one step passes
(plan file, pack report) are the ones the next step's command needs.  Each
``uses: ./.executorch-pack-bot`` step's ``with:`` is rendered (inputs,
needs outputs, secrets) and run through action.yml's own shell steps
(tests/test_action.py's ActionRun) against a copy of the sample template
and the sample upstream git repository.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import yaml

from test_action import ActionRun

ROOT = Path(__file__).resolve().parents[1]
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


def test_pull_request_job_steps_fit_together_in_a_dry_run(tmp_path, upstream_repo):
    from bot.commands.demo import copy_template

    copy_template(tmp_path / "template")
    (tmp_path / "pack").mkdir()
    (tmp_path / "pack" / "pack-report.md").write_text("### Pack verification\n\nall checks passed\n")
    context = {
        "inputs.upstream": str(upstream_repo),
        "needs.watch.outputs.target": "1.5.1",
        "inputs.dry-run": "true",
        "steps.app-token.outputs.token || secrets.token || github.token": "ghs_dummy",
        "needs.ai-layer.result == 'success' && '--include ai_layer' || ''": "",
    }
    steps = bot_steps("pull-request")
    assert [s["command"] for s in steps] == ["update", "publish"]
    runner = ActionRun(tmp_path, bot="real")
    procs = []
    for with_ in steps:
        inputs = {k: _render(v, context) for k, v in with_.items()}
        results = runner.run(inputs)
        _sid, proc, _outs = results[-1]
        procs.append(proc)
        assert proc.returncode == 0, (with_, proc.stdout, proc.stderr)
    publish = procs[-1].stdout
    assert "\nBump ExecuTorch to 1.5.1\n" in publish
    assert "all checks passed" in publish  # the pack report reached the PR body
    assert "PyTorch::ExecuTorch" in publish and "1.4.0" in publish
    # the bump was applied in the runner's checkout, where publish read it
    assert "PyTorch::ExecuTorch@1.5.1" in (tmp_path / "template" / "app" / "app.cproject.yml").read_text()
