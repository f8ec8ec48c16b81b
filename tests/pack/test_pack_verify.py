"""The manifest, header, file, component, baseline and template checks of verify-pack, the report
renderings and the command's exit codes (Open-CMSIS-Pack/cpackget#43 and #552)."""

from __future__ import annotations

import json

import pytest

from bot.cli import main
from bot.errors import UsageError
from bot.pack.verify import verify_pack
from packgen import PackSpec, generated_header, make_pack

V = "1.5.1"


def _statuses(report):
    return {c.name: c.status for c in report.checks}


def test_good_pack_passes_everything_but_the_known_unregistered_operator(tmp_path):
    report = verify_pack(make_pack(tmp_path), V)
    st = _statuses(report)
    assert not report.failed
    assert {n for n, s in st.items() if s != "pass"} == {"registrations"}
    for name in ("archive", "pdsc", "vendor-name", "release-version", "pack-file-name", "url",
                 "flatbuffers-headers", "generated-headers", "file-references", "no-python", "license-docs",
                 "component-versions", "component-ids"):
        assert st[name] == "pass", name


def test_the_trap_fails_naming_the_missing_headers(tmp_path):
    report = verify_pack(make_pack(tmp_path, flatbuffers=False, generated_headers=False), V)
    assert report.failed
    fb = report.check("flatbuffers-headers")
    assert fb.status == "fail" and "include/flatbuffers/ is missing" in fb.detail
    gen = report.check("generated-headers")
    assert gen.status == "fail"
    assert "include/executorch/schema/program_generated.h is missing" in gen.detail
    assert "include/executorch/schema/scalar_type_generated.h is missing" in gen.detail
    # what upstream's structural view sees is fine: the PDSC only names include/
    assert report.check("file-references").status == "pass"


@pytest.mark.parametrize("text, why", [("", "is empty"), ("#pragma once\nstruct Program {};\n", "does not look like flatc output")])
def test_generated_header_must_be_flatc_output(tmp_path, text, why):
    res = verify_pack(make_pack(tmp_path, generated_header_text=text), V).check("generated-headers")
    assert res.status == "fail"
    assert f"include/executorch/schema/program_generated.h {why}" in res.detail


def test_flatbuffers_dir_without_its_main_header_fails(tmp_path):
    res = verify_pack(make_pack(tmp_path, drop_entries=("include/flatbuffers/flatbuffers.h",)), V).check(
        "flatbuffers-headers")
    assert res.status == "fail" and "include/flatbuffers/flatbuffers.h" in res.detail


def test_file_version_not_the_newest_release(tmp_path):
    pack = make_pack(tmp_path, releases=[("1.5.0", "2026-09-01"), ("1.4.0", "2026-08-06")])
    assert pack.name == "PyTorch.ExecuTorch.1.5.1.pack"
    report = verify_pack(pack, V)
    res = report.check("release-version")
    assert res.status == "fail"
    assert "expected pack version 1.5.1" in res.detail and "first and highest <release> is 1.5.0" in res.detail
    assert report.failed


def test_first_release_not_the_highest_fails_naming_both(tmp_path):
    res = verify_pack(make_pack(tmp_path, releases=[("1.5.1", "2026-09-30"), ("1.6.0", "2026-10-01")]), V).check(
        "release-version")
    assert res.status == "fail"
    assert "first <release> is 1.5.1 but 1.6.0" in res.detail


def test_pdsc_name_letter_case(tmp_path):
    report = verify_pack(make_pack(tmp_path, pdsc_name="Pytorch.ExecuTorch.pdsc"), V)
    res = report.check("pdsc")
    assert res.status == "fail"
    assert "root holds Pytorch.ExecuTorch.pdsc, expected PyTorch.ExecuTorch.pdsc (letter case differs)" in res.detail
    assert report.failed
    assert report.check("vendor-name").status == "pass"  # the rest still ran on the misnamed PDSC


def test_vendor_letter_case_fails(tmp_path):
    report = verify_pack(make_pack(tmp_path, vendor="Pytorch", pdsc_name="PyTorch.ExecuTorch.pdsc"), V)
    assert report.check("vendor-name").status == "fail"
    assert "<vendor> is 'Pytorch', expected 'PyTorch'" in report.check("vendor-name").detail


def test_two_root_pdsc_files_fail(tmp_path):
    res = verify_pack(make_pack(tmp_path, extra_entries=(("Other.Pack.pdsc", b"<package/>"),)), V).check("pdsc")
    assert res.status == "fail" and "2 .pdsc files at the root" in res.detail


def test_wrong_version_argument(tmp_path):
    report = verify_pack(make_pack(tmp_path), "1.5.2")
    assert report.check("release-version").status == "fail"
    assert "expected pack version 1.5.2" in report.check("release-version").detail
    assert "expected PyTorch.ExecuTorch.1.5.2.pack" in report.check("pack-file-name").detail
    assert report.check("component-versions").status == "fail"


