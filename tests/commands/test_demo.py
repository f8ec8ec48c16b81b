"""``demo``'s sample packs (what verify-pack catches, shown offline): a good pack and the trap, verified offline."""

from __future__ import annotations

import re
import shlex
import shutil
import zipfile
from pathlib import Path

import pytest

from bot.commands import demo
from bot.model import CheckResult
from bot.pack.report import PackReport
from helpers import run_cli

PACK = "PyTorch.ExecuTorch.1.5.1.pack"
TESTED_LINE = "Tested with CMSIS-Toolbox 2.14.1, Vela 5.1 and torch==2.13.0 on the"
HAS_CXX = shutil.which("arm-none-eabi-g++") is not None


def _verdicts(out: str) -> dict[str, str]:
    """The demo's verdict lines by label ("good pack", "trap pack")."""
    found = {}
    for line in out.splitlines():
        m = re.match(r"\s+(good pack|trap pack) (\S+): (.*)$", line)
        if m:
            found[m.group(1)] = f"{m.group(2)}: {m.group(3)}"
    return found


def _commands(out: str) -> list[list[str]]:
    """The printed ``verify-pack`` commands, as argv lists without the program name and the trailing comment."""
    cmds = []
    for line in out.splitlines():
        line = line.split("#", 1)[0].strip()
        if line.startswith("executorch-pack-bot verify-pack "):
            cmds.append(shlex.split(line)[1:])
    return cmds


def test_demo_without_keep_shows_the_good_pack_passing_and_the_trap_caught(capsys):
    rc, out, err = run_cli(capsys, "demo")
    assert rc == 0, err
    v = _verdicts(out)
    assert v["good pack"].startswith(f"packs/{PACK}: passed (")
    trap = v["trap pack"]
    assert trap.startswith(f"packs/trap/{PACK}: failed (built without the CMake cross-compile): ")
    for name in ("flatbuffers-headers: include/flatbuffers/ is missing",
                 "include/executorch/schema/program_generated.h is missing",
                 "include/executorch/schema/scalar_type_generated.h is missing"):
        assert name in trap, name
    assert "UNEXPECTED" not in out and "verify-pack /" not in out  # commands only with --keep
    work = Path(re.search(r"^# upstream: (\S+)", out, re.M).group(1)).parent
    assert not work.exists()  # the temporary folder and its packs are gone


@pytest.mark.parametrize("dry_run", [True, False], ids=["dry-run", "applied"])
def test_demo_keep_writes_both_packs_and_its_commands_verify_them(tmp_path, capsys, dry_run):
    keep = tmp_path / "d"
    rc, out, err = run_cli(capsys, "demo", "--keep", keep, *(["--dry-run"] if dry_run else []))
    assert rc == 0, err
    good, trap = keep / "packs" / PACK, keep / "packs" / "trap" / PACK
    with zipfile.ZipFile(good) as g, zipfile.ZipFile(trap) as t:
        gn, tn = set(g.namelist()), set(t.namelist())
        assert {"include/flatbuffers/flatbuffers.h", "include/executorch/schema/program_generated.h",
                "include/executorch/schema/scalar_type_generated.h", "src/schema/program_generated.h"} <= gn
        assert not any(n.startswith("include/flatbuffers/") or n.endswith("_generated.h") for n in tn)
        assert tn < gn and len(gn) < 100
        # reproduced with build_pack.sh at v1.4.1: the PDSC of a broken and a good pack are byte-identical
        assert g.read("PyTorch.ExecuTorch.pdsc") == t.read("PyTorch.ExecuTorch.pdsc")
    assert good.stat().st_size < 64_000 and trap.stat().st_size < 64_000

    cmds = _commands(out)
    extra = ["--version", "1.5.1", "--template", str(keep / "template")] + (["--compile-check"] if HAS_CXX else [])
    assert cmds == [["verify-pack", str(good), *extra], ["verify-pack", str(trap), *extra]]

    rc, out, err = run_cli(capsys, *cmds[0])
    assert rc == 0, out + err
    assert re.search(r"^template-components\s+pass\s+all 4 ExecuTorch components the template selects \(5 selections in 2 "
                     r"files\) are in the pack", out, re.M)
    assert re.search(r"^registrations\s+warn\s+.*Portable adaptive_avg_pool2d", out, re.M)
    rc, out, err = run_cli(capsys, *cmds[1])
    assert rc == 1, out + err
    assert re.search(r"^flatbuffers-headers\s+fail\s+include/flatbuffers/ is missing", out, re.M)
    assert re.search(r"^generated-headers\s+fail\s+include/executorch/schema/program_generated.h is missing", out, re.M)
    if HAS_CXX:
        assert re.search(r"^compile\s+fail\s+.*fatal error: executorch/schema/program_generated.h", out, re.M)


