"""Security and hygiene rules of every workflow and of action.yml.

Parsed with PyYAML so that a new job or step cannot silently break a rule:
least-privilege permissions (only the pull-request job pushes; the event jobs and the
dashboard write only issues and pull requests), every
third-party action pinned to a 40-hex commit SHA with a ``# vX`` comment, no
untrusted expressions inside ``run:`` scripts, a concurrency group, a timeout
on every job, ``needs:`` and ``needs.X.outputs.Y`` that resolve, and a caller
example whose inputs exist in the reusable workflow.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.yml"))
REUSABLE = ROOT / ".github" / "workflows" / "executorch-pack-bot.yml"
CALLER = ROOT / "docs" / "example-caller.yml"
#: The caller with the opt-in reviewer layer (commands, auto-merge, dashboard).
REVIEWERS_CALLER = ROOT / "docs" / "example-caller-reviewers.yml"
CALLERS = [CALLER, REVIEWERS_CALLER]
ACTION = ROOT / "action.yml"

PINNED = re.compile(r"^[\w.-]+/[\w./-]+@[0-9a-f]{40}$")
# Expressions that must never be expanded inside a shell script (pass them through env:).
FORBIDDEN_IN_RUN = re.compile(
    r"\$\{\{[^}]*\b(inputs\.|github\.event\.|steps\.[\w-]+\.outputs|needs\.[\w-]+\.outputs|"
    r"github\.head_ref|secrets\.|matrix\.|env\.)")
# job -> the scopes it may write.  contents: write for the pull-request job (the bot's branch) and the approval job
# (GraphQL enablePullRequestAutoMerge needs it; nothing is pushed).
WRITE_JOBS = {"executorch-pack-bot.yml": {"pull-request": {"contents", "pull-requests"},
                                          "command": {"issues", "pull-requests"},
                                          "approval": {"contents", "pull-requests"},
                                          "dashboard": {"issues"},
                                          # closes the bot's PR whose release was withdrawn (comment and close)
                                          "withdraw": {"pull-requests"}},
             # the fleet's pull-request jobs write with an App token scoped to one repository, not with this token
             "executorch-pack-bot-fleet.yml": {"summary": {"issues"}},
             # the attestation (signed with the run's OIDC token, stored on the repository); the release and vX tag
             "release.yml": {"attest": {"id-token", "attestations"}, "release": {"contents"}}}
READ_ONLY_VALUES = {"read", "none"}


def _load(path: Path) -> dict:
    data = yaml.safe_load(path.read_text())
    # PyYAML reads the key `on` as the boolean True (YAML 1.1).
    if True in data:
        data["on"] = data.pop(True)
    return data


def _steps(doc: dict):
    if "jobs" in doc:
        for job_id, job in doc["jobs"].items():
            for step in job.get("steps", []) or []:
                yield job_id, step
    else:  # composite action
        for step in doc["runs"]["steps"]:
            yield "action", step


def test_there_are_workflows():
    names = {p.name for p in WORKFLOWS}
    assert {"executorch-pack-bot.yml", "ci.yml"} <= names


@pytest.mark.parametrize("path", WORKFLOWS + CALLERS, ids=lambda p: p.name)
def test_top_level_permissions_are_empty_or_read_only(path):
    doc = _load(path)
    assert "permissions" in doc, f"{path.name}: top-level permissions missing"
    perms = doc["permissions"]
    assert perms == {} or perms == "read-all" or all(v in READ_ONLY_VALUES for v in perms.values())


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_every_job_least_privilege_and_timeout(path):
    doc = _load(path)
    writers = WRITE_JOBS.get(path.name, set())
    for job_id, job in doc["jobs"].items():
        assert "permissions" in job, f"{path.name}: job {job_id} declares no permissions"
        perms = job["permissions"]
        assert isinstance(perms, dict), f"{path.name}: job {job_id}: permissions must be an explicit map"
        for scope, level in perms.items():
            if level == "write":
                assert scope in writers.get(job_id, ()), f"{path.name}: job {job_id} may not write {scope}"
            else:
                assert level in READ_ONLY_VALUES
        if "uses" not in job:  # a job calling a reusable workflow has no timeout of its own
            t = job.get("timeout-minutes")
            assert isinstance(t, int) and 0 < t <= 360, f"{path.name}: job {job_id} needs timeout-minutes"


def test_only_the_listed_jobs_write_and_only_their_scopes():
    doc = _load(REUSABLE)
    writing = {j: {k for k, v in (job.get("permissions") or {}).items() if v == "write"}
               for j, job in doc["jobs"].items()}
    assert {j: w for j, w in writing.items() if w} == WRITE_JOBS["executorch-pack-bot.yml"]
    assert doc["jobs"]["pull-request"]["permissions"] == {"contents": "write", "pull-requests": "write"}


@pytest.mark.parametrize("path", WORKFLOWS + [ACTION], ids=lambda p: p.name)
def test_third_party_actions_pinned_to_sha_with_tag_comment(path):
    text = path.read_text()
    doc = _load(path)
    for job_id, step in _steps(doc):
        uses = step.get("uses")
        if not uses or uses.startswith("./") or uses.startswith("docker://"):
            continue
        assert PINNED.match(uses), f"{path.name}: {job_id}: {uses} is not pinned to a full commit SHA"
        line = next(ln for ln in text.splitlines() if uses in ln)
        assert re.search(r"#\s*v\d", line), f"{path.name}: {uses} needs a '# vX' comment"
    for job_id, job in doc.get("jobs", {}).items():
        if "uses" in job and not job["uses"].startswith("./"):
            assert PINNED.match(job["uses"]), f"{path.name}: job {job_id}: reusable workflow not pinned"


@pytest.mark.parametrize("path", WORKFLOWS + [ACTION] + CALLERS, ids=lambda p: p.name)
def test_no_expressions_inside_run_scripts(path):
    for job_id, step in _steps(_load(path)):
        run = step.get("run")
        if run is None:
            continue
        bad = FORBIDDEN_IN_RUN.search(run)
        assert bad is None, f"{path.name}: {job_id}: step {step.get('name')!r} expands {bad.group(0)}...; use env:"
        assert "${{" not in run, f"{path.name}: {job_id}: no expression at all in run: scripts"


def test_checkouts_do_not_persist_credentials():
    for path in WORKFLOWS:
        for job_id, step in _steps(_load(path)):
            if str(step.get("uses", "")).startswith("actions/checkout@"):
                assert step.get("with", {}).get("persist-credentials") is False, f"{path.name}: {job_id}"


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_concurrency_declared(path):
    conc = _load(path).get("concurrency")
    assert conc and conc.get("group"), f"{path.name}: concurrency group missing"


def test_reusable_runs_never_race_or_cancel_a_publish():
    conc = _load(REUSABLE)["concurrency"]
    assert "github.repository" in conc["group"] and conc["cancel-in-progress"] is False


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_needs_and_needs_outputs_resolve(path):
    doc = _load(path)
    jobs = doc["jobs"]
    text = path.read_text()
    for job_id, job in jobs.items():
        needs = job.get("needs", [])
        needs = [needs] if isinstance(needs, str) else needs
        for n in needs:
            assert n in jobs, f"{path.name}: job {job_id} needs unknown job {n}"
    for job_id, out in re.findall(r"needs\.([\w-]+)\.outputs\.([\w-]+)", text):
        assert job_id in jobs, f"{path.name}: needs.{job_id} is not a job"
        assert out in (jobs[job_id].get("outputs") or {}), f"{path.name}: needs.{job_id}.outputs.{out} undeclared"
    # every needs.X.* used in a job is listed in that job's needs
    for job_id, job in jobs.items():
        body = yaml.safe_dump(job)
        needs = job.get("needs", [])
        needs = {needs} if isinstance(needs, str) else set(needs)
        for used in set(re.findall(r"needs\.([\w-]+)\.", body)):
            assert used in needs, f"{path.name}: job {job_id} uses needs.{used} without needing it"


def test_step_output_references_resolve():
    """steps.ID.outputs.X inside a job must name an earlier step with that id."""
    for path in WORKFLOWS:
        for job_id, job in _load(path)["jobs"].items():
            seen: set[str] = set()
            for step in job.get("steps", []):
                body = yaml.safe_dump(step)
                for sid in re.findall(r"steps\.([\w-]+)\.outputs", body):
                    assert sid in seen, f"{path.name}: {job_id}: steps.{sid} is not an earlier step"
                if "id" in step:
                    seen.add(step["id"])
            for sid in re.findall(r"steps\.([\w-]+)\.outputs", yaml.safe_dump(job.get("outputs") or {})):
                assert sid in seen, f"{path.name}: {job_id}: output from unknown step {sid}"


def test_watch_exposes_the_check_outputs():
    outputs = _load(REUSABLE)["jobs"]["watch"]["outputs"]
    assert set(outputs) == {"current", "target", "update-needed", "pack-source", "pack-url", "pack-sha256",
                            "pack-version", "index-ready", "force-build", "recreate", "open-pr", "open-pr-holds",
                            "open-pr-note", "dashboard"}


def test_jobs_of_the_issue_exist_with_their_commands():
    doc = _load(REUSABLE)
    jobs = doc["jobs"]
    assert {"watch", "build-pack", "ai-layer", "pull-request"} <= set(jobs)

    def commands(job_id):
        return [s.get("with", {}).get("command") for s in jobs[job_id]["steps"] if s.get("uses") == "./.executorch-pack-bot"]

    assert commands("watch") == ["check"]
    assert "build-pack" in commands("build-pack") and "verify-pack" in commands("build-pack")
    verify = next(s for s in jobs["build-pack"]["steps"] if s.get("with", {}).get("command") == "verify-pack")
    assert "--executorch-root" in verify["with"]["args"] and "--compile-check" in verify["with"]["args"]
    assert commands("pull-request")[-1] == "publish"
    assert jobs["build-pack"]["runs-on"] == "${{ inputs.build-runner }}"
    assert doc["on"]["workflow_call"]["inputs"]["build-runner"]["default"].endswith("-arm")
    assert "inputs.ai-layer" in jobs["ai-layer"]["if"]
    uploads = [s for s in jobs["build-pack"]["steps"] if str(s.get("uses", "")).startswith("actions/upload-artifact@")]
    assert uploads and uploads[0].get("if") == "always()"
    cache = next(s for s in jobs["build-pack"]["steps"] if str(s.get("uses", "")).startswith("actions/cache@"))
    assert "needs.watch.outputs.target" in cache["with"]["key"] and "ccache" in cache["with"]["path"]


def test_dispatched_values_only_reach_scripts_through_env():
    doc = _load(REUSABLE)
    clone = next(s for s in doc["jobs"]["build-pack"]["steps"] if "git clone" in s.get("run", ""))
    assert clone["env"]["TARGET"] == "${{ needs.watch.outputs.target }}"
    assert '"$TARGET"' in clone["run"]


@pytest.mark.parametrize("path", CALLERS, ids=lambda p: p.name)
def test_caller_example_matches_the_reusable_workflow(path):
    caller = _load(path)
    dispatch = caller["on"]["workflow_dispatch"]["inputs"]
    assert set(dispatch) == {"version", "force-build", "dry-run", "doctor"}
    assert dispatch["doctor"] == {"description": "Install check: rehearse the next PR and check the set-up (nothing "
                                                 "opened)", "type": "boolean", "default": False}
    assert "schedule" in caller["on"]
    (job,) = caller["jobs"].values()
    assert job["uses"].split("@")[0].endswith("/.github/workflows/executorch-pack-bot.yml")
    declared = _load(REUSABLE)["on"]["workflow_call"]
    assert set(job["with"]) <= set(declared["inputs"])
    required = {k for k, v in declared["inputs"].items() if v.get("required")}
    assert required <= set(job["with"])
    assert set(job.get("secrets", {})) <= set(declared["secrets"])
    for name, spec in dispatch.items():   # each dispatch input is passed on (empty on the other events)
        fallback = "''" if spec["type"] == "string" else "false"
        assert job["with"][name] == f"${{{{ inputs.{name} || {fallback} }}}}", name
    assert "bot-ref" not in job["with"] and job["uses"].count("@") == 1   # one pin: the uses: line
    assert declared["inputs"]["doctor"] == {"description": declared["inputs"]["doctor"]["description"],
                                            "type": "boolean", "default": False}


def _body(path) -> str:
    """The caller file without its leading comment lines."""
    lines = path.read_text().splitlines(keepends=True)
    return "".join(lines[next(i for i, ln in enumerate(lines) if not ln.startswith("#")):])


def test_readme_shows_the_caller_example():
    readme = (ROOT / "README.md").read_text()
    assert _body(CALLER).strip() in readme


REVIEWER_TRIGGERS = {"issue_comment", "pull_request_review", "pull_request_target", "issues"}


def test_the_default_caller_is_the_bump_alone():
    assert set(_load(CALLER)["on"]) == {"schedule", "workflow_dispatch"}
    assert "zizmor: ignore" not in CALLER.read_text()


def test_the_reviewer_caller_is_the_default_plus_one_opt_in_block():
    """Every reviewer trigger sits in the one block between the markers (a new event type lands there too), and the
    file without the block is the default caller: the two cannot drift apart."""
    text = _body(REVIEWERS_CALLER)
    start, end = "  # >>> reviewer layer", "  # <<< reviewer layer\n"
    assert text.count(start) == 1 and text.count(end) == 1
    before, rest = text.split(start)
    block, after = rest.split(end)
    assert before + after == _body(CALLER)
    triggers = set(_load(REVIEWERS_CALLER)["on"]) - set(_load(CALLER)["on"])
    assert triggers == REVIEWER_TRIGGERS
    assert all(re.search(rf"^  {t}:", block, re.M) for t in triggers)
    # each layer says what it is and why it can be trusted, beside its triggers
    assert [ln.split(":")[0].strip("# ") for ln in block.splitlines() if "Trust:" in ln] and \
        block.count("Trust:") == 3


def test_action_inputs_reach_scripts_only_through_env():
    doc = _load(ACTION)
    inputs = set(doc["inputs"])
    used = set()
    for _job, step in _steps(doc):
        for value in (step.get("env") or {}).values():
            used |= set(re.findall(r"inputs\.([\w-]+)", str(value)))
    assert used == inputs, f"inputs not passed through env: {inputs - used}"
    assert set(doc["outputs"]) >= {"current", "target", "update-needed", "pack-source", "pack-url",
                                    "pr-number", "pr-url"}
