"""The fleet workflow's graph, read with PyYAML and held to what fleet-plan emits: plan -> one pack job per
pack version -> one pull-request job per template (each with an App token for its one repository, reusing
the action's commands) -> summary.  Every ``matrix.X`` the jobs read is a key of the plan's matrix entries,
and the plan job's outputs are the names fleet-plan writes to $GITHUB_OUTPUT."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml

import fleetworld as fw
from fakegithub import UPSTREAM
from github_world import cli

ROOT = Path(__file__).resolve().parents[2]
FLEET = ROOT / ".github" / "workflows" / "executorch-pack-bot-fleet.yml"
CALLER = ROOT / "docs" / "example-fleet-caller.yml"


def load(path: Path) -> dict:
    data = yaml.safe_load(path.read_text())
    if True in data:
        data["on"] = data.pop(True)
    return data


@pytest.fixture(scope="module")
def doc():
    return load(FLEET)


def commands(job: dict) -> list:
    return [s.get("with", {}).get("command") for s in job["steps"] if s.get("uses") == "./.executorch-pack-bot"]


def step(job: dict, command: str) -> dict:
    return next(s for s in job["steps"] if s.get("with", {}).get("command") == command)


def test_the_job_graph(doc):
    jobs = doc["jobs"]
    assert list(jobs) == ["etags", "plan", "etags-save", "template", "pack", "pull-request", "summary"]
    assert (jobs["plan"]["needs"], jobs["etags-save"]["needs"], jobs["template"]["needs"], jobs["pack"]["needs"],
            jobs["pull-request"]["needs"], jobs["summary"]["needs"]) == (
        "etags", "plan", "plan", ["plan", "template"], ["plan", "pack"], ["plan", "pack", "pull-request"])
    assert commands(jobs["plan"]) == ["fleet-plan"]
    assert jobs["pack"]["strategy"] == {"fail-fast": False, "matrix": "${{ fromJSON(needs.plan.outputs.packs) }}"}
    assert jobs["template"]["strategy"] == {"fail-fast": False,
                                            "matrix": "${{ fromJSON(needs.plan.outputs.builds) }}"}
    # one template's failed checkout fails only its own build: the pack jobs run whatever the template jobs did
    assert jobs["pack"]["if"] == ("${{ !cancelled() && needs.plan.result == 'success' "
                                  "&& needs.plan.outputs.pack-count != '0' }}")
    pr = jobs["pull-request"]["strategy"]
    assert pr == {"fail-fast": False, "max-parallel": "${{ inputs.max-parallel }}",
                  "matrix": "${{ fromJSON(needs.plan.outputs.pull-requests) }}"}
    # a failed pack fails only the jobs of its version: the pull-request jobs run whatever the pack jobs did
    assert jobs["pull-request"]["if"] == ("${{ !cancelled() && needs.plan.result == 'success' "
                                          "&& needs.plan.outputs.pull-request-count != '0' }}")
    assert jobs["summary"]["if"] == "${{ !cancelled() && needs.plan.result == 'success' }}"
    assert commands(jobs["summary"]) == ["fleet-summary"]
    assert doc["concurrency"] == {"group": "executorch-pack-bot-fleet-${{ github.repository }}",
                                  "cancel-in-progress": False}


def test_each_pull_request_job_writes_with_a_token_for_its_one_repository(doc):
    job = doc["jobs"]["pull-request"]
    assert job["permissions"] == {"contents": "read"}
    mint = job["steps"][0]
    assert mint["uses"].startswith("actions/create-github-app-token@")
    assert (mint["with"]["owner"], mint["with"]["repositories"]) == ("${{ matrix.owner }}", "${{ matrix.name }}")
    assert (mint["with"]["permission-contents"], mint["with"]["permission-pull-requests"]) == ("write", "write")
    token = "${{ steps.app-token.outputs.token }}"
    checkout = job["steps"][1]
    assert checkout["with"]["repository"] == "${{ matrix.repository }}" and checkout["with"]["token"] == token
    assert commands(job) == ["previous-pack", "update", "publish", "fleet-summary"]
    assert step(job, "publish")["with"]["token"] == token
    assert step(job, "update")["with"]["token"] == "" and step(job, "previous-pack")["with"]["token"] == ""
    assert step(job, "fleet-summary")["if"] == "always()" and step(job, "fleet-summary")["with"]["token"] == ""
    # the pack: downloaded, checked before anything uses it (a release asset against the digest the plan recorded,
    # from its matrix row, not the artifact), verified by publish
    names = [s.get("name", "") for s in job["steps"]]
    download = next(s for s in job["steps"] if str(s.get("uses", "")).startswith("actions/download-artifact@"))
    assert download["with"] == {"name": "${{ matrix.artifact }}", "path": "pack"}
    check = next(i for i, s in enumerate(job["steps"]) if "sha256sum --check" in s.get("run", ""))
    assert names.index(download["name"]) < check < names.index("Find the previous pack")
    assert job["steps"][check]["env"] == {"SOURCE": "${{ matrix.source }}", "DIGEST": "${{ matrix.sha256 }}"}
    assert "--pack pack" in step(job, "publish")["with"]["args"]


def test_the_plan_token_only_reads_and_upstream_code_never_gets_a_token(doc):
    mint = next(s for s in doc["jobs"]["plan"]["steps"] if s.get("id") == "app-token")
    assert {k: v for k, v in mint["with"].items() if k.startswith("permission-")} == {
        "permission-contents": "read", "permission-pull-requests": "read", "permission-metadata": "read",
        "permission-issues": "${{ inputs.app-issues-permission && 'read' || '' }}"}   # dashboards: read only
    assert doc["on"]["workflow_call"]["inputs"]["app-issues-permission"]["default"] is False
    plan = step(doc["jobs"]["plan"], "fleet-plan")
    assert plan["env"] == {"EXECUTORCH_PACK_BOT_CACHE_KEY": "${{ secrets.app-private-key }}"}   # the cache's HMAC
    pack = doc["jobs"]["pack"]
    for command in ("update", "build-pack", "verify-pack", "previous-pack"):
        assert step(pack, command)["with"]["token"] == "", command
    # the App key is in the template job, which runs nothing of the template; the pack job holds none
    assert not [s for s in pack["steps"] if "create-github-app-token" in str(s.get("uses", ""))]
    assert "secrets." not in yaml.safe_dump(pack)
    read = next(s for s in doc["jobs"]["template"]["steps"] if s.get("id") == "read-token")
    assert {k: v for k, v in read["with"].items() if k.startswith("permission-")} == {"permission-contents": "read"}
    assert read["with"]["repositories"] == "${{ matrix.template-name }}"
    assert [s.get("run", "") for s in doc["jobs"]["template"]["steps"] if "run" in s] == [
        "tar -C template -cf template.tar ."]
    # the pip step contained exactly as the single-template workflow's build-pack job contains its own: the same
    # command from bot.contain to pip (a user of its own, writing only the venv and the pip cache)
    def contained(job):
        run = next(s for s in job["steps"] if "pip install" in s.get("run", ""))["run"]
        return run[run.index("-m bot.contain"):]
    single = yaml.safe_load((ROOT / ".github/workflows/executorch-pack-bot.yml").read_text())
    assert contained(pack) == contained(single["jobs"]["build-pack"])
    assert "--separate-user" in contained(pack) and "env -u GITHUB_TOKEN" in contained(pack)


def test_one_pack_is_fetched_or_built_once_and_handed_on_with_its_sha256(doc):
    pack = doc["jobs"]["pack"]
    assert pack["runs-on"] == "${{ matrix.source == 'build' && inputs.build-runner || 'ubuntu-24.04' }}"
    assert step(pack, "fetch-pack")["if"] == "matrix.source == 'release-asset'"
    assert all(step(pack, c)["if"] == "matrix.source == 'build'" for c in ("build-pack", "verify-pack"))
    upload = pack["steps"][-1]
    assert upload["with"]["name"] == "${{ matrix.artifact }}" and "pack/pack.sha256" in upload["with"]["path"]
    assert "sha256sum" in pack["steps"][-2]["run"]


def test_a_built_pack_is_verified_once_with_one_compile_check(doc):
    # build-pack verifies what it wrote unless told not to: with verify-pack after it, the pack was verified
    # (and its Runtime sources compiled) twice in the one pack job
    pack = doc["jobs"]["pack"]
    assert "--no-compile-check" in step(pack, "build-pack")["with"]["args"].split()
    assert {"--compile-check", "--ccache"} <= set(step(pack, "verify-pack")["with"]["args"].split())


def test_publish_names_the_template_not_the_calling_repository(doc):
    # GITHUB_REPOSITORY is the calling (.github) repository in every job of a fleet run: without --github-repo,
    # publish opens the pull request there (or, with the checkout's origin on github.com, refuses the mismatch)
    args = step(doc["jobs"]["pull-request"], "publish")["with"]["args"].split()
    at = args.index("--github-repo")
    assert args[at:at + 4] == ["--github-repo", "${{", "matrix.repository", "}}"]


@pytest.fixture
def planned(fake, tmp_path, capsys, monkeypatch):
    out = tmp_path / "github-output"
    monkeypatch.setenv("GITHUB_OUTPUT", str(out))
    lst = fw.build_world(fake, tmp_path)
    assert cli(capsys, "fleet-plan", "--list", str(lst), "--upstream", f"github:{UPSTREAM}",
               "--out", str(tmp_path / "plan.json"))[0] == 0
    names = set(re.findall(r"^([\w-]+)<<", out.read_text(), re.M))
    return json.loads((tmp_path / "plan.json").read_text()), names


def test_the_workflow_reads_only_what_the_plan_emits(doc, planned):
    plan, outputs = planned
    assert set(doc["jobs"]["plan"]["outputs"]) == outputs - {"requests"}
    for job, items in (("pack", plan["packs"]), ("template", plan["builds"]), ("pull-request", plan["pull-requests"])):
        used = set(re.findall(r"matrix\.([\w-]+)", yaml.safe_dump(doc["jobs"][job])))
        assert used <= set(items[0]), (job, used - set(items[0]))


@pytest.mark.parametrize("action", ["", "dry-run"])
def test_the_record_step_arguments_parse_with_empty_publish_outputs(doc, tmp_path, capsys, monkeypatch, action):
    # action: the record step's expression with publish's action output empty, outside and inside a dry run
    monkeypatch.chdir(tmp_path)
    args = step(doc["jobs"]["pull-request"], "fleet-summary")["with"]["args"]
    filled = (args.replace("${{ matrix.key }}", "acme-a").replace("${{ job.status }}", "failure")
              .replace("${{ inputs.dry-run && 'dry-run' || steps.publish.outputs.action }}", action)
              .replace("${{ steps.publish.outputs.pr-url }}", ""))
    assert "${{" not in filled
    code, _ = cli(capsys, "fleet-summary", *filled.split())
    assert code == 0
    got = json.loads((tmp_path / "fleet-result" / "acme-a.json").read_text())
    assert (got["key"], got["status"], got["action"], got["pr_url"], got["flags"]) == ("acme-a", "failure", action,
                                                                                      "", [])


def test_a_dry_run_writes_no_dashboard_issue(doc):
    # a dry run pushes nothing and opens nothing: the summary job writes the job summary only
    args = step(doc["jobs"]["summary"], "fleet-summary")["with"]["args"]
    assert "${{ inputs.dashboard && !inputs.dry-run && format('--dashboard {0}', github.repository) || '' }}" in args


def test_caller_example_matches_the_reusable_workflow(doc):
    caller = load(CALLER)
    (job,) = caller["jobs"].values()
    assert job["uses"].split("@")[0].endswith("/.github/workflows/executorch-pack-bot-fleet.yml")
    declared = doc["on"]["workflow_call"]
    assert set(job["with"]) <= set(declared["inputs"])
    assert {k for k, v in declared["inputs"].items() if v.get("required")} <= set(job["with"])
    assert set(job["secrets"]) == {k for k, v in declared["secrets"].items() if v.get("required")}
    assert caller["permissions"] == {} and set(job["permissions"]) == {"contents", "issues"}


def test_the_fleet_clones_only_the_submodules_the_build_reads_as_the_single_workflow(doc):
    """The fleet cloned every upstream submodule recursively (23 at v1.4.1, some with their own): code and
    history the build never reads. It now selects the very submodules the single-template build job does."""
    single = load(ROOT / ".github/workflows/executorch-pack-bot.yml")["jobs"]["build-pack"]
    clone = next(s["run"] for s in doc["jobs"]["pack"]["steps"] if "git clone" in s.get("run", ""))
    own = next(s["run"] for s in single["steps"] if "git clone" in s.get("run", ""))
    assert "--recurse-submodules" not in clone and "--no-recurse-submodules" in clone
    pick = re.compile(r"wanted=\(.*?\)|git -C executorch submodule update [^\n]*", re.S)
    assert pick.findall(clone) == pick.findall(own) and len(pick.findall(clone)) == 2
