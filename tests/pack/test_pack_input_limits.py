"""A hostile pack is refused or bounded before it can hang the run, read host files or exhaust memory.

Every hostile input is built here: PDSC bytes in UTF-32 / a declared
EBCDIC encoding hiding a ``<!DOCTYPE``, a zip whose end-of-central-directory
record declares 300,000 entries, a release asset larger than it declares,
and Runtime sources that ``#include`` host files (absolute, climbing out of
the pack, or through a macro) or ``/dev/zero``.
"""

from __future__ import annotations

import struct
import zipfile
from pathlib import Path

import pytest

from bot.errors import CheckFailed, PackError
from bot.pack import archive
from bot.pack.archive import Limits, UnsafeArchive, declared_entries, open_zip
from bot.pack.pdsc import PdscError, parse_pdsc
from bot.pack.verify import verify_pack
from packgen import PackSpec, RUNTIME_SOURCES, make_pack

V = "1.5.1"
PDSC = ('<?xml version="1.0" encoding="{enc}"?>\n<!DOCTYPE package SYSTEM "file:///dev/zero">\n'
        '<package schemaVersion="1.7"><vendor>PyTorch</vendor><name>ExecuTorch</name></package>\n')


# --- PDSC encodings --------------------------------------------------------------------------------

@pytest.mark.parametrize("data", [
    "\ufeff".encode("utf-32-le") + PDSC.format(enc="UTF-32").encode("utf-32-le"),
    "\ufeff".encode("utf-32-be") + PDSC.format(enc="UTF-32").encode("utf-32-be"),
])
def test_utf32_pdsc_is_refused_before_any_parse(data):
    with pytest.raises(PdscError) as exc:
        parse_pdsc(data, "PyTorch.ExecuTorch.pdsc")
    assert exc.value.path == "PyTorch.ExecuTorch.pdsc" and "UTF-32" in exc.value.message


@pytest.mark.parametrize("codec", ["utf-32-le", "utf-32-be", "utf-16-le"])
def test_wide_encoding_without_bom_is_refused(codec):
    # its bytes are valid UTF-8 full of NULs, so a byte scan for '<!DOCTYPE' finds nothing
    with pytest.raises(PdscError) as exc:
        parse_pdsc(PDSC.format(enc="UTF-32").encode(codec), "PyTorch.ExecuTorch.pdsc")
    assert exc.value.path == "PyTorch.ExecuTorch.pdsc" and "NUL" in exc.value.message


def test_declared_ebcdic_is_refused():
    data = PDSC.format(enc="cp500").replace("<!DOCTYPE package SYSTEM \"file:///dev/zero\">\n", "").encode()
    with pytest.raises(PdscError) as exc:
        parse_pdsc(data, "PyTorch.ExecuTorch.pdsc")
    assert (exc.value.line, "'cp500'" in exc.value.message) == (1, True)


@pytest.mark.parametrize("codec, bom", [("utf-16-le", "\ufeff"), ("utf-16-be", "\ufeff"), ("utf-8", "\ufeff")])
def test_doctype_is_found_in_the_decoded_text_of_every_accepted_encoding(codec, bom):
    data = (bom + PDSC.format(enc="UTF-16" if "16" in codec else "UTF-8")).encode(codec)
    with pytest.raises(PdscError) as exc:
        parse_pdsc(data, "PyTorch.ExecuTorch.pdsc")
    assert exc.value.line == 2 and "DOCTYPE" in exc.value.message


def test_utf16_pdsc_without_doctype_parses():
    text = "\ufeff" + PDSC.format(enc="UTF-16").replace("<!DOCTYPE package SYSTEM \"file:///dev/zero\">\n", "")
    pdsc = parse_pdsc(text.encode("utf-16-le"), "PyTorch.ExecuTorch.pdsc")
    assert (pdsc.vendor, pdsc.name) == ("PyTorch", "ExecuTorch")


# --- zip: the entry count comes from the end-of-central-directory record ----------------------------

