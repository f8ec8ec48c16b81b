"""The reusable workflow run whole under nektos/act (tests/worlds/actworld.py): each scenario is one event
(a schedule, a workflow_dispatch, or one of GitHub's example webhook payloads adapted to the template) on
the template, and asserts the job results and GitHub's final state on the fake: pull requests and their
bodies, branches, commits, comments, reactions, auto-merge, the dashboard issue.

docs/example-caller.yml is the caller; the reusable workflow and action.yml are this checkout's.
"""

from __future__ import annotations

import re

import pytest

from actworld import REVIEWERS_CALLER, TEMPLATE, TEMPLATE_WHEELS, ActWorld, bot_commit, empty_wheel, session_site
from bot.events.dashboard import LABEL
from eventworld import PR_BODY
from webhook_payloads import comment_event, issue_edited_event, review_event

pytestmark = pytest.mark.workflow

BOT_BRANCH = "executorch-pack-bot/executorch"


@pytest.fixture(scope="session")
def bot_repo(tmp_path_factory):
    return bot_commit(tmp_path_factory.mktemp("bot"))


@pytest.fixture(scope="session")
def wheels(tmp_path_factory):
    d = tmp_path_factory.mktemp("wheels")
    for name, version in TEMPLATE_WHEELS:
        empty_wheel(d, name, version)
    return d


@pytest.fixture(scope="session")
def site(tmp_path_factory):
    return session_site(tmp_path_factory.mktemp("site") / "venv")


@pytest.fixture
def aw(tmp_path, bot_repo, wheels, site):
    w = ActWorld(tmp_path, bot_repo, wheels, site)
    yield w
    w.fake.stop()


def only(items):
    assert len(items) == 1, items
    return items[0]


BUMP_JOBS = ("watch", "pull-request", "dashboard")


def assert_bump_pr(aw, *, built: bool):
    """One open PR from the bot's branch for 1.5.1 whose branch moved the pins; returns its body."""
    pr = only(aw.pulls())
    assert (pr["head"]["ref"], pr["base"]["ref"]) == (BOT_BRANCH, "main")
    # the title carries a "blocked" marker exactly when the body starts with the blocked caution
    m = re.fullmatch(r"Bump ExecuTorch to 1\.5\.1( \(blocked: [^()]+\))?", pr["title"])
    assert m and bool(m.group(1)) == (pr["body"] or "").startswith("> [!CAUTION]\n> **Blocked**"), pr["title"]
    assert aw.branches() == [BOT_BRANCH, "main"]
    assert "executorch==1.5.1" in aw.show(BOT_BRANCH, "requirements.txt")
    assert "PyTorch::ExecuTorch@1.5.1" in aw.show(BOT_BRANCH, "cmsis-executorch.csolution.yml")
    body = pr["body"]
    assert "**Passed** for version `1.5.1`" in body
    if built:
        assert "release asset `" not in body
    else:
        assert "the release asset `" in body
    return body


def assert_record_body(body: str):
    """The PR body on the workflow's path counts the plan's edits and never denies a rewrite it made."""
    import re
    m = re.search(r"(\d+) pin edits, (\d+) prose edits, (\d+) lock entries in (\d+) files", body)
    assert m and int(m.group(1)) > 0, m and m.group(0)
    assert "no pack pin was rewritten" not in body and "no requirement rewritten" not in body


