"""fleet-summary: one row per template from the plan and the results the pull-request jobs recorded; the job
summary and the fleet dashboard issue (found by the bot's identity, written only when it changes)."""

from __future__ import annotations

import json

import pytest

import fleetworld as fw
from fakegithub import UPSTREAM
from fakegithub_events import FakeGitHubEvents
from github_world import cli

HOME = "acme/.github"


@pytest.fixture
def events_fake(monkeypatch):
    from github_world import TOKEN
    f = FakeGitHubEvents()
    url = f.start()
    for k, v in {"GITHUB_API_URL": url, "EXECUTORCH_PACK_BOT_MAX_WAIT": "0", "EXECUTORCH_PACK_BOT_WRITE_PAUSE": "0",
                 "GITHUB_TOKEN": TOKEN}.items():
        monkeypatch.setenv(k, v)
    for k in ("GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY", "GITHUB_ACTIONS", "EXECUTORCH_PACK_BOT_CACHE"):
        monkeypatch.delenv(k, raising=False)
    monkeypatch.setenv("GITHUB_SERVER_URL", "https://github.com")
    monkeypatch.setenv("GITHUB_REPOSITORY", HOME)
    monkeypatch.setenv("GITHUB_RUN_ID", "77")
    yield f
    f.stop()


@pytest.fixture
def planned(events_fake, tmp_path, capsys):
    lst = fw.build_world(events_fake, tmp_path)
    events_fake.repo(HOME)
    assert cli(capsys, "fleet-plan", "--list", str(lst), "--upstream", f"github:{UPSTREAM}",
               "--out", str(tmp_path / "plan.json"))[0] == 0
    return tmp_path / "plan.json"


def record(capsys, tmp_path, key, *extra):
    return cli(capsys, "fleet-summary", "--record", str(tmp_path / "results" / key / "result.json"), "--key", key,
               *extra)


def table(text: str) -> list[list[str]]:
    """The table's rows, cells with the Markdown escapes (``\\-``, ``\\.``) undone."""
    import re
    rows = []
    for line in text.splitlines():
        if line.startswith("| ") and not line.startswith("| Template") and not line.startswith("|---"):
            rows.append([re.sub(r"\\(.)", r"\1", c.strip()) for c in re.split(r"(?<!\\)\|", line.strip("|"))])
    return rows


def test_one_row_per_template_with_its_job_result(planned, tmp_path, capsys, monkeypatch):
    plan_file = tmp_path / "update-plan.json"
    plan_file.write_text(json.dumps({"flags": [
        {"code": "mixed-mention", "message": "README.md:3 names 1.4.0 beside @maintainer", "blocking": False},
        {"code": "unresolved-pin", "message": "torchao not resolved", "blocking": True}]}))
    assert record(capsys, tmp_path, "acme-behind-a", "--status", "success", "--action", "created",
                  "--pr-url", "https://github.com/acme/behind-a/pull/4", "--plan-file", str(plan_file))[0] == 0
    assert record(capsys, tmp_path, "acme-refuses-push", "--status", "failure")[0] == 0
    assert record(capsys, tmp_path, "acme-pr-old", "--status", "success", "--action", "updated",
                  "--pr-url", "https://github.com/acme/pr-old/pull/1")[0] == 0
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    code, out = cli(capsys, "fleet-summary", "--plan", str(planned), "--results", str(tmp_path / "results"))
    assert code == 0
    assert summary.read_text() == out.out
    every = table(out.out)
    plan = json.loads(planned.read_text())
    assert len(every) == len(plan["rows"]) == 24      # 21 template branches and 3 refused entries
    assert [r[3] for r in every].count("refused entry") == 3
    rows = {r[0]: r for r in every if r[3] != "refused entry"}
    a = rows["acme/behind-a"]
    assert a[1:5] == ["1.4.0", "1.5.1", "proposed", "[#4](https://github.com/acme/behind-a/pull/4) created"]
    assert "blocking unresolved-pin: torchao not resolved" in a[5] and "@maintainer" not in a[5]
    assert a[6].startswith("[success](https://github.com/acme/.github/actions/runs/77) ")
    assert rows["acme/refuses-push"][3:5] == ["failed", ""] and rows["acme/refuses-push"][7] == "the job failed: see the run"
    assert rows["acme/behind-b"][3] == "failed" and "recorded no result" in rows["acme/behind-b"][7]
    assert rows["acme/pr-old"][3] == "proposed" and rows["acme/pr-old"][7] == "pull request updated"
    assert rows["acme/pr-open"][3:5] == ["pull request open", "[#1](https://github.com/acme/pr-open/pull/1) open"]
    assert rows["acme/current-a"][1:4] == ["1.5.1", "1.5.1", "up to date"]
    assert rows["acme/hidden"][3] == "not visible"
    assert rows["acme/closed-person"][3:5] == ["closed by a person",
                                               "[#1](https://github.com/acme/closed-person/pull/1) closed"]
    # one build per template: two templates on 1.4.2 (built), two on 1.5.1-local
    assert ("5 pack(s): `1.4.2` (build), `1.4.2` (build), `1.5.1` (release-asset), `1.5.1-local` (build), "
            "`1.5.1-local` (build)") in out.out


