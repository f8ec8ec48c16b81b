"""The Operators data of a PR: added / removed / changed operator components against the previous pack, the
components the template selects that are gone (blocking), and the previous pack itself (previous-pack).
"""

from __future__ import annotations

import json
import shutil
import zipfile
from pathlib import Path

import pytest

from bot.cli import main
from bot.errors import PackError
from bot.github.flow import gone_flags, pack_failed
from bot.pack.previous import Previous, previous_pack, read_previous, write_previous
from bot.pack.verify import verify_pack
from packgen import DEFAULT_OPS, DEMO_OPS, PackSpec, make_pack, pdsc_text

OLD_OPS = (("Portable", "add"), ("Portable", "mul"), ("Portable", "softmax"), ("Portable", "gelu"))
NEW_OPS = (("Portable", "add"), ("Portable", "mul"), ("Portable", "softmax"), ("Cortex-M", "quantized_add"))


def _old_pack(tmp_path: Path) -> Path:
    """1.4.0 with gelu (removed in the new one) and a mul whose #define differs (changed)."""
    spec = PackSpec(version="1.4.0", operators=OLD_OPS, unregistered=(), releases=[("1.4.0", "2026-08-06")])
    text = pdsc_text(spec).replace("#define RTE_ML_EXECUTORCH_OP_PORTABLE_MUL<", "#define RTE_ML_EXECUTORCH_OP_MUL_OLD<")
    return make_pack(tmp_path / "old", spec, pdsc_bytes=text.encode())


def _new_pack(tmp_path: Path, ops=NEW_OPS) -> Path:
    return make_pack(tmp_path / "new", version="1.5.1", operators=ops, unregistered=())


def test_added_removed_and_changed_against_the_previous_pack(tmp_path):
    report = verify_pack(_new_pack(tmp_path), "1.5.1", baseline=_old_pack(tmp_path))
    assert (report.operators_added, report.operators_removed, report.operators_changed) == (
        ["Cortex-M quantized_add"], ["Portable gelu"], ["Portable mul"])
    res = report.check("baseline-operators")
    assert res.status == "warn"
    assert res.data == {"baseline": "PyTorch.ExecuTorch.1.4.0.pack", "added": ["Cortex-M quantized_add"],
                        "removed": ["Portable gelu"], "changed": ["Portable mul"]}
    assert report.to_json()["operators"] == {"added": ["Cortex-M quantized_add"], "removed": ["Portable gelu"],
                                             "changed": ["Portable mul"], "template_missing": []}
    assert report.operator_rows() == [("Added", ["Cortex-M quantized_add"], False),
                                      ("Removed", ["Portable gelu"], False), ("Changed", ["Portable mul"], False)]


def test_the_markdown_has_one_operators_section(tmp_path):
    md = verify_pack(_new_pack(tmp_path), "1.5.1", baseline=_old_pack(tmp_path)).to_markdown()
    assert md.count("#### Operator components against `PyTorch.ExecuTorch.1.4.0.pack`") == 1
    assert "- Changed (1): `Portable mul`" in md.splitlines()


def test_an_unpacked_pack_folder_is_a_baseline(tmp_path):
    folder = tmp_path / "PyTorch.ExecuTorch.1.4.0"
    folder.mkdir()
    with zipfile.ZipFile(_old_pack(tmp_path)) as zf:
        (folder / "PyTorch.ExecuTorch.pdsc").write_bytes(zf.read("PyTorch.ExecuTorch.pdsc"))
    report = verify_pack(_new_pack(tmp_path), "1.5.1", baseline=folder)
    assert (report.baseline, report.operators_removed) == ("PyTorch.ExecuTorch.1.4.0", ["Portable gelu"])