def test_a_scheduled_run_with_a_good_release_asset_opens_the_pr(aw):
    aw.release("good", schema_change=True)
    run = aw.run("schedule")
    assert run.code == 0, run
    assert run.jobs == {"watch": "success", "fetch-pack": "success", "run-model": "success",
                        "pull-request": "success"}   # command, approval, build-pack, ai-layer, dashboard (off): skipped
    body = assert_bump_pr(aw, built=False)
    assert_record_body(body)
    # the pull-request job checked the fetched pack against the digest the watch job read from GitHub
    assert [ln.split("] ", 1)[1] for ln in run.log.splitlines()
            if ln.startswith("[pull-request] ") and ln.endswith(".pack: OK")] == ["PyTorch.ExecuTorch.1.5.1.pack: OK"]
    # the .pte schema changed between the tags: a blocking re-export task
    assert "`pte-schema`: re-export the models: the `.pte` schema changed between `v1.4.0` and `v1.5.1`" in body
    assert "re-export the models (a blocking item)" in body
    # update read the downloaded pack: the components' upstream files are the PDSC's <file> lists
    assert "(paths from the pack's `<file>` lists" in body and "by the naming convention of the pack" not in body
    # no build; the run-model job installed the Arm toolchain and QEMU, and its model run failed (the act world's
    # template venv has no torch to export the models with): the PR says so, the run stays green
    assert "qemu-system-arm" in aw.apt_log.read_text() and "ninja-build" not in aw.apt_log.read_text()
    assert "; model run **failed**" in body
    assert "- [ ] `model-run`: the model run failed: The `run-model` job of " in body


def test_a_refused_release_asset_is_built_from_the_tag_in_the_same_run(aw):
    aw.template_commit({".github/executorch-pack-bot.yml": ("dashboard: true\n", 0o644)})
    aw.release("trap")
    run = aw.run("schedule")
    assert run.code == 0, run
    assert run.jobs == {"watch": "success", "fetch-pack": "success", "build-pack": "success",
                        "run-model": "success", "pull-request": "success", "dashboard": "success"}, run
    body = assert_bump_pr(aw, built=True)
    assert "refused" in body and "built" in body and "from the tag" in body
    assert "include/flatbuffers/" in body and "validate_pack.py" in body and "verify-pack" in body
    assert "<details>" in body
    assert "apt-get install" in aw.apt_log.read_text()   # the Arm runner installed its toolchain
    assert "asset-refused=true" in run.log
    # the dashboard says the same
    issue = only(list(aw.fake.issues[TEMPLATE].values()))
    assert ("pull request for 1.5.1 proposed: the release's pack asset was refused by verification; "
            "the pack was built from the release tag") in issue["body"]


def test_a_refused_asset_whose_build_fails_too_fails_the_run_with_both_reasons(aw):
    aw.template_commit({".github/executorch-pack-bot.yml": ("dashboard: true\n", 0o644)})
    aw.release("trap", build_fails=True)
    run = aw.run("schedule")
    assert run.code != 0
    assert run.jobs == {"watch": "success", "fetch-pack": "success", "build-pack": "failure",
                        "dashboard": "success"}, run            # pull-request skipped
    assert aw.pulls() == [] and aw.branches() == ["main"]
    assert "failed verification and is refused" in run.log and "build_pack.sh: packaging failed" in run.log
    issue = only(list(aw.fake.issues[TEMPLATE].values()))
    assert ("failed: the release's pack asset was refused by verification; the build from the release tag "
            "failed too; no pull request for 1.5.1") in issue["body"]


def assert_only_the_model_run_failed(aw, run):
    """The run's only errors are the run-model job's: the act world's template venv has no torch, so the bot's
    model suite cannot be exported there. The job stays green and the PR says the model run failed, blocking."""
    assert len(run.errors) == 2, run.errors
    assert run.errors[0].startswith("::error::exporting the model suite with ") and \
        "No module named 'torch'" in run.errors[0], run.errors
    assert run.errors[1] == "::error::run-model on the new pack wrote no result", run.errors
    body = only(aw.pulls())["body"]
    assert "`model-run`" in body, body[-3000:]


