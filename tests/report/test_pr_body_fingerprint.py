"""The pull-request body through publish: one pack heading and one operator list, a note without a report,
cut to GitHub's body limit keeping the fingerprint, and a fingerprint look-alike from the
template never wins.
"""

from __future__ import annotations

from fakegithub import UPSTREAM
from github_world import cli, planned_checkout


class _Report:
    failed = False
    operators_added = ["Portable add"]
    operators_removed: list = []

    def to_markdown(self):
        return ("### Pack verification: `PyTorch.ExecuTorch.1.5.1.pack`\n\n**Passed** for version `1.5.1`\n\n"
                "#### Operator components against `old.pack`\n\n- Added (1): `Portable add`\n")


def _plan_with_flags(tmp_path, messages):
    from bot.model import Bump, Flag
    from bot.plan import PinRow, Plan
    plan = Plan(repo=tmp_path, bump=Bump("1.4.0", "1.5.1", "1.4.0", "1.5.1", "v1.4.0", "v1.5.1"),
                rows=[PinRow("executorch", "1.4.0", "1.5.1", "release tag v1.5.1")],
                flags=[Flag("history", m, "README.md", i + 1, False) for i, m in enumerate(messages)])
    plan.contents["README.md"] = b"x"
    return plan


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


def test_a_huge_report_is_cut_to_fit_githubs_body_limit_keeping_the_fingerprint(tmp_path):
    """GitHub answers 422 to a body over 65,536 characters: every run would fail on a template with many flags."""
    from bot.report import parse_fingerprint, pr_body
    plan = _plan_with_flags(tmp_path, [f"ExecuTorch 1.{i}.0 is mentioned as history in a long line" for i in range(3000)])
    from bot.report import job_summary
    body = pr_body(plan, upstream=UPSTREAM)
    assert len(body) <= 60_000 and "  - … and 2960 more (all in the job summary)" in body
    assert parse_fingerprint(body) == plan.fingerprint() and "| pin | old | new | source |" in body
    summary = job_summary(current="1.4.0", target="1.5.1", outcome="done", plan=plan, upstream=UPSTREAM)
    assert all(f"  - `README.md:{i + 1}`: " in summary for i in range(3000))   # where the body says they are


def test_a_fingerprint_look_alike_quoted_from_the_template_does_not_win(tmp_path):
    from bot.report import parse_fingerprint, pr_body
    fake_marker = "<!-- executorch-pack-bot:fingerprint=" + "f" * 64 + " -->"
    plan = _plan_with_flags(tmp_path, [f"line quotes {fake_marker}"])
    assert parse_fingerprint(pr_body(plan, upstream=UPSTREAM)) == plan.fingerprint()