def test_demo_offers_compile_check_only_when_the_arm_compiler_is_on_path(tmp_path, capsys, monkeypatch):
    real = shutil.which
    monkeypatch.setattr(demo.shutil, "which",
                        lambda name, *a, **k: None if name == "arm-none-eabi-g++" else real(name, *a, **k))
    rc, out, err = run_cli(capsys, "demo", "--keep", tmp_path / "d", "--dry-run")
    assert rc == 0, err
    cmds = _commands(out)
    assert len(cmds) == 2 and all("--compile-check" not in c for c in cmds)


def test_demo_fails_when_the_trap_is_not_caught(capsys, monkeypatch):
    """A verifier that let the trap through must make the demo itself fail (exit 1), saying so."""
    from bot.sample import packgen

    def both_good(dest, version="1.5.1"):
        good = packgen.make_pack(Path(dest), packgen.PackSpec(version=version, operators=packgen.DEMO_OPS))
        trap = packgen.make_pack(Path(dest) / "trap", packgen.PackSpec(version=version, operators=packgen.DEMO_OPS))
        return packgen.DemoPacks(good, trap)

    monkeypatch.setattr(packgen, "write_demo_packs", both_good)
    rc, out, err = run_cli(capsys, "demo", "--dry-run")
    assert rc == 1
    v = _verdicts(out)
    assert v["trap pack"].endswith("<- UNEXPECTED") and "UNEXPECTED" not in v["good pack"]


def test_verdict_line_names_every_failed_check_and_flags_the_unexpected():
    report = PackReport(PACK, "1.5.1", [CheckResult("archive", "pass"), CheckResult("registrations", "warn"),
                                        CheckResult("url", "fail", "PyTorch.ExecuTorch.pdsc:6: <url> is X")])
    line, ok = demo.verdict("good pack x", report, expect_failure=False)
    assert not ok and line == "good pack x: failed: url: PyTorch.ExecuTorch.pdsc:6: <url> is X  <- UNEXPECTED"
    line, ok = demo.verdict("trap pack x", report, expect_failure=True)
    assert ok and "UNEXPECTED" not in line and "(built without" not in line
    report.checks = report.checks[:2]
    assert demo.verdict("good pack x", report, expect_failure=False) == (
        "good pack x: passed (1 checks passed, 1 warning)\n    warning registrations", True)


def test_the_good_packs_warning_is_named_in_the_demo(capsys):
    # it said "1 warning" and never which
    code, out, _ = run_cli(capsys, "demo")
    assert code == 0
    lines = out.splitlines()
    at = next(i for i, ln in enumerate(lines) if ln.startswith("  good pack "))
    assert lines[at].endswith("(14 checks passed, 1 warning)")
    assert lines[at + 1].startswith("    warning registrations: 1 of 7 operator components has no registration")


def test_sample_keeps_the_tested_with_claim_as_a_trap():
    readme = (demo.SAMPLE / "template" / "README.md").read_text(encoding="utf-8")
    assert TESTED_LINE in readme.splitlines()


def test_demo_leaves_the_tested_with_claim_alone(tmp_path, capsys):
    rc, out, err = run_cli(capsys, "demo", "--keep", tmp_path / "d")
    assert rc == 0, err
    assert "+pip install -r requirements.txt     # executorch==1.5.1" in out  # the README is in the diff
    touched = [ln for ln in out.splitlines() if ln[:1] in "+-" and "Tested with" in ln]
    assert touched == []
    assert TESTED_LINE in (tmp_path / "d" / "template" / "README.md").read_text(encoding="utf-8").splitlines()


def test_copied_sample_leaves_out_byte_code(tmp_path):
    # a regular `pip install .` byte-compiles the sample's setup_venv.py; copied along, the demo
    # would say "1 folder not scanned: __pycache__/" about a folder the sample does not hold
    from bot.commands import demo

    fake = tmp_path / "sample"
    (fake / "template" / "__pycache__").mkdir(parents=True)
    (fake / "template" / "__pycache__" / "setup_venv.cpython-311.pyc").write_bytes(b"\0")
    (fake / "template" / "README.md").write_text("x\n")
    old = demo.SAMPLE
    demo.SAMPLE = fake
    try:
        out = demo.copy_template(tmp_path / "copy")
    finally:
        demo.SAMPLE = old
    assert sorted(p.name for p in out.iterdir()) == ["README.md"]
