"""Hostile zip archives the archive check must refuse (or warn about) whichever path reads a member.

The archives are written byte by byte (APPNOTE.TXT 4.3.7 local header, 4.3.12 central directory
header, 4.3.16 end record), so that a local header can disagree with the central directory.  Each
verdict is checked on the CRC pass as it runs and on the careful path alone (zipfile's reader for
every member): the shortcut must never accept what the careful path refuses.
"""

from __future__ import annotations

import struct
import unicodedata
import zlib

import pytest

from bot.pack import archive
from bot.pack.archive import UnsafeArchive, open_zip, scan_archive

DATA = b"hello world " * 20


def _local(name: bytes, data: bytes, *, flags=0, crc=None, extra=b"", method=0, csize=None, usize=None) -> bytes:
    crc = zlib.crc32(data) if crc is None else crc
    csize = len(data) if csize is None else csize
    usize = len(data) if usize is None else usize
    return struct.pack("<4s5H3L2H", b"PK\x03\x04", 20, flags, method, 0, 0, crc, csize, usize,
                       len(name), len(extra)) + name + extra + data


def _archive(body: bytes, entries: list) -> bytes:
    """``body`` (the local records) then a central directory of ``entries``: (name, data, flags, offset)."""
    cd = b""
    for name, data, flags, offset in entries:
        cd += struct.pack("<4s6H3L5H2L", b"PK\x01\x02", 20, 20, flags, 0, 0, 0, zlib.crc32(data), len(data),
                          len(data), len(name), 0, 0, 0, 0, 0, offset) + name
    return body + cd + struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, len(entries), len(entries), len(cd),
                                   len(body), 0)


def _verdicts(path, monkeypatch):
    """The scan's (problems, warnings) or the UnsafeArchive message: as run, then on the careful path alone."""
    def scan():
        try:
            with open_zip(path) as zf:
                s = scan_archive(zf)
                return s.problems, s.warnings
        except UnsafeArchive as exc:
            return str(exc)
    fast = scan()
    with monkeypatch.context() as m:
        m.setattr(archive, "_quick_sizes", lambda fp, infos, *rest: [None] * len(infos))
        careful = scan()
    return fast, careful


def _one(tmp_path, name: bytes, *, cflags=0, lflags=0, lname=None) -> object:
    path = tmp_path / "p.zip"
    path.write_bytes(_archive(_local(name if lname is None else lname, DATA, flags=lflags),
                              [(name, DATA, cflags, 0)]))
    return path


def test_a_local_name_that_is_not_utf8_is_refused_as_zipfile_refuses_it(tmp_path, monkeypatch):
    # central: 'a\ufffd.txt' in UTF-8; local: the byte 0xff, which decodes to U+FFFD only with errors replaced
    path = _one(tmp_path, "a\ufffd.txt".encode(), cflags=0x800, lflags=0x800, lname=b"a\xff.txt")
    fast, careful = _verdicts(path, monkeypatch)
    assert fast == careful
    assert fast == (["entry 'a\ufffd.txt' cannot be read: 'utf-8' codec can't decode byte 0xff in position 1: "
                     "invalid start byte"], [])


@pytest.mark.parametrize("flag, why", [(0x20, "compressed patched data (flag bit 5)"),
                                       (0x40, "strong encryption (flag bit 6)")])
def test_a_central_flag_zipfile_refuses_is_refused_on_the_fast_path_too(tmp_path, monkeypatch, flag, why):
    path = _one(tmp_path, b"a.txt", cflags=flag)
    fast, careful = _verdicts(path, monkeypatch)
    assert fast == careful == ([f"entry 'a.txt' cannot be read: {why}"], [])