def test_file_name_mismatch(tmp_path):
    report = verify_pack(make_pack(tmp_path, file_name="PyTorch.ExecuTorch.v1.5.1.pack"), V)
    res = report.check("pack-file-name")
    assert res.status == "fail"
    assert res.detail == "file is named PyTorch.ExecuTorch.v1.5.1.pack, expected PyTorch.ExecuTorch.1.5.1.pack"


def test_url_pointing_at_another_version_fails(tmp_path):
    pack = make_pack(tmp_path, url="https://github.com/pytorch/executorch/releases/download/v1.5.0/")
    res = verify_pack(pack, V).check("url")
    assert res.status == "fail"
    assert res.data == {"declared": "https://github.com/pytorch/executorch/releases/download/v1.5.0/",
                        "expected": "https://github.com/pytorch/executorch/releases/download/v1.5.1/"}
    assert res.detail.startswith("PyTorch.ExecuTorch.pdsc:6:")


def test_url_and_tag_options(tmp_path):
    custom = "https://example.invalid/packs/"
    assert verify_pack(make_pack(tmp_path, url=custom), V, url=custom).check("url").status == "pass"
    other = verify_pack(make_pack(tmp_path / "b"), V, tag="v1.5.1-fix").check("url")
    assert other.status == "fail" and "download/v1.5.1-fix/" in other.detail
    with pytest.raises(UsageError):
        verify_pack(make_pack(tmp_path / "c"), V, url=custom, tag="v1.5.1")


def test_leaked_python_fails(tmp_path):
    res = verify_pack(make_pack(tmp_path, leak_py=True), V).check("no-python")
    assert res.status == "fail" and "src/tools/gen_registration.py" in res.detail


def test_missing_file_reference_names_pdsc_line_and_component(tmp_path):
    report = verify_pack(make_pack(tmp_path, extra_refs=("src/kernels/util/missing.cpp", "Include/")), V)
    res = report.check("file-references")
    assert res.status == "fail"
    assert "2 of 14 <file> names resolve to nothing" in res.detail
    assert "'src/kernels/util/missing.cpp' of Machine Learning:ExecuTorch:Kernel Utils" in res.detail
    assert "(the pack has 'include/': letter case differs)" in res.detail
    assert res.detail.count("PyTorch.ExecuTorch.pdsc:") == 2


def test_missing_operator_source_is_a_missing_reference(tmp_path):
    res = verify_pack(make_pack(tmp_path, drop_entries=("src/kernels/portable/cpu/op_mul.cpp",)), V).check(
        "file-references")
    assert res.status == "fail" and "src/kernels/portable/cpu/op_mul.cpp" in res.detail


def test_licence_and_overview(tmp_path):
    res = verify_pack(make_pack(tmp_path, license=False), V).check("license-docs")
    assert res.status == "fail" and "licence file LICENSE is missing" in res.detail
    res = verify_pack(make_pack(tmp_path / "b", drop_entries=("Documentation/overview.md",)), V).check("license-docs")
    assert res.status == "fail" and "Documentation/overview.md is missing" in res.detail


def test_component_version_and_duplicates(tmp_path):
    report = verify_pack(make_pack(tmp_path, cversion={"Portable mul": "1.4.0"}, duplicate_component="Portable add"), V)
    cv = report.check("component-versions")
    assert cv.status == "fail" and "Machine Learning:ExecuTorch Operators:Portable mul has Cversion 1.4.0" in cv.detail
    ids = report.check("component-ids")
    assert ids.status == "fail" and "Machine Learning:ExecuTorch Operators:Portable add (lines" in ids.detail


def test_missing_registration_warns_per_component(tmp_path):
    report = verify_pack(make_pack(tmp_path, unregistered=("mul", "_adaptive_avg_pool2d")), V)
    res = report.check("registrations")
    assert res.status == "warn"
    assert res.data["unregistered"] == ["Portable mul", "Portable adaptive_avg_pool2d"]
    assert not report.failed


def test_all_registered_passes(tmp_path):
    assert verify_pack(make_pack(tmp_path, unregistered=()), V).check("registrations").status == "pass"


CLAYER = """# generated by create_ai_layer.py: do not edit
layer:
  packs:
    - pack: PyTorch::ExecuTorch@1.5.1
  components:
    - component: Machine Learning:ExecuTorch:Runtime
    - component: PyTorch::Machine Learning:ExecuTorch Operators:Portable softmax@1.5.1
    - component: Machine Learning:ExecuTorch Operators:Portable add
    - component: CMSIS:CORE
"""


