"""Follow-ups on the GitHub layer and the workflows from a second new-user trial (issues 4 and 5).

One block per item of the follow-up list; each test holds the right value
and failed before its change.  Everything runs against the local fake
GitHub server (tests/fakegithub.py), which also serves the package index.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from fakegithub import UPSTREAM, add_sample_release, pypi_json
from test_break_github import TOKEN, cli, fake, tpl  # noqa: F401

ROOT = Path(__file__).resolve().parents[1]
WORKFLOW = yaml.safe_load((ROOT / ".github/workflows/executorch-pack-bot.yml").read_text())
ACTION = yaml.safe_load((ROOT / "action.yml").read_text())
README = (ROOT / "README.md").read_text()


def _outputs(path: Path) -> dict[str, str]:
    """``$GITHUB_OUTPUT`` as written by bot.actions.set_outputs (``NAME<<DELIM`` blocks)."""
    out, lines, i = {}, path.read_text().splitlines(), 0
    while i < len(lines):
        name, _, delim = lines[i].partition("<<")
        j = lines.index(delim, i + 1)
        out[name] = "\n".join(lines[i + 1:j])
        i = j + 1
    return out


@pytest.fixture
def releases(fake):
    """Upstream with v1.4.0 (the template's) and v1.5.1 (sample torch 2.14.0, torchao 0.19.0)."""
    add_sample_release(fake, "v1.4.0", created_at="2026-06-01T00:00:00Z")
    add_sample_release(fake, "v1.5.1", created_at="2026-09-01T00:00:00Z",
                       assets={"PyTorch.ExecuTorch.1.5.1.pack": b"PK"})
    return fake


def check(capsys, tpl, tmp_path, monkeypatch, *extra):
    monkeypatch.setenv("GITHUB_OUTPUT", str(tmp_path / "out"))
    (tmp_path / "out").write_text("")
    code, out = cli(capsys, "check", "--repo", str(tpl), "--upstream", f"github:{UPSTREAM}", *extra)
    return code, out, _outputs(tmp_path / "out")


# ------------------------------------------- 2: check gates on the package index
def test_check_index_ready_when_executorch_is_published_with_wheels(releases, tpl, tmp_path, monkeypatch, capsys):
    releases.pypi[("executorch", "1.5.1")] = pypi_json("executorch", "1.5.1",
                                                        requires_dist=["torch>=2.14.0a0", "torchao>=0.19.0"])
    code, out, outs = check(capsys, tpl, tmp_path, monkeypatch)
    assert code == 0
    assert outs["update-needed"] == "true" and outs["index-ready"] == "true"
    assert "index-ready=true" in out.out
    assert releases.count("GET", r"^/pypi/executorch/1\.5\.1/json$") == 1


def test_check_waits_for_an_unpublished_executorch(releases, tpl, tmp_path, monkeypatch, capsys):
    code, out, outs = check(capsys, tpl, tmp_path, monkeypatch)
    assert code == 0
    assert outs["update-needed"] == "true"   # the next scheduled run tries again
    assert outs["index-ready"] == "false"
    assert "waiting for executorch 1.5.1 on the package index" in out.out


def test_check_index_not_ready_when_the_resolved_torch_is_too_old(releases, tpl, tmp_path, monkeypatch, capsys):
    releases.pypi[("executorch", "1.5.1")] = pypi_json("executorch", "1.5.1", requires_dist=["torch>=2.15.0"])
    code, out, outs = check(capsys, tpl, tmp_path, monkeypatch)
    assert code == 0 and outs["index-ready"] == "false"
    assert "torch 2.14.0 does not satisfy torch>=2.15.0" in out.out


def test_check_index_not_ready_without_wheels(releases, tpl, tmp_path, monkeypatch, capsys):
    releases.pypi[("executorch", "1.5.1")] = pypi_json("executorch", "1.5.1", wheels=False)
    code, out, outs = check(capsys, tpl, tmp_path, monkeypatch)
    assert code == 0 and outs["index-ready"] == "false"
    assert "no wheels" in out.out


def test_a_no_op_check_asks_neither_the_contents_api_nor_the_index(releases, tpl, tmp_path, monkeypatch, capsys):
    code, out, outs = check(capsys, tpl, tmp_path, monkeypatch, "--to", "1.4.0")
    assert code == 0 and outs["update-needed"] == "false" and outs["index-ready"] == "false"
    assert releases.count() <= 2
    assert releases.count("GET", "/pypi/") == 0 and releases.count("GET", "/contents/") == 0


def test_workflow_jobs_after_watch_wait_for_the_index():
    jobs = WORKFLOW["jobs"]
    assert jobs["watch"]["outputs"]["index-ready"] == "${{ steps.check.outputs.index-ready }}"
    for name in ("fetch-pack", "build-pack", "pull-request"):
        assert "needs.watch.outputs.index-ready == 'true'" in jobs[name]["if"], name
    assert ACTION["outputs"]["index-ready"]["value"] == "${{ steps.bot.outputs.index-ready }}"
    assert "`index-ready`" in README
