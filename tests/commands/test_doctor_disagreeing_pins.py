"""doctor on a template whose pins disagree: the pins table, no rehearsal, the verdict with its fix, exit 1 (the
plan's refusal, exit 2 with none of the report, came first), and the checkout left byte-identical."""

from __future__ import annotations

from helpers import run_cli, snapshot


def test_disagreeing_pins_are_the_blocking_verdict_not_a_refusal(capsys, template, tags, monkeypatch):
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    sol = template / "cmsis-executorch.csolution.yml"
    sol.write_text(sol.read_text().replace("PyTorch::ExecuTorch@1.4.0", "PyTorch::ExecuTorch@1.3.0"))
    before = snapshot(template)
    code, out, err = run_cli(capsys, "doctor", "--repo", template, "--upstream", tags)
    assert code == 1, err
    assert "cmsis-executorch.csolution.yml:17    pack-pin     PyTorch::ExecuTorch@1.3.0\n" in out
    assert ("the pins do not agree\n\n## Rehearsal\n\nNot rehearsed: a bump starts from one version, and the "
            "template's pins do not agree (see the verdict).\n") in out
    assert ("  ! the template's ExecuTorch pins do not agree (or a blocking item is flagged): a bump starts from one "
            "version\n    fix: run `executorch-pack-bot audit --repo .` and make every pin name the same release\n"
            "\n1 problem blocks the bot\n") in out
    assert "Traceback" not in err and "error:" not in err
    assert snapshot(template) == before