def assert_built_with_the_release_flatc_and_proved_once(aw, run):
    """The run built the pack on the Arm runner and opened the bump PR with it."""
    assert run.code == 0, run
    assert run.jobs == {"watch": "success", "build-pack": "success", "run-model": "success",
                        "pull-request": "success"}, run
    assert_bump_pr(aw, built=True)
    build = [ln for ln in run.log.splitlines() if ln.startswith("[build-pack] ")]
    # flatc of the template venv's executorch wheel, of the tree's flatbuffers version: nothing compiled for the host
    assert any("/site-packages/executorch/data/bin/flatc of the executorch 1.5.1 package of " in ln
               and "version 24.3.25, the version of the tree's third-party/flatbuffers" in ln for ln in build)
    assert "[build-pack]   \u2699  ::set-output:: build-path=release-flatc" in build
    # the pack is proved once (verify-pack's compile check, whose bit the PR job takes), not also by build-pack
    assert [ln for ln in build if "Runtime sources compile with" in ln] == [
        "[build-pack] compile              pass    all 2 Runtime sources compile with arm-none-eabi-g++"]
    assert_only_the_model_run_failed(aw, run)


def test_a_release_without_a_pack_asset_is_built(aw):
    aw.release(None)
    run = aw.run("schedule")
    assert_built_with_the_release_flatc_and_proved_once(aw, run)


def test_nothing_to_do_costs_two_requests_and_skips_the_later_jobs(aw):
    run = aw.run("schedule")            # upstream's newest release is the template's 1.4.0
    assert run.code == 0, run
    assert run.jobs == {"watch": "success"}, run     # one job, one runner: the dashboard is off, so no dashboard job
    # the releases listing, and the bot's open pull requests (whose release is checked again while one is open)
    assert [(r.method, r.path) for r in aw.fake.requests] == [("GET", "/repos/pytorch/executorch/releases"),
                                                             ("GET", f"/repos/{TEMPLATE}/pulls")]
    assert aw.pulls() == [] and aw.branches() == ["main"]


def test_a_dry_run_dispatch_pushes_nothing(aw):
    aw.release("good")
    run = aw.run("workflow_dispatch", dry_run=True)
    assert run.code == 0, run
    assert run.jobs == {"watch": "success", "fetch-pack": "success", "run-model": "success",
                        "pull-request": "success"}, run
    assert aw.pulls() == [] and aw.branches() == ["main"]
    assert [r for r in aw.fake.requests if r.method != "GET"] == []
    assert "Bump ExecuTorch to 1.5.1" in run.log       # the PR it would open is printed


def test_a_dispatch_with_a_version_moves_to_that_version_not_the_newest(aw):
    aw.release("good")
    aw.newer_release("v1.5.2")
    run = aw.run("workflow_dispatch", version="1.5.1")
    assert run.code == 0, run
    assert run.jobs["pull-request"] == "success"
    assert_bump_pr(aw, built=False)


def test_a_dispatch_with_force_build_builds_although_the_asset_is_good(aw):
    aw.release("good")
    run = aw.run("workflow_dispatch", force_build=True)
    assert_built_with_the_release_flatc_and_proved_once(aw, run)


@pytest.mark.needs("webhooks")
def test_the_default_caller_runs_no_job_on_a_comment(aw):
    # the bump alone: a writer's command on the bot's PR starts nothing until the reviewer layer is added
    pr = aw.fake.add_pull(TEMPLATE, head=BOT_BRANCH, title="Bump ExecuTorch to 1.5.1", body=PR_BODY)
    run = aw.run("issue_comment", comment_event(TEMPLATE, pr["number"], "/executorch-pack-bot recheck",
                                                login="alice", comment_id=7003,
                                                issue_body=pr["body"]))
    assert run.jobs == {}, run
    assert 7003 not in aw.fake.reactions and aw.branches() == ["main"]


