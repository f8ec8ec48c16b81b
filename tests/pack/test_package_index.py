"""The package index: is executorch==V published with wheels the resolved torch satisfies
(``check``'s index-ready), and answers of the wrong shape.

The fake GitHub server (tests/worlds/fakegithub.py) also serves the package index's JSON API.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from werkzeug.wrappers import Response

from bot.errors import PlatformError
from fakegithub import UPSTREAM, add_sample_release, pypi_json
from github_world import cli, override


def _outputs(path: Path) -> dict[str, str]:
    """``$GITHUB_OUTPUT`` as written by bot.actions.set_outputs (``NAME<<DELIM`` blocks)."""
    out, lines, i = {}, path.read_text().splitlines(), 0
    while i < len(lines):
        name, _, delim = lines[i].partition("<<")
        j = lines.index(delim, i + 1)
        out[name] = "\n".join(lines[i + 1:j])
        i = j + 1
    return out


def check_outputs(capsys, tpl, tmp_path, monkeypatch, *extra):
    monkeypatch.setenv("GITHUB_OUTPUT", str(tmp_path / "out"))
    (tmp_path / "out").write_text("")
    code, out = cli(capsys, "check", "--repo", str(tpl), "--upstream", f"github:{UPSTREAM}", *extra)
    return code, out, _outputs(tmp_path / "out")


@pytest.fixture
def releases(fake):
    """Upstream with v1.4.0 (the template's) and v1.5.1 (sample torch 2.14.0, torchao 0.19.0)."""
    add_sample_release(fake, "v1.4.0", created_at="2026-06-01T00:00:00Z")
    add_sample_release(fake, "v1.5.1", created_at="2026-09-01T00:00:00Z",
                       assets={"PyTorch.ExecuTorch.1.5.1.pack": b"PK"})
    return fake


@pytest.mark.parametrize("answer", ["<html>", "[1]", '{"info": null, "urls": [null]}', '{"info": [], "urls": []}',
                                    '{"info": {"requires_dist": "torch>=3"}, "urls": [{"packagetype": "bdist_wheel"}]}'])
def test_a_package_index_answer_of_the_wrong_shape_is_a_clear_error(fake, answer):
    from bot.github.index import check_index
    override(fake, lambda r: r.path.startswith("/pypi/"),
             lambda r, orig: Response(answer, status=200, mimetype="application/json"))
    with pytest.raises(PlatformError, match="the package index answered .*/pypi/executorch/1.5.1/json"):
        check_index("1.5.1", {"torch": "2.14.0"})


def test_requires_dist_null_means_no_requirements(fake):
    from bot.github.index import check_index
    fake.pypi[("executorch", "1.5.1")] = {"info": {"requires_dist": None},
                                          "urls": [{"packagetype": "bdist_wheel"}]}
    assert check_index("1.5.1", {"torch": "2.14.0"}).ready


def test_check_index_ready_when_executorch_is_published_with_wheels(releases, tpl, tmp_path, monkeypatch, capsys):
    releases.pypi[("executorch", "1.5.1")] = pypi_json("executorch", "1.5.1",
                                                        requires_dist=["torch>=2.14.0a0", "torchao>=0.19.0"])
    code, out, outs = check_outputs(capsys, tpl, tmp_path, monkeypatch)
    assert code == 0
    assert outs["update-needed"] == "true" and outs["index-ready"] == "true"
    assert "index-ready=true" in out.out
    assert releases.count("GET", r"^/pypi/executorch/1\.5\.1/json$") == 1


def test_check_waits_for_an_unpublished_executorch(releases, tpl, tmp_path, monkeypatch, capsys):
    code, out, outs = check_outputs(capsys, tpl, tmp_path, monkeypatch)
    assert code == 0
    assert outs["update-needed"] == "true"   # the next scheduled run tries again
    assert outs["index-ready"] == "false"
    assert "waiting for executorch 1.5.1 on the package index" in out.out


def test_check_index_not_ready_when_the_resolved_torch_is_too_old(releases, tpl, tmp_path, monkeypatch, capsys):
    releases.pypi[("executorch", "1.5.1")] = pypi_json("executorch", "1.5.1", requires_dist=["torch>=2.15.0"])
    code, out, outs = check_outputs(capsys, tpl, tmp_path, monkeypatch)
    assert code == 0 and outs["index-ready"] == "false"
    assert "torch 2.14.0 does not satisfy torch>=2.15.0" in out.out


def test_check_index_not_ready_without_wheels(releases, tpl, tmp_path, monkeypatch, capsys):
    releases.pypi[("executorch", "1.5.1")] = pypi_json("executorch", "1.5.1", wheels=False)
    code, out, outs = check_outputs(capsys, tpl, tmp_path, monkeypatch)
    assert code == 0 and outs["index-ready"] == "false"
    assert "no wheels" in out.out


def test_a_no_op_check_asks_neither_the_contents_api_nor_the_index(releases, tpl, tmp_path, monkeypatch, capsys):
    code, out, outs = check_outputs(capsys, tpl, tmp_path, monkeypatch, "--version", "1.4.0")
    assert code == 0 and outs["update-needed"] == "false" and outs["index-ready"] == "false"
    assert releases.count() <= 2
    assert releases.count("GET", "/pypi/") == 0 and releases.count("GET", "/contents/") == 0
