"""One trust model over every job the project ships (tests/worlds/trustzones.py, docs/security.md "Trust zones"):
a job that holds a credential runs no foreign code and restores no cache, and no step after foreign code
holds a token, in every file of .github/workflows/, the caller examples and action.yml.  Copies of the
workflows given a credential next to foreign code (the fleet pack job as it was, the fleet plan job's cache
before its App key) show that the checker refuses them."""

from __future__ import annotations

import copy

import pytest

import trustzones as tz
from trustzones import ROOT

FILES = tz.shipped_files()
SINGLE = ROOT / ".github/workflows/executorch-pack-bot.yml"
FLEET = ROOT / ".github/workflows/executorch-pack-bot-fleet.yml"
APP_TOKEN_STEP = {"name": "Mint a token", "id": "app-token",
                  "uses": "actions/create-github-app-token@bcd2ba49218906704ab6c1aa796996da409d3eb1",
                  "with": {"client-id": "${{ inputs.app-id }}", "private-key": "${{ secrets.app-private-key }}"}}
CACHE_STEP = {"name": "Restore a cache", "uses": "actions/cache@1bd1e32a3bdc45362d1e726936510720a7c30a57",
              "with": {"path": ".fleet-cache", "key": "k"}}
PIP_STEP = {"name": "Create the template's virtual environment",
            "run": 'python -m venv v\nv/bin/python -m pip install --quiet -r "template/$REQUIREMENTS"\n'}


def test_every_workflow_file_is_covered():
    names = {p.name for p in FILES}
    assert {p.name for p in (ROOT / ".github/workflows").iterdir()} <= names
    assert {"action.yml", "example-caller.yml", "example-fleet-caller.yml"} <= names


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_no_job_holds_a_credential_next_to_foreign_code_or_a_cache(path):
    assert tz.violations(path) == []


def test_the_classification_sees_the_foreign_code_each_workflow_runs():
    """The checker is not vacuous: the steps known to run upstream or template code are classified foreign."""
    single = tz.load(SINGLE)["jobs"]
    foreign = {job: [s["name"] for s in j["steps"] if tz.is_foreign(s)] for job, j in single.items()}
    assert "Create the template's virtual environment" in foreign["build-pack"]
    assert "Build the pack" in foreign["build-pack"]
    assert "Regenerate ai_layer/" in foreign["ai-layer"]
    assert "Run the models on the new pack, then on the baseline pack" in foreign["run-model"]
    assert foreign["pull-request"] == [] and foreign["watch"] == []
    fleet = tz.load(FLEET)["jobs"]
    built = [s["name"] for j in fleet.values() for s in j.get("steps", []) if tz.is_foreign(s)]
    assert "Create the template's virtual environment" in built and "Build the pack" in built


def _refused(doc: dict, path=SINGLE) -> list[str]:
    return tz.violations(path, doc)


def test_a_copy_whose_build_job_gains_an_app_key_is_refused():
    doc = tz.load(SINGLE)
    doc["jobs"]["build-pack"]["steps"].insert(2, copy.deepcopy(APP_TOKEN_STEP))
    out = _refused(doc)
    assert out and all(v.startswith("executorch-pack-bot.yml:build-pack: holds a credential") for v in out), out
    assert any("'Build the pack'" in v for v in out)


@pytest.mark.parametrize("grant", [{"contents": "write"}, "write-all", {"contents": "read", "packages": "write"}])
def test_a_copy_whose_build_job_gains_a_write_permission_is_refused(grant):
    doc = tz.load(SINGLE)
    doc["jobs"]["build-pack"]["permissions"] = grant
    assert any("runs foreign code in \"Create the template's virtual environment\"" in v for v in _refused(doc))


def test_a_copy_whose_pull_request_job_restores_a_cache_is_refused():
    doc = tz.load(SINGLE)
    doc["jobs"]["pull-request"]["steps"].insert(0, copy.deepcopy(CACHE_STEP))
    assert _refused(doc) == ["executorch-pack-bot.yml:pull-request: holds a credential (permissions: contents: "
                             "write, pull-requests: write) and restores a cache in 'Restore a cache': actions/cache"]


def test_a_token_after_foreign_code_is_refused():
    doc = tz.load(SINGLE)
    steps = doc["jobs"]["build-pack"]["steps"]
    steps.append({"name": "Read with the job token", "uses": "./.executorch-pack-bot",
                  "with": {"command": "previous-pack"}})
    assert _refused(doc) == ["executorch-pack-bot.yml:build-pack: 'Read with the job token' holds a token "
                             "(./.executorch-pack-bot without token: (github.token by default)) after foreign code "
                             "ran in \"Create the template's virtual environment\""]
    build = next(s for s in steps if s.get("name") == "Build the pack")
    build["with"]["token"] = "${{ github.token }}"
    assert any("'Build the pack' runs foreign code" in v and "names github.token" in v for v in _refused(doc))


def test_the_fleet_pack_job_as_it_was_is_refused():
    """A template's pip install in the job that mints an App token (whose post step holds the key)."""
    doc = tz.load(FLEET)
    job = next(j for j in doc["jobs"].values() if any(tz.is_foreign(s) for s in j.get("steps", [])))
    job["steps"].insert(1, copy.deepcopy(APP_TOKEN_STEP))
    out = _refused(doc, FLEET)
    assert any("mints an App token) and runs foreign code in \"Create the template's virtual environment\"" in v
               for v in out), out


def test_the_fleet_plan_job_restoring_a_cache_before_its_key_is_refused():
    doc = tz.load(FLEET)
    plan = doc["jobs"]["plan"]
    plan["steps"].insert(1, copy.deepcopy(CACHE_STEP))
    assert any(v.startswith("executorch-pack-bot-fleet.yml:plan: holds a credential") and "restores a cache" in v
               for v in _refused(doc, FLEET))


def test_a_new_workflow_is_covered_by_being_in_the_folder(tmp_path):
    doc = {"on": {"workflow_call": {}}, "jobs": {"both": {"runs-on": "x", "permissions": {"contents": "read"},
                                                          "steps": [copy.deepcopy(APP_TOKEN_STEP),
                                                                    copy.deepcopy(PIP_STEP)]}}}
    assert _refused(doc, tmp_path / "new.yml") == [
        "new.yml:both: holds a credential (step 'Mint a token' mints an App token) and runs foreign code in "
        "\"Create the template's virtual environment\": run: matches "
        "'pip install(?![^\\\\n]*(--require-hashes|--no-index))'"]


def test_the_action_clears_the_token_of_every_command_that_runs_upstream_code():
    doc = tz.load(ROOT / "action.yml")
    assert tz.violations(ROOT / "action.yml", doc) == []
    run = next(s for s in doc["runs"]["steps"] if "exec \"$bot\"" in s.get("run", ""))
    run["run"] = run["run"].replace('build-pack|verify-pack|audit) GITHUB_TOKEN=""', 'build-pack|audit) GITHUB_TOKEN=""')
    assert tz.violations(ROOT / "action.yml", doc) == [
        "action.yml: the bot's verify-pack runs upstream code but the action hands it the token"]