@pytest.mark.needs("webhooks")
def test_a_writers_recheck_runs_the_bump_and_updates_the_one_pr(aw):
    aw.CALLER = REVIEWERS_CALLER   # the opt-in reviewer layer
    aw.release("good")
    assert aw.run("schedule").code == 0
    pr = only(aw.pulls())
    head = aw.show(BOT_BRANCH, "requirements.txt")
    run = aw.run("issue_comment", comment_event(TEMPLATE, pr["number"], "/executorch-pack-bot recheck",
                                                login="alice", comment_id=7001,
                                                issue_body=pr["body"]))
    assert run.code == 0, run
    assert run.jobs == {"command": "success", "watch": "success", "fetch-pack": "success",
                        "run-model": "success", "pull-request": "success"}, run
    assert aw.fake.reactions[7001] == ["+1"]
    assert only(aw.pulls())["number"] == pr["number"] and aw.branches() == [BOT_BRANCH, "main"]
    assert aw.show(BOT_BRANCH, "requirements.txt") == head
    replies = [c["body"] for c in aw.fake.repo(TEMPLATE).comments.get(pr["number"], [])]
    assert any(r.startswith("`recheck`") for r in replies), replies


@pytest.mark.needs("webhooks")
def test_a_non_writers_recheck_is_refused_and_runs_nothing(aw):
    aw.CALLER = REVIEWERS_CALLER   # the opt-in reviewer layer
    pr = aw.fake.add_pull(TEMPLATE, head=BOT_BRANCH, title="Bump ExecuTorch to 1.5.1", body=PR_BODY)
    run = aw.run("issue_comment", comment_event(TEMPLATE, pr["number"], "/executorch-pack-bot recheck",
                                                login="rita", comment_id=7002,
                                                issue_body=pr["body"]))
    assert run.code == 0, run
    assert run.jobs == {"command": "success"}        # watch, the pack jobs, pull-request and dashboard skipped
    assert aw.fake.reactions[7002] == ["-1"]
    assert aw.branches() == ["main"] and only(aw.pulls())["body"] == PR_BODY
    assert not any(r.path.endswith("/releases") for r in aw.fake.requests)


@pytest.mark.needs("webhooks")
def test_a_writers_approval_enables_auto_merge(aw):
    aw.CALLER = REVIEWERS_CALLER   # the opt-in reviewer layer
    aw.template_commit({".github/executorch-pack-bot.yml": ("automerge: on-approval\n", 0o644)})
    aw.fake.protection["main"] = ["ci/build"]
    pr = aw.fake.add_pull(TEMPLATE, head=BOT_BRANCH, title="Bump ExecuTorch to 1.5.1", body=PR_BODY)
    run = aw.run("pull_request_review", review_event(TEMPLATE, pr, login="alice"))
    assert run.code == 0, run
    assert run.jobs == {"approval": "success"}, run
    assert pr["auto_merge"]["merge_method"] == "squash"
    assert "enablePullRequestAutoMerge" in only(aw.fake.graphql)["query"]
    replies = [c["body"] for c in aw.fake.repo(TEMPLATE).comments.get(pr["number"], [])]
    assert only(replies).startswith("Approved: auto-merge is on (squash)")


def test_a_scheduled_run_after_the_proposed_release_was_withdrawn_closes_the_pr_with_the_true_reason(aw):
    """v1.5.1 is flagged prerelease after the bot's PR for it opened: the next scheduled run's watch job says why
    the PR's release no longer holds, the withdraw job closes the PR with that reason (not "the base already is
    on ExecuTorch 1.4.0"), nothing else runs, and the dashboard's last run says the same."""
    aw.template_commit({".github/executorch-pack-bot.yml": ("dashboard: true\n", 0o644)})
    aw.release("good")
    assert aw.run("schedule").code == 0
    number = only(aw.pulls())["number"]
    rel = next(r for r in aw.fake.repo("pytorch/executorch").releases if r["tag_name"] == "v1.5.1")
    rel["prerelease"] = True
    run = aw.run("schedule")
    assert run.code == 0, run
    assert run.jobs == {"watch": "success", "withdraw": "success", "dashboard": "success"}, run
    assert "open-pr-holds=false" in run.log
    assert aw.pulls() == []
    note = ("ExecuTorch 1.5.1 no longer holds: the GitHub release v1.5.1 of pytorch/executorch is now flagged "
            "prerelease. The base is still on ExecuTorch 1.4.0, and no newer stable release holds; closing. The bot "
            "proposes a release again once one newer than 1.4.0 is published and installable.")
    assert [c["body"] for c in aw.fake.repo(TEMPLATE).comments.get(number, [])] == [note]
    issue = only(list(aw.fake.issues[TEMPLATE].values()))
    assert f"closed pull request #{number}: ExecuTorch 1.5.1 no longer holds: the GitHub release v1.5.1" in issue["body"]
    assert "up to date" not in issue["body"].split("Last run", 1)[1]


