"""Comment commands on the bot's pull request (``executorch-pack-bot command`` on ``issue_comment`` events).

Payloads are GitHub's own examples (@octokit/webhooks-examples) adapted to
the template repository's bot PR; GitHub is the fake server.
"""

from __future__ import annotations

import pytest

from bot.events import state as hidden
from bot.events.comment_commands import NOT_ALLOWED
from bot.events.verbs import HELP
from eventworld import PR_BODY, TOKEN, World
from fakegithub import TEMPLATE
from webhook_payloads import comment_event

NONE = {"action": "none", "version": "", "pr": ""}
CID = 5550001


@pytest.fixture
def w(tmp_path, monkeypatch, capsys):
    world = World(tmp_path, monkeypatch, capsys)
    yield world
    world.fake.stop()


def say(w, body, login="alice", **kw):
    return w.command("issue_comment", comment_event(TEMPLATE, kw.pop("number", w.pr["number"]), body,
                                                    login=login, **kw))


def reply_writes(w, number):
    return [("POST", f"/repos/{TEMPLATE}/issues/comments/{CID}/reactions"),
            ("POST", f"/repos/{TEMPLATE}/issues/{number}/comments")]


@pytest.mark.needs("webhooks")
@pytest.mark.parametrize("login", ["alice", "mia", "ada"])
@pytest.mark.parametrize("verb", ["recheck", "rebuild", "recreate"])
def test_a_writer_starts_a_run(w, verb, login):
    code, out, err, outputs = say(w, f"/executorch-pack-bot {verb}\nplease, the CI was flaky", login=login)
    n = w.pr["number"]
    assert (code, outputs) == (0, {"action": verb, "version": "1.5.1", "pr": str(n)})
    assert w.fake.reactions == {CID: ["+1"]}
    assert w.writes() == reply_writes(w, n)
    assert len(w.comments(n)) == 1 and w.comments(n)[0].startswith(f"`{verb}`: ")
    assert w.pr["state"] == "open"


@pytest.mark.needs("webhooks")
def test_recreate_says_foreign_commits_are_discarded(w):
    say(w, "/executorch-pack-bot recreate")
    assert "not the bot's are discarded" in w.comments(w.pr["number"])[0]


@pytest.mark.needs("webhooks")
def test_help_replies_with_the_list(w):
    code, out, err, outputs = say(w, "/executorch-pack-bot help", login="ada")
    assert (code, outputs) == (0, NONE)
    assert w.fake.reactions == {CID: ["+1"]}
    assert w.comments(w.pr["number"]) == [HELP]


@pytest.mark.needs("webhooks")
@pytest.mark.parametrize("login", ["rita", "tom", "stranger"])
@pytest.mark.parametrize("verb", ["recheck", "rebuild", "recreate", "ignore", "unignore 1.5.1", "help", "frobnicate"])
def test_a_user_without_write_permission_gets_one_short_reply(w, verb, login):
    code, out, err, outputs = say(w, f"/executorch-pack-bot {verb}", login=login)
    n = w.pr["number"]
    assert (code, outputs) == (0, NONE)
    assert w.fake.reactions == {CID: ["-1"]}
    assert w.comments(n) == [f"{NOT_ALLOWED}\n\n<!-- executorch-pack-bot:not-allowed {login} -->"]
    assert w.writes() == reply_writes(w, n)
    assert w.pr["state"] == "open" and w.pr["body"] == PR_BODY


@pytest.mark.needs("webhooks")
def test_a_user_without_write_permission_gets_one_reply_per_pull_request(w):
    """Three commands by rita, two by tom: three -1 reactions... and one reply per person."""
    n = w.pr["number"]
    for i, (login, verb) in enumerate([("rita", "recheck"), ("rita", "rebuild"), ("Rita", "help"), ("tom", "help"),
                                       ("tom", "recheck")]):
        say(w, f"/executorch-pack-bot {verb}", login=login, comment_id=CID + i)
    assert w.fake.reactions == {CID + i: ["-1"] for i in range(5)}
    assert w.comments(n) == [f"{NOT_ALLOWED}\n\n<!-- executorch-pack-bot:not-allowed rita -->",
                             f"{NOT_ALLOWED}\n\n<!-- executorch-pack-bot:not-allowed tom -->"]


@pytest.mark.needs("webhooks")
def test_a_look_alike_reply_written_by_someone_else_does_not_silence_the_bot(w):
    """A comment carrying the hidden line, but not by the bot's own account, is no earlier reply."""
    n = w.pr["number"]
    w.fake.repo(TEMPLATE).comments.setdefault(n, []).append(
        {"id": 1, "node_id": "IC_1", "body": "<!-- executorch-pack-bot:not-allowed rita -->",
         "user": w.fake._user("mallory"), "url": "", "html_url": "", "issue_url": "", "author_association": "NONE",
         "created_at": "2026-01-01T00:00:00Z", "updated_at": "2026-01-01T00:00:00Z"})
    say(w, "/executorch-pack-bot recheck", login="rita")
    assert w.comments(n)[1:] == [f"{NOT_ALLOWED}\n\n<!-- executorch-pack-bot:not-allowed rita -->"]


