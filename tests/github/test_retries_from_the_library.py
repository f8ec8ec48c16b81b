"""The retries are PyGithub's GithubRetry (a urllib3 Retry) on PyGithub's session and on the download session,
configured with the bot's caps; the bot adds only the total bound on one operation's waits.

Through the real PyGithub/requests code against the fake GitHub server; sleeps are recorded, not slept.
"""

from __future__ import annotations

from email.utils import formatdate

import pytest

from bot.errors import PlatformError, TransientError
from fakegithub import UPSTREAM, FakeGitHub, Fault


@pytest.fixture
def fake(monkeypatch):
    f = FakeGitHub()
    f.start()
    f.add_release(UPSTREAM, "v1.5.1")
    monkeypatch.delenv("EXECUTORCH_PACK_BOT_ATTEMPTS", raising=False)
    yield f
    f.stop()


def releases(fake, monkeypatch, *, cap: float, attempts: int = 5):
    """List the releases through PyGithub with cap ``cap``; returns (result or the error, the recorded waits)."""
    from bot.github.client import RetryPolicy, call, make_github
    monkeypatch.setenv("EXECUTORCH_PACK_BOT_MAX_WAIT", str(cap))
    monkeypatch.setenv("EXECUTORCH_PACK_BOT_ATTEMPTS", str(attempts))
    gh = make_github(None, base_url=fake.url)
    slept: list = []
    policy = RetryPolicy.from_env()
    policy.sleep = slept.append
    try:
        got = call(lambda: [r.tag_name for r in gh.get_repo(UPSTREAM).get_releases()], "list the releases", policy)
    except PlatformError as exc:
        got = exc
    return got, slept


def test_github_is_configured_with_the_library_retry_and_the_caps(monkeypatch):
    from github import GithubRetry

    from bot.github.client import make_github, session
    monkeypatch.setenv("EXECUTORCH_PACK_BOT_MAX_WAIT", "7")
    monkeypatch.setenv("EXECUTORCH_PACK_BOT_ATTEMPTS", "4")
    for retry in (make_github(None, base_url="http://127.0.0.1:9").requester._Requester__retry,
                  session().get_adapter("https://example.invalid/").max_retries):
        assert isinstance(retry, GithubRetry)
        assert (retry.total, retry.backoff_max, retry.retry_after_max, retry.secondary_rate_wait,
                retry.max_rate_limit_wait, retry.raise_on_status) == (3, 7, 7, 7, 7, False)
        assert {429, 500, 502, 503, 599, 403} <= set(retry.status_forcelist)


def test_retry_after_is_honoured_with_a_cap(fake, monkeypatch):
    fake.faults.append(Fault("GET", "/releases", 403, {"message": "Forbidden"}, {"Retry-After": "30"}))
    got, slept = releases(fake, monkeypatch, cap=10)
    assert got == ["v1.5.1"] and slept == [10]


def test_retry_after_as_an_http_date_is_honoured(fake, monkeypatch):
    import time
    when = formatdate(time.time() + 20, usegmt=True)
    fake.faults.append(Fault("GET", "/releases", 503, {"message": "busy"}, {"Retry-After": when}))
    got, slept = releases(fake, monkeypatch, cap=60)
    assert got == ["v1.5.1"] and len(slept) == 1 and 17 <= slept[0] <= 20


def test_the_secondary_rate_limit_waits_the_cap(fake, monkeypatch):
    fake.faults.append(Fault("GET", "/releases", 403, {"message": "You have exceeded a secondary rate limit."}))
    got, slept = releases(fake, monkeypatch, cap=5)
    assert got == ["v1.5.1"] and slept == [5]