@pytest.mark.needs("webhooks")
def test_the_dashboard_check_now_box_starts_a_run(aw):
    aw.CALLER = REVIEWERS_CALLER   # the opt-in reviewer layer
    aw.template_commit({".github/executorch-pack-bot.yml": ("dashboard: true\n", 0o644)})
    aw.release("good")
    assert aw.run("schedule").code == 0
    issue = only(list(aw.fake.issues[TEMPLATE].values()))
    assert [x["name"] for x in issue["labels"]] == [LABEL]
    assert "pull request for 1.5.1 proposed" in issue["body"]
    before = issue["body"]
    issue["body"] = before.replace("- [ ] Check now", "- [x] Check now")
    run = aw.run("issues", issue_edited_event(TEMPLATE, issue, before, login="alice"))
    assert run.code == 0, run
    assert run.jobs == {"command": "success", "watch": "success", "fetch-pack": "success",
                        "run-model": "success", "pull-request": "success", "dashboard": "success"}, run
    assert "- [ ] Check now" in issue["body"]            # unticked
    assert only(aw.pulls())["head"]["ref"] == BOT_BRANCH


CREATE_AI_LAYER = """\
import pathlib, sys
out = pathlib.Path("ai_layer")
out.mkdir(exist_ok=True)
(out / "ai_layer.clayer.yml").write_text("layer:\\n  description: regenerated from " + sys.argv[1] + "\\n")
run = out / "run_model.sh"
run.write_text("#!/bin/sh\\necho model\\n")
run.chmod(0o755)
"""


def test_a_doctor_dispatch_runs_only_the_install_check_and_opens_nothing(aw):
    aw.release("good")
    run = aw.run("workflow_dispatch", doctor=True)
    assert run.code == 0, run
    assert run.jobs == {"doctor": "success"}, run      # no watch, no pack job, no pull request, no dashboard
    assert not run.errors, run.errors
    assert aw.pulls() == [] and aw.branches() == ["main"]
    assert [(r.method, r.path) for r in aw.fake.requests if r.method != "GET"] == []   # read requests only
    # the rehearsed pull request is in the job's log and its summary; the App's token did the reading
    assert "[doctor]     Bump ExecuTorch to 1.5.1" in run.log.splitlines()
    assert "[doctor] ## executorch-pack-bot doctor: OK\n" in run.summaries   # the job summary is the report
    assert "### Rehearsed pull request: Bump ExecuTorch to 1\\.5\\.1\n" in run.summaries, run.summaries[-2000:]
    # the App's token is the bump's (no --workflow-token checks): the workflow files need only a permission note
    assert "GITHUB\\_TOKEN" not in run.summaries and "- **blocks**" not in run.summaries
    assert "- note: the bump edits \\.github/workflows/build\\.yml: the bot's token needs Workflows: read and write" \
        in run.summaries
    assert len(aw.app_log.read_text().splitlines()) == 1   # the App's token, minted once, for the check