def test_operator_removed_against_baseline_and_used_by_template(tmp_path):
    old = make_pack(tmp_path / "old", version="1.4.0", releases=[("1.4.0", "2026-08-06")])
    new_ops = tuple(o for o in PackSpec().operators if o[1] != "softmax") + (("Portable", "gelu"),)
    new = make_pack(tmp_path / "new", operators=new_ops)
    tpl = tmp_path / "tpl"
    (tpl / "ai_layer").mkdir(parents=True)
    (tpl / "ai_layer" / "ai_layer.clayer.yml").write_text(CLAYER)
    report = verify_pack(new, V, baseline=old, template=tpl)
    assert report.operators_added == ["Portable gelu"]
    assert report.operators_removed == ["Portable softmax"]
    assert report.check("baseline-operators").status == "warn"
    tc = report.check("template-components")
    assert tc.status == "fail"
    assert ("ai_layer/ai_layer.clayer.yml:7: PyTorch::Machine Learning:ExecuTorch Operators:Portable softmax@1.5.1"
            in tc.detail)
    assert "Portable add" not in tc.detail and "CMSIS" not in tc.detail
    md = report.to_markdown()
    assert "- Added (1): `Portable gelu`" in md and "- Removed (1): `Portable softmax`" in md


def test_template_satisfied_passes(tmp_path):
    tpl = tmp_path / "x.clayer.yml"
    tpl.write_text(CLAYER)
    res = verify_pack(make_pack(tmp_path), V, template=tpl).check("template-components")
    assert res.status == "pass" and "all 3 ExecuTorch components" in res.detail


def test_template_without_executorch_components_warns(tmp_path):
    tpl = tmp_path / "tpl"
    tpl.mkdir()
    (tpl / "app.cproject.yml").write_text("project:\n  components:\n    - component: CMSIS:CORE\n")
    res = verify_pack(make_pack(tmp_path), V, template=tpl).check("template-components")
    assert res.status == "warn" and "selects an ExecuTorch component" in res.detail


def test_bad_template_yaml_is_exit_2_with_line(tmp_path):
    tpl = tmp_path / "tpl"
    tpl.mkdir()
    (tpl / "a.clayer.yml").write_text("layer:\n  components: [\n")
    from bot.errors import TemplateError
    with pytest.raises(TemplateError) as exc:
        verify_pack(make_pack(tmp_path), V, template=tpl)
    assert str(exc.value).startswith("a.clayer.yml:") and exc.value.exit_code == 2


def test_report_renderings(tmp_path):
    report = verify_pack(make_pack(tmp_path, flatbuffers=False, generated_headers=False), V)
    md = report.to_markdown()
    assert md.startswith("### Pack verification: `PyTorch.ExecuTorch.1.5.1.pack`")
    assert "| Check | Result | Detail |" in md
    assert "| `generated-headers` | ❌ fail |" in md
    assert "**Failed**" in md
    data = report.to_json()
    assert data["failed"] is True and data["pack"] == "PyTorch.ExecuTorch.1.5.1.pack"
    assert {"name": "flatbuffers-headers", "status": "fail"}.items() <= data["checks"][6].items()
    text = report.to_text()
    assert "FAILED" in text.splitlines()[-1]


# --- the command ---------------------------------------------------------------

def test_cli_good_pack_exit_0_and_markdown(tmp_path, capsys):
    md = tmp_path / "section.md"
    rc = main(["verify-pack", str(make_pack(tmp_path)), "--version", "v1.5.1", "--markdown", str(md)])
    out = capsys.readouterr().out
    assert rc == 0
    assert "pack-file-name" in out and "passed" in out.splitlines()[-1]
    assert md.read_text().startswith("### Pack verification")


def test_cli_trap_exit_1_json(tmp_path, capsys):
    rc = main(["verify-pack", str(make_pack(tmp_path, flatbuffers=False, generated_headers=False)),
               "--version", V, "--json"])
    data = json.loads(capsys.readouterr().out)
    assert rc == 1 and data["failed"] is True
    assert {c["name"]: c["status"] for c in data["checks"]}["generated-headers"] == "fail"


@pytest.mark.parametrize("argv, msg", [
    (["--version", "latest"], "is not a pack version"),
    (["--version", V, "--url", "u", "--tag", "t"], "not allowed with argument"),
    (["--version", V, "--baseline", "missing.pack"], "--baseline: cannot read"),
    (["--version", V, "--executorch-root", "."], "validate_pack.py not found"),
    (["--version", V, "--cxx", "g++"], "--cxx needs --compile-check"),
])
def test_cli_bad_usage_exit_2(tmp_path, capsys, monkeypatch, argv, msg):
    pack = make_pack(tmp_path)
    monkeypatch.chdir(tmp_path)
    try:
        rc = main(["verify-pack", str(pack), *argv])
    except SystemExit as exc:  # argparse's own usage errors
        rc = exc.code
    err = capsys.readouterr().err
    assert rc == 2 and msg in err
    assert "Traceback" not in err


def test_cli_unreadable_pack_exit_2(tmp_path, capsys):
    rc = main(["verify-pack", str(tmp_path / "absent.pack"), "--version", V])
    assert rc == 2 and "absent.pack" in capsys.readouterr().err


def test_generated_header_fixture_is_flatc_like():
    assert generated_header("program", "Program").startswith("// automatically generated by the FlatBuffers compiler")
