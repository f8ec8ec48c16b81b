"""The one list reader (bot.github.pages) follows every page, and says so when its stated bound cuts a list short.

GitHub REST docs, "Using pagination in the REST API": ``per_page`` at most
100, the ``Link`` header's ``rel="next"`` names the next page; the fake
serves lists exactly so (tests/worlds/fakegithub.py).  GraphQL docs, "Using
pagination in the GraphQL API": ``pageInfo { hasNextPage endCursor }``.
"""

from __future__ import annotations

import pytest

from bot.errors import PlatformError
from bot.github import pages
from bot.github.client import call, make_github
from fakegithub import TEMPLATE, FakeGitHub


@pytest.fixture
def fake():
    f = FakeGitHub()
    f.start()
    for i in range(250):
        f.add_pull(TEMPLATE, head=f"feature/{i}", title="x", body="", user="bob")
    yield f
    f.stop()


def gh(fake):
    return make_github("ghs_READERSECRET0123", base_url=fake.url)


def test_every_page_is_read_and_per_page_is_100(fake):
    got = pages.rest(gh(fake).requester, f"/repos/{TEMPLATE}/pulls", {"state": "all"}, what="list", call=call)
    assert (len(got), got.complete, got.pages) == (250, True, 3)
    assert [s.query.get("per_page") for s in fake.requests if s.path.endswith("/pulls")] == ["100"] * 3
    assert len({p["number"] for p in got}) == 250


def test_the_bound_cuts_the_list_short_and_says_so(fake):
    said = []
    got = pages.rest(gh(fake).requester, f"/repos/{TEMPLATE}/pulls", {"state": "all"}, what="list pull requests",
                     call=call, max_pages=2, warn=said.append)
    assert (len(got), got.complete, got.pages) == (200, False, 2)
    assert said == [got.cut_note] and "stopped after 2 pages (200 items)" in said[0]


def test_a_paginated_list_of_pygithub_is_read_through_the_bound(fake):
    said = []
    repo = gh(fake).get_repo(TEMPLATE)
    got = pages.every(repo.get_pulls(state="all"), what="list", call=call, max_items=120, warn=said.append)
    assert (len(got), got.complete, len(said)) == (120, False, 1)
    assert len(pages.every(repo.get_pulls(state="all"), what="list", call=call)) == 250


def test_a_graphql_connection_is_read_to_its_end_and_a_repeated_cursor_is_refused():
    data = [{"nodes": [{"n": i} for i in range(k * 100, k * 100 + 100)],
             "pageInfo": {"hasNextPage": k < 2, "endCursor": str(k)}} for k in range(3)]
    asked = []

    def fetch(after):
        asked.append(after)
        return data[0 if after is None else int(after) + 1]
    got = pages.connection(fetch, what="list")
    assert (len(got), got.complete, asked) == (300, True, [None, "0", "1"])
    with pytest.raises(PlatformError, match="no new endCursor"):
        pages.connection(lambda after: {"nodes": [], "pageInfo": {"hasNextPage": True, "endCursor": "x"}},
                         what="list")