def test_component_the_template_selects_that_is_gone_is_blocking_data(tmp_path, template):
    report = verify_pack(_new_pack(tmp_path, DEFAULT_OPS), "1.5.1", template=template)
    assert report.template_missing == [
        "ai_layer/ai_layer.clayer.yml:10: Machine Learning:ExecuTorch Operators:Cortex-M quantize_per_tensor"]
    assert report.operator_rows() == [("Selected by the template but gone", report.template_missing, True)]
    assert report.check("template-components").status == "fail"
    # in a run the pack itself passed: the gone component is a blocking item of the PR, not a failed pack
    assert not pack_failed(report)
    [flag] = gone_flags(report)
    assert (flag.code, flag.path, flag.line, flag.blocking) == ("component-gone", "ai_layer/ai_layer.clayer.yml", 10, True)
    assert "Machine Learning:ExecuTorch Operators:Cortex-M quantize_per_tensor" in flag.message


def test_a_previous_pack_record_without_a_pack_puts_the_note_in_the_report(tmp_path):
    dest = tmp_path / "prev"
    dest.mkdir()
    write_previous(Previous(None, note="no previous pack to compare operators with: the release v1.4.0 has no "
                                       "PyTorch.ExecuTorch.1.4.0.pack asset"), dest)
    report = verify_pack(_new_pack(tmp_path), "1.5.1", baseline=dest)
    assert report.baseline is None and report.check("baseline-operators") is None
    assert report.to_json()["baseline_note"].startswith("no previous pack to compare operators with")
    assert "No previous pack to compare operators with: the release v1\\.4\\.0 has no" in report.to_markdown()


def test_a_previous_pack_record_with_a_pack(tmp_path):
    dest = tmp_path / "prev"
    dest.mkdir()
    old = _old_pack(tmp_path)
    shutil.copy2(old, dest / old.name)
    write_previous(Previous(dest / old.name, "release asset PyTorch.ExecuTorch.1.4.0.pack of v1.4.0"), dest)
    report = verify_pack(_new_pack(tmp_path), "1.5.1", baseline=dest)
    assert (report.baseline, report.baseline_source) == (old.name, "release asset PyTorch.ExecuTorch.1.4.0.pack of v1.4.0")
    assert report.operators_removed == ["Portable gelu"]


@pytest.mark.parametrize("record", ['{"pack": "../x.pack"}', "[]", "not json", '{"pack": "missing.pack"}'])
def test_a_bad_previous_pack_record_is_bad_input(tmp_path, record):
    (tmp_path / "previous-pack.json").write_text(record)
    with pytest.raises(PackError) as exc:
        read_previous(tmp_path)
    assert exc.value.exit_code == 2 and exc.value.path == str(tmp_path / "previous-pack.json")


class _Release:
    def __init__(self, assets):
        self.assets = assets

    def asset(self, name):
        return self.assets.get(name)


class _Source:
    def __init__(self, releases):
        self.releases = releases

    def release(self, tag):
        return self.releases.get(tag)

    def describe(self):
        return "github:pytorch/executorch"


def test_previous_pack_is_the_templates_path_pack(tmp_path, template):
    unpacked = template.parent / "packs" / "PyTorch.ExecuTorch.1.4.0"
    unpacked.mkdir(parents=True)
    with zipfile.ZipFile(_old_pack(tmp_path)) as zf:
        (unpacked / "PyTorch.ExecuTorch.pdsc").write_bytes(zf.read("PyTorch.ExecuTorch.pdsc"))
    sol = template / "cmsis-executorch.csolution.yml"
    line = "    - pack: PyTorch::ExecuTorch@1.4.0    # exact pin, not a range\n"
    sol.write_text(sol.read_text().replace(line, line + "      path: ../packs/PyTorch.ExecuTorch.1.4.0\n"))
    prev = previous_pack(template, _Source({}), tmp_path / "dest")
    assert prev.path == tmp_path / "dest" / "PyTorch.ExecuTorch.1.4.0"
    assert prev.source.startswith("the template's path: ../packs/PyTorch.ExecuTorch.1.4.0 (cmsis-executorch.csolution.yml:")
    report = verify_pack(_new_pack(tmp_path), "1.5.1", baseline=prev.path)
    assert report.operators_removed == ["Portable gelu"]


