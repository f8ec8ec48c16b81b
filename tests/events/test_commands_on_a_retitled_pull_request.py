"""What the bot's PR proposes comes from the bot's own record, never from the title people edit.

A person, a ticket system (``TICKET-123 ...``) or a conventional-commit
title check (``chore(deps): bump ...``) may rewrite the bot's PR title; the
publisher keeps such an edit until its proposal changes.  ``recheck`` must
still run for the PR's version, ``ignore`` must still ignore that version and
close the PR, and the job log must say what was really done (``obeyed`` only
for a command that was carried out).  The version is read from the branch of
a ``{version}`` track or from the hidden state the publisher writes
(:func:`bot.events.state.proposed_version`, :func:`bot.github.publish.recorded`).
"""

from __future__ import annotations

import pytest

from bot.events import state as hidden
from eventworld import World
from fakegithub import TEMPLATE
from test_fleet_plan_ignored_versions import efake  # noqa: F401 - the fleet plan's fake GitHub, as a fixture
from webhook_payloads import comment_event

TITLES = ["TICKET-123 Bump ExecuTorch to 1.5.1", "chore(deps): bump ExecuTorch to 1.5.1",
          "Bump ExecuTorch 1.4.0 -> 1.5.1 (needs board test)", "Bump ExecuTorch to 9.9.9", ""]


@pytest.fixture
def w(tmp_path, monkeypatch, capsys):
    world = World(tmp_path, monkeypatch, capsys)
    yield world
    world.fake.stop()


def say(w, body, number=None):
    return w.command("issue_comment", comment_event(TEMPLATE, number or w.pr["number"], body, login="alice"))


@pytest.mark.needs("webhooks")
@pytest.mark.parametrize("title", TITLES)
def test_recheck_runs_for_the_recorded_version_whatever_the_title(w, title):
    w.pr["title"] = title
    code, out, err, outputs = say(w, "/executorch-pack-bot recheck")
    assert (code, outputs) == (0, {"action": "recheck", "version": "1.5.1", "pr": str(w.pr["number"])})
    assert f"# obeyed recheck on #{w.pr['number']} for ExecuTorch 1.5.1" in out.splitlines()


@pytest.mark.needs("webhooks")
@pytest.mark.parametrize("title", TITLES)
def test_ignore_ignores_the_recorded_version_and_closes_the_pr_whatever_the_title(w, title):
    w.pr["title"] = title
    n = w.pr["number"]
    code, out, err, outputs = say(w, "/executorch-pack-bot ignore")
    assert (code, outputs) == (0, {"action": "ignore", "version": "1.5.1", "pr": str(n)})
    assert w.pr["state"] == "closed"
    assert hidden.load(w.pr["body"])["ignored"] == [{"version": "1.5.1", "pr": n}]
    assert f"# obeyed ignore on #{n}: ExecuTorch 1.5.1 ignored, #{n} closed" in out.splitlines()
    assert w.fake.reactions[5550001] == ["+1"]


@pytest.mark.needs("webhooks")
def test_a_per_version_branch_gives_the_version_whatever_the_title_and_body_say(w):
    w.config("branch: bot/executorch-{version}\n")
    pr = w.fake.add_pull(TEMPLATE, head="bot/executorch-1.6.0", title="chore(deps): bump ExecuTorch to 1.5.1",
                         body=w.pr["body"])   # the body's record says 1.5.1: the branch is the bot's record here
    code, out, err, outputs = say(w, "/executorch-pack-bot ignore", number=pr["number"])
    assert outputs == {"action": "ignore", "version": "1.6.0", "pr": str(pr["number"])}
    assert pr["state"] == "closed"


@pytest.mark.needs("webhooks")
def test_without_a_recorded_version_commands_are_refused_and_the_log_says_so(w):
    """A PR whose record names no version (opened before the record was kept): nothing is done, the reply says
    why, and the job log never says "obeyed"."""
    w.pr["body"] = hidden.replace(w.pr["body"], {})
    n = w.pr["number"]
    code, out, err, outputs = say(w, "/executorch-pack-bot ignore")
    assert (code, outputs["action"], w.pr["state"]) == (0, "none", "open")
    assert f"# refused ignore on #{n}: no version X.Y.Z" in out.splitlines() and "obeyed" not in out
    assert "names no ExecuTorch version" in w.comments(n)[-1] and "nothing was done" in w.comments(n)[-1]
    code, out, err, outputs = say(w, "/executorch-pack-bot recheck")
    assert (code, outputs["action"], outputs["version"]) == (0, "none", "")
    assert "obeyed" not in out and f"refused recheck on #{n}" in out
    code, out, err, outputs = say(w, "/executorch-pack-bot ignore 1.5.1")   # naming the version still works
    assert outputs["action"] == "ignore" and "# obeyed ignore on #%d: ExecuTorch 1.5.1 ignored" % n in out


@pytest.mark.needs("webhooks")
def test_every_log_line_of_a_refused_command_says_refused_never_obeyed(w):
    w.pr["state"] = "closed"
    code, out, err, outputs = say(w, "/executorch-pack-bot recheck")
    assert "obeyed" not in out and "refused recheck" in out
    code, out, err, outputs = say(w, "/executorch-pack-bot unignore 1.9.9")
    assert "obeyed" not in out and "was not ignored; nothing done" in out


@pytest.mark.parametrize("title", TITLES)
def test_the_fleet_plan_reads_what_an_open_pr_proposes_from_the_bots_record(efake_world, tmp_path, capsys, title):
    """fleet-plan decides "pull request open" or "update it" from the PR's recorded version, not its title."""
    import fleetworld as fw
    from test_fleet_plan_ignored_versions import run_plan

    pr = fw.bot_pull(efake_world, "acme/retitled", "1.5.1")
    pr["title"] = title
    rows, p = run_plan(capsys, tmp_path, ["acme/retitled"])
    assert (rows["acme/retitled"]["state"], rows["acme/retitled"]["job"]) == ("pull request open", False)
    assert p["pull-requests"] == []


@pytest.fixture
def efake_world(efake):
    import fleetworld as fw
    from test_fleet_plan_ignored_versions import template

    fw.add_upstream(efake)
    template(efake, "acme/retitled", "1.4.0")
    return efake
