"""The pack jobs of the reusable workflow: the version they build, the evidence they pass to verify-pack, ccache,
and CMSIS-Toolbox set up the way CMSIS projects do it (ARM-software/cmsis-actions/vcpkg, pinned by SHA).
"""

from __future__ import annotations

from pathlib import Path

import yaml

from test_action import ActionRun

ROOT = Path(__file__).resolve().parents[2]
JOBS = yaml.safe_load((ROOT / ".github/workflows/executorch-pack-bot.yml").read_text())["jobs"]
VCPKG = "ARM-software/cmsis-actions/vcpkg@1ab1da03e6e9787dc903bcf041ba541e59b5739f"


def _bot_steps(job: str) -> list[dict]:
    return [s for s in JOBS[job]["steps"] if s.get("uses") == "./.executorch-pack-bot"]


def _command(job: str, command: str) -> dict:
    (step,) = [s for s in _bot_steps(job) if s["with"]["command"] == command]
    return step


def test_build_job_builds_exactly_the_templates_pack_version():
    assert JOBS["watch"]["outputs"]["pack-version"] == "${{ steps.check.outputs.pack-version }}"
    build = _command("build-pack", "build-pack")
    assert build["with"]["version"] == "${{ needs.watch.outputs.pack-version }}"
    verify = _command("build-pack", "verify-pack")
    assert verify["with"]["version"] == "${{ needs.watch.outputs.pack-version }}"
    # build-pack finds ccache on PATH itself; the cache directory is kept by actions/cache
    assert "env" not in build
    cache = next(s for s in JOBS["build-pack"]["steps"] if str(s.get("uses", "")).startswith("actions/cache@"))
    assert "~/.cache/ccache" in cache["with"]["path"].split()


def test_verification_gets_the_template_and_the_previous_pack():
    # the pull-request job verifies the pack for the PR body itself (docs/security.md): it finds the previous
    # pack, checks out the template and passes --baseline to publish --pack; build-pack verifies too
    publish = _command("pull-request", "publish")["with"]["args"].split()
    assert publish[publish.index("--pack") + 1] == "pack" and publish[publish.index("--baseline") + 1] == "baseline"
    for job in ("pull-request", "build-pack"):
        commands = [s["with"]["command"] for s in _bot_steps(job)]
        assert "previous-pack" in commands, job
        if "update" in commands:   # the previous pack is the one the template pins before it moves
            assert commands.index("previous-pack") < commands.index("update"), job
        previous = _command(job, "previous-pack")
        assert (previous["with"]["repo-path"], previous["with"]["args"]) == ("template", "--output-dir baseline")
        if job == "pull-request":
            continue   # publish --pack verifies against its --repo, the template
        args = _command(job, "verify-pack")["with"]["args"].split()
        assert args[args.index("--template") + 1] == "template", job
        assert args[args.index("--baseline") + 1] == "baseline", job
        assert "--allow-flagged" in args, job   # a gone component is the PR's blocking item, not a failed job
        checkout = JOBS[job]["steps"][0]
        assert checkout["with"]["path"] == "template", job


def test_ai_layer_installs_cmsis_toolbox_with_the_templates_vcpkg_configuration():
    steps = JOBS["ai-layer"]["steps"]
    i = next(n for n, s in enumerate(steps) if s.get("uses", "").startswith("ARM-software/cmsis-actions/vcpkg@"))
    vcpkg = steps[i]
    assert vcpkg["uses"] == VCPKG
    assert vcpkg["if"] == "hashFiles('template/vcpkg-configuration.json') != ''"
    assert vcpkg["with"] == {"config": "template/vcpkg-configuration.json"}
    install = next(s for s in steps[i + 1:] if "cpackget add" in s.get("run", ""))
    assert "cpackget add" in install["run"]
    # the self-hosted route stays: without the file, the tools must already be on PATH
    assert 'command -v "$tool"' in install["run"]
    assert install["env"]["TARGET"] == "${{ needs.watch.outputs.pack-version }}"


def test_vcpkg_action_is_pinned_with_its_tag_comment():
    text = (ROOT / ".github/workflows/executorch-pack-bot.yml").read_text()
    assert f"uses: {VCPKG} # v1.2" in text


def test_action_runs_previous_pack_with_the_template_and_upstream(tmp_path):
    run = ActionRun(tmp_path)
    run.run({"command": "previous-pack", "repo-path": "template", "args": "--output-dir baseline"})
    (call,) = run.calls()
    assert call["argv"] == ["previous-pack", "--repo", "template", "--upstream", "github:pytorch/executorch",
                            "--output-dir", "baseline"]
