"""Without a network (a name that does not resolve) or behind a proxy that refuses, the commands that read
upstream from GitHub stop at the first attempt and say what to do: a local ``--upstream PATH``, or the proxy
variables HTTPS_PROXY / NO_PROXY (exit 3, nothing written).  A 5xx is still retried
(tests/github/test_retries_from_the_library.py).  ``publish`` without a token is bad usage: exit 2 before any request."""

from __future__ import annotations

import socket

import pytest

from helpers import run_cli, snapshot


def _no_waits(monkeypatch):
    """Any wait before a retry fails the test (every retry waits through RetryPolicy.spend)."""
    from bot.github.client import RetryPolicy
    monkeypatch.setattr(RetryPolicy, "spend", lambda self, s: pytest.fail(f"waited {s} s before a retry that cannot help"))


@pytest.fixture
def no_dns(monkeypatch):
    """Name resolution fails for every host but 127.0.0.1/localhost; returns the list of names asked."""
    asked = []
    real = socket.getaddrinfo

    def getaddrinfo(host, *a, **kw):
        if host in ("127.0.0.1", "localhost", "::1"):
            return real(host, *a, **kw)
        asked.append(host)
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    for k in ("GITHUB_API_URL", "GITHUB_TOKEN", "HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy",
              "ALL_PROXY", "all_proxy", "EXECUTORCH_PACK_BOT_MAX_WAIT"):
        monkeypatch.delenv(k, raising=False)
    _no_waits(monkeypatch)
    return asked


def test_update_offline_stops_at_once_and_names_a_local_upstream_and_the_proxy_variables(capsys, template, no_dns):
    before = snapshot(template)
    code, out, err = run_cli(capsys, "update", "--repo", template, "--dry-run")
    assert code == 3
    assert no_dns == ["api.github.com"]          # one attempt: no retry, no backoff
    line = err.strip().splitlines()[-1]
    assert line == (
        "executorch-pack-bot: error: cannot list the releases of pytorch/executorch: the name api.github.com does "
        "not resolve (no network, or no DNS without a proxy); offline, pass a local clone instead: --upstream PATH "
        "(made where there is network with `git clone --bare https://github.com/pytorch/executorch.git`, which keeps "
        "the release tags); behind a proxy, set HTTPS_PROXY=http://HOST:PORT (and NO_PROXY for the hosts reached "
        "directly, such as a GitHub Enterprise server inside the network); nothing was changed; the run can be "
        "repeated")
    assert "ConnectionError" not in err and "gave up" not in err
    assert snapshot(template) == before


def test_check_offline_names_the_same_ways_out(capsys, template, no_dns):
    code, out, err = run_cli(capsys, "check", "--repo", template)
    assert code == 3 and no_dns == ["api.github.com"]
    assert "--upstream PATH" in err and "HTTPS_PROXY=http://HOST:PORT" in err and "NO_PROXY" in err


def test_a_refusing_proxy_is_named_at_once(capsys, template, monkeypatch):
    with socket.socket() as s:          # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    monkeypatch.delenv("GITHUB_API_URL", raising=False)
    monkeypatch.delenv("NO_PROXY", raising=False)
    monkeypatch.delenv("no_proxy", raising=False)
    monkeypatch.setenv("HTTPS_PROXY", f"http://127.0.0.1:{port}")
    _no_waits(monkeypatch)
    code, out, err = run_cli(capsys, "update", "--repo", template, "--dry-run")
    assert code == 3
    assert ("cannot list the releases of pytorch/executorch: the proxy refused the connection or cannot be "
            "reached (check HTTPS_PROXY)") in err


def test_a_local_upstream_works_offline(capsys, template, tags, no_dns):
    code, out, err = run_cli(capsys, "update", "--repo", template, "--upstream", tags, "--dry-run")
    assert code == 0 and no_dns == []


def test_publish_without_a_token_is_bad_usage_before_any_request(capsys, world, tmp_path, monkeypatch):
    import fakegithub

    from github_world import planned_checkout
    co, plan = planned_checkout(world, capsys)
    monkeypatch.delenv("GITHUB_TOKEN")
    start = len(fakegithub.EXCHANGES)
    code, out, err = run_cli(capsys, "publish", "--repo", co, "--plan-file", plan)
    assert code == 2
    assert err == ("executorch-pack-bot: error: publish pushes a branch and opens a pull request, which needs a "
                   "token: pass --token TOKEN or set GITHUB_TOKEN (in the workflow: the GitHub App's token or the "
                   "EXECUTORCH_PACK_BOT_TOKEN secret; docs/github-app.md); --dry-run needs none\n")
    assert fakegithub.EXCHANGES[start:] == []


def test_run_without_a_token_is_bad_usage_before_any_request(capsys, world, monkeypatch):
    import fakegithub
    from github_world import checkout

    co = checkout(world)
    monkeypatch.delenv("GITHUB_TOKEN")
    start = len(fakegithub.EXCHANGES)
    code, out, err = run_cli(capsys, "run", "--repo", co, "--upstream", "github:pytorch/executorch")
    assert code == 2 and "run pushes a branch and opens a pull request, which needs a token" in err
    assert fakegithub.EXCHANGES[start:] == []
