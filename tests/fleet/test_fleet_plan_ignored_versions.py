"""fleet-plan honours the versions a template's reviewers ignored (``/executorch-pack-bot ignore``): read from the
dashboard issue the template's workflow wrote, or from the bot's pull requests, only for a template behind."""

from __future__ import annotations

import json

import pytest

import fleetworld as fw
from bot.events import state as hidden
from bot.events.dashboard import LABEL, MARKER
from fakegithub import UPSTREAM, Fault
from github_world import cli
from test_fleet_summary import table
from fakegitdata import add_event

WORKFLOW_BOT = "github-actions[bot]"


@pytest.fixture
def efake(monkeypatch):
    """The fake GitHub with issues (tests/worlds/fakegithub_events.py), environment as the ``fake`` fixture's."""
    from fakegithub_events import FakeGitHubEvents
    from github_world import TOKEN
    f = FakeGitHubEvents()
    url = f.start()
    for k, v in {"GITHUB_API_URL": url, "EXECUTORCH_PACK_BOT_MAX_WAIT": "0", "GITHUB_TOKEN": TOKEN,
                 "EXECUTORCH_PACK_BOT_WRITE_PAUSE": "0"}.items():
        monkeypatch.setenv(k, v)
    for k in ("GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY", "GITHUB_ACTIONS", "EXECUTORCH_PACK_BOT_CACHE",
              "GITHUB_REPOSITORY", "EXECUTORCH_PACK_BOT_ATTEMPTS", "EXECUTORCH_PACK_BOT_CACHE_KEY"):
        monkeypatch.delenv(k, raising=False)
    yield f
    f.stop()


def dashboard(fake, full, versions, *, user=WORKFLOW_BOT):
    st = {"ignored": [{"version": v, "pr": 3} for v in versions]}
    return fake.add_issue(full, title="executorch-pack-bot dashboard", labels=[LABEL], user=user,
                          body=f"{MARKER}\nThe dashboard.\n\n{hidden.dump(st)}\n")


def closed_by_ignore(fake, full, version, ignored):
    st = {"ignored": [{"version": v, "pr": 1} for v in ignored], "closed_by": "ignore", "version": version}
    pr = fake.add_pull(full, head=fw.BOT_BRANCH, title=f"Bump ExecuTorch to {version}",
                       body=f"The bump.\n{fw.FP}\n{hidden.dump(st)}\n", state="closed")
    add_event(fake.repo(full), pr["number"], "closed")
    return pr


def template(fake, full, version="1.4.0", dash=False):
    fw.add_template(fake, full, fw.pin_files(version, name=full, config="dashboard: true\n" if dash else None))


def run_plan(capsys, tmp_path, names, name="plan.json"):
    lst = tmp_path / "fleet.yml"
    lst.write_text("templates:\n" + "".join(f"  - repository: {n}\n" for n in names))
    out = tmp_path / name
    code, captured = cli(capsys, "fleet-plan", "--list", str(lst), "--upstream", f"github:{UPSTREAM}",
                         "--cache", str(tmp_path / "cache" / "fleet.json"), "--out", str(out))
    assert code == 0, captured.err
    p = json.loads(out.read_text())
    return {r["template"]: r for r in p["rows"]}, p


NAMES = ["acme/dash-ignored", "acme/dash-fallback", "acme/dash-stranger", "acme/pr-ignored", "acme/pr-unignored",
         "acme/dash-current"]


@pytest.fixture
def world(efake):
    fw.add_upstream(efake)
    for n in NAMES:
        template(efake, n, "1.5.1" if n == "acme/dash-current" else "1.4.0", dash=n.startswith("acme/dash"))
    efake.add_issue("acme/dash-ignored", title="a bug", body="unrelated", labels=[LABEL], user="someone")
    dashboard(efake, "acme/dash-ignored", ["1.5.1", "1.4.2"])
    dashboard(efake, "acme/dash-fallback", ["1.5.1"])
    dashboard(efake, "acme/dash-stranger", ["1.5.1"], user="mallory")       # an issue anyone could write
    dashboard(efake, "acme/dash-current", ["1.5.1"])
    closed_by_ignore(efake, "acme/pr-ignored", "1.5.1", ["1.4.2", "1.5.1"])
    closed_by_ignore(efake, "acme/pr-unignored", "1.5.1", [])               # `unignore 1.5.1` emptied the list
    return efake


