"""``command`` on hostile or broken events: look-alike prefixes, odd white space, bad arguments, malformed payloads.

Rules (docs/reviewers.md, :mod:`bot.events.verbs`, :mod:`bot.events.event`):
a comment that is not exactly ``/executorch-pack-bot`` in ASCII followed by
a space or a tab is no command (exit 0, action none, no request at all); a
command with a bad or extra argument is answered ``confused`` and does
nothing; a payload whose fields have the wrong JSON type is a malformed
event (exit 2 naming the file and the field, no write request), never an
internal error.
"""

from __future__ import annotations

import json

import pytest

from bot.cli import main
from bot.events import state as hidden
from bot.events.verbs import HELP, parse
from eventworld import PR_BODY, World
from fakegithub import TEMPLATE
from webhook_payloads import comment_event, issue_edited_event, review_event

NONE = {"action": "none", "version": "", "pr": ""}
CID = 5550001


@pytest.fixture
def w(tmp_path, monkeypatch, capsys):
    world = World(tmp_path, monkeypatch, capsys)
    yield world
    world.fake.stop()


def say(w, body, **kw):
    return w.command("issue_comment", comment_event(TEMPLATE, w.pr["number"], body, **kw))


def event_file(w) -> str:
    return str(w.tmp / f"event{w.n}.json")


@pytest.mark.needs("webhooks")
@pytest.mark.parametrize("body", [
    "/executorch-pac\u212a-bot recheck",          # KELVIN SIGN: Python's IGNORECASE takes it for 'k'
    "/EXECUTORCH-PAC\u212a-BOT RECHECK",
    "\u00a0/executorch-pack-bot recheck",         # no-break space before the prefix
    "/executorch-pack-bot\u00a0recheck",          # ... and after it
    "/executorch-pack-bot\u200brecheck",          # zero-width space
    "/executorch-pack-bot\u2028recheck",          # LINE SEPARATOR
    "/executorch-pack-bot\x0brecheck",            # vertical tab
    "/executorch-pack-bot\rrecheck",              # a lone CR
    "\u202e/executorch-pack-bot recheck",         # RIGHT-TO-LEFT OVERRIDE
    "\uff0fexecutorch-pack-bot recheck",          # FULLWIDTH SOLIDUS
])
def test_look_alikes_and_odd_white_space_are_no_command(w, body):
    code, out, err, outputs = say(w, body)
    assert (code, outputs, w.fake.requests) == (0, NONE, [])


@pytest.mark.parametrize("body, verb, args", [
    ("/executorch-pack-bot recheck", "recheck", ()),
    ("/Executorch-Pack-Bot ReCheck\t ", "recheck", ()),
    ("/executorch-pack-bot \trecheck", "recheck", ()),
    ("/executorch-pack-bot", "", ()),
    ("/executorch-pack-bot\nrecheck", "", ()),
    ("/executorch-pack-bot ignore  v1.5.1\r\nmore text", "ignore", ("v1.5.1",)),
    ("/executorch-pack-bot RE\u212aHECK", "RE\u212aHECK", ()),   # kept as written: unknown
])
def test_parse_reads_ascii_words_split_on_spaces_and_tabs(body, verb, args):
    cmd = parse(body)
    assert (cmd.verb, cmd.args) == (verb, args)


@pytest.mark.needs("webhooks")
@pytest.mark.parametrize("body", [
    "  /executorch-pack-bot recheck",         # leading blanks
    "\t/executorch-pack-bot recheck",         # a tab
    "\ufeff/executorch-pack-bot recheck",     # a byte-order mark
    "    /executorch-pack-bot recheck",       # a four-space indented code block: code, not a command
    "/executorch-pack-bot\trecheck",          # a tab right after the prefix
    "> /executorch-pack-bot recheck",         # a quote
])
def test_anything_before_the_prefix_or_a_tab_after_it_is_no_command(w, body):
    """The grammar the workflow's gate can state (docs/reviewers.md): the prefix at the first character, then a
    space, a line break or nothing."""
    assert parse(body) is None
    code, out, err, outputs = say(w, body)
    assert (code, outputs, w.fake.requests) == (0, NONE, [])


