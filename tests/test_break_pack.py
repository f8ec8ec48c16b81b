"""Hostile and odd inputs for verify-pack and build-pack (regression tests of the adversarial pass).

Each test holds the right behaviour for one kind of fault that was found
broken: a clear failed check or error naming the entry/file, the right exit
code, never an "internal error", nothing changed on disk.
"""

from __future__ import annotations

import os
import shutil
import struct
import sys
import zipfile
from pathlib import Path

import pytest

from bot import cli
from bot.pack.verify import verify_pack
from packgen import PackSpec, _pdsc, files_of, make_pack

V = "1.5.1"
PACK = f"PyTorch.ExecuTorch.{V}.pack"


def _write(dest: Path, files, *, name: str = PACK) -> Path:
    """Write (name, bytes) entries as a deflated zip; names are taken as given."""
    dest.mkdir(parents=True, exist_ok=True)
    path = dest / name
    import warnings
    with warnings.catch_warnings(), zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        warnings.simplefilter("ignore")
        for n, data in files:
            zf.writestr(zipfile.ZipInfo(n) if isinstance(n, str) else n, data)
    return path


def _corrupt_member(pack: Path, member: str) -> Path:
    """Overwrite the compressed bytes of ``member`` with 0xFF (an invalid deflate stream)."""
    data = bytearray(pack.read_bytes())
    with zipfile.ZipFile(pack) as zf:
        info = zf.getinfo(member)
    nlen, xlen = struct.unpack_from("<HH", data, info.header_offset + 26)
    start = info.header_offset + 30 + nlen + xlen
    data[start:start + info.compress_size] = b"\xff" * info.compress_size
    pack.write_bytes(bytes(data))
    return pack


def _cli(capsys, *argv) -> tuple[int, str, str]:
    rc = cli.main(list(argv))
    out, err = capsys.readouterr()
    assert "internal error" not in err and "Traceback" not in err
    return rc, out, err


# --- damaged members: a corrupt deflate stream is a failed check, never a zlib.error ---------------

@pytest.mark.parametrize("member, check", [
    ("PyTorch.ExecuTorch.pdsc", "pdsc-parse"),
    ("src/registration/RegisterAllKernels.cpp", "registrations"),
    ("include/executorch/schema/program_generated.h", "generated-headers"),
])
def test_corrupt_deflate_stream_is_a_failed_check_naming_the_entry(tmp_path, capsys, member, check):
    pack = _corrupt_member(make_pack(tmp_path), member)
    rc, out, _ = _cli(capsys, "verify-pack", str(pack), "--version", V)
    assert rc == 1
    report = verify_pack(pack, V)
    assert report.check("archive").status == "fail" and member in report.check("archive").detail
    res = report.check(check)
    assert res.status == "fail" and member in res.detail and "cannot be read" in res.detail


def test_corrupt_baseline_pdsc_is_bad_input_naming_the_baseline(tmp_path, capsys):
    good = make_pack(tmp_path / "new")
    old = _corrupt_member(make_pack(tmp_path / "old", version="1.4.0"), "PyTorch.ExecuTorch.pdsc")
    rc, _, err = _cli(capsys, "verify-pack", str(good), "--version", V, "--baseline", str(old))
    assert rc == 2
    assert "--baseline" in err and "PyTorch.ExecuTorch.pdsc" in err and "cannot be read" in err


# --- entry names: non-canonical aliases and file/directory clashes are refused ----------------------

@pytest.mark.parametrize("alias, why", [
    ("./include/flatbuffers/flatbuffers.h", "'.' segment"),
    ("include//flatbuffers/flatbuffers.h", "empty segment"),
    ("include/./flatbuffers/flatbuffers.h", "'.' segment"),
    ("include/flatbuffers/flatbuffers.h ", "ending in a space or a dot"),
    ("include/flatbuffers./flatbuffers.h", "ending in a space or a dot"),
    ("include/flatbuffers/flat\tbuffers.h", "control character"),
])
def test_an_entry_that_extracts_onto_another_is_an_archive_failure(tmp_path, capsys, alias, why):
    # the alias carries other bytes: an extractor would replace the checked header with it
    files = files_of(PackSpec()) + [(alias, b"#error replaced\n")]
    pack = _write(tmp_path, files)
    report = verify_pack(pack, V)
    res = report.check("archive")
    assert res.status == "fail" and repr(alias) in res.detail and why in res.detail
    rc, _, _ = _cli(capsys, "verify-pack", str(pack), "--version", V)
    assert rc == 1


