"""End-to-end `run` against the fake GitHub server and a local bare template remote: the PR lifecycle.

Each scheduled run gets a fresh clone (as actions/checkout gives it).  The
template is the shipped sample on ExecuTorch 1.4.0; upstream has v1.4.0 and
v1.5.1 built from the shipped sample upstream trees.
"""

from __future__ import annotations

import itertools

import pytest

from bot.cli import main
from fakegithub import (TEMPLATE, UPSTREAM, FakeGitHub, Fault, add_sample_release, fresh_checkout, git,
                        make_template_remote, pypi_json)

TOKEN = "ghs_TESTSECRET0123456789"


@pytest.fixture
def world(tmp_path, monkeypatch):
    fake = FakeGitHub()
    url = fake.start()
    add_sample_release(fake, "v1.4.0", created_at="2026-06-01T00:00:00Z")
    add_sample_release(fake, "v1.5.1", created_at="2026-09-01T00:00:00Z")
    fake.repo(TEMPLATE)
    for v in ("1.5.1", "1.5.2", "1.6.0"):
        fake.pypi[("executorch", v)] = pypi_json("executorch", v, requires_dist=["torch>=2.14.0a0", "numpy"])
    remote = make_template_remote(tmp_path)
    for k, v in {"GITHUB_API_URL": url, "EXECUTORCH_PACK_BOT_INDEX_URL": url, "EXECUTORCH_PACK_BOT_MAX_WAIT": "0",
                 "EXECUTORCH_PACK_BOT_WRITE_PAUSE": "0", "GITHUB_REPOSITORY": TEMPLATE, "GITHUB_TOKEN": TOKEN}.items():
        monkeypatch.setenv(k, v)
    for k in ("GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY", "GITHUB_ACTIONS", "EXECUTORCH_PACK_BOT_CACHE"):
        monkeypatch.delenv(k, raising=False)
    counter = itertools.count()

    class World:
        pass

    w = World()
    w.fake, w.remote, w.tmp = fake, remote, tmp_path

    def run(*extra):
        co = fresh_checkout(remote, tmp_path / f"run{next(counter)}")
        return main(["run", "--repo", str(co), "--upstream", f"github:{UPSTREAM}", *extra]), co
    w.run = run
    yield w
    fake.stop()


def branch_head(w, branch="executorch-pack-bot/executorch"):
    out = git(w.tmp, "--git-dir", str(w.remote), "for-each-ref", "--format=%(objectname)", f"refs/heads/{branch}")
    return out or None


def writes(fake):
    return [(s.method, s.path) for s in fake.requests if s.method != "GET"]


def test_first_run_opens_one_pr_with_body_and_pushes_branch(world, capsys):
    code, _ = world.run()
    assert code == 0, capsys.readouterr()
    pulls = world.fake.open_pulls(TEMPLATE)
    assert len(pulls) == 1
    pr = pulls[0]
    assert pr["title"] == "Bump ExecuTorch to 1.5.1"
    assert pr["head"]["ref"] == "executorch-pack-bot/executorch" and pr["base"]["ref"] == "main"
    body = pr["body"]
    assert "| pin | old | new | source |" in body
    assert "`PyTorch::ExecuTorch` | `1.4.0` | `1.5.1`" in body
    assert "compare/v1.4.0...v1.5.1" in body and "releases/tag/v1.5.1" in body
    assert "<!-- executorch-pack-bot:fingerprint=" in body
    assert "has no `PyTorch.ExecuTorch.1.5.1.pack` asset" in body
    head = branch_head(world)
    assert head
    # the branch is one bot commit on main whose tree carries the new pin
    assert git(world.tmp, "--git-dir", str(world.remote), "log", "-1", "--format=%ae", head) == \
        "41898282+github-actions[bot]@users.noreply.github.com"
    sol = git(world.tmp, "--git-dir", str(world.remote), "show", f"{head}:cmsis-executorch.csolution.yml")
    assert "PyTorch::ExecuTorch@1.5.1" in sol
    out = capsys.readouterr()
    assert TOKEN not in out.out + out.err


def test_rerun_with_nothing_new_changes_nothing(world):
    assert world.run()[0] == 0
    head = branch_head(world)
    before = len(writes(world.fake))
    assert world.run()[0] == 0
    assert branch_head(world) == head                     # no push
    assert len(writes(world.fake)) == before              # no new PR, no edit, no comment
    assert len(world.fake.open_pulls(TEMPLATE)) == 1


