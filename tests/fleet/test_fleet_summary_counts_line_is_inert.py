"""The counts line above the fleet table names each state; a state can be the ``action`` a result file recorded
(any pull-request job could write one), so it is rendered inert like every cell: no live mention, HTML or link."""

from __future__ import annotations

import json

from github_world import cli
from test_fleet_summary_foreign_input import PLAN


def test_a_hostile_action_is_inert_in_the_counts_line_and_the_row(tmp_path, capsys):
    (tmp_path / "plan.json").write_text(json.dumps(PLAN))
    (tmp_path / "results").mkdir()
    (tmp_path / "results" / "acme-a.json").write_text(json.dumps(
        {"format": 1, "key": "acme-a", "status": "success", "action": "@everyone <img src=x> [x](https://evil.example)"}))
    code, out = cli(capsys, "fleet-summary", "--plan", str(tmp_path / "plan.json"), "--results",
                    str(tmp_path / "results"))
    assert code == 0, out.err
    counts = out.out.splitlines()[2]
    assert counts == "1 @&#8203;everyone &lt;img src=x&gt; \\[x\\]\\(https:&#8203;//evil\\.example\\)."
    assert "<img" not in out.out and "@everyone" not in out.out and "](https://evil" not in out.out