def test_a_primary_rate_limit_reset_beyond_the_cap_is_a_transient_failure_without_waiting(fake, monkeypatch):
    import time
    reset = str(int(time.time()) + 3600)
    fake.faults.append(Fault("GET", "/releases", 403, {"message": "API rate limit exceeded for 1.2.3.4."},
                             {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": reset}))
    got, slept = releases(fake, monkeypatch, cap=60)
    assert isinstance(got, TransientError) and slept == [] and fake.count("GET", "/releases") == 1
    assert str(got) == ("gave up trying to list the releases after 1 attempts (last: HTTP 403: API rate limit "
                        "exceeded for 1.2.3.4.); nothing was changed; the run can be repeated")


def test_one_operation_waits_at_most_three_times_the_cap_in_total(fake, monkeypatch):
    fake.faults.append(Fault("GET", "/releases", 503, {"message": "busy"}, {"Retry-After": "10"}, times=50))
    got, slept = releases(fake, monkeypatch, cap=10, attempts=20)
    assert slept == [10, 10, 10]                            # each wait capped at 10 s, all of them at 30 s
    assert isinstance(got, TransientError) and fake.count("GET", "/releases") == 4
    assert str(got) == ("gave up trying to list the releases after 4 attempts (last: HTTP 503: busy); waited 30 s "
                        "in all, the limit; nothing was changed; the run can be repeated")


def test_a_short_last_wait_uses_up_the_budget_exactly():
    from bot.github.client import RetryPolicy
    policy = RetryPolicy(attempts=20, max_wait=4, sleep=lambda s: None)
    got = [policy.spend(w) for w in (3, 4, 4, 4, 4)]
    assert policy.waits == [3, 4, 4, 1] and got == [True, True, True, True, False]


def test_a_zero_cap_never_stops_the_retries_early(fake, monkeypatch):
    fake.faults.append(Fault("GET", "/releases", 503, {"message": "busy"}, {"Retry-After": "10"}, times=50))
    got, slept = releases(fake, monkeypatch, cap=0, attempts=4)
    assert isinstance(got, TransientError) and "after 4 attempts" in str(got) and slept == [0, 0, 0]
    assert fake.count("GET", "/releases") == 4


def test_a_download_retries_5xx_through_the_session_adapter(fake, monkeypatch, tmp_path):
    from bot.github.client import RetryPolicy, http_get, session
    monkeypatch.setenv("EXECUTORCH_PACK_BOT_MAX_WAIT", "0")
    fake.faults.append(Fault("GET", "/pypi/", 502, {}, {}, times=2))
    fake.pypi[("executorch", "1.5.1")] = {"info": {"version": "1.5.1"}, "urls": []}
    r = http_get(session(), f"{fake.url}/pypi/executorch/1.5.1/json", what="ask", policy=RetryPolicy(max_wait=0))
    assert r.json()["info"]["version"] == "1.5.1" and fake.count("GET", "/pypi/") == 3


# ------------------------------------------------ what the libraries demonstrably do not do (kept in the bot)
def test_the_library_retry_alone_has_no_total_bound(fake, monkeypatch):
    """GithubRetry waits Retry-After (capped) before every retry: 19 waits of 10 s for 20 attempts."""
    import urllib3.util.retry as retry_module
    from github import Github, GithubRetry
    slept: list = []
    import time
    from types import SimpleNamespace
    monkeypatch.setattr(retry_module, "time", SimpleNamespace(sleep=slept.append, time=time.time))
    fake.faults.append(Fault("GET", "/releases", 503, {"message": "busy"}, {"Retry-After": "10"}, times=50))
    gh = Github(base_url=fake.url, lazy=True, retry=GithubRetry(total=19, retry_after_max=10, backoff_max=10,
                                                      status_forcelist=[503], raise_on_status=False))
    with pytest.raises(Exception):
        list(gh.get_repo(UPSTREAM).get_releases())
    assert slept == [10] * 19 and fake.count("GET", "/releases") == 20


def test_the_library_retry_does_not_retry_a_body_that_breaks_while_read(fake, tmp_path):
    """urllib3 returns the response before its body is read: a transfer cut short is not retried by it."""
    from bot.github.client import session
    rel = fake.add_release(UPSTREAM, "v1.5.2", assets={"p.pack": b"x" * 5000})
    asset = rel["assets"][0]
    fake.asset_truncate[asset["id"]] = 100
    r = session().get(asset["browser_download_url"], stream=True)
    body = b""
    with pytest.raises(Exception):
        for chunk in r.iter_content(1024):
            body += chunk
        if len(body) != 5000:
            raise EOFError(f"short: {len(body)}")
    assert fake.count("GET", "/download/") == 1


def test_a_retry_prints_no_library_log_line(fake, monkeypatch, capsys):
    fake.faults.append(Fault("GET", "/releases", 403, {"message": "Forbidden"}, {"Retry-After": "1"}))
    import logging
    got, slept = releases(fake, monkeypatch, cap=0)
    assert got == ["v1.5.1"] and capsys.readouterr().err == ""
    github_logger = logging.getLogger("github")   # PyGithub's own StreamHandler at INFO is gone
    assert github_logger.level == logging.WARNING
    assert [h for h in github_logger.handlers if type(h) is logging.StreamHandler] == []