def test_a_file_entry_that_is_also_a_directory_is_an_archive_failure(tmp_path):
    files = files_of(PackSpec()) + [("include/flatbuffers", b"not a directory")]
    res = verify_pack(_write(tmp_path, files), V).check("archive")
    assert res.status == "fail"
    assert "'include/flatbuffers' is a file and also a directory of other entries" in res.detail


def _clear_utf8_flags(pack: Path) -> None:
    """Store every name as code page 437 (flag bit 11 cleared), as old Windows zip tools do."""
    data = bytearray(pack.read_bytes())
    for sig, off in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):
        at = data.find(sig)
        while at >= 0:
            flags = struct.unpack_from("<H", data, at + off)[0]
            struct.pack_into("<H", data, at + off, flags & ~0x800)
            at = data.find(sig, at + 4)
    pack.write_bytes(bytes(data))


def test_cp437_names_are_not_mistaken_for_overlapping_entries(tmp_path):
    # a non-ASCII name stored in code page 437 (one byte a character) first in the archive
    files = [("Documentation/r\u00e9sum\u00e9 caf\u00e9.md", b"notes\n")] + files_of(PackSpec())
    pack = _write(tmp_path, files)
    _clear_utf8_flags(pack)
    report = verify_pack(pack, V)
    assert report.check("archive").status == "pass", report.check("archive").detail
    assert not report.failed


# --- PDSC: comments inside text elements ---------------------------------------------------------

def test_comments_inside_pdsc_text_do_not_cut_the_text(tmp_path):
    text = _pdsc(PackSpec())
    for tag, value in (("vendor", "PyTorch"), ("name", "ExecuTorch")):
        text = text.replace(f"<{tag}>{value}</{tag}>", f"<{tag}><!-- set by build_pack.sh -->{value[:2]}<!-- x -->{value[2:]}</{tag}>")
    url = "https://github.com/pytorch/executorch/releases/download/v1.5.1/"
    text = text.replace(f"<url>{url}</url>", f"<url><!-- release -->{url}</url>")
    text = text.replace("<RTE_Components_h>#define RTE_ML_EXECUTORCH_RUNTIME",
                        "<RTE_Components_h><!-- runtime -->#define RTE_ML_EXECUTORCH_RUNTIME")
    pack = make_pack(tmp_path, pdsc_bytes=text.encode())
    report = verify_pack(pack, V)
    for name in ("vendor-name", "url"):
        assert report.check(name).status == "pass", report.check(name).detail
    from bot.pack.pdsc import parse_pdsc
    runtime = parse_pdsc(text.encode(), "PyTorch.ExecuTorch.pdsc").component("Machine Learning", "ExecuTorch", "Runtime")
    assert runtime.defines == ("RTE_ML_EXECUTORCH_RUNTIME",)


# --- compile check: PDSC file names outside the pack never reach the compiler -----------------------

needs_gxx = pytest.mark.skipif(shutil.which("arm-none-eabi-g++") is None, reason="arm-none-eabi-g++ not installed")


@needs_gxx
@pytest.mark.parametrize("old, new", [
    ('name="src/runtime/core/scalar_type.cpp"', 'name="{secret}"'),
    ('name="src/runtime/core/scalar_type.cpp"', 'name="..\\..\\..\\..\\..\\..\\..\\..{secret}"'),
    ('<file category="include" name="include/"/>', '<file category="include" name="include/"/>'
                                                   '<file category="include" name="../../../../../../../../{secret_dir}/"/>'),
])
def test_compile_check_never_reads_host_files_named_by_the_pdsc(tmp_path, capsys, old, new):
    secret = tmp_path / "host" / "secret.h"
    secret.parent.mkdir()
    secret.write_text("HOST_SECRET_ghp_0123456789 leaked;\n")
    text = _pdsc(PackSpec())
    assert old in text
    text = text.replace(old, new.format(secret=secret, secret_dir=secret.parent), 1)
    pack = make_pack(tmp_path / "pack", pdsc_bytes=text.encode())
    md = tmp_path / "report.md"
    rc, out, _ = _cli(capsys, "verify-pack", str(pack), "--version", V, "--compile-check", "--json",
                      "--markdown", str(md))
    assert rc == 1
    assert "HOST_SECRET" not in out and "HOST_SECRET" not in md.read_text()
    res = verify_pack(pack, V, compile_check=True).check("compile")
    assert res.status == "fail" and res.detail.startswith("not run: the Runtime component names files outside the pack")
    assert "PyTorch.ExecuTorch.pdsc:" in res.detail
    assert "outside" not in verify_pack(pack, V).check("file-references").detail  # the reason is given instead
    assert any(w in verify_pack(pack, V).check("file-references").detail for w in ("absolute path", "'..' segment"))


