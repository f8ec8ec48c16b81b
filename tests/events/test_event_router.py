"""The event router: handlers keyed by (event, action), each stating its rule; events nobody handles."""

from __future__ import annotations

from bot.cli import main
from bot.events.router import Router, load_behaviours


def test_handlers_are_keyed_by_event_and_action():
    r = Router()
    seen = []

    @r.register("issue_comment", action="created")
    def created(event, ctx):
        seen.append("created")

    @r.register("issue_comment")
    def every(event, ctx):
        seen.append("every")

    class E:
        name, action = "issue_comment", "created"
    assert r.dispatch(E, None) == 2 and seen == ["created", "every"]
    E.action = "edited"
    assert r.dispatch(E, None) == 1 and seen == ["created", "every", "every"]
    E.name = "push"
    assert r.dispatch(E, None) == 0


def test_every_behaviour_states_its_rule_and_listens_where_the_workflow_sends_events():
    r = load_behaviours()
    routes = {key: [fn.__name__ for fn in fns] for key, fns in r._routes.items()}
    assert routes == {("issue_comment", "created"): ["comment_command"],
                      ("pull_request_review", "submitted"): ["approval_enables_automerge"],
                      ("pull_request_review", "dismissed"): ["dismissal_turns_automerge_off"],
                      ("pull_request_target", "labeled"): ["hold_label_turns_automerge_off"],
                      ("pull_request_target", "converted_to_draft"): ["draft_turns_automerge_off"],
                      ("pull_request_target", "synchronize"): ["push_turns_automerge_off"],
                      ("issues", "edited"): ["check_now"]}
    for fns in r._routes.values():
        for fn in fns:
            assert fn.__doc__ and len(fn.__doc__.split()) > 15, fn.__name__


def test_an_event_no_behaviour_handles_is_nothing_to_do(tmp_path, monkeypatch, capsys):
    p = tmp_path / "push.json"
    p.write_text('{"ref": "refs/heads/main", "repository": {"full_name": "acme/fw-template"}}')
    out = tmp_path / "out"
    monkeypatch.setenv("GITHUB_OUTPUT", str(out))
    monkeypatch.setenv("GITHUB_API_URL", "http://127.0.0.1:9")   # never contacted
    assert main(["command", "--event-name", "push", "--event-path", str(p), "--repo", str(tmp_path)]) == 0
    assert "# push: no handler; nothing to do\naction=none\nversion=\npr=\n" == capsys.readouterr().out