def test_newer_release_moves_the_same_branch_and_pr(world):
    assert world.run()[0] == 0
    number = world.fake.open_pulls(TEMPLATE)[0]["number"]
    head = branch_head(world)
    add_sample_release(world.fake, "v1.5.2", source_tag="v1.5.1", created_at="2026-10-01T00:00:00Z")
    assert world.run()[0] == 0
    pulls = world.fake.open_pulls(TEMPLATE)
    assert [p["number"] for p in pulls] == [number]
    assert pulls[0]["title"] == "Bump ExecuTorch to 1.5.2"
    new_head = branch_head(world)
    assert new_head != head
    sol = git(world.tmp, "--git-dir", str(world.remote), "show", f"{new_head}:cmsis-executorch.csolution.yml")
    assert "PyTorch::ExecuTorch@1.5.2" in sol


def test_foreign_commit_is_never_overwritten_and_one_comment_is_kept(world):
    assert world.run()[0] == 0
    # a human adds a commit on the bot branch
    co = fresh_checkout(world.remote, world.tmp / "human")
    git(co, "checkout", "-q", "executorch-pack-bot/executorch")
    (co / "NOTES.md").write_text("human work\n")
    git(co, "add", "NOTES.md")
    git(co, "commit", "-q", "--author=Human <human@example.invalid>", "-m", "mine")
    git(co, "push", "-q", "origin", "executorch-pack-bot/executorch")
    human_head = branch_head(world)
    add_sample_release(world.fake, "v1.5.2", source_tag="v1.5.1", created_at="2026-10-01T00:00:00Z")
    assert world.run()[0] == 0
    assert branch_head(world) == human_head
    n = world.fake.open_pulls(TEMPLATE)[0]["number"]
    comments = world.fake.repo(TEMPLATE).comments[n]
    assert len(comments) == 1 and "hand it back" in comments[0]["body"] and "human@example.invalid" in comments[0]["body"]
    assert world.run()[0] == 0
    assert len(world.fake.repo(TEMPLATE).comments[n]) == 1    # updated in place, not repeated
    assert branch_head(world) == human_head


def test_closed_unmerged_is_not_proposed_again_but_newer_release_is(world):
    assert world.run()[0] == 0
    pr = world.fake.open_pulls(TEMPLATE)[0]
    pr["state"] = "closed"
    assert world.run()[0] == 0
    assert world.fake.open_pulls(TEMPLATE) == []
    add_sample_release(world.fake, "v1.5.2", source_tag="v1.5.1", created_at="2026-10-01T00:00:00Z")
    assert world.run()[0] == 0
    pulls = world.fake.open_pulls(TEMPLATE)
    assert len(pulls) == 1 and pulls[0]["number"] != pr["number"] and pulls[0]["title"] == "Bump ExecuTorch to 1.5.2"


def test_template_already_at_target_closes_only_the_bots_pr(world, tmp_path):
    assert world.run()[0] == 0
    bot_pr = world.fake.open_pulls(TEMPLATE)[0]
    human = world.fake.add_pull(TEMPLATE, head="executorch-pack-bot/executorch", title="my own bump",
                                body="no marker here", user="human", head_repo="human/fw-template")
    # merged by hand: main now carries the bot branch
    co = fresh_checkout(world.remote, tmp_path / "merge")
    git(co, "merge", "-q", "--ff-only", "origin/executorch-pack-bot/executorch")
    git(co, "push", "-q", "origin", "main")
    assert world.run()[0] == 0
    assert bot_pr["state"] == "closed"
    assert "already is on ExecuTorch 1.5.1" in world.fake.repo(TEMPLATE).comments[bot_pr["number"]][0]["body"]
    assert human["state"] == "open" and human["number"] not in world.fake.repo(TEMPLATE).comments


def test_noop_run_costs_at_most_two_api_requests(world):
    assert world.run()[0] == 0
    # merge the bot branch by hand, then a scheduled no-op run
    co = fresh_checkout(world.remote, world.tmp / "merge")
    git(co, "merge", "-q", "--ff-only", "origin/executorch-pack-bot/executorch")
    git(co, "push", "-q", "origin", "main")
    world.fake.repo(TEMPLATE).pulls.clear()
    world.fake.requests.clear()
    assert world.run()[0] == 0
    assert len(world.fake.requests) <= 2, [(s.method, s.path) for s in world.fake.requests]


def test_dry_run_prints_the_pr_and_changes_nothing(world, capsys):
    code, co = world.run("--dry-run")
    out = capsys.readouterr().out
    assert code == 0
    assert "Would open pull request: Bump ExecuTorch to 1.5.1" in out and "| pin | old | new | source |" in out
    assert writes(world.fake) == [] and branch_head(world) is None
    assert git(co, "status", "--porcelain") == ""


