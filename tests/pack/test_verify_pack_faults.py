"""``verify-pack`` fed hostile or odd packs and templates: a corrupt entry, overlapping or aliased
entries, PDSC text with comments or line breaks, PDSC file names outside the pack, YAML alias
bombs, a report path onto the pack itself.

Each is a failed check or a clear error naming the entry or file, with the right exit code,
never an internal error, nothing changed on disk.
"""

from __future__ import annotations

import struct
import zipfile
from pathlib import Path

import pytest

from bot import cli
from bot.pack.verify import verify_pack
from packgen import PackSpec, _pdsc, files_of, make_pack

V = "1.5.1"


def _cli(capsys, *argv) -> tuple[int, str, str]:
    rc = cli.main(list(argv))
    out, err = capsys.readouterr()
    assert "internal error" not in err and "Traceback" not in err
    return rc, out, err


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


needs_gxx = pytest.mark.needs("arm-gcc")


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


def test_cp437_names_are_not_mistaken_for_overlapping_entries(tmp_path):
    # a non-ASCII name stored in code page 437 (one byte a character) first in the archive
    files = [("Documentation/r\u00e9sum\u00e9 caf\u00e9.md", b"notes\n")] + files_of(PackSpec())
    pack = _write(tmp_path, files)
    _clear_utf8_flags(pack)
    report = verify_pack(pack, V)
    assert report.check("archive").status == "pass", report.check("archive").detail
    assert not report.failed


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
