"""What each job of the reusable workflow trusts, and what runs with which token.

Rules (docs/security.md): upstream code (CMake, ``build_pack.sh``,
``validate_pack.py``, pip installs) runs only in the build-pack job, with no
token and no ``GITHUB_*`` file variable; the pull-request job verifies the
pack itself and takes from the build job only the compile check's pass/fail
bit; update steps get no token; ``bot-ref`` is a commit SHA; the ai-layer job
installs into a fresh pack root and checks the installed files against the
pack; the action installs its dependencies with ``--require-hashes``.
Hostile inputs (a forged compile result, a tampered installed pack, a token
in the environment of upstream code) are built here.
"""

from __future__ import annotations

import json
import re
import subprocess
import zipfile
from pathlib import Path

import pytest
import yaml

from bot.model import CheckResult
from bot.pack.compile_result import read_compile_result, write_compile_result
from bot.pack.installed import installed_check
from helpers import run_cli
from packgen import PackSpec, make_pack
from test_action import ActionRun

ROOT = Path(__file__).resolve().parents[2]
WORKFLOW = yaml.safe_load((ROOT / ".github/workflows/executorch-pack-bot.yml").read_text())
JOBS = WORKFLOW["jobs"]
FILE_VARIABLES = ("GITHUB_OUTPUT", "GITHUB_ENV", "GITHUB_PATH", "GITHUB_STATE", "GITHUB_STEP_SUMMARY")


def _bot_steps(job: str) -> list[dict]:
    return [s for s in JOBS[job]["steps"] if s.get("uses") == "./.executorch-pack-bot"]


# --- the workflow file ------------------------------------------------------------------------------

def test_update_build_pack_and_verify_pack_get_no_token():
    seen = set()
    for job_id in JOBS:
        for step in _bot_steps(job_id):
            w = step["with"]
            if w["command"] in ("update", "build-pack", "verify-pack"):   # update only reads; the others run upstream code
                assert w.get("token") == "", (job_id, step["name"])
                seen.add(w["command"])
    assert seen == {"update", "build-pack", "verify-pack"}


def test_pip_install_of_the_template_runs_without_token_or_file_variables():
    step = next(s for s in JOBS["build-pack"]["steps"] if "pip install" in s.get("run", ""))
    unset = set(re.findall(r"-u (\w+)", step["run"]))
    assert {"GITHUB_TOKEN", "ACTIONS_RUNTIME_TOKEN", "ACTIONS_ID_TOKEN_REQUEST_TOKEN", *FILE_VARIABLES} <= unset
    # and as a guest: nothing it starts outlives the command (bot/contain.py)
    # (and as a user of its own where the runner allows it, writing only the template's venv and the pip cache)
    assert ('"$RUNNER_TEMP/executorch-pack-bot-venv/bin/python" -m bot.contain --stop-commands --separate-user \\\n'
            '  --writable "$RUNNER_TEMP/template-venv" --writable "$HOME/.cache/pip" -- \\\n  env -u') in step["run"]


def test_build_job_hands_on_only_the_pack_and_the_compile_bit():
    verify = next(s for s in _bot_steps("build-pack") if s["with"]["command"] == "verify-pack")
    assert "--compile-result pack/compile-result.json" in verify["with"]["args"]
    assert "--markdown" not in verify["with"]["args"]
    upload = next(s for s in JOBS["build-pack"]["steps"] if str(s.get("uses", "")).startswith("actions/upload-artifact@"))
    assert upload["with"]["path"].split() == ["pack/PyTorch.ExecuTorch.*.pack", "pack/compile-result.json"]


def test_pull_request_job_verifies_the_pack_itself():
    pr = JOBS["pull-request"]
    # it runs nothing but checkouts, artifacts, the bot, and tar putting the ai-layer job's ai_layer/ in place
    # (an artifact keeps no file modes); that script holds no expression and the job's token is not in its env
    # (an artifact keeps no file modes), and sha256sum checking a fetched pack against the watch job's digest
    runs = [s for s in pr["steps"] if "run" in s]
    assert [s["name"] for s in runs] == [
        "Check the release asset against the digest GitHub publishes for it (recorded by the watch job)",
        "Put ai_layer/ in place as the ai-layer job left it (file modes kept; files it removed go)"]
    assert all("${{" not in s["run"] for s in runs)
    assert runs[0]["env"] == {"DIGEST": "${{ needs.watch.outputs.pack-sha256 }}"} and "env" not in runs[1]
    assert "tar -C template --no-same-owner -xf ai-layer/ai-layer.tar ai_layer" in runs[1]["run"]
    publish = _bot_steps("pull-request")[-1]["with"]
    assert publish["command"] == "publish"
    args = publish["args"]
    assert "--pack-report" not in args
    assert args.split()[:6] == ["--plan-file", "executorch-pack-plan.json", "--pack", "pack", "--baseline", "baseline"]
    prev, update = _bot_steps("pull-request")[:2]   # the baseline comes from this job too, with no token
    assert (prev["with"]["command"], prev["with"]["token"], update["with"]["command"]) == ("previous-pack", "", "update")
    assert ("${{ needs.build-pack.result == 'success' && '--compile-result pack/compile-result.json' || '' }}"
            in args)