@pytest.mark.needs("webhooks")
@pytest.mark.parametrize("body", ["/executorch-pack-bot RE\u212aHECK", "/executorch-pack-bot recheck\u200b"])
def test_a_verb_with_a_look_alike_letter_is_unknown(w, body):
    code, out, err, outputs = say(w, body)
    assert (code, outputs) == (0, NONE)
    assert w.fake.reactions == {CID: ["confused"]}
    assert w.comments(w.pr["number"])[0].endswith(HELP)


@pytest.mark.needs("webhooks")
@pytest.mark.parametrize("body, extra", [
    ("/executorch-pack-bot recheck now", "now"),
    ("/executorch-pack-bot rebuild --force", "--force"),
    ("/executorch-pack-bot recreate please", "please"),
    ("/executorch-pack-bot ignore 1.5.1 1.6.0", "1.6.0"),
    ("/executorch-pack-bot ignore 1.5.1 ; rm -rf /", "; rm -rf /"),
    ("/executorch-pack-bot unignore 1.5.1 `x`", "`x`"),
])
def test_extra_arguments_are_refused_and_nothing_is_done(w, body, extra):
    code, out, err, outputs = say(w, body)
    n = w.pr["number"]
    verb = body.split()[1]
    takes = "one version X.Y.Z" if verb in ("ignore", "unignore") else "no argument"
    shown = f"`{extra}`" if "`" not in extra else f"`` {extra} ``"
    assert (code, outputs) == (0, NONE)
    assert w.fake.reactions == {CID: ["confused"]}
    assert w.comments(n) == [f"`{verb}` takes {takes} (also given: {shown}); nothing was done.\n\n{HELP}"]
    assert w.pr["state"] == "open" and w.pr["body"] == PR_BODY   # nothing written
    assert [s.method for s in w.fake.writes()] == ["POST", "POST"]


@pytest.mark.needs("webhooks")
def test_help_with_words_after_it_still_answers(w):
    code, out, err, outputs = say(w, "/executorch-pack-bot help me")
    assert (code, outputs, w.fake.reactions, w.comments(w.pr["number"])) == (0, NONE, {CID: ["+1"]}, [HELP])


@pytest.mark.needs("webhooks")
@pytest.mark.parametrize("arg", ["1.5.1;", "\u0661.\u0665.\u0661", "\uff11.\uff15.\uff11", "1" * 5000 + ".0.0",
                                 "1234567890.0.0", "v1.5.1\x00", "1.5.1-rc1"])
def test_a_version_argument_must_be_ascii_x_y_z(w, arg):
    code, out, err, outputs = say(w, f"/executorch-pack-bot ignore {arg}")
    assert (code, err, outputs) == (0, "", NONE)
    assert w.fake.reactions == {CID: ["confused"]}
    assert w.pr["state"] == "open" and w.pr["body"] == PR_BODY   # nothing written


@pytest.mark.needs("webhooks")
def test_a_hand_edited_state_with_odd_versions_is_read_without_them(w):
    w.pr["body"] = hidden.replace(w.pr["body"], {"ignored": ["\u0661.\u0665.\u0661", "9" * 5000 + ".0.0", "1.4.0"]})
    code, out, err, outputs = say(w, "/executorch-pack-bot ignore 1.6.0")
    assert (code, err, outputs["version"]) == (0, "", "1.6.0")
    assert hidden.load(w.pr["body"])["ignored"] == [{"version": "1.4.0", "pr": None},
                                                    {"version": "1.6.0", "pr": w.pr["number"]}]


@pytest.mark.needs("webhooks")
def test_a_title_version_in_other_digits_is_never_read(w):
    """The version comes from the bot's record of the PR (its hidden state), not from the title."""
    w.pr["title"] = "Bump ExecuTorch to \u0661.\u0665.\u0661"
    code, out, err, outputs = say(w, "/executorch-pack-bot recheck")
    assert (code, outputs) == (0, {"action": "recheck", "version": "1.5.1", "pr": str(w.pr["number"])})


