"""Retries of transient GitHub failures: Retry-After (seconds or an HTTP date) and the rate-limit
reset are honoured, and one operation waits at most three times the cap in total
($EXECUTORCH_PACK_BOT_MAX_WAIT).
"""

from __future__ import annotations

import pytest


def _always_503():
    from github import GithubException
    raise GithubException(503, {"message": "busy"}, {"Retry-After": "10"})


def test_retry_after_as_an_http_date_and_the_rate_limit_reset_are_honoured():
    from email.utils import formatdate

    from bot.github.client import RetryPolicy
    p = RetryPolicy(backoff=1, max_wait=60)
    now = 1_800_000_000.0
    assert p.delay(0, {"Retry-After": formatdate(now + 20, usegmt=True)}, now=now) == pytest.approx(20)
    assert p.delay(0, {"Retry-After": formatdate(now - 20, usegmt=True)}, now=now) == 0
    assert p.delay(0, {"Retry-After": "999999"}, now=now) == 60
    assert p.delay(0, {"Retry-After": "garbage"}, now=now) == 1
    primary = {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": str(int(now) + 42)}
    assert p.delay(0, primary, now=now) == pytest.approx(42)
    assert RetryPolicy.is_transient(403, "Forbidden", primary)
    assert not RetryPolicy.is_transient(403, "Forbidden", {"X-RateLimit-Remaining": "4999"})


def test_one_operation_waits_at_most_three_times_the_cap_in_total():
    from bot.errors import PlatformError
    from bot.github.client import RetryPolicy, call
    slept = []
    policy = RetryPolicy(attempts=20, max_wait=10, sleep=slept.append)
    with pytest.raises(PlatformError) as e:
        call(_always_503, "list the releases", policy)
    assert slept == [10, 10, 10]          # each wait capped at 10 s, all of them at 30 s
    assert "waited 30 s in all" in str(e.value)


def test_a_short_last_wait_uses_up_the_budget_exactly():
    from bot.github.client import RetryPolicy
    policy = RetryPolicy(attempts=20, max_wait=4, backoff=3, sleep=lambda s: None)
    got = [policy.wait(n) for n in range(6)]
    assert policy.waits == [3, 4, 4, 1] and got == [True, True, True, True, False, False]


def test_the_budget_follows_the_environment_cap():
    from bot.github.client import RetryPolicy
    p = RetryPolicy.from_env({"EXECUTORCH_PACK_BOT_MAX_WAIT": "5"})
    assert p.max_wait == 5 and p.max_total == 15


def test_a_zero_cap_never_stops_the_retries_early():
    from bot.errors import PlatformError
    from bot.github.client import RetryPolicy, call
    policy = RetryPolicy(attempts=4, max_wait=0, sleep=lambda s: None)
    with pytest.raises(PlatformError, match="after 4 attempts"):
        call(_always_503, "x", policy)
