"""The fleet workflow run whole under nektos/act (tests/worlds/fleetactworld.py): one scheduled run of
docs/example-fleet-caller.yml over twenty template repositories in mixed states and three bad list entries,
asserting what GitHub holds afterwards (pull requests, branches), the one pack verification per pack version,
the App tokens each job minted, the plan's request count and every row of the fleet summary; then the next
scheduled run (with the ETag cache the first kept) and a dry-run dispatch."""

from __future__ import annotations

import json
import re

import pytest

from actworld import TEMPLATE_WHEELS, bot_commit, empty_wheel, session_site
from fleetactworld import BOT_BRANCH, CALLER_REPOSITORY, HIDDEN, PIN_FILES, STATES, FleetActWorld

pytestmark = pytest.mark.workflow

NEEDS_PR = [full for full, state in STATES if state in ("behind", "local")]
JOBS = [full for full, state in STATES if state in ("behind", "local", "refuses push")]   # pull-request jobs
LIST = "fleet/.github/executorch-pack-bot-fleet.yml"


@pytest.fixture
def fw(tmp_path, tmp_path_factory):
    bot = bot_commit(tmp_path_factory.mktemp("bot"))
    wheels = tmp_path_factory.mktemp("wheels")
    for name, version in TEMPLATE_WHEELS:
        empty_wheel(wheels, name, version)
    site = session_site(tmp_path_factory.mktemp("site") / "venv")
    w = FleetActWorld(tmp_path, bot, wheels, site)
    yield w
    w.fake.stop()


def job_lines(run, job: str) -> list[str]:
    return [ln for ln in run.log.splitlines() if ln.startswith(f"[{job}] ")]


def summary_rows(run) -> list[tuple]:
    """(template, current, target, state, pull request, note) of each row of the last fleet summary table, in order;
    Markdown escapes removed from the plain cells."""
    table = []
    last = run.summaries.rsplit("## ExecuTorch fleet:", 1)[-1]   # act shows the summary once per step level
    for ln in last.splitlines():
        if not ln.startswith("| ") or ln.startswith(("| Template", "|---")):
            continue
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", ln)[1:-1]]
        plain = [re.sub(r"\\(.)", r"\1", c).replace("&#8203;", "") for c in cells]
        table.append((plain[0], plain[1], plain[2], plain[3], cells[4], plain[7]))
    return table