def test_a_doctor_dispatch_without_app_or_token_checks_the_workflow_token(aw):
    aw.release("good")
    run = aw.run("workflow_dispatch", doctor=True, secrets={}, variables={})
    # --workflow-token: the sample template's bump edits .github/workflows/build.yml, which GITHUB_TOKEN can never
    # push, and the fake repository has "Allow GitHub Actions to create and approve pull requests" off: exit 1
    assert run.jobs == {"doctor": "failure"}, run
    assert run.summaries.startswith("[doctor] ## executorch-pack-bot doctor: FAIL\n"), run.summaries[:2000]
    blocks = [ln for ln in run.summaries.splitlines() if ln.startswith("- **blocks**: ")]
    assert len(blocks) == 4, blocks   # two problems, in the summary of the step and of the job
    assert "GitHub never lets the workflow's GITHUB\\_TOKEN push a change under \\.github/workflows/" in blocks[0]
    assert '"Allow GitHub Actions to create and approve pull requests" is off' in blocks[1]
    assert "### Rehearsed pull request: Bump ExecuTorch to 1\\.5\\.1\n" in run.summaries
    assert not run.errors, run.errors
    assert aw.pulls() == [] and aw.branches() == ["main"]
    assert [(r.method, r.path) for r in aw.fake.requests if r.method != "GET"] == []


def test_the_deprecated_app_id_input_still_names_the_app(aw):
    aw.release("good")
    run = aw.run("schedule", variables={}, with_inputs={"app-id": "Iv23standin"})   # client-id left empty
    assert run.code == 0, run
    assert_bump_pr(aw, built=False)
    assert len(aw.app_log.read_text().splitlines()) == 1   # the pull-request job minted the App's token


def test_the_ai_layer_jobs_output_is_committed_with_its_file_modes(aw):
    aw.template_commit({"create_ai_layer.py": (CREATE_AI_LAYER, 0o644)})
    aw.release("good")
    run = aw.run("schedule", with_inputs={"ai-layer": True, "csolution": "cmsis-executorch.csolution.yml",
                                          "active-target": "SSE-300"})
    assert run.code == 0, run
    assert run.jobs == {"watch": "success", "fetch-pack": "success", "ai-layer": "success",
                        "run-model": "success", "pull-request": "success"}, run
    assert_bump_pr(aw, built=False)
    assert "regenerated from cmsis-executorch.cbuild-mlops.yml" in aw.show(BOT_BRANCH, "ai_layer/ai_layer.clayer.yml")
    tree = aw.ls_tree(BOT_BRANCH, "ai_layer/run_model.sh")
    assert tree.startswith("100755 "), tree


# ---------------------------------------------------------------- bad input at the workflow level

def assert_failed_cleanly(aw, run, job: str, message: str):
    """``job`` failed with one ``::error`` annotation (the run's only one) saying ``message``; no PR, no branch."""
    assert run.jobs.get(job) == "failure", run
    assert run.code != 0 and "pull-request" not in run.jobs, run
    error = only(run.errors)
    assert error.startswith("::error") and message in error, error
    assert aw.pulls() == [] and aw.branches() == ["main"]


def test_a_bot_ref_that_is_not_a_sha_fails_with_one_error_and_no_pr(aw):
    aw.release("good")
    run = aw.run("schedule", bot_ref="main")
    assert_failed_cleanly(aw, run, "watch", "bot-ref must be a full 40-hex commit SHA")


def test_a_bad_version_input_fails_the_check_with_one_error_and_no_pr(aw):
    aw.release("good")
    run = aw.run("workflow_dispatch", version="1.5")
    assert_failed_cleanly(aw, run, "watch",
                          "--version: '1.5' is not a release version (expected X.Y.Z, vX.Y.Z or X.Y.Z-rcN)")


def test_an_app_id_without_its_private_key_fails_before_anything_is_pushed(aw):
    aw.release("good")
    run = aw.run("schedule", secrets={})
    assert_failed_cleanly(aw, run, "watch", "client-id is set but the app-private-key secret is empty")
    assert not aw.fake.requests       # stopped before the first request


