"""Decorations GitHub refuses never fail a run: the pull request stands, the run exits 0 with a warning and a
job-summary line naming what was refused and why, and every later run says it again while the config asks.

Against the fake GitHub server (tests/worlds/fakegithub.py) answering as GitHub does for a reviewer who is not a
collaborator, a team without access, a label the token may not create, an assignee who cannot be assigned,
a milestone that does not exist, and a repository without draft pull requests.
"""

from __future__ import annotations

import itertools

import pytest

from bot.cli import main
from fakegithub import (TEMPLATE, UPSTREAM, FakeGitHub, Fault, add_sample_release, fresh_checkout, git,
                        make_template_remote, pypi_json)

TOKEN = "ghs_REFUSALSECRET0123456789"
NOT_COLLABORATOR = ("HTTP 422: Reviews may only be requested from collaborators. One or more of the users or "
                    "teams you specified is not a collaborator of the acme/fw-template repository.")


@pytest.fixture
def world(tmp_path, monkeypatch):
    fake = FakeGitHub()
    url = fake.start()
    add_sample_release(fake, "v1.4.0", created_at="2026-06-01T00:00:00Z")
    add_sample_release(fake, "v1.5.1", created_at="2026-09-01T00:00:00Z")
    fake.repo(TEMPLATE)
    fake.pypi[("executorch", "1.5.1")] = pypi_json("executorch", "1.5.1", requires_dist=["torch>=2.14.0a0"])
    remote = make_template_remote(tmp_path)
    summary = tmp_path / "summary.md"
    for k, v in {"GITHUB_API_URL": url, "EXECUTORCH_PACK_BOT_INDEX_URL": url, "EXECUTORCH_PACK_BOT_MAX_WAIT": "0",
                 "EXECUTORCH_PACK_BOT_WRITE_PAUSE": "0", "GITHUB_REPOSITORY": TEMPLATE, "GITHUB_TOKEN": TOKEN,
                 "GITHUB_STEP_SUMMARY": str(summary)}.items():
        monkeypatch.setenv(k, v)
    for k in ("GITHUB_OUTPUT", "GITHUB_ACTIONS", "EXECUTORCH_PACK_BOT_CACHE", "EXECUTORCH_PACK_BOT_ATTEMPTS"):
        monkeypatch.delenv(k, raising=False)
    counter = itertools.count()

    class World:
        pass

    w = World()
    w.fake, w.remote, w.tmp, w.summary = fake, remote, tmp_path, summary

    def configure(text: str) -> None:
        co = fresh_checkout(remote, tmp_path / f"cfg{next(counter)}")
        (co / ".github").mkdir(exist_ok=True)
        (co / ".github" / "executorch-pack-bot.yml").write_text(text)
        git(co, "add", "-A")
        git(co, "commit", "-q", "-m", "bot config")
        git(co, "push", "-q", "origin", "main")

    def run(capsys, *extra):
        summary.write_text("")
        co = fresh_checkout(remote, tmp_path / f"run{next(counter)}")
        code = main(["run", "--repo", str(co), "--upstream", f"github:{UPSTREAM}", *extra])
        out = capsys.readouterr()
        return code, out.err, summary.read_text()
    w.configure, w.run = configure, run
    yield w
    fake.stop()


def warnings(err: str) -> list[str]:
    return [line[len("warning: "):] for line in err.splitlines() if line.startswith("warning: ")]


def writes(fake):
    return [(s.method, s.path) for s in fake.requests if s.method != "GET"]


def the_pr(world):
    (pr,) = world.fake.open_pulls(TEMPLATE)
    return pr


def test_a_refused_reviewer_leaves_the_pr_standing_and_every_run_says_so(world, capsys):
    world.fake.repo(TEMPLATE).collaborators = {"alice"}
    world.configure("reviewers: [alice, someone-not-a-collaborator]\n")
    code, err, summary = world.run(capsys)
    pr = the_pr(world)
    assert code == 0 and "publish failed" not in err
    assert [u["login"] for u in pr["requested_reviewers"]] == ["alice"]      # the one GitHub accepts is requested
    expected = (f"reviewer 'someone-not-a-collaborator' not applied on #{pr['number']}: {NOT_COLLABORATOR} "
                "(asked for by `reviewers:` in .github/executorch-pack-bot.yml; the pull request stands)")
    assert warnings(err) == [expected]
    line = ("- **reviewer not applied**: `someone-not-a-collaborator`: HTTP 422: Reviews may only be requested from "
            "collaborators\\. One or more of the users or teams you specified is not a collaborator of the "
            "acme/fw\\-template repository\\. (`reviewers:` in `.github/executorch-pack-bot.yml`)")
    assert line in summary.splitlines() and line in pr["body"].splitlines()   # job summary and PR body

    before = len(writes(world.fake))
    code, err, summary = world.run(capsys)                                   # the next scheduled run
    assert code == 0 and warnings(err) == [expected] and line in summary.splitlines()
    assert len(writes(world.fake)) == before                                 # said again, not asked again


