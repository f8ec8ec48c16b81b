"""The dashboard's state is read only where nobody but the bot wrote it: its state comment, checked by editor.

A person who edits the dashboard's body (a forged ``ignored`` list that
would make scheduled runs skip releases) is undone by the bot, but a run
that reads before the undo must not see it: the state lives in the bot's
own comment on the issue, read with its author and last editor in one
GraphQL query (``viewerDidAuthor``, ``editor``).  GitHub is the fake server
(its GraphQL answers as GitHub's reference says, a ``Bot`` editor without
the ``[bot]`` suffix).
"""

from __future__ import annotations

import pytest

from bot.cli import main
from bot.config import load_config
from bot.events import state as hidden
from bot.events.context import Api
from bot.events.dashboard import (LABEL, MARKER, STATE_MARKER, TITLE, DashboardStore, account, render,
                                  state_comment)
from bot.github.client import make_github
from eventworld import TOKEN, dashboard_world, run_dashboard
from fakegithub import TEMPLATE, UPSTREAM

FORGED = {"ignored": [{"version": "1.5.1", "pr": None}], "pinned": "1.4.0"}


@pytest.fixture
def w(template, tmp_path, monkeypatch, capsys):
    world = dashboard_world(tmp_path, monkeypatch, capsys)
    yield world
    world.fake.stop()


def dashboard(w, outcome="up to date"):
    return run_dashboard(w, outcome)


def scheduled_target(w) -> str:
    """What a scheduled run (``check --respect-ignored``) targets: ``1.5.1``, or the pinned ``1.4.0`` when 1.5.1
    is ignored."""
    w.capsys.readouterr()
    assert main(["check", "--repo", str(w.repo), "--upstream", f"github:{UPSTREAM}", "--respect-ignored"]) == 0
    out = w.capsys.readouterr().out
    return next((x.split("=", 1)[1] for x in out.splitlines() if x.startswith("target=")), "")


def the_dashboard(w):
    [issue] = w.fake.issues[TEMPLATE].values()
    [state] = [c for c in w.fake.repo(TEMPLATE).comments.get(issue["number"], [])
               if c["body"].startswith(STATE_MARKER)]
    return issue, state


def test_forged_state_in_the_body_is_never_read_even_before_the_undo(w):
    assert dashboard(w)[0] == 0
    issue, state = the_dashboard(w)
    before = dict(state)
    # a person (any permission) puts an ignored list into the body; the bot has not undone it yet
    w.fake.edit_issue(TEMPLATE, issue["number"], hidden.replace(issue["body"], FORGED), "tom")
    assert scheduled_target(w) == "1.5.1"                # 1.5.1 is still proposed: the body is not read
    assert dashboard(w, "failed: x")[0] == 0             # a run refreshing the dashboard does not take it either
    assert "ignored" not in hidden.load(the_dashboard(w)[1]["body"])
    assert hidden.load(issue["body"])["run"]["outcome"] == "failed: x" and "ignored" not in hidden.load(issue["body"])
    assert the_dashboard(w)[1]["id"] == before["id"]     # the same state comment, edited in place


def test_a_state_comment_edited_by_someone_else_is_not_read_and_is_overwritten(w):
    assert dashboard(w)[0] == 0
    issue, state = the_dashboard(w)
    w.fake.edit_comment(TEMPLATE, state["id"], state_comment(FORGED), "maintainer")   # even a writer's edit
    assert scheduled_target(w) == "1.5.1"
    assert dashboard(w, "failed: y")[0] == 0
    _, state = the_dashboard(w)
    assert state["editor"] == w.fake.bot_login
    assert hidden.load(state["body"]) == {**hidden.load(issue["body"])} and "ignored" not in hidden.load(state["body"])


def test_the_bots_own_edits_of_the_state_comment_are_read(w):
    # the bot's account as GraphQL names an editor: github-actions (a Bot), REST's github-actions[bot]
    assert account({"__typename": "Bot", "login": "github-actions"}) == "github-actions[bot]"
    assert account({"__typename": "User", "login": "tom"}) == "tom" and account(None) == ""
    assert dashboard(w)[0] == 0
    _, state = the_dashboard(w)
    # the bot writes an ignored list through its own request (PATCH: the editor is the bot)
    DashboardStore(Api(make_github(TOKEN), TEMPLATE), load_config(w.repo)).write([{"version": "1.5.1", "pr": 1}],
                                                                                 w.pr)
    assert the_dashboard(w)[1]["editor"] == w.fake.bot_login and scheduled_target(w) == "1.4.0"