@pytest.mark.needs("webhooks")
def test_the_permission_api_decides_not_author_association(w):
    """The example payload says author_association OWNER; the API says read: refused."""
    code, out, err, outputs = say(w, "/executorch-pack-bot recheck", login="rita")
    assert outputs == NONE
    asked = [s.path for s in w.fake.requests if "/permission" in s.path]
    assert asked == [f"/repos/{TEMPLATE}/collaborators/rita/permission"]


@pytest.mark.needs("webhooks")
@pytest.mark.parametrize("login", ["renovate[bot]", "dependabot[bot]", "github-actions[bot]"])
@pytest.mark.parametrize("verb", ["recheck", "rebuild", "recreate", "ignore", "unignore 1.5.1", "help", "zap"])
def test_bots_are_ignored_without_a_request(w, verb, login):
    code, out, err, outputs = say(w, f"/executorch-pack-bot {verb}", login=login, kind="Bot")
    assert (code, outputs) == (0, NONE)
    assert w.fake.requests == []


@pytest.mark.needs("webhooks")
def test_unknown_verb_gets_confused_and_the_help(w):
    code, out, err, outputs = say(w, "/executorch-pack-bot rebase @everyone")
    assert (code, outputs) == (0, NONE)
    assert w.fake.reactions == {CID: ["confused"]}
    assert w.comments(w.pr["number"]) == ["Unknown command `rebase`.\n\n" + HELP]


@pytest.mark.needs("webhooks")
def test_bare_prefix_is_an_unknown_verb(w):
    say(w, "/executorch-pack-bot")
    assert w.fake.reactions == {CID: ["confused"]}


@pytest.mark.needs("webhooks")
def test_foreign_text_in_a_verb_is_quoted_inert(w):
    say(w, "/executorch-pack-bot <!--@everyone#1")
    reply = w.comments(w.pr["number"])[0]
    assert reply.startswith("Unknown command `<!--@everyone#1`.")


@pytest.mark.needs("webhooks")
@pytest.mark.parametrize("body", ["please /executorch-pack-bot recheck", "thanks!\n/executorch-pack-bot recheck",
                                  "/executorch-pack-botrecheck", "@executorch-pack-bot recheck"])
def test_the_command_must_open_the_first_line(w, body):
    code, out, err, outputs = say(w, body)
    assert (code, outputs, w.fake.requests) == (0, NONE, [])


@pytest.mark.needs("webhooks")
def test_a_comment_on_another_pull_request_is_ignored_without_a_write(w):
    code, out, err, outputs = say(w, "/executorch-pack-bot recheck", number=w.other["number"])
    assert (code, outputs) == (0, NONE)
    assert w.writes() == []
    assert w.fake.reactions == {}


@pytest.mark.needs("webhooks")
def test_a_comment_on_an_issue_is_ignored_without_a_request(w):
    code, out, err, outputs = say(w, "/executorch-pack-bot recheck", number=40, on_pr=False)
    assert (code, outputs, w.fake.requests) == (0, NONE, [])


@pytest.mark.needs("webhooks")
def test_a_pr_from_a_fork_on_the_bot_branch_name_is_not_the_bots(w):
    fork = w.fake.add_pull(TEMPLATE, head="executorch-pack-bot/executorch", title="Bump ExecuTorch to 9.9.9",
                           body=w.pr["body"], head_repo="mallory/fw-template", user="mallory")
    code, out, err, outputs = say(w, "/executorch-pack-bot recheck", number=fork["number"])
    assert (outputs, w.writes()) == (NONE, [])


@pytest.mark.needs("webhooks")
@pytest.mark.parametrize("action", ["edited", "deleted"])
def test_edited_and_deleted_comments_are_ignored_without_a_request(w, action):
    code, out, err, outputs = say(w, "/executorch-pack-bot recheck", action=action)
    assert (code, outputs, w.fake.requests) == (0, NONE, [])


# ------------------------------------------------------------------ ignore without a dashboard
@pytest.mark.needs("webhooks")
def test_ignore_closes_the_pr_and_keeps_the_version_in_its_state(w):
    code, out, err, outputs = say(w, "/executorch-pack-bot ignore")
    n = w.pr["number"]
    assert (code, outputs) == (0, {"action": "ignore", "version": "1.5.1", "pr": str(n)})
    assert w.pr["state"] == "closed"
    assert hidden.load(w.pr["body"]) == {"ignored": [{"version": "1.5.1", "pr": n}], "closed_by": "ignore",
                                         "version": "1.5.1"}   # the publisher's record kept
    assert w.fake.reactions == {CID: ["+1"]}
    assert w.comments(n) == ["Ignoring ExecuTorch 1.5.1: the scheduled run skips it and proposes the next newer "
                             "release. Closing this pull request. To undo, comment "
                             "`/executorch-pack-bot unignore 1.5.1`."]
    assert w.writes() == [("PATCH", f"/repos/{TEMPLATE}/pulls/{n}")] + reply_writes(w, n)


