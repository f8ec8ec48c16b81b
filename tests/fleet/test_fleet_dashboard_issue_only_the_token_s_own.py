"""The fleet dashboard issue is the one the token's own account opened (GraphQL ``viewer``): an older issue with the
same label and marker opened by another bot account (another App, or a workflow that copies people's text into
issues) is never edited, and is not taken for the dashboard."""

from __future__ import annotations

from github_world import cli
from test_fleet_summary import HOME, events_fake, planned  # noqa: F401 (fixtures)

MARK, LABEL = "<!-- executorch-pack-bot:fleet-dashboard -->", "executorch-pack-bot-fleet"


def test_another_bot_s_issue_with_the_marker_is_not_edited(events_fake, planned, tmp_path, capsys):
    other = events_fake.add_issue(HOME, title="Click here to claim", body=f"{MARK}\nanything", labels=[LABEL],
                                  user="other-app[bot]")
    run = ("fleet-summary", "--plan", str(planned), "--results", str(tmp_path / "results"), "--dashboard", HOME)
    code, out = cli(capsys, *run)
    assert code == 0, out.err
    assert events_fake.issues[HOME][other["number"]]["body"] == f"{MARK}\nanything"
    made = [i for i in events_fake.issues[HOME].values() if i["user"]["login"] == events_fake.bot_login]
    assert len(made) == 1 and made[0]["number"] != other["number"] and "acme/behind\\-a" in made[0]["body"]
    assert f"# fleet dashboard issue #{made[0]['number']}: created" in out.out
    code, out = cli(capsys, *run)   # the next run finds its own issue, not the older one
    assert code == 0 and f"# fleet dashboard issue #{made[0]['number']}: unchanged" in out.out


def test_a_token_whose_account_github_does_not_name_creates_nothing(events_fake, planned, tmp_path, capsys,
                                                                    monkeypatch):
    import fakegithub_events
    real = fakegithub_events.FakeGitHubEvents._graphql

    def no_viewer(self, body):
        if "viewer" in str(body.get("query", "")) and "login" in str(body.get("query", "")):
            return self._json({"data": {"viewer": None}})
        return real(self, body)

    monkeypatch.setattr(fakegithub_events.FakeGitHubEvents, "_graphql", no_viewer)
    before = len(events_fake.issues.get(HOME, {}))
    code, out = cli(capsys, "fleet-summary", "--plan", str(planned), "--results", str(tmp_path / "results"),
                    "--dashboard", HOME)
    assert code == 2 and "GitHub names no account for the token (GraphQL viewer)" in out.err
    assert len(events_fake.issues.get(HOME, {})) == before and events_fake.writes() == []
