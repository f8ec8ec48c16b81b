"""``doctor`` reads the template's ``model:`` setting as the run-model job reads it: a setting that job would
refuse (here the sample's placeholder model/model.pte, which is no ExecuTorch program) is a blocking problem
naming the settings file and line; a real program passes."""

from __future__ import annotations

from bot.sample.pte import add_mul
from helpers import run_cli, snapshot


def _doctor(capsys, template, tags, monkeypatch):
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    return run_cli(capsys, "doctor", "--repo", template, "--upstream", tags)


def test_a_model_setting_the_run_model_job_refuses_blocks(capsys, template, tags, monkeypatch):
    (template / ".github" / "executorch-pack-bot.yml").write_text("# settings\nmodel: model/model.pte\n")
    before = snapshot(template)
    code, out, err = _doctor(capsys, template, tags, monkeypatch)
    assert code == 1, err
    verdict = out[out.rindex("## Verdict"):]
    assert (f"  ! .github/executorch-pack-bot.yml:2: model: {template / 'model' / 'model.pte'}: not an ExecuTorch "
            "program: file identifier b'\\x00\\x01bi', expected b'ET12' (an ExecuTorch program): the run-model job "
            "refuses it (exit 2) and the bump gets no model run\n    fix: point model: in "
            ".github/executorch-pack-bot.yml at the template's .pte (a path inside the repository), or remove the "
            "key\n") in verdict
    assert verdict.rstrip().endswith("1 problem blocks the bot")
    assert snapshot(template) == before


def test_a_model_setting_naming_a_program_passes(capsys, template, tags, monkeypatch):
    (template / ".github" / "executorch-pack-bot.yml").write_text("model: model/model.pte\n")
    (template / "model" / "model.pte").write_bytes(add_mul())
    code, out, err = _doctor(capsys, template, tags, monkeypatch)
    assert code == 0, out + err
    assert "model:" not in out[out.rindex("## Verdict"):] and out.rstrip().endswith("OK: nothing blocks the bot.")