def test_ignored_targets_get_no_pull_request_and_a_row_naming_the_version(world, tmp_path, capsys):
    rows, p = run_plan(capsys, tmp_path, NAMES)
    got = {t: (r["state"], r["target"], r["job"]) for t, r in rows.items()}
    assert got == {
        "acme/dash-ignored": ("ignored by reviewers", "1.5.1", False),
        "acme/dash-fallback": ("behind", "1.4.2", True),          # the newest release not ignored, as check does
        "acme/dash-stranger": ("behind", "1.5.1", True),          # not the bot's issue: never read
        "acme/pr-ignored": ("ignored by reviewers", "1.5.1", False),
        "acme/pr-unignored": ("behind", "1.5.1", True),           # closed by ignore, then unignored: proposed again
        "acme/dash-current": ("up to date", "1.5.1", False)}
    assert rows["acme/dash-ignored"]["reason"] == (
        "reviewers ignored 1.5.1 (kept in the dashboard issue #2): no pull request; comment "
        "`/executorch-pack-bot unignore 1.5.1` on a bot pull request to propose it again")
    assert rows["acme/pr-ignored"]["reason"].startswith("reviewers ignored 1.5.1 (kept in #1): no pull request")
    assert rows["acme/dash-fallback"]["reason"] == (
        "reviewers ignored 1.5.1 (kept in the dashboard issue #1); open a pull request for 1.4.2")
    jobs = {j["repository"]: (j["version"], j["bot-branch"]) for j in p["pull-requests"]}
    assert jobs == {"acme/dash-fallback": ("1.4.2", fw.BOT_BRANCH), "acme/dash-stranger": ("1.5.1", fw.BOT_BRANCH),
                    "acme/pr-unignored": ("1.5.1", fw.BOT_BRANCH)}
    assert {x["pack-version"] for x in p["packs"]} == {"1.4.2", "1.5.1"}


def test_ignored_versions_are_read_only_for_templates_behind(world, tmp_path, capsys):
    run_plan(capsys, tmp_path, NAMES)
    issues = sorted({s.path for s in world.requests if s.path.endswith("/issues")})
    assert issues == ["/repos/acme/dash-fallback/issues", "/repos/acme/dash-ignored/issues",
                      "/repos/acme/dash-stranger/issues"]
    first = len(world.requests)
    run_plan(capsys, tmp_path, ["acme/dash-current"], name="again.json")   # a no-op run: one tree, the releases
    assert [s.path for s in world.requests[first:]] == ["/repos/pytorch/executorch/releases",
                                                         "/repos/acme/dash-current/git/trees/HEAD"]


def test_a_dashboard_that_cannot_be_read_holds_the_pull_request_back(world, tmp_path, capsys):
    world.faults.append(Fault("GET", r"^/repos/acme/dash-fallback/issues$", 403,
                              {"message": "Resource not accessible by integration"}, times=5))
    rows, p = run_plan(capsys, tmp_path, ["acme/dash-fallback", "acme/pr-unignored"])
    row = rows["acme/dash-fallback"]
    assert (row["state"], row["job"]) == ("error", False)
    assert row["reason"].startswith("GitHub refused to list the dashboard issue of acme/dash-fallback: HTTP 403: "
                                    "Resource not accessible by integration; the pull request waits")
    assert [j["repository"] for j in p["pull-requests"]] == ["acme/pr-unignored"]