def test_an_absent_pack_artifact_fails_the_pull_request_job_with_one_error_and_no_pr(aw):
    aw.release("good")
    run = aw.run("schedule", lost_artifacts=("executorch-pack",))
    assert run.code != 0
    # both jobs that take the pack fail on its absence, each with the one error that names it
    assert (run.jobs["fetch-pack"], run.jobs["run-model"], run.jobs["pull-request"]) == ("success", "failure",
                                                                                          "failure"), run
    assert run.errors == ["::error::Unable to download artifact(s): Artifact not found for name: executorch-pack"] * 2
    assert aw.pulls() == [] and aw.branches() == ["main"]
    assert [r for r in aw.fake.requests if r.method != "GET"] == []


#: Upstream code that writes workflow commands into the step's output behind the bot's back: loaded by a
#: ``.pth`` file of the template's numpy stand-in, so it runs whenever the template's Python starts (the build
#: job's release-flatc lookup, the run-model job's exporter). It writes to standard output of every process
#: above it up to act itself (``/proc/PID/fd/1``: the bot's, the containment's, the step shell's) and notes
#: each write in MARKS.
FORGER = """\
import os
MARKS = {marks!r}
LINES = b"::error::forged by upstream code\\n::set-output name=pack::/evil\\n##[warning]forged too\\n"
pid, seen = os.getppid(), set()
while pid > 1 and pid not in seen:
    seen.add(pid)
    try:
        comm = open(f"/proc/{{pid}}/comm").read().strip()
        ppid = int(open(f"/proc/{{pid}}/stat").read().rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError):
        break
    if comm == "act":
        break
    try:
        fd = os.open(f"/proc/{{pid}}/fd/1", os.O_WRONLY)
        os.write(fd, LINES)
        os.close(fd)
        with open(MARKS, "a") as fh:
            fh.write(f"{{comm}}\\n")
    except OSError:
        pass
    pid = ppid
"""


@pytest.fixture
def hostile_wheels(tmp_path, wheels):
    """The template's wheels, numpy's stand-in carrying :data:`FORGER`; returns (folder, marks file)."""
    import shutil
    import zipfile
    d, marks = tmp_path / "hostile-wheels", tmp_path / "forger-marks.txt"
    shutil.copytree(wheels, d)
    whl = d / "numpy-2.0.0-py3-none-any.whl"
    with zipfile.ZipFile(whl, "a") as zf:
        zf.writestr("forger.py", FORGER.format(marks=str(marks)))
        zf.writestr("forger.pth", "import forger\n")
    return d, marks


def test_workflow_commands_printed_by_upstream_code_are_inert(tmp_path, bot_repo, hostile_wheels, site):
    folder, marks = hostile_wheels
    aw = ActWorld(tmp_path, bot_repo, folder, site)
    # the same-user mode (a runner without root or passwordless sudo), where upstream code can also reach the
    # step shell's and the bot's descriptors; a user of its own could not (test_upstream_code_runs_as_another_user)
    aw.extra_env = lambda: {"EXECUTORCH_PACK_BOT_GUEST_USER": "off"}
    try:
        aw.release(None)
        run = aw.run("schedule")
        # upstream code did write its lines into the steps' output, in both jobs where it runs...
        wrote = marks.read_text().split() if marks.exists() else []
        assert "bash" in wrote and "python" in wrote, wrote     # the step shell of run-model, the bot of build-pack
        # ...where act read them while the step's commands were stopped ("⚙", the line as read)...
        assert "[build-pack]   \u2699  ::error::forged by upstream code" in run.log.splitlines()
        assert "[run-model]   \u2699  ::set-output name=pack::/evil" in run.log.splitlines()
        # ...so none was a command: no forged annotation, no forged step output (the pack path stays the bot's)
        assert not [e for e in run.errors if "forged" in e], run.errors
        assert "::set-output:: pack=/evil" not in run.log
        assert not [ln for ln in run.log.splitlines() if "forged" in ln and "\u2699  " not in ln]
        assert_built_with_the_release_flatc_and_proved_once(aw, run)
    finally:
        aw.fake.stop()
