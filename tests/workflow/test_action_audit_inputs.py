"""``command: audit`` refuses the inputs it would silently ignore: ``version`` (audit checks the pins the
checkout holds, it takes no target) and ``dry-run: true`` (it never changes anything); exit 2, the bot
never started, as for ``set`` and ``commit`` given to a command they do not apply to."""

from __future__ import annotations

import pytest

from test_action import ActionRun


@pytest.mark.parametrize("inputs, error", [
    ({"version": "1.5.1"}, "::error title=executorch-pack-bot::version does not apply to audit "
                           "(it checks the pins the checkout holds)"),
    ({"dry-run": "true"}, "::error title=executorch-pack-bot::dry-run does not apply to audit "
                          "(it never changes anything)"),
])
def test_audit_refuses_an_input_it_would_ignore(tmp_path, inputs, error):
    run = ActionRun(tmp_path)
    results = run.run({"command": "audit", **inputs})
    _sid, proc, _o = results[-1]
    assert (proc.returncode, proc.stdout.strip()) == (2, error)
    assert run.calls() == []


def test_audit_with_dry_run_false_runs(tmp_path):
    run = ActionRun(tmp_path)
    results = run.run({"command": "audit", "dry-run": "false"})
    assert [proc.returncode for _sid, proc, _o in results] == [0, 0]
    assert run.calls() == [{"argv": ["audit", "--repo", "."], "token": None}]