# --- --template: YAML aliases -------------------------------------------------------------------

@pytest.mark.parametrize("layer", [
    "a: &a [*a]\nlayer:\n  components:\n    - component: Machine Learning:ExecuTorch:Runtime\n",
    # billion laughs by aliases: 10 levels of 10 references
    "l0: &l0 [{component: 'Machine Learning:ExecuTorch:Runtime'}]\n"
    + "".join(f"l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * 10)}]\n" for i in range(1, 10))
    + "layer: {components: *l9}\n",
])
def test_template_with_recursive_or_exponential_aliases_ends(tmp_path, capsys, layer):
    tpl = tmp_path / "tpl" / "ai_layer"
    tpl.mkdir(parents=True)
    (tpl / "ai_layer.clayer.yml").write_text(layer)
    rc, out, _ = _cli(capsys, "verify-pack", str(make_pack(tmp_path / "p")), "--version", V,
                      "--template", str(tmp_path / "tpl"))
    assert rc == 0
    assert "all 1 ExecuTorch components the template selects are in the pack" in out


# --- build-pack -----------------------------------------------------------------------------------

from test_build_pack import _argv, _write_exec, et_root, fake_cmake  # noqa: E402,F401  (fixtures)


def test_stale_pack_from_an_earlier_run_is_not_reported_as_built(et_root, tmp_path, fake_cmake, monkeypatch, capsys):
    stale = tmp_path / "out" / PACK
    stale.parent.mkdir()
    stale.write_bytes(b"PK\x05\x06" + bytes(18))  # an earlier (maybe trap) pack
    before = stale.read_bytes()
    monkeypatch.setenv("FAKE_PACK_NOWRITE", "1")  # build_pack.sh exits 0 without writing
    monkeypatch.setenv("GITHUB_OUTPUT", str(tmp_path / "gh_output"))
    rc, out, err = _cli(capsys, *_argv(et_root, tmp_path))
    assert rc == 1
    assert "did not write a new pack" in err and str(stale) in err
    assert f"pack: {stale}" not in out
    assert not (tmp_path / "gh_output").exists()
    assert stale.read_bytes() == before  # nothing lost


def test_a_rewritten_pack_in_a_reused_output_dir_is_fine(et_root, tmp_path, fake_cmake, capsys):
    assert cli.main(_argv(et_root, tmp_path)) == 0
    assert cli.main(_argv(et_root, tmp_path)) == 0  # the rerun writes the pack again
    assert f"pack: {tmp_path / 'out' / PACK}" in capsys.readouterr().out


@pytest.mark.parametrize("which", ["--build-dir", "--output-dir"])
def test_directory_under_a_regular_file_is_bad_input_and_nothing_is_created(et_root, tmp_path, fake_cmake,
                                                                              capsys, which):
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    argv = _argv(et_root, tmp_path)
    argv[argv.index(which) + 1] = str(blocker / "sub")
    rc, _, err = _cli(capsys, *argv)
    assert rc == 2
    assert f"{blocker} is not a directory" in err and which.strip("-").replace("-dir", "") in err
    assert not (tmp_path / "build").exists() and not (tmp_path / "out").exists()
    assert not fake_cmake.exists()  # nothing ran


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes anywhere")
def test_unwritable_output_parent_is_bad_input_before_anything_runs(et_root, tmp_path, fake_cmake, capsys):
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o555)
    try:
        argv = _argv(et_root, tmp_path)
        argv[argv.index("--output-dir") + 1] = str(ro / "out")
        rc, _, err = _cli(capsys, *argv)
    finally:
        ro.chmod(0o755)
    assert rc == 2 and "not writable" in err
    assert not (tmp_path / "build").exists() and not fake_cmake.exists()


