"""A response body has a wall-clock budget: a server trickling bytes just inside the read timeout
cannot hold the run (the release asset download and the pack index read share bot.github.client.body_chunks)."""

from __future__ import annotations

import pytest

from bot.errors import PlatformError
from bot.github.client import BodyTooSlow, RetryPolicy, body_chunks


class _Trickle:
    """A streamed response whose raw stream hands out one byte per receive, forever."""

    class raw:
        calls = 0

        @classmethod
        def read1(cls, size, decode_content=True):
            cls.calls += 1
            return b"x"


def test_body_chunks_stop_after_the_budget_however_the_bytes_come():
    ticks = iter(range(0, 10**6, 10))          # each chunk seen costs 10 "seconds"
    got = []
    with pytest.raises(BodyTooSlow, match="took longer than 25 s"):
        for chunk in body_chunks(_Trickle, size=1 << 20, seconds=25, clock=lambda: next(ticks)):
            got.append(chunk)
    assert got == [b"x", b"x", b"x"]            # 10, 20, 30 s: the third chunk is the last


def test_body_chunks_read_what_each_receive_brought_not_whole_chunks():
    _Trickle.raw.calls = 0
    it = body_chunks(_Trickle, size=1 << 20, seconds=10**9, clock=lambda: 0)
    assert [next(it) for _ in range(5)] == [b"x"] * 5 and _Trickle.raw.calls == 5


def test_an_asset_download_over_its_budget_is_a_broken_transfer_retried_then_given_up(fake, tmp_path, monkeypatch):
    from test_github_units import _asset

    from bot.github import assets
    asset, _ = _asset(fake)
    monkeypatch.setattr(assets, "MAX_ASSET_SECONDS", -1)   # every body is over budget at its first chunk
    with pytest.raises(PlatformError, match="gave up") as info:
        assets.download_asset(asset, tmp_path, policy=RetryPolicy(attempts=2, sleep=lambda s: None))
    assert "took longer than -1 s" in str(info.value)
    assert info.value.exit_code == 3
    assert list(tmp_path.iterdir()) == []                   # no partial file left
    assert fake.count("GET", "/download/") == 2