def _zip64_claiming(path: Path, entries: int) -> Path:
    """A small real zip whose ZIP64 end records claim ``entries`` entries (APPNOTE 4.3.14-4.3.16)."""
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("PyTorch.ExecuTorch.pdsc", b"<package/>")
    data = path.read_bytes()
    eocd = data.rfind(b"PK\x05\x06")
    cd_size, cd_offset = struct.unpack("<II", data[eocd + 12:eocd + 20])
    body = data[:eocd]
    z64 = struct.pack("<4sQHHIIQQQQ", b"PK\x06\x06", 44, 45, 45, 0, 0, entries, entries, cd_size, cd_offset)
    loc = struct.pack("<4sIQI", b"PK\x06\x07", 0, len(body), 1)
    end = struct.pack("<4sHHHHIIH", b"PK\x05\x06", 0, 0, 0xFFFF, 0xFFFF, cd_size, 0xFFFFFFFF, 0)
    path.write_bytes(body + z64 + loc + end)
    return path


def test_entry_count_is_checked_before_the_central_directory_is_parsed(tmp_path, monkeypatch):
    pack = _zip64_claiming(tmp_path / "PyTorch.ExecuTorch.1.5.1.pack", 300_000)
    assert declared_entries(pack)[0] == 300_000

    def never(*a, **k):
        raise AssertionError("zipfile parsed the central directory")
    monkeypatch.setattr(archive.zipfile, "ZipFile", never)
    with pytest.raises(UnsafeArchive) as exc:
        open_zip(pack)
    assert exc.value.message == "300000 entries, more than the limit of 50000"
    res = verify_pack(pack, V).check("archive")
    assert res.status == "fail" and "300000 entries" in res.detail


def test_plain_end_record_count_is_read_too(tmp_path):
    pack = make_pack(tmp_path)
    with zipfile.ZipFile(pack) as zf:
        n = len(zf.infolist())
    assert declared_entries(pack)[0] == n
    with pytest.raises(UnsafeArchive, match=f"{n} entries, more than the limit of {n - 1}"):
        open_zip(pack, Limits(max_entries=n - 1))


# --- the release asset download is capped -----------------------------------------------------------

@pytest.fixture
def fake(monkeypatch):
    from fakegithub import FakeGitHub
    f = FakeGitHub()
    monkeypatch.setenv("GITHUB_API_URL", f.start())
    monkeypatch.setenv("EXECUTORCH_PACK_BOT_MAX_WAIT", "0")
    for k in ("GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY", "GITHUB_ACTIONS", "GITHUB_TOKEN"):
        monkeypatch.delenv(k, raising=False)
    yield f
    f.stop()


def _asset(fake, data: bytes, size: int | None = None):
    from fakegithub import UPSTREAM
    from bot.github.assets import find_pack_asset
    from bot.github.releases import Release
    rel = fake.add_release(UPSTREAM, "v1.5.1", assets={"PyTorch.ExecuTorch.1.5.1.pack": data})
    if size is not None:
        rel = {**rel, "assets": [{**rel["assets"][0], "size": size}]}
    return find_pack_asset(Release.from_json(rel), "1.5.1")


