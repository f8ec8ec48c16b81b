"""The reusable workflow's run-model job, read statically (docs/action.md, docs/security.md, docs/model-run.md).

It compiles pack sources and runs pip builds, so it is held to the build job's rules: no token in any bot step,
every upstream command contained by ``bot.contain`` without tokens or file variables, only the result JSON files
handed on; its failure does not stop the pull-request job, which then passes ``--model-run-job``.
"""

from __future__ import annotations

import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
JOBS = yaml.safe_load((ROOT / ".github/workflows/executorch-pack-bot.yml").read_text())["jobs"]
JOB = JOBS["run-model"]
DROPPED = ("GITHUB_TOKEN", "GITHUB_OUTPUT", "GITHUB_ENV", "GITHUB_PATH", "GITHUB_STATE", "GITHUB_STEP_SUMMARY",
           "ACTIONS_RUNTIME_TOKEN", "ACTIONS_ID_TOKEN_REQUEST_TOKEN", "ACTIONS_ID_TOKEN_REQUEST_URL")


def test_it_reads_only_and_its_bot_steps_hold_no_token():
    assert JOB["permissions"] == {"contents": "read"} and JOB["runs-on"] == "ubuntu-24.04"
    bot = [s["with"] for s in JOB["steps"] if s.get("uses") == "./.executorch-pack-bot"]
    assert [w["command"] for w in bot] == ["previous-pack", "update"]
    assert all(w.get("token") == "" for w in bot)
    assert not any("secrets." in str(s) or "github.token" in str(s) for s in JOB["steps"])


def test_every_upstream_command_is_contained_without_tokens_or_file_variables():
    scripts = [s["run"] for s in JOB["steps"] if s.get("id") in ("venv", "models")]
    assert len(scripts) == 2
    for script in scripts:
        flat = " ".join(script.replace("\\\n", " ").split())
        # commands stopped meanwhile; a user of its own where the runner allows it, writing only what it is handed
        assert re.search(r'-m bot\.contain --stop-commands (--bot )?--separate-user( --writable "[^"]+")+ -- env', flat)
        for var in DROPPED:
            assert f"-u {var}" in flat, (var, script)
    run = scripts[1]
    # every run-model goes through the guest command; the bot writes its output only after it returned
    assert run.count('"${guest[@]}"') == 2
    assert re.search(r'guest=\("\$venv/bin/python" -m bot\.contain --stop-commands --bot --separate-user --writable '
                     r'"models"\s+--writable "results" --writable "\$HOME/\.cache/ccache" -- env ', run)
    assert "run-model --suite models --host-python" in run.replace("\n", " ")
    # the template's own model (model: in its settings) runs with the suite on both packs
    assert '--template template --cache-dir "$HOME/.cache/ccache" --cbuild-pack template)' in run


def test_it_installs_the_arm_toolchain_and_qemu_and_caches_ccache_on_the_packs_hash():
    apt = next(s["run"] for s in JOB["steps"] if "apt-get install" in s.get("run", ""))
    for pkg in ("gcc-arm-none-eabi", "libstdc++-arm-none-eabi-newlib", "libnewlib-arm-none-eabi", "qemu-system-arm",
                "ccache"):
        assert pkg in apt.split()
    cache = next(s for s in JOB["steps"] if str(s.get("uses", "")).startswith("actions/cache@"))
    assert re.fullmatch(r"actions/cache@[0-9a-f]{40}", cache["uses"])
    assert "hashFiles('pack/PyTorch.ExecuTorch.*.pack')" in cache["with"]["key"]
    assert cache["with"]["path"] == "~/.cache/ccache"


def test_only_the_result_json_files_leave_the_job():
    uploads = [s["with"] for s in JOB["steps"] if str(s.get("uses", "")).startswith("actions/upload-artifact@")]
    assert [(u["name"], u["path"]) for u in uploads] == [("run-model-results", "results/new/*.json"),
                                                         ("run-model-results-old", "results/old/*.json")]


def test_a_mismatch_keeps_the_job_going_and_a_failure_does_not_stop_the_pull_request():
    run = next(s["run"] for s in JOB["steps"] if s.get("id") == "models")
    assert "set -uo pipefail" in run and "set -e" not in run   # exit 1 of run-model is a result
    assert '[ "$rc" -le 1 ] ||' in run
    pr = JOBS["pull-request"]
    assert "run-model" in pr["needs"] and pr["if"].startswith("always()") and "run-model" not in pr["if"]
    args = next(s["with"]["args"] for s in pr["steps"] if s.get("with", {}).get("command") == "publish")
    assert ("--model-run-job ${{ needs.run-model.result == 'success' && needs.run-model.outputs.outcome "
            "|| needs.run-model.result }}") in args
    downloads = {s["with"]["name"]: s.get("if") for s in pr["steps"]
                 if str(s.get("uses", "")).startswith("actions/download-artifact@")}
    assert downloads["run-model-results"] == ("needs.run-model.result == 'success' && "
                                              "needs.run-model.outputs.outcome == 'success'")
    assert "needs.run-model.outputs.cross-check == 'true'" in downloads["run-model-results-old"]


def test_a_failed_venv_or_model_run_is_the_runs_result_not_a_red_run():
    steps = {s.get("id"): s for s in JOB["steps"] if s.get("id")}
    assert steps["venv"]["continue-on-error"] is True and steps["models"]["continue-on-error"] is True
    assert steps["models"]["if"] == "steps.venv.outcome == 'success'"
    uploads = [s for s in JOB["steps"] if str(s.get("uses", "")).startswith("actions/upload-artifact@")]
    assert uploads[0]["if"] == "steps.models.outcome == 'success'"
    assert JOB["outputs"]["outcome"] == "${{ steps.outcome.outputs.outcome }}"
    assert steps["outcome"] is JOB["steps"][-1]
