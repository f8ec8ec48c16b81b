"""``check`` tells the workflow the template's ``dashboard:`` setting, so the dashboard job starts only when it is on.

The watch job's ``dashboard`` output comes from ``check``'s ``$GITHUB_OUTPUT`` (action.yml ``dashboard``); the
reusable workflow's dashboard job does not start after a watch job that said ``false``
(tests/workflow/test_job_gates_start_no_runner.py evaluates that ``if:``).  A run with nothing to do says it too.
"""

from __future__ import annotations

import pytest

from fakegithub import add_sample_release
from test_package_index import check_outputs


@pytest.mark.parametrize("config, expected", [(None, "false"), ("dashboard: true\n", "true"),
                                              ("dashboard: false\n", "false")])
def test_check_outputs_the_dashboard_setting(fake, tpl, tmp_path, monkeypatch, capsys, config, expected):
    add_sample_release(fake, "v1.4.0", created_at="2026-06-01T00:00:00Z")     # nothing to do: the template's own
    if config is not None:
        (tpl / ".github").mkdir(exist_ok=True)
        (tpl / ".github/executorch-pack-bot.yml").write_text(config)
    code, out, outs = check_outputs(capsys, tpl, tmp_path, monkeypatch)
    assert (code, outs["update-needed"], outs["dashboard"]) == (0, "false", expected)
    assert f"dashboard={expected}" in out.out