@pytest.mark.needs("webhooks")
def test_a_recorded_version_in_other_digits_is_no_version(w):
    w.pr["body"] = hidden.replace(w.pr["body"], {"version": "\u0661.\u0665.\u0661"})
    code, out, err, outputs = say(w, "/executorch-pack-bot recheck")
    assert (code, outputs["action"], outputs["version"]) == (0, "none", "")
    assert "refused recheck" in out and "obeyed" not in out


BAD_FIELDS = [
    (lambda p: p.__setitem__("comment", "x"), "comment", "an object"),
    (lambda p: p.__setitem__("issue", ["pull_request"]), "issue", "an object"),
    (lambda p: p["comment"].__setitem__("body", 5), "comment.body", "a string"),
    (lambda p: p["comment"].__setitem__("user", "alice"), "comment.user", "an object"),
    (lambda p: p["comment"]["user"].__setitem__("login", 7), "comment.user.login", "a string"),
    (lambda p: p["issue"].__setitem__("number", "1"), "issue.number", "a positive integer"),
    (lambda p: p["issue"].__setitem__("number", 1.0), "issue.number", "a positive integer"),
    (lambda p: p["issue"].__setitem__("number", True), "issue.number", "a positive integer"),
    (lambda p: p["issue"].__setitem__("number", -1), "issue.number", "a positive integer"),
    (lambda p: p["comment"].__setitem__("id", True), "comment.id", "a positive integer"),
    (lambda p: p["comment"].__setitem__("id", 0), "comment.id", "a positive integer"),
]


@pytest.mark.needs("webhooks")
@pytest.mark.parametrize("i", range(len(BAD_FIELDS)))
def test_a_field_of_the_wrong_type_is_a_malformed_event(w, i):
    change, field, what = BAD_FIELDS[i]
    p = comment_event(TEMPLATE, w.pr["number"], "/executorch-pack-bot recheck")
    change(p)
    code, out, err, outputs = w.command("issue_comment", p)
    assert (code, err, outputs) == (2, f"executorch-pack-bot: error: {event_file(w)}: the event payload's {field} "
                                       f"is not {what}\n", {})
    assert w.fake.writes() == []


@pytest.mark.needs("webhooks")
@pytest.mark.parametrize("field", ["number", "id", "user"])
def test_a_command_without_its_number_id_or_author_is_a_malformed_event(w, field):
    p = comment_event(TEMPLATE, w.pr["number"], "/executorch-pack-bot recheck")
    (p["issue"] if field == "number" else p["comment"]).pop(field)
    code, out, err, outputs = w.command("issue_comment", p)
    assert (code, err) == (2, f"executorch-pack-bot: error: {event_file(w)}: the event payload has no issue.number, "
                              "comment.id or comment.user.login\n")
    assert w.fake.requests == []


@pytest.mark.needs("webhooks")
def test_a_null_pull_request_link_is_a_comment_on_an_issue(w):
    p = comment_event(TEMPLATE, w.pr["number"], "/executorch-pack-bot recheck")
    p["issue"]["pull_request"] = None
    assert w.command("issue_comment", p)[0::3] == (0, NONE)
    assert w.fake.requests == []


@pytest.mark.needs("webhooks")
def test_an_ordinary_comment_with_odd_other_fields_costs_nothing(w):
    p = comment_event(TEMPLATE, w.pr["number"], "LGTM")
    p["issue"]["number"] = "not a number"
    p["sender"] = "someone"
    assert w.command("issue_comment", p)[0::3] == (0, NONE)
    assert w.fake.requests == []


def raw_command(w, data: bytes):
    path = w.tmp / "raw.json"
    path.write_bytes(data)
    w.capsys.readouterr()
    code = main(["command", "--event-name", "issue_comment", "--event-path", str(path), "--repo", str(w.repo)])
    return code, w.capsys.readouterr().err, str(path)


