"""When the pull request is a draft: only for a blocking item or a failed pack report; ``--stop-on-
flagged`` proposes nothing, like ``update``.
"""

from __future__ import annotations

import json

import pytest

from fakegithub import TEMPLATE, UPSTREAM
from github_world import checkout, cli, planned_checkout, remote_head


def _with_flags(plan_file, *blocking):
    data = json.loads(plan_file.read_text())
    data["flags"] = [{"code": f"item{i}", "message": "look", "path": "README.md", "line": 1, "blocking": b}
                     for i, b in enumerate(blocking)]
    plan_file.write_text(json.dumps(data))


def pr_body_of(w):
    pulls = w.open_pulls(TEMPLATE)
    assert len(pulls) == 1
    return pulls[0]


def _blocking(co):
    (co / "pyproject.toml").write_text('[project]\nname = "fw"\nversion = "0"\n\n'
                                       '[tool.uv]\nconstraint-dependencies = ["executorch<1.5"]\n')


def _run(capsys, co, *extra):
    return cli(capsys, "run", "--repo", str(co), "--upstream", f"github:{UPSTREAM}", *extra)


@pytest.mark.parametrize("blocking,draft", [((False, False), False), ((False, True), True), ((), False)])
def test_publish_drafts_only_for_a_blocking_item(world, capsys, blocking, draft):
    co, plan = planned_checkout(world, capsys)
    _with_flags(plan, *blocking)
    assert cli(capsys, "publish", "--repo", str(co), "--plan-file", str(plan))[0] == 0
    pr = pr_body_of(world)
    assert pr["draft"] is draft
    assert pr["body"].count("`item") == len(blocking)   # informational items are still listed


@pytest.mark.parametrize("blocking,draft", [(False, False), (True, True)])
def test_run_drafts_only_for_a_blocking_item(world, capsys, monkeypatch, blocking, draft):
    from bot import engine
    from bot.model import Flag
    real = engine.plan

    def plan(*a, **kw):
        p = real(*a, **kw)
        p.flags.append(Flag("history-mention", "an old version in prose", "README.md", 1, blocking))
        return p
    monkeypatch.setattr(engine, "plan", plan)
    co = checkout(world)
    assert cli(capsys, "run", "--repo", str(co), "--upstream", f"github:{UPSTREAM}")[0] == 0
    pr = pr_body_of(world)
    assert pr["draft"] is draft and "history-mention" in pr["body"]


def test_draft_policy_values():
    from bot.config import Config
    from bot.model import Flag
    info, block = Flag("a", "m", None, None, False), Flag("b", "m", None, None, True)
    assert not Config().wants_draft([info])
    assert Config().wants_draft([info, block])
    assert Config().wants_draft([], check_failed=True)
    assert Config(draft="always").wants_draft([])
    assert not Config(draft="never").wants_draft([block], check_failed=True)


def test_a_pack_report_file_that_failed_makes_a_draft():
    from bot.github.flow import MarkdownReport
    assert MarkdownReport("### Pack verification: `x.pack`\n\n**Failed** for version `1.5.1`: 1 failed.\n").failed
    assert not MarkdownReport("### Pack verification: `x.pack`\n\n**Passed** for version `1.5.1`\n").failed


def test_run_opens_a_draft_listing_a_blocking_item_by_default(world, capsys):
    from fakegithub import TEMPLATE
    co = checkout(world)
    _blocking(co)
    code, out = _run(capsys, co)  # the default: a draft that lists the item
    assert code == 0
    (pr,) = world.open_pulls(TEMPLATE)
    assert pr["draft"] is True and "unmanaged-pin" in pr["body"]


def test_run_stop_on_flagged_proposes_nothing_like_update(world, capsys):
    from fakegithub import TEMPLATE
    co = checkout(world)
    _blocking(co)
    code, out = _run(capsys, co, "--stop-on-flagged")
    assert code == 1 and "--stop-on-flagged" in out.out and "unmanaged-pin" in out.out
    assert world.open_pulls(TEMPLATE) == [] and remote_head(world) is None
