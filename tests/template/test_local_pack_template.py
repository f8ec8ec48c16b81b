"""A template on a locally built pack: audit and update (the engine's side).

The sample template is turned into one that pins ``PyTorch::ExecuTorch@1.4.0-local`` (with a
``path:`` to the unpacked pack in the csolution) beside ``executorch==1.4.0``, as the pack
maintenance procedure leaves it after ``build-pack --version 1.4.0-local``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot import engine
from helpers import assert_refused, run_cli, update

CMSIS_FILES = ("cmsis-executorch.csolution.yml", "model/model.cproject.yml", "ai_layer/ai_layer.clayer.yml",
               "app/app.cproject.yml", "cmsis-executorch.cbuild-pack.yml")


def _make_local(template: Path, label: str = "local") -> Path:
    for rel in CMSIS_FILES:
        p = template / rel
        p.write_text(p.read_text().replace("PyTorch::ExecuTorch@1.4.0", f"PyTorch::ExecuTorch@1.4.0-{label}"))
    sol = template / "cmsis-executorch.csolution.yml"
    text = sol.read_text()
    line = f"    - pack: PyTorch::ExecuTorch@1.4.0-{label}    # exact pin, not a range\n"
    assert line in text
    sol.write_text(text.replace(line, line + f"      path: ../packs/PyTorch.ExecuTorch.1.4.0-{label}\n"))
    return template


def test_audit_agrees_and_says_so_in_one_line(template, capsys):
    _make_local(template)
    rc, out, _err = run_cli(capsys, "audit", "--repo", template)
    assert rc == 0, out
    lines = out.splitlines()
    assert "OK: every ExecuTorch pin is 1.4.0-local." in lines
    assert ("PyTorch::ExecuTorch@1.4.0-local is a locally built pack of ExecuTorch 1.4.0: "
            "it agrees with executorch==1.4.0.") in lines


def test_audit_json_names_the_local_build(template, capsys):
    _make_local(template)
    rc, out, _err = run_cli(capsys, "audit", "--repo", template, "--json")
    data = json.loads(out)
    assert (rc, data["ok"], data["agree"], data["versions"]) == (0, True, True, ["1.4.0-local"])
    assert data["local_build"] == ("PyTorch::ExecuTorch@1.4.0-local is a locally built pack of ExecuTorch 1.4.0: "
                                   "it agrees with executorch==1.4.0")


def test_audit_release_and_local_pack_pins_disagree(template, capsys):
    _make_local(template)
    p = template / "app/app.cproject.yml"
    p.write_text(p.read_text().replace("@1.4.0-local", "@1.4.0"))
    rc, out, _err = run_cli(capsys, "audit", "--repo", template, "--json")
    data = json.loads(out)
    assert (rc, data["agree"], data["local_build"]) == (1, False, None)
    assert sorted(data["versions"]) == ["1.4.0", "1.4.0-local"]


def test_current_pins_of_a_local_template(template):
    _make_local(template, "local.2")
    version, label = engine.current_pins(engine.read_template(template))
    assert (str(version), label) == ("1.4.0", "local.2")


def test_update_keeps_the_label_in_pins_path_and_lock(template, upstream_repo, capsys):
    _make_local(template)
    rc, out, err = update(capsys, template, upstream_repo, "--version", "1.5.1", "--allow-flagged")
    assert rc == 0, (out, err)
    sol = (template / "cmsis-executorch.csolution.yml").read_text()
    assert "- pack: PyTorch::ExecuTorch@1.5.1-local" in sol
    assert "path: ../packs/PyTorch.ExecuTorch.1.5.1-local\n" in sol
    for rel in CMSIS_FILES:
        text = (template / rel).read_text()
        assert "@1.5.1-local" in text and "@1.4.0-local" not in text, rel
    assert "executorch==1.5.1" in (template / "requirements.txt").read_text()


def test_update_lists_one_reviewer_item_with_the_build_pack_command(template, upstream_repo, tmp_path, capsys):
    _make_local(template)
    plan_file = tmp_path / "plan.json"
    rc, out, err = update(capsys, template, upstream_repo, "--version", "1.5.1", "--allow-flagged",
                          "--plan-file", plan_file)
    assert rc == 0, (out, err)
    plan = json.loads(plan_file.read_text())
    items = [f for f in plan["flags"] if f["code"] == "local-pack-build"]
    assert len(items) == 1
    [item] = items
    assert item["blocking"] is False
    assert ("`executorch-pack-bot build-pack --executorch-root executorch --build-dir cmake-out-arm "
            "--version 1.5.1-local --output-dir packs`") in item["message"]
    assert plan["target"]["pack"] == "1.5.1-local" and plan["current"]["pack"] == "1.4.0-local"


@pytest.mark.parametrize("pin", ["1.4.0_local", "1.4.0-local+build", "1.4.0-"])
def test_a_label_the_bot_does_not_understand_is_refused_naming_the_line(template, upstream_repo, capsys, pin):
    _make_local(template)
    p = template / "app/app.cproject.yml"
    p.write_text(p.read_text().replace("@1.4.0-local", f"@{pin}"))
    line = next(i for i, t in enumerate(p.read_text().splitlines(), 1) if pin in t)
    _out, err = assert_refused(capsys, template, upstream_repo, "--version", "1.5.1",
                               message=[f"app/app.cproject.yml:{line}:", "is not a pack version"])


def test_check_outputs_the_local_pack_version_and_builds_it(template, upstream_repo):
    from bot.github.flow import check
    from bot.sources import open_source

    _make_local(template)
    state = check(template, open_source(str(upstream_repo)), to="1.5.1")
    outs = state.outputs()
    assert (outs["current"], outs["target"], outs["pack-version"], outs["pack-source"], outs["pack-url"]) == (
        "1.4.0", "1.5.1", "1.5.1-local", "build", "")


def test_run_never_verifies_the_release_asset_as_a_local_pack(world, tmp_path, capsys):
    from fakegithub import UPSTREAM, add_sample_release, fresh_checkout
    from packgen import DEMO_OPS, make_pack

    repo = world.fake.repo(UPSTREAM)
    repo.releases = [r for r in repo.releases if r["tag_name"] != "v1.5.1"]
    add_sample_release(world.fake, "v1.5.1", created_at="2026-09-01T00:00:00Z", assets={
        "PyTorch.ExecuTorch.1.5.1.pack": make_pack(tmp_path / "p", version="1.5.1", operators=DEMO_OPS).read_bytes()})
    co = _make_local(fresh_checkout(world.remote, tmp_path / "co"))
    rc, out, err = run_cli(capsys, "run", "--repo", co, "--upstream", f"github:{UPSTREAM}", "--dry-run")
    assert rc == 0, (out, err)
    assert "### Pack verification" in out and "**Passed**" not in out and "**Failed**" not in out
    assert ("The template pins a locally built pack: build `PyTorch.ExecuTorch.1.5.1-local.pack` from the v1.5.1 "
            "sources") in out
    items = [line for line in out.splitlines() if line.startswith("- `local-pack-build`:")]
    assert len(items) == 1 and "1\\.5\\.1\\-local \\-\\-output\\-dir packs" in items[0]   # the one reviewer item


from test_github_lifecycle import world  # noqa: E402,F401  (fixture)