@pytest.mark.parametrize("data", [b"[" * 100000, b'{"a":' * 100000])
def test_a_payload_nested_too_deeply_is_a_malformed_event(w, data):
    code, err, path = raw_command(w, data)
    assert (code, err) == (2, f"executorch-pack-bot: error: {path}: the event payload is nested too deeply to be "
                              "a webhook payload\n")
    assert w.fake.requests == []


@pytest.mark.needs("webhooks")
def test_a_payload_over_githubs_cap_is_refused_unread(w, monkeypatch):
    import bot.events.event as ev
    monkeypatch.setattr(ev, "MAX_PAYLOAD", 2**20)
    payload = comment_event(TEMPLATE, w.pr["number"], "/executorch-pack-bot recheck\n" + "x" * 2**20)
    code, err, path = raw_command(w, json.dumps(payload).encode())
    assert (code, err) == (2, f"executorch-pack-bot: error: {path}: the event payload is larger than 1 MiB, "
                              "GitHub's cap on a webhook payload\n")
    assert w.fake.requests == []


@pytest.mark.needs("webhooks")
def test_a_payload_at_the_cap_is_read(w, monkeypatch):
    import bot.events.event as ev
    payload = json.dumps(comment_event(TEMPLATE, w.pr["number"], "/executorch-pack-bot help")).encode()
    monkeypatch.setattr(ev, "MAX_PAYLOAD", len(payload))
    code, err, path = raw_command(w, payload)
    assert (code, err, w.fake.reactions) == (0, "", {CID: ["+1"]})


@pytest.mark.needs("webhooks")
def test_an_approval_with_fields_of_the_wrong_type_is_a_malformed_event(w):
    w.config("automerge: on-approval\n")
    p = review_event(TEMPLATE, w.pr)
    p["pull_request"]["number"] = "1"
    code, out, err, outputs = w.command("pull_request_review", p)
    assert (code, err) == (2, f"executorch-pack-bot: error: {event_file(w)}: the event payload's "
                              "pull_request.number is not a positive integer\n")
    assert w.fake.writes() == []
    p = review_event(TEMPLATE, w.pr)
    p["review"] = "approved"
    code, out, err, outputs = w.command("pull_request_review", p)
    assert (code, err) == (2, f"executorch-pack-bot: error: {event_file(w)}: the event payload's review is not "
                              "an object\n")


@pytest.mark.needs("webhooks")
def test_a_dashboard_edit_with_a_body_of_the_wrong_type_is_a_malformed_event(w):
    w.config("dashboard: true\n")
    issue = {"number": 77, "title": "x", "body": 5, "labels": [{"name": "executorch-pack-bot"}]}
    code, out, err, outputs = w.command("issues", issue_edited_event(TEMPLATE, issue, "before"))
    assert (code, err) == (2, f"executorch-pack-bot: error: {event_file(w)}: the event payload's issue.body is "
                              "not a string\n")
    assert w.fake.writes() == []


@pytest.mark.needs("webhooks")
def test_a_repo_that_is_not_a_folder_is_bad_usage_not_the_default_settings(w):
    w.repo = w.tmp / "no-such-checkout"
    code, out, err, outputs = say(w, "/executorch-pack-bot recheck")
    assert (code, err, outputs) == (2, f"executorch-pack-bot: error: --repo {w.repo}: not a directory\n", {})
    assert w.fake.requests == []


@pytest.mark.parametrize("kind", ["fifo", "folder", "device"])
def test_an_event_path_that_is_not_a_regular_file_is_refused_unread(w, kind):
    import os
    path = w.tmp / "event.json"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "folder":
        path.mkdir()
    else:
        path = "/dev/zero"
    w.capsys.readouterr()
    code = main(["command", "--event-name", "issue_comment", "--event-path", str(path), "--repo", str(w.repo)])
    assert (code, w.capsys.readouterr().err) == (
        2, f"executorch-pack-bot: error: {path}: the event payload is not a regular file\n")
    assert w.fake.requests == []
