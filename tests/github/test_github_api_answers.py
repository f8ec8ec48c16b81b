"""Hostile or odd GitHub REST answers (releases listing, cache, pagination, contents, chunked
bodies, 422s) are clear errors or retried, never an internal error, and the token is never
printed.

Everything runs against the local fake GitHub server (tests/worlds/fakegithub.py).
"""

from __future__ import annotations

import json

import pytest
from werkzeug.wrappers import Response

from bot.cli import main
from bot.errors import PlatformError
from fakegithub import UPSTREAM, Fault, add_sample_release
from github_world import TOKEN, check, cli, override, source


@pytest.mark.parametrize("body", ["<html>Unicorn!</html>", '{"message": "hi"}', "[1, 2]"])
def test_releases_answer_that_is_not_a_list_of_releases_is_a_clear_error(fake, tpl, capsys, body):
    add_sample_release(fake, "v1.5.1")
    override(fake, lambda r: r.path.endswith("/releases"),
             lambda r, orig: Response(body, status=200, mimetype="application/json"))
    code, out = check(capsys, tpl)
    assert code == 2 and "cannot list the releases of pytorch/executorch" in out.err


def test_release_fields_of_the_wrong_type_count_as_missing(fake, tpl, capsys):
    fake.off_contract = True   # the answers below are malformed on purpose
    add_sample_release(fake, "v1.5.1", assets={"PyTorch.ExecuTorch.1.5.1.pack": b"PK"})
    fake.add_release(UPSTREAM, "x")["tag_name"] = 7
    fake.add_release(UPSTREAM, "y")["tag_name"] = None
    odd = fake.add_release(UPSTREAM, "v1.4.9", assets={"a": b"1"})
    odd["assets"][0]["size"] = "big"
    odd["assets"].append("not an object")
    code, out = check(capsys, tpl)
    assert code == 0 and "target=1.5.1" in out.out and "pack-source=release-asset" in out.out


def test_304_without_a_cached_listing_asks_again(fake, tpl, capsys):
    add_sample_release(fake, "v1.5.1")
    fake.faults.append(Fault("GET", r"/releases$", 304, {}, {}))
    code, out = check(capsys, tpl)
    assert code == 0 and "target=1.5.1" in out.out
    assert fake.count("GET", r"/releases$") == 2


@pytest.mark.parametrize("cached", ["[1, 2]", '{"etag": "E"}', '{"etag": "E", "releases": {"a": 1}}', "\xff"])
def test_a_corrupt_cache_file_is_ignored(fake, tpl, tmp_path, capsys, monkeypatch, cached):
    cache = tmp_path / "cache"
    monkeypatch.setenv("EXECUTORCH_PACK_BOT_CACHE", str(cache))
    add_sample_release(fake, "v1.5.1")
    assert check(capsys, tpl)[0] == 0
    for f in cache.iterdir():
        f.write_text(cached, encoding="latin-1")
    code, out = check(capsys, tpl)
    assert code == 0 and "target=1.5.1" in out.out


def test_a_link_header_that_loops_is_refused_not_followed_forever(fake, tpl, capsys):
    add_sample_release(fake, "v1.5.1")

    def looping(req, orig):
        r = orig()
        r.headers["Link"] = f'<{fake.url}{req.path}?page=2>; rel="next"'
        return r
    override(fake, lambda r: r.path.endswith("/releases"), looping)
    code, out = check(capsys, tpl)
    assert code == 2 and "next page repeats" in out.err
    assert fake.count("GET", r"/releases$") == 2


def test_a_damaged_chunked_body_is_retried_not_an_internal_error(fake, tpl, capsys):
    import requests

    from bot.github.client import RetryPolicy, call
    tries = []

    def flaky():
        tries.append(1)
        if len(tries) < 2:
            raise requests.exceptions.ChunkedEncodingError("Connection broken: IncompleteRead")
        return "ok"
    assert call(flaky, "list things", RetryPolicy(sleep=lambda s: None)) == "ok" and len(tries) == 2

    def invalid():
        raise requests.exceptions.InvalidURL("bad")
    with pytest.raises(PlatformError, match="cannot list things: InvalidURL"):
        call(invalid, "list things", RetryPolicy(sleep=lambda s: None))


@pytest.mark.parametrize("answer", [
    {"type": "file", "encoding": "none", "content": "", "size": 2_000_000},
    {"type": "symlink", "target": "elsewhere", "size": 9},
    {"type": "file", "encoding": "base64", "content": "***not base64***", "size": 3},
])
def test_contents_that_are_not_a_base64_file_are_a_clear_upstream_error(fake, answer):
    from bot.errors import UpstreamError
    fake.add_release(UPSTREAM, "v1.5.1")
    fake.add_file(UPSTREAM, "v1.5.1", "torch_pin.py", b"x")
    doc = dict(answer, name="torch_pin.py", path="torch_pin.py", sha="1" * 40)
    override(fake, lambda r: "/contents/" in r.path,
             lambda r, orig: Response(json.dumps(dict(doc, url=r.url)), mimetype="application/json"))
    with pytest.raises(UpstreamError, match="torch_pin.py at v1.5.1 in github:pytorch/executorch"):
        source().read("v1.5.1", "torch_pin.py")


def test_a_422_names_githubs_reason_not_only_validation_failed():
    from github import GithubException

    from bot.github.client import RetryPolicy, call

    def refuse():
        raise GithubException(422, {"message": "Validation Failed",
                                    "errors": [{"resource": "PullRequest", "code": "custom",
                                                "message": "A pull request already exists for acme:bot."}]}, {})
    with pytest.raises(PlatformError, match=r"HTTP 422: Validation Failed \(A pull request already exists for acme:bot\.\)"):
        call(refuse, "create the pull request", RetryPolicy(sleep=lambda s: None))


def test_the_last_resort_error_line_never_prints_the_token(fake, tpl, capsys, monkeypatch):
    from bot.github import flow

    def explode(*a, **k):
        raise RuntimeError(f"unexpected: Authorization: Bearer {TOKEN}")
    monkeypatch.setattr(flow, "check", explode)
    assert main(["check", "--repo", str(tpl), "--upstream", f"github:{UPSTREAM}"]) == 2
    err = capsys.readouterr().err
    assert "internal error: RuntimeError: unexpected: Authorization: Bearer ***" in err and TOKEN not in err


@pytest.mark.parametrize("name,value", [("EXECUTORCH_PACK_BOT_MAX_WAIT", "soon"), ("EXECUTORCH_PACK_BOT_MAX_WAIT", "-5"),
                                        ("EXECUTORCH_PACK_BOT_ATTEMPTS", "many"), ("EXECUTORCH_PACK_BOT_ATTEMPTS", "0"),
                                        ("EXECUTORCH_PACK_BOT_WRITE_PAUSE", "nan"),
                                        ("GITHUB_API_URL", "not a url"), ("GITHUB_API_URL", "ftp://example.invalid"),
                                        ("GITHUB_API_URL", "http://127.0.0.1:port")])
def test_a_bad_environment_variable_is_named_with_exit_2(fake, tpl, capsys, monkeypatch, name, value):
    add_sample_release(fake, "v1.5.1")
    monkeypatch.setenv(name, value)
    argv = ["check", "--repo", str(tpl), "--upstream", f"github:{UPSTREAM}"]
    if name.endswith("WRITE_PAUSE"):
        from bot.github.client import make_github
        with pytest.raises(Exception) as ei:
            make_github(TOKEN)
        assert type(ei.value).__name__ == "UsageError" and name in str(ei.value)
        return
    code, out = cli(capsys, *argv)
    assert code == 2 and name in out.err