def test_asset_larger_than_declared_is_stopped_and_deleted(fake, tmp_path):
    from bot.github.assets import download_asset
    asset = _asset(fake, b"PK" + b"x" * 50_000, size=1_000)
    with pytest.raises(CheckFailed, match="more than 1000"):
        download_asset(asset, tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_asset_declared_over_the_absolute_limit_is_not_downloaded(fake, tmp_path, monkeypatch):
    from bot.github import assets
    monkeypatch.setattr(assets, "MAX_ASSET_BYTES", 10_000)
    asset = _asset(fake, b"PK" + b"x" * 20_000)
    with pytest.raises(PackError, match="more than the limit of 10000; nothing was downloaded"):
        assets.download_asset(asset, tmp_path)
    assert fake.count("GET", "/download/") == 0 and list(tmp_path.iterdir()) == []


# --- the compile check reads nothing of the host -----------------------------------------------------

needs_gxx = pytest.mark.needs("arm-gcc")
SOURCE = "src/runtime/executor/program.cpp"


def _pack_with_source(tmp_path: Path, text: str) -> Path:
    return make_pack(tmp_path / "pack", PackSpec(drop_entries=(SOURCE,), extra_entries=((SOURCE, text.encode()),)))


def _fake_compiler(tmp_path: Path) -> tuple[Path, Path]:
    """A compiler that prints a search list for ``-E -v`` and otherwise records its arguments."""
    log = tmp_path / "argv.txt"
    cc = tmp_path / "bin" / "fake-g++"
    cc.parent.mkdir()
    cc.write_text("#!/bin/sh\n"
                  'for a in "$@"; do [ "$a" = -E ] && { printf \'#include <...> search starts here:\\n'
                  f' {tmp_path}/tc/include\\nEnd of search list.\\n\' >&2; exit 0; }}; done\n'
                  f'printf "%s\\n" "$@" >> {log}\nexit 0\n')
    cc.chmod(0o755)
    (tmp_path / "tc" / "include").mkdir(parents=True)
    return cc, log


@pytest.mark.parametrize("include", ['"{secret}"', "<{secret}>", '"../../../../../../../../../..{secret}"',
                                     '"..\\\\..\\\\secret.h"', '\\\n"{secret}"'])
def test_include_leaving_the_pack_is_refused_before_compiling(tmp_path, include):
    secret = tmp_path / "host" / "secret.h"
    secret.parent.mkdir()
    secret.write_text("HOST_SECRET_0123 leaked;\n")
    pack = _pack_with_source(tmp_path, f"#include {include.format(secret=secret)}\n" + RUNTIME_SOURCES[SOURCE])
    cc, log = _fake_compiler(tmp_path)
    res = verify_pack(pack, V, compile_check=True, cxx=str(cc)).check("compile")
    assert res.status == "fail"
    assert res.detail.startswith(f"not run: a pack source includes a file outside the pack: {SOURCE}:1: #include ")
    assert not log.exists()   # the compiler never ran


def test_compiler_gets_nostdinc_and_only_toolchain_and_pack_folders(tmp_path):
    pack = _pack_with_source(tmp_path, RUNTIME_SOURCES[SOURCE])
    cc, log = _fake_compiler(tmp_path)
    res = verify_pack(pack, V, compile_check=True, cxx=str(cc)).check("compile")
    assert res.status == "pass", res.detail
    argv = log.read_text().splitlines()
    first = argv[:argv.index("-c") + 4]
    assert "-nostdinc" in first and "-H" in first
    dirs = [first[i + 1] for i, a in enumerate(first) if a == "-isystem"]
    assert dirs == [f"{tmp_path}/tc/include"]
    assert [a for a in first if a.startswith("-I")] and all("/pack/include" in a for a in first if a.startswith("-I"))


@needs_gxx
def test_macro_include_of_a_host_file_fails_with_the_output_withheld(tmp_path):
    secret = tmp_path / "host" / "secret.h"
    secret.parent.mkdir()
    secret.write_text("HOST_SECRET_0123 leaked;\n")
    pack = _pack_with_source(tmp_path, f'#define P "{secret}"\n#include P\n' + RUNTIME_SOURCES[SOURCE])
    res = verify_pack(pack, V, compile_check=True).check("compile")
    assert res.status == "fail"
    assert res.data["failures"][SOURCE] == [f"includes a file outside the pack and the toolchain: {secret} "
                                            "(the compiler's output is withheld)"]
    assert "HOST_SECRET" not in repr(res)


@needs_gxx
def test_include_of_dev_zero_is_bounded(tmp_path):
    from bot.pack.compile import compile_check
    from bot.pack.pdsc import parse_pdsc as parse
    pack = _pack_with_source(tmp_path, '#define Z "/dev/zero"\n#include Z\n')
    with zipfile.ZipFile(pack) as zf:
        pdsc = parse(zf.read("PyTorch.ExecuTorch.pdsc"), "PyTorch.ExecuTorch.pdsc")
        res = compile_check(zf, pdsc, memory_limit=256 << 20, cpu_limit=20, timeout=60)
    assert res.status == "fail"   # and it returned: memory and CPU are limited per compile
    assert res.data["failures"][SOURCE][0].startswith(("includes a file outside the pack and the toolchain: /dev/zero",
                                                       "stopped by signal", "cc1plus: out of memory"))
