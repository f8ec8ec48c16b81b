"""The external-tool checks of verify-pack: upstream's validator, cpackget (a fake that lies like
the real one), the compile check."""

from __future__ import annotations

import os
import shutil
import stat
import sys
import textwrap

import pytest

from bot.errors import UsageError
from bot.pack.cpackget import listed
from bot.pack.verify import verify_pack
from packgen import make_pack

V = "1.5.1"

# --- upstream-validator: upstream's validate_pack.py ------------------------------------

def _executorch_root(tmp_path, ok: bool):
    root = tmp_path / "executorch"
    script = root / "backends/arm/cmsis_pack/test/validate_pack.py"
    script.parent.mkdir(parents=True)
    script.write_text(textwrap.dedent(f"""\
        import sys, zipfile
        names = zipfile.ZipFile(sys.argv[1]).namelist()
        print("checked", len(names), "entries")
        if {not ok!r}:
            print("ERROR: component file missing: src/foo.cpp")
            sys.exit(1)
        print("Pack structure OK")
    """))
    return root


def test_upstream_validator_pass_is_included_with_its_output(tmp_path):
    report = verify_pack(make_pack(tmp_path), V, executorch_root=_executorch_root(tmp_path, True))
    res = report.check("upstream-validator")
    assert res.status == "pass"
    assert res.detail == "validate_pack.py passed: Pack structure OK"
    assert res.data["output"][0].startswith("checked ")


def test_upstream_validator_fail(tmp_path):
    report = verify_pack(make_pack(tmp_path), V, executorch_root=_executorch_root(tmp_path, False))
    res = report.check("upstream-validator")
    assert res.status == "fail"
    assert res.detail == "validate_pack.py exited 1: ERROR: component file missing: src/foo.cpp"
    assert report.failed


def test_upstream_validator_passes_the_trap_but_we_do_not(tmp_path):
    pack = make_pack(tmp_path, flatbuffers=False, generated_headers=False)
    report = verify_pack(pack, V, executorch_root=_executorch_root(tmp_path, True))
    assert report.check("upstream-validator").status == "pass"
    assert report.failed


def test_validator_not_run_on_an_unsafe_archive(tmp_path):
    pack = make_pack(tmp_path, extra_entries=(("../x", b"x"),))
    res = verify_pack(pack, V, executorch_root=_executorch_root(tmp_path, True)).check("upstream-validator")
    assert res.status == "fail" and "not run" in res.detail


# --- cpackget --------------------------------------------------------

FAKE_CPACKGET = '''#!{python}
"""Fake cpackget: models cpackget as observed (Open-CMSIS-Pack/cpackget) -- its exit code lies in both directions."""
import os, sys, zipfile
mode = os.environ.get("FAKE_CPACKGET_MODE", "honest")
args = sys.argv[1:]
root = args[args.index("--pack-root") + 1] if "--pack-root" in args else os.environ["CMSIS_PACK_ROOT"]
db = os.path.join(root, "installed.txt")
if args[0] == "add":
    pack = args[-1]
    assert "--agree-embedded-license" in args
    name = os.path.basename(pack)[:-len(".pack")]
    vendor, pname, version = name.split(".", 2)
    if mode != "declines":
        with open(db, "a") as fh:
            fh.write(f"{{vendor}}::{{pname}}@{{version}} ({{root}}/{{vendor}}/{{pname}}/{{version}})\\n")
    if mode == "installs-but-exits-1":
        print("E: failed to look up dependency ARM::CMSIS-NN in the index")
        sys.exit(1)
    if mode == "declines":
        print("I: pack already installed")
    sys.exit(0)
if args[0] == "list":
    print("I: Listing installed packs")
    if os.path.exists(db):
        sys.stdout.write(open(db).read())
    sys.exit(0)
sys.exit(2)
'''