def test_unpublished_wheel_opens_no_pr(world, capsys):
    del world.fake.pypi[("executorch", "1.5.1")]
    assert world.run()[0] == 0
    assert "waiting for executorch 1.5.1 on the package index" in capsys.readouterr().out
    assert world.fake.open_pulls(TEMPLATE) == [] and branch_head(world) is None


def test_wheel_requirements_not_met_opens_no_pr(world, capsys):
    world.fake.pypi[("executorch", "1.5.1")] = pypi_json("executorch", "1.5.1", requires_dist=["torch>=2.15.0"])
    assert world.run()[0] == 0
    assert "torch 2.14.0 does not satisfy torch>=2.15.0" in capsys.readouterr().out
    assert world.fake.open_pulls(TEMPLATE) == []


def test_bare_branch_filter_never_touches_unrelated_pr(world):
    """PyGithub/PyGithub#1566: head=OWNER:BRANCH, results re-checked; #7 is never edited or commented on."""
    cfg = "branch: bot/executorch-{version}\n"
    _commit_config(world, cfg)
    seven = world.fake.add_pull(TEMPLATE, number=7, head="docs/fix-typo", title="Fix typo", body="typo", user="human")
    assert world.run()[0] == 0
    heads = [s.query.get("head") for s in world.fake.requests if s.method == "GET" and s.path.endswith("/pulls")]
    assert "acme:bot/executorch-1.5.1" in heads
    assert seven["state"] == "open" and seven["title"] == "Fix typo" and 7 not in world.fake.repo(TEMPLATE).comments
    mine = [p for p in world.fake.open_pulls(TEMPLATE) if p["number"] != 7]
    assert len(mine) == 1 and mine[0]["head"]["ref"] == "bot/executorch-1.5.1"
    before = len(writes(world.fake))
    assert world.run()[0] == 0                                 # second run finds and keeps its PR
    assert len(writes(world.fake)) == before and len(world.fake.open_pulls(TEMPLATE)) == 2


def test_superseded_bot_pr_is_closed_with_a_link(world):
    """A superseded bot PR is not left open (dependabot/dependabot-core#1532): one open bot PR after
    the run, #12 closed with a comment linking the new one."""
    _commit_config(world, "branch: bot/executorch-{version}\n")
    old = world.fake.add_pull(TEMPLATE, number=12, head="bot/executorch-1.5.0", title="Bump ExecuTorch to 1.5.0",
                              body="old\n<!-- executorch-pack-bot:fingerprint=" + "a" * 64 + " -->")
    assert world.run()[0] == 0
    open_ = world.fake.open_pulls(TEMPLATE)
    assert len(open_) == 1 and open_[0]["title"] == "Bump ExecuTorch to 1.5.1"
    assert old["state"] == "closed"
    assert f"#{open_[0]['number']}" in world.fake.repo(TEMPLATE).comments[12][0]["body"]
    before = len(writes(world.fake))
    assert world.run()[0] == 0
    assert len(writes(world.fake)) == before


def test_secondary_rate_limit_is_retried(world):
    """PyGithub/PyGithub#2422: a 403 secondary rate limit with Retry-After is temporary; the run ends with the PR."""
    world.fake.repo(TEMPLATE).next_number = 13
    world.fake.faults.append(Fault("POST", r"/pulls$", 403,
                                   {"message": "You have exceeded a secondary rate limit. Please wait."},
                                   {"Retry-After": "30"}))
    assert world.run()[0] == 0
    assert [p["number"] for p in world.fake.open_pulls(TEMPLATE)] == [13]
    assert world.fake.count("POST", r"/pulls$") == 2


def test_giving_up_exits_nonzero_leaves_nothing_and_rerun_works(world, capsys, monkeypatch):
    monkeypatch.setenv("EXECUTORCH_PACK_BOT_ATTEMPTS", "2")
    world.fake.faults.append(Fault("POST", r"/pulls$", 403, {"message": "You have exceeded a secondary rate limit"},
                                   {"Retry-After": "30"}, times=2))
    code, _ = world.run()
    err = capsys.readouterr().err
    assert code == 3 and "gave up" in err and "Traceback" not in err and TOKEN not in err   # transient: exit 3
    assert "nothing was changed; the run can be repeated" in err
    assert world.fake.open_pulls(TEMPLATE) == [] and branch_head(world) is None   # no half-made branch
    assert world.run()[0] == 0
    assert len(world.fake.open_pulls(TEMPLATE)) == 1


