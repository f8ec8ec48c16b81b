"""Adversarial tests of the GitHub layer: hostile API answers, odd environments, human-made states.

Each test holds the right behaviour for one kind of fault found by breaking
the bot on purpose: a clear error naming the file (exit 2 for bad input, 1 for
a failed check), never a traceback or an "internal error", nothing of a human
lost, and the token never printed.  Everything runs against the local fake
GitHub server (tests/fakegithub.py) and local bare git remotes.
"""

from __future__ import annotations

import json

import pytest
from werkzeug.wrappers import Response

from bot.cli import main
from bot.errors import PlatformError
from fakegithub import UPSTREAM, FakeGitHub, Fault, add_sample_release

TOKEN = "ghs_BREAKTESTSECRET42"


@pytest.fixture
def fake(monkeypatch):
    f = FakeGitHub()
    url = f.start()
    for k, v in {"GITHUB_API_URL": url, "EXECUTORCH_PACK_BOT_INDEX_URL": url, "EXECUTORCH_PACK_BOT_MAX_WAIT": "0",
                 "EXECUTORCH_PACK_BOT_WRITE_PAUSE": "0", "GITHUB_TOKEN": TOKEN}.items():
        monkeypatch.setenv(k, v)
    for k in ("GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY", "GITHUB_ACTIONS", "EXECUTORCH_PACK_BOT_CACHE",
              "GITHUB_REPOSITORY", "EXECUTORCH_PACK_BOT_ATTEMPTS"):
        monkeypatch.delenv(k, raising=False)
    yield f
    f.stop()


@pytest.fixture
def tpl(tmp_path):
    from bot.commands.demo import copy_template
    return copy_template(tmp_path / "template")


def source():
    from bot.github.source import GitHubSource
    return GitHubSource.from_spec(f"github:{UPSTREAM}")


def override(fake, match, respond):
    """Answer requests whose path satisfies ``match(req)`` with ``respond(req, original_route)``."""
    orig = fake._route

    def route(req, body):
        if match(req):
            return respond(req, lambda: orig(req, body))
        return orig(req, body)
    fake._route = route


def cli(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    assert "Traceback" not in out.err and "internal error" not in out.err, out.err
    assert TOKEN not in out.out + out.err
    return code, out


def check(capsys, tpl, *extra):
    return cli(capsys, "check", "--repo", str(tpl), "--upstream", f"github:{UPSTREAM}", *extra)


# ------------------------------------------------------- releases listing
@pytest.mark.parametrize("body", ["<html>Unicorn!</html>", '{"message": "hi"}', "[1, 2]"])
def test_releases_answer_that_is_not_a_list_of_releases_is_a_clear_error(fake, tpl, capsys, body):
    add_sample_release(fake, "v1.5.1")
    override(fake, lambda r: r.path.endswith("/releases"),
             lambda r, orig: Response(body, status=200, mimetype="application/json"))
    code, out = check(capsys, tpl)
    assert code == 2 and "cannot list the releases of pytorch/executorch" in out.err


def test_release_fields_of_the_wrong_type_count_as_missing(fake, tpl, capsys):
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