def test_a_comment_by_someone_else_carrying_the_marker_is_not_the_state(w):
    assert dashboard(w)[0] == 0
    issue, _ = the_dashboard(w)
    w.fake.repo(TEMPLATE).comments[issue["number"]].insert(0, w.fake.add_comment(
        TEMPLATE, 999, state_comment(FORGED), "tom"))
    assert scheduled_target(w) == "1.5.1"


def test_a_dashboard_from_before_the_state_comment_keeps_its_ignored_versions(w):
    st = {"ignored": [{"version": "1.5.1", "pr": 4}], "pinned": "1.4.0", "scheduled": "2026-11-30"}
    old = w.fake.add_issue(TEMPLATE, title=TITLE, body=render(st), labels=[LABEL])   # written by the bot
    w.fake.add_comment(TEMPLATE, old["number"], "thanks, bot", "tom")
    asked = len(w.fake.graphql)
    assert scheduled_target(w) == "1.4.0"                       # read from the body the bot wrote
    queries = [g["query"].split("(")[0].strip() for g in w.fake.graphql[asked:]]
    assert queries == ["query { viewer { login __typename } }".split("(")[0], "query DashboardState"]   # one page
    assert dashboard(w)[0] == 0
    issue, state = the_dashboard(w)
    assert issue["number"] == old["number"]
    assert hidden.load(state["body"])["ignored"] == [{"version": "1.5.1", "pr": 4}]
    assert hidden.load(state["body"])["scheduled"] == "2026-11-30"
    # from now on the state comment is the one read: a later forged body changes nothing
    w.fake.edit_issue(TEMPLATE, issue["number"], hidden.replace(issue["body"], {"ignored": []}), "tom")
    assert scheduled_target(w) == "1.4.0"


def test_an_old_dashboard_body_last_edited_by_someone_else_is_not_migrated(w):
    old = w.fake.add_issue(TEMPLATE, title=TITLE, body=f"{MARKER}\n", labels=[LABEL])
    w.fake.edit_issue(TEMPLATE, old["number"], render(FORGED), "tom")
    assert scheduled_target(w) == "1.5.1"
    assert dashboard(w)[0] == 0
    _, state = the_dashboard(w)
    assert "ignored" not in hidden.load(state["body"])


def test_the_state_comment_is_found_past_the_first_hundred_comments(w):
    st = {"ignored": [{"version": "1.5.1", "pr": 4}], "pinned": "1.4.0"}
    old = w.fake.add_issue(TEMPLATE, title=TITLE, body=render(st), labels=[LABEL])
    for k in range(150):                                   # people talk on the dashboard first
        w.fake.add_comment(TEMPLATE, old["number"], f"comment {k}", "tom")
    assert dashboard(w)[0] == 0                            # the state moves into a comment: the 151st
    assert dashboard(w, "failed: z")[0] == 0
    issue, state = the_dashboard(w)                        # one state comment, found on the second page
    assert hidden.load(state["body"])["ignored"] == [{"version": "1.5.1", "pr": 4}]
    assert hidden.load(state["body"])["run"]["outcome"] == "failed: z"
    pages = [g["variables"] for g in w.fake.graphql if g["query"].lstrip().startswith("query DashboardState(")]
    assert [p["after"] for p in pages[-2:]] == [None, "100"]
    assert scheduled_target(w) == "1.4.0"


def test_one_store_writing_twice_keeps_one_state_comment(w):
    store = DashboardStore(Api(make_github(TOKEN), TEMPLATE), load_config(w.repo))
    store.write([{"version": "1.5.1", "pr": 1}], w.pr)       # creates the issue and its state comment
    store.write([{"version": "1.6.0", "pr": 2}], w.pr)       # edits that comment
    issue, state = the_dashboard(w)
    assert hidden.load(state["body"]) == {"ignored": [{"version": "1.6.0", "pr": 2}]}
    n = issue["number"]
    assert w.writes() == [("POST", f"/repos/{TEMPLATE}/issues"), ("POST", f"/repos/{TEMPLATE}/issues/{n}/comments"),
                          ("PATCH", f"/repos/{TEMPLATE}/issues/{n}"),
                          ("PATCH", f"/repos/{TEMPLATE}/issues/comments/{state['id']}")]