def test_leftover_bot_branch_without_pr_is_reused(world, monkeypatch):
    """A branch pushed by an earlier run (all bot commits) is updated, never 'reference already exists'."""
    assert world.run()[0] == 0
    world.fake.repo(TEMPLATE).pulls.clear()
    assert world.run()[0] == 0
    assert len(world.fake.open_pulls(TEMPLATE)) == 1


def test_labels_reviewers_and_draft_for_flagged_items_from_config(world):
    _commit_config(world, "labels: [dependencies, executorch]\nreviewers: [alice]\ndraft: always\n")
    assert world.run()[0] == 0
    pr = world.fake.open_pulls(TEMPLATE)[0]
    n = pr["number"]
    assert world.fake.repo(TEMPLATE).labels[n] == ["dependencies", "executorch"]
    assert world.fake.repo(TEMPLATE).reviewers[n] == ["alice"]
    assert pr["draft"] is True


def test_actions_outputs_summary_and_mask(world, tmp_path, monkeypatch, capsys):
    out, summ = tmp_path / "out.txt", tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_OUTPUT", str(out))
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summ))
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    assert world.run()[0] == 0
    text = out.read_text()
    assert "current<<" in text and "\n1.4.0\n" in text and "\n1.5.1\n" in text and "pull-request<<" in text
    assert "## executorch-pack-bot" in summ.read_text() and "`PyTorch::ExecuTorch` | `1.4.0` | `1.5.1`" in summ.read_text()
    printed = capsys.readouterr().out
    assert f"::add-mask::{TOKEN}" in printed and "::group::" in printed and "::endgroup::" in printed


def test_git_never_sees_the_token_in_arguments(world, monkeypatch):
    import subprocess
    seen = []
    real = subprocess.run

    def spy(argv, *a, **kw):
        if argv and argv[0] == "git":
            seen.append((list(argv), dict(kw.get("env") or {})))
        return real(argv, *a, **kw)
    monkeypatch.setattr(subprocess, "run", spy)
    assert world.run()[0] == 0
    pushes = [(a, e) for a, e in seen if "push" in a]
    assert pushes
    for argv, env in seen:
        assert not any(TOKEN in x for x in argv)
    argv, env = pushes[0]
    assert env["GIT_CONFIG_KEY_5"] == "http.https://github.com/.extraHeader"
    assert env["GIT_CONFIG_VALUE_5"].startswith("AUTHORIZATION: basic ")


def _commit_config(world, text: str) -> None:
    co = fresh_checkout(world.remote, world.tmp / f"cfg{len(list(world.tmp.iterdir()))}")
    (co / ".github").mkdir(exist_ok=True)
    (co / ".github" / "executorch-pack-bot.yml").write_text(text)
    git(co, "add", ".github/executorch-pack-bot.yml")
    git(co, "commit", "-q", "-m", "bot config")
    git(co, "push", "-q", "origin", "main")


def _pack_release(world, tmp_path, **knobs):
    from packgen import DEMO_OPS, make_pack
    knobs.setdefault("operators", DEMO_OPS)   # what the sample template selects (run verifies against it)
    pack = make_pack(tmp_path / "packs", version="1.5.1", **knobs)
    world.fake.repo(UPSTREAM).releases = [r for r in world.fake.repo(UPSTREAM).releases if r["tag_name"] != "v1.5.1"]
    add_sample_release(world.fake, "v1.5.1", created_at="2026-09-01T00:00:00Z",
                       assets={"PyTorch.ExecuTorch.1.5.1.pack": pack.read_bytes()})


def test_verified_release_asset_goes_into_the_pr_body(world, tmp_path):
    _pack_release(world, tmp_path)
    assert world.run()[0] == 0
    body = world.fake.open_pulls(TEMPLATE)[0]["body"]
    assert body.count("### Pack verification") == 1 and "**Passed** for version `1.5.1`" in body


def test_pack_whose_newest_release_is_older_opens_no_pr(world, tmp_path, capsys):
    """Open-CMSIS-Pack/cpackget#43: file name says 1.5.1, newest <release> is 1.5.0: verification fails, no PR."""
    _pack_release(world, tmp_path, releases=[("1.5.0", "2026-09-01"), ("1.4.0", "2026-08-06")])
    code, _ = world.run()
    out = capsys.readouterr().out
    assert code == 1 and "failed verification; no pull request" in out
    assert world.fake.open_pulls(TEMPLATE) == [] and branch_head(world) is None