def _needs(job: dict) -> list[str]:
    n = job.get("needs", [])
    return n if isinstance(n, list) else [n]


PIN_STEP = "Check the bot's pin (this workflow's repository and commit, or bot-repository and bot-ref)"
SHA = "0123456789abcdef0123456789abcdef01234567"


def test_bot_pin_is_checked_before_any_job_checks_it_out(tmp_path):
    """Each job that checks out the bot runs the pin check first, or runs after a job that did."""
    def checks_first(job_id: str) -> bool:
        return JOBS[job_id]["steps"][0].get("name") == PIN_STEP

    def guarded(job_id: str) -> bool:
        return checks_first(job_id) or any(guarded(n) for n in _needs(JOBS[job_id]))

    for job_id, job in JOBS.items():
        if any(s.get("with", {}).get("ref") == "${{ job.workflow_sha || inputs.bot-ref }}" for s in job["steps"]):
            assert guarded(job_id), job_id
    firsts = {job_id: job["steps"][0] for job_id, job in JOBS.items() if checks_first(job_id)}
    assert set(firsts) == {"command", "approval", "doctor", "watch"}
    assert len({yaml.safe_dump(step) for step in firsts.values()}) == 1   # one check, the same everywhere
    assert firsts["watch"]["env"] == {"WORKFLOW_REPOSITORY": "${{ job.workflow_repository }}",
                                      "WORKFLOW_SHA": "${{ job.workflow_sha }}",
                                      "BOT_REPOSITORY": "${{ inputs.bot-repository }}", "BOT_REF": "${{ inputs.bot-ref }}"}


def _pin_check(workflow_repository: str = "", workflow_sha: str = "", repository: str = "", ref: str = ""):
    p = subprocess.run(["bash", "-e", "-c", JOBS["watch"]["steps"][0]["run"]], text=True, capture_output=True,
                       env={"WORKFLOW_REPOSITORY": workflow_repository, "WORKFLOW_SHA": workflow_sha,
                            "BOT_REPOSITORY": repository, "BOT_REF": ref, "PATH": "/usr/bin:/bin"})
    return p.returncode, p.stdout


def test_without_the_workflows_own_pin_bot_ref_must_be_a_sha():
    """The GHES fallback: the runner gives no job.workflow_*, so bot-repository and a 40-hex bot-ref are needed."""
    assert _pin_check(repository="acme/executorch-pack-bot", ref=SHA) == (0, "")
    for bad in ("main", "v1.0.0", SHA[:-1], SHA.upper(), SHA + "\nx", ""):
        code, out = _pin_check(repository="acme/executorch-pack-bot", ref=bad)
        assert (code, out) == (2, "::error title=executorch-pack-bot::bot-ref must be a full 40-hex commit SHA (the "
                                  "runner does not give this workflow's commit, job.workflow_sha)\n"), bad
    assert _pin_check(ref=SHA) == (2, "::error title=executorch-pack-bot::the runner does not give this workflow's "
                                      "repository (job.workflow_repository): set the bot-repository input\n")


def test_with_the_workflows_own_pin_the_inputs_are_optional_and_must_agree():
    own = {"workflow_repository": "Acme/executorch-pack-bot", "workflow_sha": SHA}
    assert _pin_check(**own) == (0, "")
    assert _pin_check(**own, repository="acme/Executorch-Pack-Bot", ref=SHA) == (0, "")   # GitHub's names ignore case
    assert _pin_check(**own, repository="evil/executorch-pack-bot") == (
        2, "::error title=executorch-pack-bot::bot-repository (evil/executorch-pack-bot) is not the repository this "
           "workflow was called from (Acme/executorch-pack-bot): remove bot-repository (the workflow's own is used) "
           "or make it agree with the uses: line\n")
    other = "f" * 40
    assert _pin_check(**own, ref=other) == (
        2, f"::error title=executorch-pack-bot::bot-ref ({other}) is not the commit this workflow was called at "
           f"({SHA}): remove bot-ref (the workflow's own commit is used) or make it the SHA of the uses: line\n")
    assert _pin_check(**own, ref="main")[0] == 2