def test_the_warning_stops_once_the_config_no_longer_asks(world, capsys):
    world.fake.repo(TEMPLATE).collaborators = {"alice"}
    world.configure("reviewers: [someone-not-a-collaborator]\n")
    assert world.run(capsys)[0] == 0
    world.configure("reviewers: []\n")
    code, err, summary = world.run(capsys)
    assert code == 0 and warnings(err) == [] and "not applied" not in summary
    assert "not applied" not in the_pr(world)["body"]                       # the note in the body goes too


def test_a_reviewer_added_to_the_config_later_is_requested_by_the_next_run(world, capsys):
    world.configure("labels: [executorch]\n")
    assert world.run(capsys)[0] == 0
    world.configure("labels: [executorch]\nreviewers: [alice]\n")
    code, err, _ = world.run(capsys)
    assert code == 0 and warnings(err) == []
    assert [u["login"] for u in the_pr(world)["requested_reviewers"]] == ["alice"]


def test_labels_team_assignee_and_milestone_refusals_each_warn_and_the_run_exits_0(world, capsys):
    r = world.fake.repo(TEMPLATE)
    r.collaborators, r.teams = {"alice"}, {"firmware"}
    r.label_refusals["needs triage"] = (422, {"message": "Validation Failed", "errors": [
        {"resource": "Label", "code": "invalid", "field": "name"}],
        "documentation_url": "https://docs.github.com/rest/issues/labels#add-labels-to-an-issue"})
    world.configure("labels: [needs triage]\nreviewers: [acme/no-access]\nassignees: [alice, mallory]\n"
                    "milestone: 9\n")
    code, err, summary = world.run(capsys)
    pr = the_pr(world)
    n = pr["number"]
    assert code == 0
    assert warnings(err) == [
        f"assignee 'mallory' not applied on #{n}: GitHub left it out: not a user who can be assigned in this "
        "repository (asked for by `assignees:` in .github/executorch-pack-bot.yml; the pull request stands)",
        f"label 'needs triage' not applied on #{n}: HTTP 422: Validation Failed (invalid) (asked for by "
        "`labels:` in .github/executorch-pack-bot.yml; the pull request stands)",
        f"milestone '9' not applied on #{n}: HTTP 422: Validation Failed (invalid) (asked for by `milestone:` in "
        ".github/executorch-pack-bot.yml; the pull request stands)",
        f"team reviewer 'no-access' not applied on #{n}: {NOT_COLLABORATOR} (asked for by `reviewers:` in "
        ".github/executorch-pack-bot.yml; the pull request stands)",
    ]
    assert [a["login"] for a in pr["assignees"]] == ["alice"]
    assert summary.count("not applied**") == 4


def test_no_draft_pull_requests_opens_a_regular_pr_that_says_why_and_warns_each_run(world, capsys):
    world.fake.repo(TEMPLATE).drafts_supported = False
    world.fake.repo(TEMPLATE).collaborators = set()
    world.configure("draft: always\nreviewers: [someone-not-a-collaborator]\n")
    code, err, summary = world.run(capsys)
    pr = the_pr(world)
    n = pr["number"]
    assert code == 0 and pr["draft"] is False
    draft_warning = (f"pull request on #{n} opened as a regular pull request, not a draft (the config says `draft: "
                     "always`); this repository does not support draft pull requests: set `draft: never` in "
                     ".github/executorch-pack-bot.yml to stop this warning")
    assert warnings(err)[0] == draft_warning and len(warnings(err)) == 2     # once per run, then the reviewer
    assert ("- **not a draft**: this pull request would be a draft (the config says \\`draft: always\\`), but this "
            "repository does not support draft pull requests; set `draft: never` in "
            "`.github/executorch-pack-bot.yml` to open regular pull requests without this note") in pr["body"]
    assert world.fake.count("POST", r"/pulls$") == 2                          # the draft, then the regular one
    assert world.fake.count("DELETE") == 0

    code, err, summary = world.run(capsys)                                   # the second scheduled run
    assert code == 0 and warnings(err)[0] == draft_warning and len(warnings(err)) == 2
    assert world.fake.count("POST", r"/pulls$") == 2 and len(world.fake.open_pulls(TEMPLATE)) == 1