def test_a_member_inside_the_local_extra_field_of_another_is_an_overlap(tmp_path, monkeypatch):
    b = _local(b"b.txt", b"BBBB")
    a_extra = struct.pack("<HH", 0xCAFE, len(b)) + b     # b's whole local record hides in a's extra field
    body = _local(b"a.txt", b"AAAA", extra=a_extra)
    b_at = 30 + 5 + 4
    path = tmp_path / "p.zip"
    path.write_bytes(_archive(body, [(b"a.txt", b"AAAA", 0, 0), (b"b.txt", b"BBBB", 0, b_at)]))
    fast, careful = _verdicts(path, monkeypatch)
    assert fast == careful == "entries 'a.txt' and 'b.txt' overlap in the archive"


def test_a_local_extra_field_that_pushes_data_into_the_next_member_is_an_overlap(tmp_path, monkeypatch):
    b = _local(b"b.txt", b"BBBB")
    a_data = b"AAAA" + b[:8]                              # a's data, read after its 12-byte extra, covers b's header
    body = _local(b"a.txt", a_data, extra=bytes(12))[:-8]
    path = tmp_path / "p.zip"
    path.write_bytes(_archive(body + b, [(b"a.txt", a_data, 0, 0), (b"b.txt", b"BBBB", 0, len(body))]))
    fast, careful = _verdicts(path, monkeypatch)
    assert fast == careful == "entries 'a.txt' and 'b.txt' overlap in the archive"


def test_the_last_member_whose_extra_field_runs_into_the_central_directory_is_refused(tmp_path, monkeypatch):
    body = _local(b"a.txt", DATA, extra=bytes(16))[:-16]  # the extra field's 16 bytes taken from the data's end
    path = tmp_path / "p.zip"
    path.write_bytes(_archive(body, [(b"a.txt", DATA, 0, 0)]))
    fast, careful = _verdicts(path, monkeypatch)
    assert fast == careful == "entry 'a.txt' runs into the central directory"


def test_a_name_with_a_nul_is_refused_though_zipfile_cuts_it_there(tmp_path, monkeypatch):
    path = _one(tmp_path, b"include/x.h\x00/../../../etc/passwd")
    fast, careful = _verdicts(path, monkeypatch)
    assert fast == careful == (["entry 'include/x.h\\x00/../../../etc/passwd' contains a NUL character"], [])


def test_names_differing_only_in_unicode_normalisation_are_reported_as_a_case_clash_is(tmp_path, monkeypatch):
    nfc = unicodedata.normalize("NFC", "caf\u00e9.h").encode()
    nfd = unicodedata.normalize("NFD", "caf\u00e9.h").encode()
    first = _local(nfc, DATA, flags=0x800)
    path = tmp_path / "p.zip"
    path.write_bytes(_archive(first + _local(nfd, DATA, flags=0x800),
                              [(nfc, DATA, 0x800, 0), (nfd, DATA, 0x800, len(first))]))
    fast, careful = _verdicts(path, monkeypatch)
    assert fast == careful == ([], ["entries 'caf\\xe9.h' and 'cafe\\u0301.h' differ only in Unicode "
                                    "normalisation or letter case"])


def test_a_sound_hand_written_archive_passes_both_ways(tmp_path, monkeypatch):
    first = _local(b"a.txt", DATA)
    path = tmp_path / "p.zip"
    path.write_bytes(_archive(first + _local(b"b.txt", b"x"), [(b"a.txt", DATA, 0, 0), (b"b.txt", b"x", 0, len(first))]))
    fast, careful = _verdicts(path, monkeypatch)
    assert fast == careful == ([], [])