def test_a_version_branch_reads_the_list_on_any_of_the_bots_pull_requests(efake, tmp_path, capsys):
    fw.add_upstream(efake)
    full = "acme/versioned"
    fw.add_template(efake, full, fw.pin_files("1.4.0", config="branch: bot/et-{version}\n"))
    st = {"ignored": [{"version": "1.5.1", "pr": 1}]}
    efake.add_pull(full, head="bot/et-1.4.2", title="Bump ExecuTorch to 1.4.2", state="closed", merged=True,
                   body=f"The bump.\n{fw.FP}\n{hidden.dump(st)}\n")
    efake.add_pull(full, head="other/et-1.6.0", title="Bump ExecuTorch to 1.6.0",   # not on the bot's branches
                   body=f"The bump.\n{fw.FP}\n{hidden.dump({'ignored': []})}\n")
    rows, _ = run_plan(capsys, tmp_path, [full])
    assert (rows[full]["state"], rows[full]["target"]) == ("behind", "1.4.2")
    assert rows[full]["reason"] == "reviewers ignored 1.5.1 (kept in #1); open a pull request for 1.4.2"


def test_the_fleet_summary_shows_the_ignored_row_with_its_version(world, tmp_path, capsys):
    run_plan(capsys, tmp_path, ["acme/dash-ignored", "acme/dash-fallback"])
    (tmp_path / "results").mkdir()
    code, out = cli(capsys, "fleet-summary", "--plan", str(tmp_path / "plan.json"), "--results",
                    str(tmp_path / "results"))
    assert code == 0
    row = next(r for r in table(out.out) if r[0] == "acme/dash-ignored")
    assert row[1:4] == ["1.4.0", "1.5.1", "ignored by reviewers"]
    assert row[-1] == ("reviewers ignored 1.5.1 (kept in the dashboard issue #&#8203;2): no pull request; comment "
                       "`/executorch-pack-bot unignore 1.5.1` on a bot pull request to propose it again")  # notes inert


def test_only_the_state_the_template_workflow_wrote_is_read(efake, tmp_path, capsys):
    """The dashboard's state lives in the state comment github-actions[bot] writes; a body or a state comment
    last edited by anyone else (a writer, before the template's next run undoes it) is never read."""
    from bot.events.dashboard import state_comment

    fw.add_upstream(efake)
    names = ["acme/in-comment", "acme/body-edited", "acme/comment-edited", "acme/comment-over-body"]
    for n in names:
        template(efake, n, dash=True)
    # the state comment holds the list; the body's copy for people is empty
    issue = dashboard(efake, "acme/in-comment", [])
    efake.add_comment("acme/in-comment", issue["number"], state_comment({"ignored": [{"version": "1.5.1", "pr": 3}]}),
                      WORKFLOW_BOT)
    # a dashboard from before the state comment, its body then edited by a person: a forged list
    issue = dashboard(efake, "acme/body-edited", [])
    st = {"ignored": [{"version": "1.5.1", "pr": 3}]}
    efake.edit_issue("acme/body-edited", issue["number"], f"{MARKER}\nThe dashboard.\n\n{hidden.dump(st)}\n", "mallory")
    # the bot's state comment, edited by a person
    issue = dashboard(efake, "acme/comment-edited", [])
    c = efake.add_comment("acme/comment-edited", issue["number"], state_comment({"ignored": []}), WORKFLOW_BOT)
    efake.edit_comment("acme/comment-edited", c["id"], state_comment(st), "mallory")
    # the state comment wins over the body's copy
    issue = dashboard(efake, "acme/comment-over-body", ["1.5.1"])
    efake.add_comment("acme/comment-over-body", issue["number"], state_comment({"ignored": []}), WORKFLOW_BOT)

    rows, p = run_plan(capsys, tmp_path, names)
    got = {t: (r["state"], r["target"]) for t, r in rows.items()}
    assert got == {"acme/in-comment": ("behind", "1.4.2"),    # 1.5.1 ignored: the newest release not ignored
                   "acme/body-edited": ("behind", "1.5.1"),
                   "acme/comment-edited": ("behind", "1.5.1"),
                   "acme/comment-over-body": ("behind", "1.5.1")}
    assert {j["repository"]: j["version"] for j in p["pull-requests"]} == {
        "acme/in-comment": "1.4.2", "acme/body-edited": "1.5.1", "acme/comment-edited": "1.5.1",
        "acme/comment-over-body": "1.5.1"}