@pytest.fixture
def fake_cpackget(tmp_path, monkeypatch):
    bindir = tmp_path / "bin"
    bindir.mkdir()
    exe = bindir / "cpackget"
    exe.write_text(FAKE_CPACKGET.format(python=sys.executable))
    exe.chmod(exe.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", f"{bindir}{os.pathsep}{os.environ['PATH']}")
    return monkeypatch


def test_cpackget_honest_install_passes(tmp_path, fake_cpackget):
    res = verify_pack(make_pack(tmp_path), V, cpackget=True).check("cpackget")
    assert res.status == "pass" and res.detail == "cpackget list shows PyTorch::ExecuTorch@1.5.1"


def test_cpackget_installs_but_exits_nonzero_is_a_pass(tmp_path, fake_cpackget):
    fake_cpackget.setenv("FAKE_CPACKGET_MODE", "installs-but-exits-1")
    res = verify_pack(make_pack(tmp_path), V, cpackget=True).check("cpackget")
    assert res.status == "pass"
    assert "cpackget add exited 1, but the pack is installed" in res.detail


def test_cpackget_exit_0_without_install_is_a_fail(tmp_path, fake_cpackget):
    fake_cpackget.setenv("FAKE_CPACKGET_MODE", "declines")
    report = verify_pack(make_pack(tmp_path), V, cpackget=True)
    res = report.check("cpackget")
    assert res.status == "fail"
    assert "does not show PyTorch::ExecuTorch@1.5.1 although cpackget add exited 0" in res.detail
    assert report.failed


def test_cpackget_not_on_path_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    with pytest.raises(UsageError) as exc:
        verify_pack(make_pack(tmp_path), V, cpackget=True)
    assert "cpackget is not on PATH" in str(exc.value) and exc.value.exit_code == 2


def test_listed_matches_the_exact_version():
    out = "I: Listing installed packs\nPyTorch::ExecuTorch@1.5.10 (/root)\n"
    assert not listed(out, "1.5.1")
    assert listed(out, "1.5.10")
    assert listed("PyTorch::ExecuTorch@1.0.0-rc1\n", "1.0.0-rc1") and not listed("PyTorch::ExecuTorch@1.0.0-rc1\n", "1.0.0")


# --- compile: the Runtime sources ------------------------------------

ARM_GXX = shutil.which("arm-none-eabi-g++")
needs_arm = pytest.mark.needs("arm-gcc")


@needs_arm
def test_compile_check_passes_a_good_pack(tmp_path):
    res = verify_pack(make_pack(tmp_path), V, compile_check=True).check("compile")
    assert res.status == "pass", res.data
    assert res.detail == "all 2 Runtime sources compile with arm-none-eabi-g++"


@needs_arm
def test_compile_check_fails_the_trap_with_the_missing_header(tmp_path):
    report = verify_pack(make_pack(tmp_path, flatbuffers=False, generated_headers=False), V, compile_check=True)
    res = report.check("compile")
    assert res.status == "fail"
    assert "2 of 2 Runtime sources fail" in res.detail
    assert ("src/runtime/executor/program.cpp:2:10: fatal error: executorch/schema/program_generated.h: "
            "No such file or directory") in res.detail
    assert any("scalar_type_generated.h" in ln for ln in res.data["failures"]["src/runtime/core/scalar_type.cpp"])
    assert {c.name for c in report.checks if c.status == "fail"} >= {
        "flatbuffers-headers", "generated-headers", "compile"}


@needs_arm
def test_compile_check_uses_the_pdsc_defines(tmp_path):
    # Without the Runtime component's RTE_Components_h define, program.cpp hits its #error.
    res = verify_pack(make_pack(tmp_path, runtime_define=False), V, compile_check=True).check("compile")
    assert res.status == "fail"
    assert "RTE_ML_EXECUTORCH_RUNTIME is not defined" in res.detail


def test_missing_compiler_is_a_clear_error(tmp_path):
    with pytest.raises(UsageError, match="compiler no-such-g\\+\\+ not found on PATH"):
        verify_pack(make_pack(tmp_path), V, compile_check=True, cxx="no-such-g++")
