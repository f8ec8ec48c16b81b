"""The GitHub Actions files ($GITHUB_OUTPUT, $GITHUB_STEP_SUMMARY): an unwritable one is named, a
failing run keeps its own error, multi-line values stay one value.
"""

from __future__ import annotations

import pytest

from fakegithub import UPSTREAM, Fault, add_sample_release
from github_world import cli


@pytest.mark.parametrize("var", ["GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY"])
def test_an_unwritable_actions_file_is_named_not_an_internal_error(fake, tpl, tmp_path, capsys, monkeypatch, var):
    add_sample_release(fake, "v1.5.1")
    monkeypatch.setenv(var, str(tmp_path / "no-such-folder" / "file"))
    code, out = cli(capsys, "run", "--repo", str(tpl), "--upstream", f"github:{UPSTREAM}", "--dry-run")
    assert code == 2 and f"cannot append to ${var}" in out.err and "no-such-folder" in out.err


def test_a_failing_run_keeps_its_own_error_when_the_summary_cannot_be_written(fake, tpl, tmp_path, capsys,
                                                                              monkeypatch):
    fake.faults.append(Fault("GET", "/releases", 404, {"message": "Not Found"}, {}))
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(tmp_path / "no-such-folder" / "summary.md"))
    code, out = cli(capsys, "run", "--repo", str(tpl), "--upstream", f"github:{UPSTREAM}", "--dry-run")
    assert code == 2 and "GitHub refused to list the releases" in out.err.splitlines()[-1]


def test_output_values_with_newlines_and_delimiter_lookalikes_stay_one_value(tmp_path):
    from bot import actions
    out = tmp_path / "out"
    value = "line1\nghadelimiter_x\nEOF\n"
    actions.set_outputs({"body": value, "flag": True}, env={"GITHUB_OUTPUT": str(out)})
    text = out.read_text()
    head, rest = text.split("\n", 1)
    name, delim = head.split("<<")
    assert name == "body" and rest.startswith(value + "\n" + delim + "\n") and "flag<<" in rest
