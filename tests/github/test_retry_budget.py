"""The total wait of one operation follows the cap: three times $EXECUTORCH_PACK_BOT_MAX_WAIT.

The waits themselves (Retry-After in seconds or as an HTTP date, the rate-limit reset, the bound on one
operation's waits, a zero cap) are shown through the library retries in tests/github/test_retries_from_the_library.py.
"""

from __future__ import annotations


def test_the_budget_follows_the_environment_cap():
    from bot.github.client import RetryPolicy
    p = RetryPolicy.from_env({"EXECUTORCH_PACK_BOT_MAX_WAIT": "5"})
    assert p.max_wait == 5 and p.max_total == 15