def test_the_fleet_dashboard_issue_is_written_once_and_only_when_it_changes(events_fake, planned, tmp_path, capsys):
    run = ("fleet-summary", "--plan", str(planned), "--results", str(tmp_path / "results"), "--dashboard", HOME)
    # an issue with the marker and label by a person is not the dashboard: trust comes from identity
    events_fake.add_issue(HOME, title="fake", body="<!-- executorch-pack-bot:fleet-dashboard -->",
                          labels=["executorch-pack-bot-fleet"], user="mallory")
    assert cli(capsys, *run)[0] == 0
    made = [i for i in events_fake.issues[HOME].values() if i["user"]["login"] == events_fake.bot_login]
    assert len(made) == 1 and "acme/behind\\-a" in made[0]["body"] and "API requests" not in made[0]["body"]
    writes = len(events_fake.writes())
    code, out = cli(capsys, *run)
    assert code == 0 and len(events_fake.writes()) == writes and "unchanged" in out.out
    assert record(capsys, tmp_path, "acme-behind-a", "--status", "failure")[0] == 0
    assert cli(capsys, *run)[0] == 0
    assert [s.method for s in events_fake.writes()[writes:]] == ["PATCH"]
    assert len(events_fake.issues[HOME]) == 2


@pytest.mark.parametrize("argv, message", [
    (("--record", "r.json"), "--record needs --key"),
    (("--record", "r.json", "--key", "a/b"), "--record needs --key"),
    ((), "give --plan FILE"),
    (("--plan", "nope.json"), "nope.json: cannot read the fleet plan"),
    (("--plan", "PLAN", "--dashboard", "not a repo"), "--dashboard not a repo: expected OWNER/NAME"),
])
def test_bad_usage(tmp_path, capsys, argv, message, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "PLAN").write_text(json.dumps({"format": 1, "rows": []}))
    code, out = cli(capsys, "fleet-summary", *argv)
    assert code == 2 and message in out.err
    assert not (tmp_path / "r.json").exists()


def test_a_refused_push_is_the_row_s_reason(tmp_path, capsys, monkeypatch):
    """The pull-request job of a repository whose rules refuse the push fails; its recorded result carries git's
    refusal (through $EXECUTORCH_PACK_BOT_ERROR_FILE), and the summary row shows it."""
    from publishworld import World, require_signed_commits

    world = World(tmp_path, monkeypatch)
    try:
        require_signed_commits(world.remote)
        errors = tmp_path / "fleet-errors.txt"
        monkeypatch.setenv("EXECUTORCH_PACK_BOT_ERROR_FILE", str(errors))
        code, _ = world.run()
        capsys.readouterr()
    finally:
        world.fake.stop()
    assert code == 1
    monkeypatch.delenv("EXECUTORCH_PACK_BOT_ERROR_FILE")
    assert record(capsys, tmp_path, "acme-fw-template", "--status", "failure", "--action=", "--pr-url=",
                  "--error-file", str(errors))[0] == 0
    result = json.loads((tmp_path / "results" / "acme-fw-template" / "result.json").read_text())
    assert result["error"].startswith("run: git push of executorch-pack-bot/executorch was refused; git said:")
    plan = {"format": 1, "upstream": "pytorch/executorch", "packs": [], "requests": {}, "rows": [
        {"template": "acme/fw-template", "repository": "acme/fw-template", "branch": "", "current": "1.4.0",
         "target": "1.5.1", "state": "behind", "job": True, "reason": "open a pull request for 1.5.1"}]}
    (tmp_path / "plan.json").write_text(json.dumps(plan))
    code, out = cli(capsys, "fleet-summary", "--plan", str(tmp_path / "plan.json"), "--results",
                    str(tmp_path / "results"))
    (row,) = table(out.out)
    assert row[3] == "failed" and row[7].startswith("run: git push of executorch-pack-bot/executorch was refused")


def test_a_success_records_no_error(tmp_path, capsys):
    errors = tmp_path / "errors.txt"
    errors.write_text("update: an earlier failure\n")
    assert record(capsys, tmp_path, "k", "--status", "success", "--action", "created", "--error-file", str(errors))[0] == 0
    assert json.loads((tmp_path / "results" / "k" / "result.json").read_text())["error"] == ""


def test_a_dry_run_job_is_a_dry_run_row(tmp_path, capsys):
    """A pull-request job of a dry run succeeds without publishing (publish --dry-run sets no action); the workflow
    records the action dry-run, and the row says so instead of "not published" with no note."""
    assert record(capsys, tmp_path, "acme-a", "--status", "success", "--action", "dry-run", "--pr-url=")[0] == 0
    plan = {"format": 1, "upstream": "pytorch/executorch", "packs": [], "requests": {}, "rows": [
        {"template": "acme/a", "repository": "acme/a", "branch": "", "current": "1.4.0", "target": "1.5.1",
         "state": "behind", "job": True, "reason": "open a pull request for 1.5.1"}]}
    (tmp_path / "plan.json").write_text(json.dumps(plan))
    code, out = cli(capsys, "fleet-summary", "--plan", str(tmp_path / "plan.json"), "--results",
                    str(tmp_path / "results"))
    assert code == 0
    (row,) = table(out.out)
    assert row[:5] + row[7:8] == ["acme/a", "1.4.0", "1.5.1", "dry run", "",
                                  "dry run: the pull request was printed in the job log, nothing pushed"]