def test_no_draft_for_a_blocking_item_never_deletes_and_repushes_the_branch(world, capsys, monkeypatch):
    from bot import engine
    from bot.model import Flag
    real = engine.plan

    def plan(*a, **kw):
        p = real(*a, **kw)
        p.flags.append(Flag("pin-unresolved", "torchao: no version upstream", "requirements.txt", 3, True))
        return p
    monkeypatch.setattr(engine, "plan", plan)
    world.fake.repo(TEMPLATE).drafts_supported = False
    heads = []
    for _ in range(2):
        code, err, _ = world.run(capsys)
        assert code == 0
        assert "(1 blocking item is flagged)" in warnings(err)[0] and "`draft: never`" in warnings(err)[0]
        heads.append(git(world.tmp, "--git-dir", str(world.remote), "rev-parse",
                         "refs/heads/executorch-pack-bot/executorch"))
    assert heads[0] == heads[1]                        # pushed once, never deleted and pushed again
    assert world.fake.count("POST", r"/pulls$") == 2 and len(world.fake.open_pulls(TEMPLATE)) == 1


def test_a_transient_failure_of_a_decoration_is_a_warning_not_a_failed_run(world, capsys, monkeypatch):
    monkeypatch.setenv("EXECUTORCH_PACK_BOT_ATTEMPTS", "2")
    world.configure("labels: [executorch]\n")
    world.fake.faults.append(Fault("POST", r"/issues/\d+/labels$", 502, {"message": "Server Error"}, {}, times=2))
    code, err, _ = world.run(capsys)
    n = the_pr(world)["number"]
    assert code == 0
    (w,) = warnings(err)
    assert w.startswith(f"label 'executorch' not applied on #{n}: gave up trying to add labels on #{n} after 2 "
                        "attempts (last: HTTP 502: Server Error)")


def test_a_pr_creation_that_keeps_failing_is_exit_3_and_leaves_nothing(world, capsys, monkeypatch):
    monkeypatch.setenv("EXECUTORCH_PACK_BOT_ATTEMPTS", "2")
    world.fake.faults.append(Fault("POST", r"/pulls$", 502, {"message": "Server Error"}, {}, times=2))
    code, err, summary = world.run(capsys)
    assert code == 3
    assert err.strip().splitlines()[-1] == (
        "executorch-pack-bot: error: gave up trying to create the pull request for executorch-pack-bot/executorch "
        "after 2 attempts (last: HTTP 502: Server Error); nothing was changed; the run can be repeated")
    assert world.fake.open_pulls(TEMPLATE) == []
    assert git(world.tmp, "--git-dir", str(world.remote), "for-each-ref", "refs/heads/executorch-pack-bot") == ""


def test_publish_warns_about_refusals_too_and_exits_0(world, capsys):
    world.fake.repo(TEMPLATE).collaborators = set()
    world.fake.repo(TEMPLATE).drafts_supported = False
    world.configure("reviewers: [someone-not-a-collaborator]\ndraft: always\n")
    co = fresh_checkout(world.remote, world.tmp / "publish")
    plan = world.tmp / "plan.json"
    assert main(["update", "--repo", str(co), "--upstream", f"github:{UPSTREAM}", "--plan-file", str(plan)]) == 0
    capsys.readouterr()
    world.summary.write_text("")
    assert main(["publish", "--repo", str(co), "--plan-file", str(plan)]) == 0
    err = capsys.readouterr().err
    n = the_pr(world)["number"]
    assert [w.split(":", 1)[0] for w in warnings(err)] == [
        f"pull request on #{n} opened as a regular pull request, not a draft (the config says `draft",
        f"reviewer 'someone-not-a-collaborator' not applied on #{n}"]
    assert world.summary.read_text().count("not applied**") == 1 and "**not a draft**" in world.summary.read_text()


def test_a_pr_update_that_keeps_failing_after_the_push_says_the_branch_moved(world, capsys, monkeypatch):
    assert world.run(capsys)[0] == 0
    add_sample_release(world.fake, "v1.5.2", source_tag="v1.5.1", created_at="2026-10-01T00:00:00Z")
    world.fake.pypi[("executorch", "1.5.2")] = pypi_json("executorch", "1.5.2", requires_dist=["torch>=2.14.0a0"])
    monkeypatch.setenv("EXECUTORCH_PACK_BOT_ATTEMPTS", "2")
    world.fake.faults.append(Fault("PATCH", r"/pulls/\d+$", 502, {"message": "Server Error"}, {}, times=2))
    code, err, _ = world.run(capsys)
    assert code == 3
    assert err.strip().splitlines()[-1] == (
        f"executorch-pack-bot: error: gave up trying to update #{the_pr(world)['number']} after 2 attempts (last: "
        "HTTP 502: Server Error); branch executorch-pack-bot/executorch was pushed but its pull request was not "
        "brought up to date; the run can be repeated")
    assert world.run(capsys)[0] == 0 and "1.5.2" in the_pr(world)["title"]      # and the rerun mends it