def test_ai_layer_uses_a_fresh_pack_root_and_checks_the_installed_files():
    steps = JOBS["ai-layer"]["steps"]
    names = [s["name"] for s in steps]
    install = next(s for s in steps if "cpackget add" in s.get("run", ""))
    regen = next(s for s in steps if "cbuild setup" in s.get("run", ""))
    root = "${{ runner.temp }}/cmsis-pack-root"
    assert install["env"]["CMSIS_PACK_ROOT"] == root and regen["env"]["CMSIS_PACK_ROOT"] == root
    script = install["run"]
    assert script.index('rm -rf "$CMSIS_PACK_ROOT"') < script.index("cpackget init --pack-root") < script.index("cpackget add")
    checks = [i for i, s in enumerate(steps) if "--installed" in s.get("with", {}).get("args", "")]
    assert len(checks) == 1 and names.index(install["name"]) < checks[0] < names.index(regen["name"])
    assert steps[checks[0]]["with"]["args"] == "pack --installed " + root
    before = [i for i, s in enumerate(steps) if s.get("with", {}).get("command") == "verify-pack"][0]
    assert before < names.index(install["name"])   # verified before cpackget unpacks it


# --- the action --------------------------------------------------------------------------------------

def test_action_installs_dependencies_with_hashes_only(tmp_path):
    run = ActionRun(tmp_path)
    run.run({"command": "check"})
    deps, bot = [ln.split() for ln in run.pip_log.read_text().splitlines()]
    assert "--require-hashes" in deps and deps[-2:] == ["-r", f"{ROOT}/requirements.lock"] and "--no-deps" in deps
    assert {"--no-deps", "--no-index", "--no-build-isolation"} <= set(bot) and bot[-1] == str(ROOT)


@pytest.mark.parametrize("inputs", [
    {"command": "build-pack", "token": "ghs_write"},
    {"command": "verify-pack", "token": "ghs_write"},
    {"command": "update", "token": ""},
])
def test_action_passes_no_token(tmp_path, inputs):
    run = ActionRun(tmp_path)
    results = run.run(inputs)
    (call,) = run.calls()
    assert call["token"] is None
    assert "::add-mask::" not in results[-1][1].stdout


def test_requirements_lock_pins_every_dependency_with_hashes():
    text = (ROOT / "requirements.lock").read_text()
    entries = re.split(r"\n(?=[A-Za-z])", text.split("\n", 2)[2].strip())
    names = set()
    for e in entries:
        m = re.match(r"([A-Za-z0-9._-]+)==(\S+)", e)
        assert m, e
        names.add(m.group(1).lower().replace("_", "-"))
        assert re.search(r"--hash=sha256:[0-9a-f]{64}", e), e
    for dep in ("pyyaml", "lxml", "packaging", "pygithub", "requests", "tomli", "setuptools", "wheel"):
        assert dep in names


# --- the bot's side: compile result, installed pack, scrubbed environment, publish --pack -------------

@pytest.mark.parametrize("raw, status", [
    ({"status": "pass", "detail": "ok"}, "pass"),
    ({"status": "**Passed**", "detail": "ok"}, "fail"),
    ({"status": ["pass"]}, "fail"),
    ("not json", "fail"),
    ({"status": "pass", "detail": "x" * 20_000}, "fail"),   # over the size a real one has
])
def test_compile_result_is_trusted_as_one_bit(tmp_path, raw, status):
    p = tmp_path / "compile-result.json"
    p.write_text(raw if isinstance(raw, str) else json.dumps(raw))
    assert read_compile_result(p).status == status


def test_compile_result_detail_is_one_inert_line(tmp_path):
    p = tmp_path / "compile-result.json"
    write_compile_result(CheckResult("compile", "pass", "all fine\n::error::x\n@org/team <!--"), p)
    res = read_compile_result(p)
    assert (res.status, res.detail) == ("pass", "build job: all fine ::error::x @org/team <!--")
    assert read_compile_result(tmp_path / "missing.json").status == "fail"


def test_verify_pack_compile_result_replaces_a_stale_file(tmp_path, capsys):
    pack = make_pack(tmp_path / "p")
    out = tmp_path / "compile-result.json"
    out.write_text('{"status": "pass", "detail": "forged"}')
    rc, _, err = run_cli(capsys, "verify-pack", pack, "--version", "1.5.1", "--compile-check",
                         "--cxx", "/nonexistent/g++", "--compile-result", out)
    assert rc == 2 and json.loads(out.read_text()) == {"status": "fail", "detail": "the compile check did not run"}


def _installed(tmp_path: Path) -> tuple[Path, Path]:
    pack = make_pack(tmp_path / "p")
    folder = tmp_path / "root" / "PyTorch" / "ExecuTorch" / "1.5.1"
    with zipfile.ZipFile(pack) as zf:
        zf.extractall(folder)
    return pack, folder