@pytest.mark.parametrize("releases, note", [
    ({}, "no previous pack to compare operators with: github:pytorch/executorch has no release v1.4.0, and the "
         "template points at no local pack with path:"),
    ({"v1.4.0": _Release({})}, "no previous pack to compare operators with: the release v1.4.0 has no "
                               "PyTorch.ExecuTorch.1.4.0.pack asset, and the template points at no local pack with path:"),
])
def test_no_previous_pack_says_why(tmp_path, template, releases, note):
    prev = previous_pack(template, _Source(releases), tmp_path / "dest")
    assert prev == Previous(None, "", note)


def test_previous_pack_command_records_its_answer(tmp_path, template, capsys, monkeypatch):
    monkeypatch.delenv("GITHUB_OUTPUT", raising=False)
    from bot.sample import UPSTREAM_DIR
    dest = tmp_path / "dest"
    assert main(["previous-pack", "--repo", str(template), "--output-dir", str(dest), "--upstream", str(UPSTREAM_DIR)]) == 0
    record = json.loads((dest / "previous-pack.json").read_text())
    assert record["pack"] is None and record["note"].startswith("no previous pack to compare operators with")


def _releases_with_packs(world, tmp_path, old: bool):
    from fakegithub import UPSTREAM, add_sample_release
    new = make_pack(tmp_path / "new", version="1.5.1", operators=DEMO_OPS)
    repo = world.fake.repo(UPSTREAM)
    repo.releases = [r for r in repo.releases if r["tag_name"] not in ("v1.5.1", "v1.4.0")]
    old_assets = {}
    if old:
        ops = tuple(o for o in DEMO_OPS if o != ("Portable", "mul")) + (("Portable", "gelu"),)
        old_assets = {"PyTorch.ExecuTorch.1.4.0.pack": make_pack(
            tmp_path / "old", version="1.4.0", operators=ops, releases=[("1.4.0", "2026-08-06")]).read_bytes()}
    add_sample_release(world.fake, "v1.4.0", created_at="2026-06-01T00:00:00Z", assets=old_assets)
    add_sample_release(world.fake, "v1.5.1", created_at="2026-09-01T00:00:00Z",
                       assets={"PyTorch.ExecuTorch.1.5.1.pack": new.read_bytes()})


def test_run_puts_the_operators_against_the_current_tags_asset_into_the_pr(world, tmp_path):
    from fakegithub import TEMPLATE
    _releases_with_packs(world, tmp_path, old=True)
    assert world.run()[0] == 0
    body = world.fake.open_pulls(TEMPLATE)[0]["body"]
    assert body.count("#### Operator components against `PyTorch.ExecuTorch.1.4.0.pack`") == 1
    assert "Previous pack: release asset PyTorch\\.ExecuTorch\\.1\\.4\\.0\\.pack of v1\\.4\\.0." in body
    assert "- Added (1): `Portable mul`" in body and "- Removed (1): `Portable gelu`" in body


def test_run_says_when_there_is_no_previous_pack(world, tmp_path):
    from fakegithub import TEMPLATE
    _releases_with_packs(world, tmp_path, old=False)
    assert world.run()[0] == 0
    body = world.fake.open_pulls(TEMPLATE)[0]["body"]
    assert "No previous pack to compare operators with: the release v1\\.4\\.0 has no" in body


from test_github_lifecycle import world  # noqa: E402,F401  (fixture)


def test_verify_pack_allow_flagged_exits_0_when_only_a_template_component_is_gone(tmp_path, template, capsys):
    pack = _new_pack(tmp_path, DEFAULT_OPS)
    assert main(["verify-pack", str(pack), "--version", "1.5.1", "--template", str(template)]) == 1
    assert main(["verify-pack", str(pack), "--version", "1.5.1", "--template", str(template), "--allow-flagged"]) == 0
    bad = make_pack(tmp_path / "bad", version="1.5.1", operators=DEFAULT_OPS, flatbuffers=False)
    assert main(["verify-pack", str(bad), "--version", "1.5.1", "--template", str(template), "--allow-flagged"]) == 1
    capsys.readouterr()