def test_a_scheduled_fleet_run_over_twenty_templates(fw):
    run = fw.run("schedule")
    # the refused push fails its own pull-request job (act's exit 1); nothing else fails
    assert run.jobs == {"etags": "success", "plan": "success", "etags-save": "success", "template": "success",
                        "pack": "success", "pull-request": "failure", "summary": "success"}, run

    # ---- the release asset fetched and verified once; each template on a -local pack gets a build of its own
    # (its own requirements, its own job); the pull-request jobs only check what they download
    pack, pulls = job_lines(run, "pack"), job_lines(run, "pull-request")
    assert sorted(ln.split("Run Main ", 1)[1] for ln in pack if re.search(r"Run Main (Fetch the pack|Build the pack|"
                                                                          r"Verify the pack)", ln)) == [
        "Build the pack", "Build the pack", "Fetch the pack asset (verified)",
        "Verify the pack (upstream validator, compile check, template components, operators)",
        "Verify the pack (upstream validator, compile check, template components, operators)"]
    verdicts = [ln.split("] ", 1)[1] for ln in pack
                if re.search(r"\*\*Passed\*\* for version|\.pack (passed|FAILED):", ln)]
    assert sorted(verdicts) == ["**Passed** for version `1.5.1`: 13 passed, 1 warning, 0 failed.",
                                "PyTorch.ExecuTorch.1.5.1-local.pack passed: 16 passed, 1 warning, 0 failed",
                                "PyTorch.ExecuTorch.1.5.1-local.pack passed: 16 passed, 1 warning, 0 failed"]
    compile_checks = [ln for ln in run.log.splitlines() if re.search(r"\] compile +pass ", ln)]
    assert len(compile_checks) == 2 and all(c.startswith("[pack] ") for c in compile_checks), compile_checks
    assert fw.fake.count("GET", r"^/download/pytorch/executorch/v1\.5\.1/PyTorch\.ExecuTorch\.1\.5\.1\.pack$") == 1
    assert fw.apt_log.read_text().count("ninja-build") == 2          # one build runner per template build
    # the template's pip install ran contained in the pack job, the job that holds no key
    assert not any("create-github-app-token" in ln for ln in pack)
    assert not any("Fetch the pack" in ln or "Build the pack" in ln for ln in pulls)
    # each pull-request job checked the artifact against the sha256 its pack job recorded
    assert sum(bool(re.search(r"\] PyTorch\.ExecuTorch\.1\.5\.1(-local)?\.pack: OK$", ln)) for ln in pulls) == len(JOBS)

    # ---- one pull request per template that needs one, in that template, from the bot's branch
    for full, state in STATES:
        pulls_of = [(p["number"], p["head"]["ref"], p["base"]["ref"], p["title"], p["user"]["login"])
                    for p in fw.fake.repo(full).pulls.values() if p["state"] == "open"]
        branches = fw.branches_of(full)
        if full in NEEDS_PR:
            assert pulls_of == [(1, BOT_BRANCH, "main", "Bump ExecuTorch to 1.5.1", "executorch-pack-bot[bot]")], full
            assert branches == [BOT_BRANCH, "main"], full
            pack_pin = "1.5.1-local" if state == "local" else "1.5.1"
            assert f"PyTorch::ExecuTorch@{pack_pin}" in fw.show_in(full, BOT_BRANCH, "cmsis-executorch.csolution.yml")
            assert "executorch==1.5.1" in fw.show_in(full, BOT_BRANCH, "requirements.txt")
            body = fw.fake.repo(full).pulls[1]["body"]
            assert f"**Passed** for version `{pack_pin}`" in body, (full, body)
        else:
            assert branches == ["main"], full          # nothing pushed
            expected = [(1, BOT_BRANCH, "main", "Bump ExecuTorch to 1.5.1", "executorch-pack-bot[bot]")] \
                if state == "pr open" else []
            assert pulls_of == expected, full          # the open one untouched, the closed one not reopened
    assert fw.fake.repo(CALLER_REPOSITORY).pulls == {}   # never in the calling repository

    # ---- App tokens: the plan's spans the installation read-only; each writer's is for its one repository
    tokens = fw.app_log.read_text().splitlines()
    assert tokens[0] == "contents=read pull-requests=read workflows= metadata=read owner=acme repositories="
    # the template jobs: a read-only token for the one template each build reads
    assert sorted(tokens[1:3]) == [f"contents=read pull-requests= workflows= metadata= owner=acme repositories={n}"
                                   for n in ("local-1", "local-2")]
    assert tokens[3:] == ([f"contents=write pull-requests=write workflows= metadata= owner=acme "
                         f"repositories={full.split('/')[1]}" for full in JOBS])

    # ---- the plan side's requests: one listing of upstream's releases, one tree per template (the hidden one
    # too), each distinct pin file read once (by its blob), one pull-request listing per template behind its
    # target, the issue events of each closed one
    plan = json.loads(next((fw.tmp / "run1/artifacts/executorch-pack-bot-fleet-plan").glob("*.json")).read_text())
    distinct_pin_blobs = len({(fw.tmp / "seeds" / kind / rel).read_bytes()
                              for kind in ("behind", "up-to-date", "local") for rel in PIN_FILES})
    behind_target = [full for full, state in STATES if state not in ("up to date",)]
    closed = [full for full, state in STATES if state == "closed by a person"]
    assert plan["requests"] == {"sent": 1 + 21 + distinct_pin_blobs + len(behind_target) + len(closed),
                                "conditional": 0, "not-modified": 0, "templates": 21}
    assert fw.fake.count("GET", r"/git/trees/HEAD$") == 21
    assert fw.fake.count("GET", r"^/repos/acme/[^/]+/contents/") == distinct_pin_blobs

    # ---- the fleet summary: one row per template and per bad entry, with its reason
    rows = summary_rows(run)
    link = "[#1](https://github.com/{}/pull/1) {}"
    expected = []
    for full, state in STATES:
        if full in NEEDS_PR:
            expected.append((full, "1.4.0", "1.5.1", "proposed", link.format(full, "created"), "pull request opened"))
        elif state == "up to date":
            expected.append((full, "1.5.1", "1.5.1", "up to date", "", ""))
        elif state == "pr open":
            expected.append((full, "1.4.0", "1.5.1", "pull request open", link.format(full, "open"),
                             "#1 proposes 1.5.1"))
        elif state == "closed by a person":
            expected.append((full, "1.4.0", "1.5.1", "closed by a person", link.format(full, "closed"),
                             "#1 proposed 1.5.1 and was closed unmerged; a newer release opens a new one"))
        else:
            assert state == "refuses push"
            push = rows[len(expected)]
            assert push[5].startswith("publish: git push of executorch-pack-bot/executorch was refused; git said:   "
                                      "remote: error: GH013: Repository rule violations found for "
                                      "refs/heads/executorch-pack-bot/executorch."), push
            expected.append((full, "1.4.0", "1.5.1", "failed", "", push[5]))
    expected += [
        (HIDDEN, "", "", "not visible", "", f"GitHub answers 404 for {HIDDEN}: the App is not installed on the "
                                            "repository, it does not exist, or the branch does not exist"),
        ("acme/behind-1", "", "", "refused entry", "", f"{LIST}:24: listed twice: first at {LIST}:3"),
        ("reponame: acme/typo", "", "", "refused entry", "",
         f"{LIST}:25: unknown key 'reponame' (known: repository, branches, branch, track)")]
    assert rows == expected
    head = run.summaries.split("\n| Template", 1)[0]
    assert "2 closed by a person, 1 failed, 1 not visible, 7 proposed, 2 pull request open, 2 refused entry, " \
           "8 up to date." in head
    assert ("3 pack(s): `1.5.1` (release-asset), `1.5.1-local` (build), `1.5.1-local` (build); "
            f"{plan['requests']['sent']} API requests for 21 templates (0 answered 304 Not Modified).") in head

    # ---- the next scheduled run: the ETag cache (actions/cache) makes the plan's requests conditional; the
    # seven pull requests opened are open now, the refused push is tried again with the one pack it needs
    again = fw.run("schedule")
    # no build: the template job is skipped
    assert again.jobs == {"etags": "success", "plan": "success", "etags-save": "success", "pack": "success",
                          "pull-request": "failure", "summary": "success"}, again
    plan2 = json.loads(next((fw.tmp / "run2/artifacts/executorch-pack-bot-fleet-plan").glob("*.json")).read_text())
    # the hidden repository's 404 kept no ETag; the pull-request listings of the seven templates changed
    assert plan2["requests"] == {"sent": 1 + 21 + len(behind_target) + len(closed),
                                 "conditional": 1 + 20 + len(behind_target) + len(closed),
                                 "not-modified": 1 + 20 + len(behind_target) - len(NEEDS_PR) + len(closed),
                                 "templates": 21}
    assert [p["pack-version"] for p in plan2["packs"]] == ["1.5.1"]
    assert [p["repository"] for p in plan2["pull-requests"]] == ["acme/refuses-push"]
    rows2 = summary_rows(again)
    assert rows2 == [(row[0], "1.4.0", "1.5.1", "pull request open", link.format(row[0], "open"), "#1 proposes 1.5.1")
                     if row[3] == "proposed" else row for row in expected], rows2

    # ---- the fleet dashboard issue of the calling repository (dashboard: true): created by the first run, edited by
    # the second (rows changed), the same table without the request counts
    from bot.fleet.summary import LABEL, MARKER
    issues = fw.fake.issues[CALLER_REPOSITORY]
    assert list(issues) == [1]
    body = issues[1]["body"]
    assert body.startswith(MARKER + "\n## ExecuTorch fleet: 23 rows") and "API requests" not in body
    assert [x["name"] for x in issues[1]["labels"]] == [LABEL]
    assert body.count("| pull request open |") == 2 + len(NEEDS_PR) and "| proposed |" not in body

    # ---- a dry-run dispatch: the refused push's job runs and prints its pull request; nothing is written to
    # GitHub (no pull request, no branch, no dashboard edit), and the row says it was a dry run
    writes = len(fw.fake.writes())
    dry = fw.run("workflow_dispatch", dry_run=True)
    assert dry.jobs == {"etags": "success", "plan": "success", "etags-save": "success", "pack": "success",
                        "pull-request": "success", "summary": "success"}, dry
    assert fw.fake.writes()[writes:] == [] and fw.branches_of("acme/refuses-push") == ["main"]
    assert fw.fake.issues[CALLER_REPOSITORY][1]["body"] == body
    assert summary_rows(dry)[len(STATES) - 1] == (
        "acme/refuses-push", "1.4.0", "1.5.1", "dry run", "",
        "dry run: the pull request was printed in the job log, nothing pushed")
