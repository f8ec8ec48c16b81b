"""The bot knows itself by the account its token acts as, in the form REST gives it (``NAME[bot]``).

GraphQL ``viewer`` answers ``NAME[bot]`` for an installation token
(fullsend-ai/fullsend#1953) while a ``Bot`` actor elsewhere in GraphQL has
no suffix (fullsend-ai/fullsend#6205): whichever form the viewer comes in,
the bot must find its own dashboard again and never open a second one.
The REST issues listing is filtered with ``creator=NAME[bot]``, the login
as REST gives it (``app/NAME`` is search syntax, not a login).
"""

from __future__ import annotations

import pytest

from bot.events.dashboard import LABEL
from eventworld import dashboard_world, run_dashboard
from fakegithub import TEMPLATE


@pytest.fixture
def w(template, tmp_path, monkeypatch, capsys):
    world = dashboard_world(tmp_path, monkeypatch, capsys)
    yield world
    world.fake.stop()


def dashboard(w, outcome):
    return run_dashboard(w, outcome)[0]


@pytest.mark.parametrize("viewer, bot", [("my-app[bot]", False), ("my-app", True)])
def test_the_dashboard_is_found_again_whichever_form_the_viewer_login_takes(w, viewer, bot):
    w.fake.bot_login = "my-app[bot]"                  # REST: the issue's user.login
    w.fake.viewer, w.fake.viewer_bot = viewer, bot    # GraphQL: viewer { login __typename }
    assert dashboard(w, "up to date") == 0
    [issue] = w.fake.issues[TEMPLATE].values()
    issue["labels"] = []                              # a person removes the label: found by its author
    assert dashboard(w, "failed: x") == 0
    assert [i["number"] for i in w.fake.issues[TEMPLATE].values()] == [issue["number"]]
    assert "failed: x" in issue["body"]
    listed = [r for r in w.fake.requests if r.method == "GET" and r.path == f"/repos/{TEMPLATE}/issues"]
    assert [r.query.get("creator") for r in listed][-1] == "my-app[bot]"
    assert [r.query.get("labels") for r in listed][-2] == LABEL