@pytest.mark.needs("webhooks")
def test_ignore_another_version_keeps_the_pr_open(w):
    code, out, err, outputs = say(w, "/executorch-pack-bot ignore v1.6.0")
    assert outputs["action"] == "ignore" and outputs["version"] == "1.6.0"
    assert w.pr["state"] == "open"
    assert hidden.load(w.pr["body"]) == {"ignored": [{"version": "1.6.0", "pr": w.pr["number"]}], "version": "1.5.1"}


@pytest.mark.needs("webhooks")
def test_unignore_undoes_ignore(w):
    say(w, "/executorch-pack-bot ignore")
    code, out, err, outputs = say(w, "/executorch-pack-bot unignore 1.5.1")
    assert outputs == {"action": "unignore", "version": "1.5.1", "pr": str(w.pr["number"])}
    assert hidden.load(w.pr["body"])["ignored"] == []


@pytest.mark.needs("webhooks")
def test_unignore_of_a_version_not_ignored_changes_nothing(w):
    code, out, err, outputs = say(w, "/executorch-pack-bot unignore 1.2.3")
    assert outputs == NONE
    assert w.writes() == reply_writes(w, w.pr["number"])


@pytest.mark.needs("webhooks")
@pytest.mark.parametrize("body", ["/executorch-pack-bot ignore latest", "/executorch-pack-bot unignore",
                                  "/executorch-pack-bot ignore 1.5"])
def test_ignore_needs_a_version(w, body):
    code, out, err, outputs = say(w, body)
    assert (code, outputs) == (0, NONE)
    assert w.fake.reactions == {CID: ["confused"]}
    assert w.pr["state"] == "open" and w.pr["body"] == PR_BODY   # nothing written


@pytest.mark.needs("webhooks")
def test_run_verbs_on_a_closed_pr_do_nothing(w):
    w.pr["state"] = "closed"
    code, out, err, outputs = say(w, "/executorch-pack-bot rebuild")
    assert outputs == NONE and w.fake.reactions == {CID: ["confused"]}


# ------------------------------------------------------------------ the event itself
def test_missing_or_malformed_event_exits_2(w, tmp_path, capsys):
    from bot.cli import main
    assert main(["command", "--event-name", "issue_comment", "--event-path", str(tmp_path / "nope.json")]) == 2
    bad = tmp_path / "bad.json"
    bad.write_text("{\n  'action': 1\n}\n")
    capsys.readouterr()
    assert main(["command", "--event-name", "issue_comment", "--event-path", str(bad)]) == 2
    err = capsys.readouterr().err
    assert f"{bad}:2:" in err and "Traceback" not in err
    bad.write_text('{"action": "created"}')
    assert main(["command", "--event-name", "issue_comment", "--event-path", str(bad)]) == 2
    assert main(["command", "--event-path", str(bad)]) == 2
    assert w.fake.requests == []


@pytest.mark.needs("webhooks")
def test_the_token_never_appears_in_any_output(w):
    results = [say(w, f"/executorch-pack-bot {v}", login=u) for v in ("recheck", "help", "zap", "ignore 1.6.0")
               for u in ("alice", "rita")]
    for code, out, err, outputs in results:
        assert TOKEN not in out + err + repr(outputs)
    assert all(TOKEN not in repr(s.body) + s.path for s in w.fake.requests)
    assert all(s.headers.get("Authorization") == f"token {TOKEN}" or s.headers.get("Authorization") == f"Bearer {TOKEN}"
               for s in w.fake.requests)


@pytest.mark.needs("webhooks")
def test_a_pr_on_the_bot_branch_without_the_fingerprint_is_not_the_bots(w):
    """A person opened it from the bot's branch (or removed the marker): not the bot's PR, no write."""
    mine = w.fake.add_pull(TEMPLATE, head="executorch-pack-bot/executorch", title="Bump ExecuTorch to 1.5.1",
                           body="my own bump", user="bob", base="release")
    code, out, err, outputs = say(w, "/executorch-pack-bot ignore", number=mine["number"])
    assert (outputs, w.writes(), mine["state"]) == (NONE, [], "open")


@pytest.mark.needs("webhooks")
def test_a_per_version_branch_track_is_recognised(w):
    w.config("branch: bot/executorch-{version}\n")
    pr = w.fake.add_pull(TEMPLATE, head="bot/executorch-1.6.0", title="Bump ExecuTorch to 1.6.0", body=w.pr["body"])
    code, out, err, outputs = say(w, "/executorch-pack-bot rebuild", number=pr["number"])
    assert outputs == {"action": "rebuild", "version": "1.6.0", "pr": str(pr["number"])}
    code, out, err, outputs = say(w, "/executorch-pack-bot rebuild")     # the default branch is not this track
    assert outputs == NONE