def test_installed_folder_matching_the_pack_passes(tmp_path):
    pack, folder = _installed(tmp_path)
    with zipfile.ZipFile(pack) as zf:
        assert installed_check(zf, folder).status == "pass"


@pytest.mark.parametrize("tamper, key", [
    (lambda f: (f / "include/executorch/runtime/core/error.h").write_text("#define PWNED 1\n"), "differ"),
    (lambda f: (f / "include/executorch/runtime/core/extra.h").write_text("x"), "extra"),
    (lambda f: (f / "LICENSE").unlink(), "missing"),
])
def test_installed_folder_that_is_not_the_pack_fails(tmp_path, tamper, key):
    pack, folder = _installed(tmp_path)
    tamper(folder)
    with zipfile.ZipFile(pack) as zf:
        res = installed_check(zf, folder)
    assert res.status == "fail" and len(res.data[key]) == 1


def test_upstream_processes_get_no_token_and_no_file_variables(monkeypatch):
    from bot.pack.build import run_step
    for k in ("GITHUB_TOKEN", "GH_TOKEN", "MY_API_KEY", *FILE_VARIABLES):
        monkeypatch.setenv(k, "/secret/" + k)
    monkeypatch.setenv("CMAKE_BUILD_PARALLEL_LEVEL", "2")
    lines: list[str] = []
    run_step("env", ["env"], emit=lines.append)
    names = {ln.split("=", 1)[0] for ln in lines}
    assert "CMAKE_BUILD_PARALLEL_LEVEL" in names and "PATH" in names
    assert not names & {"GITHUB_TOKEN", "GH_TOKEN", "MY_API_KEY", *FILE_VARIABLES}


@pytest.fixture
def planned(tmp_path, upstream_repo, capsys):
    from bot.commands.demo import copy_template
    tpl = copy_template(tmp_path / "t")
    # publish works from a git checkout of the template, a dry run too
    for args in (["init", "-q", "-b", "main"], ["add", "-A"],
                 ["-c", "user.name=t", "-c", "user.email=t@example.invalid", "commit", "-q", "-m", "template"]):
        subprocess.run(["git", *args], cwd=tpl, check=True, capture_output=True)
    plan = tmp_path / "plan.json"
    rc, _, err = run_cli(capsys, "update", "--repo", tpl, "--upstream", upstream_repo, "--plan-file", plan)
    assert rc == 0, err
    return tpl, plan


def test_publish_builds_the_body_from_its_own_verification(tmp_path, planned, capsys):
    tpl, plan = planned
    pack = make_pack(tmp_path / "pack", PackSpec(flatbuffers=False))   # fails a check here, whatever was claimed
    forged = tmp_path / "pack" / "compile-result.json"
    forged.write_text(json.dumps({"status": "pass", "detail": "**VERIFIED SAFE** @org/team <!-- hide"}))
    (tmp_path / "pack" / "pack-report.md").write_text("**Passed** for version `1.5.1`\n")   # never read
    rc, out, err = run_cli(capsys, "publish", "--repo", tpl, "--plan-file", plan, "--pack", pack,
                           "--compile-result", forged, "--dry-run")
    assert rc == 0, err
    assert "draft: yes" in out.splitlines()
    assert "**Failed** for version `1.5.1`" in out
    row = next(ln for ln in out.splitlines() if ln.startswith("| `compile` |"))
    assert row == ("| `compile` | ✅ pass | build job: \\*\\*VERIFIED SAFE\\*\\* @&#8203;org/team &lt;\\!\\-\\- hide |")


def test_publish_compile_result_needs_the_pack(planned, capsys, tmp_path):
    tpl, plan = planned
    rc, _, err = run_cli(capsys, "publish", "--repo", tpl, "--plan-file", plan, "--compile-result",
                         tmp_path / "c.json", "--dry-run")
    assert rc == 2 and "--compile-result needs --pack" in err


def test_verify_pack_takes_the_artifact_folder_and_the_pack_root(tmp_path, capsys):
    pack, folder = _installed(tmp_path)   # folder = ROOT/PyTorch/ExecuTorch/1.5.1
    rc, out, err = run_cli(capsys, "verify-pack", pack.parent, "--version", "1.5.1", "--installed",
                           tmp_path / "root", "--json")
    data = json.loads(out)
    assert (data["pack"], [c["status"] for c in data["checks"] if c["name"] == "installed"]) == (
        "PyTorch.ExecuTorch.1.5.1.pack", ["pass"])
    (folder / "LICENSE").write_text("changed")
    rc, out, _ = run_cli(capsys, "verify-pack", pack.parent, "--version", "1.5.1", "--installed", tmp_path / "root")
    assert rc == 1
