"""Wording: plurals and the requires-python message."""

from __future__ import annotations

from bot.model import CheckResult
from bot.pack.report import PackReport


def _report(*statuses):
    return PackReport(pack="PyTorch.ExecuTorch.1.5.1.pack", version="1.5.1",
                      checks=[CheckResult(f"c{i}", s, "") for i, s in enumerate(statuses)])


def test_one_warning_is_singular():
    r = _report("pass", "warn")
    assert "1 passed, 1 warning, 0 failed" in r.summary
    assert "1 passed, 1 warning, 0 failed." in r.to_markdown()
    assert "2 warnings" in _report("warn", "warn").summary


def test_a_wider_python_range_is_said_to_admit_unsupported_pythons(template, upstream_repo):
    from bot import engine
    from bot.upstream.git import GitSource

    (template / "pyproject.toml").write_text('[project]\nname = "fw"\nversion = "0"\nrequires-python = ">=3.10"\n')
    plan = engine.plan(template, GitSource(upstream_repo))
    (flag,) = [f for f in plan.flags if f.code == "requires-python" and f.path == "pyproject.toml"]
    assert "requires-python '>=3.10' admits Python 3.15, which executorch 1.5.1 does not support" in flag.message
    assert "outside" not in flag.message


def test_disagreeing_cproject_is_not_told_to_regenerate_the_lock(template, upstream_repo, capsys):
    from helpers import run_cli

    p = template / "model" / "model.cproject.yml"
    p.write_text(p.read_text().replace("@1.4.0", "@1.3.0"))
    code, _, err = run_cli(capsys, "update", "--repo", template, "--upstream", upstream_repo, "--dry-run")
    assert code == 2 and "pins disagree" in err and "model/model.cproject.yml:3" in err
    assert "cbuild setup" not in err and "--exclude" in err