def test_dangling_symlink_named_like_a_generated_header_counts_as_missing(et_root, tmp_path, fake_cmake,
                                                                          monkeypatch, capsys):
    build_dir = tmp_path / "build" / "stale"
    build_dir.mkdir(parents=True)
    (build_dir / "program_generated.h").symlink_to(tmp_path / "gone.h")
    monkeypatch.setenv("FAKE_CMAKE_HEADERS", "scalar_type_generated.h")
    rc, _, err = _cli(capsys, *_argv(et_root, tmp_path))
    assert rc == 1
    assert "program_generated.h" in err and "refusing to run build_pack.sh" in err


def test_step_killed_by_a_signal_says_so_and_exits_non_zero(et_root, tmp_path, monkeypatch, capsys):
    bindir = tmp_path / "bin"
    _write_exec(bindir / "cmake", "#!/bin/sh\necho configuring\nkill -9 $$\n")
    monkeypatch.setenv("PATH", f"{bindir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    rc, _, err = _cli(capsys, *_argv(et_root, tmp_path))
    assert rc == 1
    assert "step 'configure' was killed by signal 9 (SIGKILL)" in err and "| configuring" in err


# --- report: pack contents with line breaks cannot start a line (GitHub workflow commands) ------------

def test_pdsc_values_with_line_breaks_stay_on_their_line(tmp_path, capsys):
    url = "https://github.com/pytorch/executorch/releases/download/v1.5.1/"
    text = _pdsc(PackSpec()).replace(f"<url>{url}</url>", "<url>https://x/&#10;::error title=pwned::x&#13;y</url>")
    text = text.replace('Csub="Runtime" Cversion="1.5.1"', 'Csub="Runtime" Cversion="1.5.0&#10;::add-mask::z"')
    pack = make_pack(tmp_path, pdsc_bytes=text.encode())
    md = tmp_path / "section.md"
    rc, out, _ = _cli(capsys, "verify-pack", str(pack), "--version", V, "--markdown", str(md))
    assert rc == 1
    for rendered in (out, md.read_text()):
        assert not any(line.lstrip("| ").startswith("::") for line in rendered.splitlines())
        assert "\r" not in rendered
    assert "<url> is https://x/\\n::error title=pwned::x\\ry, expected" in out
    assert "has Cversion 1.5.0\\n::add-mask::z" in out
    assert len([ln for ln in md.read_text().splitlines() if ln.startswith("| `")]) == len(verify_pack(pack, V).checks)


def test_build_output_cannot_issue_workflow_commands_in_actions(et_root, tmp_path, monkeypatch, capsys):
    bindir = tmp_path / "bin"
    _write_exec(bindir / "cmake", "#!/bin/sh\necho '::add-mask::x'\necho '::error title=pwned::from the build'\nexit 3\n")
    monkeypatch.setenv("PATH", f"{bindir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    rc, out, _ = _cli(capsys, *_argv(et_root, tmp_path))
    assert rc == 3
    lines = out.splitlines()
    stop = next(ln for ln in lines if ln.startswith("::stop-commands::"))
    token = stop.split("::")[2]
    assert len(token) >= 32
    start, end = lines.index(stop), lines.index(f"::{token}::")
    # the build's own lines are neutralised too (bot/inert.py), inside the stop-commands span
    assert start < lines.index(":\u200b:error title=pwned::from the build") < end < lines.index("::endgroup::")
    assert not any(ln.startswith("::add-mask::") for ln in lines)
    assert lines.index("::group::configure") < start


# --- verify-pack --markdown ---------------------------------------------------------------------------

def test_markdown_onto_the_pack_itself_is_refused_and_the_pack_kept(tmp_path, capsys):
    pack = make_pack(tmp_path)
    before = pack.read_bytes()
    rc, _, err = _cli(capsys, "verify-pack", str(pack), "--version", V, "--markdown", str(pack))
    assert rc == 2 and "--markdown" in err and "is the pack being verified" in err
    assert pack.read_bytes() == before


def test_markdown_into_a_missing_directory_is_refused_before_checking(tmp_path, capsys):
    pack = make_pack(tmp_path)
    rc, out, err = _cli(capsys, "verify-pack", str(pack), "--version", V, "--markdown", str(tmp_path / "no/dir/x.md"))
    assert rc == 2 and "--markdown: cannot write" in err and "is not a directory" in err
    assert out == ""  # refused before the checks ran
