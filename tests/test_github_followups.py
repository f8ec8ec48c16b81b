"""Follow-ups on the GitHub layer found by a new user's trial and an adversarial tester (issues 4 and 5).

One block per item of the follow-up list; each test holds the right value
and failed before its change.  Everything runs against the local fake
GitHub server (tests/fakegithub.py) and local bare git remotes.
"""

from __future__ import annotations

import json

import pytest

from bot.cli import main
from fakegithub import TEMPLATE, UPSTREAM, Fault, git
from test_break_github import (TOKEN, checkout, cli, fake, planned_checkout, remote_head, tpl,  # noqa: F401
                               world)


def pr_body_of(w):
    pulls = w.open_pulls(TEMPLATE)
    assert len(pulls) == 1
    return pulls[0]


# ------------------------------------------- 4: a run's config error is printed once
def test_run_prints_a_config_error_once(fake, tpl, capsys):
    (tpl / ".github").mkdir(exist_ok=True)
    (tpl / ".github/executorch-pack-bot.yml").write_text("draft: sometimes\n")
    code, out = cli(capsys, "run", "--repo", str(tpl), "--upstream", f"github:{UPSTREAM}", "--dry-run")
    assert code == 2
    lines = [ln for ln in out.err.splitlines() if "draft" in ln]
    assert lines == ["executorch-pack-bot: error: .github/executorch-pack-bot.yml:1: "
                     "draft: 'sometimes' is not one of auto, always, never"]


def test_run_in_actions_annotates_a_config_error_once(fake, tpl, capsys, monkeypatch):
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    (tpl / ".github").mkdir(exist_ok=True)
    (tpl / ".github/executorch-pack-bot.yml").write_text("draft: sometimes\n")
    code = main(["run", "--repo", str(tpl), "--upstream", f"github:{UPSTREAM}", "--dry-run"])
    out = capsys.readouterr()
    assert code == 2
    text = (out.out + out.err).replace(f"::add-mask::{TOKEN}", "")   # the one place the token may appear
    assert TOKEN not in text
    assert text.count("is not one of auto, always, never") == 1
    assert "::error file=.github/executorch-pack-bot.yml,line=1::draft: 'sometimes'" in text


# ------------------------------------------- 5: one pack heading in the PR body
class _Report:
    failed = False
    operators_added = ["Portable add"]
    operators_removed: list = []

    def to_markdown(self):
        return ("### Pack verification: `PyTorch.ExecuTorch.1.5.1.pack`\n\n**Passed** for version `1.5.1`\n\n"
                "#### Operator components against `old.pack`\n\n- Added (1): `Portable add`\n")


def test_pr_body_has_one_pack_heading_and_one_operator_list():
    from bot.report import pack_section
    text = pack_section(_Report())
    assert text.count("### Pack verification") == 1
    assert text.startswith("### Pack verification: `PyTorch.ExecuTorch.1.5.1.pack`")
    assert text.count("Portable add") == 1


def test_pr_body_from_a_pack_report_file_has_one_heading(world, capsys):
    co, plan = planned_checkout(world, capsys)
    report = world.tmp / "pack.md"
    report.write_text("### Pack verification: `PyTorch.ExecuTorch.1.5.1.pack`\n\n**Passed** for version `1.5.1`\n")
    code, out = cli(capsys, "publish", "--repo", str(co), "--plan-file", str(plan), "--pack-report", str(report),
                    "--dry-run")
    assert code == 0
    assert out.out.count("### Pack verification") == 1


def test_pr_body_without_a_report_keeps_its_heading_and_note():
    from bot.report import pack_section
    assert pack_section(None, "no asset") == "### Pack verification\n\nno asset"