@pytest.mark.parametrize("local, why", [
    (dict(usize=5), "size 5 (central directory: 240)"),
    (dict(csize=7), "compressed size 7 (central directory: 240)"),
    (dict(crc=0x12345678), f"CRC-32 12345678 (central directory: {zlib.crc32(DATA):08x})"),
    (dict(method=8), "method 8 (central directory: 0)"),
    (dict(flags=0x1), "encryption (flag bit 0; central directory: not set)"),
    (dict(method=8, usize=0, crc=0), "method 8 (central directory: 0), CRC-32 00000000 (central directory: "
                                     f"{zlib.crc32(DATA):08x}), size 0 (central directory: 240)"),
])
def test_a_local_header_that_disagrees_with_the_central_directory_fails(tmp_path, monkeypatch, local, why):
    # a streaming extractor (bsdtar, Java's ZipInputStream) reads the local header: not the bytes verified
    path = tmp_path / "p.zip"
    path.write_bytes(_archive(_local(b"a.txt", DATA, **local), [(b"a.txt", DATA, 0, 0)]))
    fast, careful = _verdicts(path, monkeypatch)
    assert fast == careful == ([f"entry 'a.txt': its local header declares {why}"], [])


@pytest.mark.parametrize("local", [
    dict(flags=0x8, crc=0, csize=0, usize=0),            # a data descriptor: the values follow the data
    dict(csize=0xFFFFFFFF, usize=0xFFFFFFFF,              # ZIP64: the values are in the extra field
         extra=struct.pack("<HHQQ", 1, 16, len(DATA), len(DATA))),
])
def test_local_headers_that_defer_their_values_pass(tmp_path, monkeypatch, local):
    path = tmp_path / "p.zip"
    path.write_bytes(_archive(_local(b"a.txt", DATA, **local), [(b"a.txt", DATA, 0, 0)]))
    fast, careful = _verdicts(path, monkeypatch)
    assert fast == careful == ([], [])


def test_a_stored_member_whose_sizes_differ_fails(tmp_path, monkeypatch):
    # zipfile reads the 5 declared bytes and checks their CRC-32; a reader taking the 10 stored bytes gets more
    path = tmp_path / "p.zip"
    local = struct.pack("<4s5H3L2H", b"PK\x03\x04", 20, 0, 0, 0, 0, zlib.crc32(b"ABCDE"), 10, 5, 5, 0)
    cd = struct.pack("<4s6H3L5H2L", b"PK\x01\x02", 20, 20, 0, 0, 0, 0, zlib.crc32(b"ABCDE"), 10, 5, 5, 0, 0, 0, 0,
                     0, 0) + b"a.txt"
    body = local + b"a.txt" + b"ABCDEHIDDN"
    path.write_bytes(body + cd + struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, 1, 1, len(cd), len(body), 0))
    fast, careful = _verdicts(path, monkeypatch)
    assert fast == careful == (["entry 'a.txt' is stored but declares 10 bytes stored for 5 bytes of content"], [])


@pytest.mark.parametrize("declared", [240, (1 << 20) + 512])   # the window's size and a member streamed
def test_a_deflate_stream_longer_than_declared_fails(tmp_path, monkeypatch, declared):
    # zipfile stops at the declared size and checks those bytes' CRC-32: a reader inflating the whole
    # stream gets twice as much (a bomb when the stream goes on)
    import random
    content = random.Random(7).randbytes(declared)
    c = zlib.compressobj(6, zlib.DEFLATED, -15)
    stream = c.compress(content * 2) + c.flush()
    local = struct.pack("<4s5H3L2H", b"PK\x03\x04", 20, 0, 8, 0, 0, zlib.crc32(content), len(stream), declared,
                        5, 0) + b"a.bin" + stream
    cd = struct.pack("<4s6H3L5H2L", b"PK\x01\x02", 20, 20, 0, 8, 0, 0, zlib.crc32(content), len(stream), declared,
                     5, 0, 0, 0, 0, 0, 0) + b"a.bin"
    path = tmp_path / "p.zip"
    path.write_bytes(local + cd + struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, 1, 1, len(cd), len(local), 0))
    fast, careful = _verdicts(path, monkeypatch)
    assert fast == careful == ([f"entry 'a.bin' inflates past its declared {declared} bytes (zipfile stops there; "
                                "another reader would not)"], [])
