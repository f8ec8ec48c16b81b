"""The bot says only what is true of the template in front of it: ``audit`` (which moves nothing) counts the
mentions "a bump moves", not "moved"; a pin upstream sets and the template does not pin is named apart from the
pin table ("nothing is added"), in the terminal and in the PR body; the rebuild commands name
``create_ai_layer.py`` only for a template that has it (tests/template/test_template_ci_and_test_plan.py); an absent
``version.txt`` is not shown as a source."""

from __future__ import annotations

from helpers import run_cli


def test_audit_counts_what_a_bump_moves_not_what_moved(capsys, template):
    code, out, _ = run_cli(capsys, "audit", "--repo", template)
    assert code == 0
    assert "\nmentions of 1.4.0: 30 a bump moves, 4 history, 2 other versions, 0 for review\n" in out
    assert " moved" not in out


def _without_vela(template):
    req = template / "requirements.txt"
    req.write_text("".join(line for line in req.read_text().splitlines(True) if "ethos-u-vela" not in line))


def test_a_pin_the_template_does_not_have_is_not_in_the_pin_table(capsys, template, tags):
    _without_vela(template)
    code, out, _ = run_cli(capsys, "update", "--repo", template, "--upstream", tags, "--dry-run")
    assert code == 0
    table = out[out.index("\npin "):out.index("\nUpstream also pins")]
    assert "ethos-u-vela" not in table and "(not pinned)" not in out
    assert ("\nUpstream also pins ethos-u-vela 5.2.0; the template does not pin it, so nothing is added.\n") in out


def test_the_pr_body_names_a_pin_the_template_does_not_have_apart_from_its_table(capsys, template, tags):
    from bot import engine
    from bot.report.sections import pin_table
    from bot.upstream.source import DirectorySource

    _without_vela(template)
    plan = engine.plan(template, DirectorySource(tags))
    text = pin_table(plan)
    assert "| `ethos-u-vela`" not in text
    assert text.endswith("\nUpstream also pins `ethos-u-vela` `5.2.0`; the template does not pin it, so nothing "
                         "is added.")


def test_an_absent_version_txt_is_not_shown_as_a_source():
    from bot.plan import PinRow
    from bot.report.evidence import Evidence
    from bot.report.sections import pin_source

    row = PinRow("PyTorch::ExecuTorch", "1.4.0", "1.5.1", "release tag v1.5.1")
    assert pin_source(row, Evidence(), "v1.5.1") == "`release tag v1.5.1`"
    assert pin_source(row, Evidence(version_txt="1.5.1"), "v1.5.1") == (
        "`release tag v1.5.1` and `version.txt` @ `v1.5.1` (`1.5.1`)")
