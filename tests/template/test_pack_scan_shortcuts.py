"""The archive scan's shortcuts give the answers of the long way: entry names accepted by one pattern,
directory prefixes walked until a known one, members checked from a window of the archive."""

from __future__ import annotations

import itertools
import struct
import zipfile

import pytest

from bot.pack import archive
from bot.pack.archive import EntryIndex, Limits, name_problem, scan_archive

PIECES = ["a", "B", "é", ".", "..", "", " ", "a.", "a ", ".a", "C:", "x:y", "\\", "\x00", "\x1f", "\x7f", "\x80",
          "\u2028", "/"]


def _names():
    for n in range(1, 4):
        for parts in itertools.product(PIECES, repeat=n):
            yield "/".join(parts)
            yield "".join(parts)


def test_every_name_gets_the_answer_of_the_rules():
    names = set(_names())
    assert len(names) > 10_000
    differ = [(n, name_problem(n), archive._rule_problem(n)) for n in names
              if name_problem(n) != archive._rule_problem(n)]
    assert differ == []
    assert {n for n in names if name_problem(n) is None} >= {"a", "a/", "é/B", "ax:y", ".a/a", "\x80", "\u2028"}
    assert name_problem("x:y") == "is an absolute path"


def _all_prefixes(names):
    """Every directory the names imply, the long way: each name's own trailing-slash form, and each prefix."""
    dirs = set()
    for name in names:
        if name.endswith("/"):
            dirs.add(name)
        parts = name.rstrip("/").split("/")[:-1]
        for i in range(len(parts)):
            dirs.add("/".join(parts[:i + 1]) + "/")
    return dirs


@pytest.mark.parametrize("names", [
    ["a//", "a//x"],                       # a directory entry ending in // stands without a/
    ["a//x", "a//"],
    ["a/b/c.h", "a/b/d.h", "a/e.h", "a/b/"],
    ["/x", "/x/y", "x"],
    ["a/b//", "a/b//c/d", "a/b/c"],
    ["include/c10/util/h1.h", "include/", "include/c10/", "src/a.cpp", "include/c10/util/"],
])
def test_directory_prefixes_are_those_of_the_long_way(names):
    idx = EntryIndex()
    for n in names:
        idx.add(zipfile.ZipInfo(n))
    assert idx.dirs == _all_prefixes(names)
    assert list(idx.files) == list(dict.fromkeys(names))


def test_a_dir_ending_in_two_slashes_does_not_stop_the_walk():
    idx = EntryIndex()
    for n in ("a//", "a//x"):
        idx.add(zipfile.ZipInfo(n))
    assert idx.dirs == {"a//", "a/"}


def _zip(path, members, method=zipfile.ZIP_DEFLATED):
    with zipfile.ZipFile(path, "w", compression=method) as zf:
        for name, data in members:
            zf.writestr(name, data)
    return path


MEMBERS = [(f"src/f{i}.cpp", (f"// file {i}\n" * (i + 1)).encode()) for i in range(40)] + [("empty", b"")]


@pytest.mark.parametrize("block", [1, 64, 333, 1 << 20])
def test_members_spanning_window_edges_are_checked_from_the_window(tmp_path, monkeypatch, block):
    monkeypatch.setattr(archive, "BLOCK", block)
    path = _zip(tmp_path / "p.zip", MEMBERS)
    with zipfile.ZipFile(path) as zf, open(path, "rb") as fp:
        assert archive._quick_sizes(fp, zf.infolist()) == [len(d) for _, d in MEMBERS]
        scan = scan_archive(zf)
    assert (scan.problems, scan.inflated) == ([], sum(len(d) for _, d in MEMBERS))


def test_members_listed_out_of_file_order_are_all_checked(tmp_path):
    path = _zip(tmp_path / "p.zip", MEMBERS)
    with zipfile.ZipFile(path) as zf, open(path, "rb") as fp:
        infos = list(reversed(zf.infolist()))
        assert archive._quick_sizes(fp, infos) == [len(d) for _, d in reversed(MEMBERS)]


def test_a_long_local_extra_field_is_read_whole(tmp_path, monkeypatch):
    monkeypatch.setattr(archive, "BLOCK", 16)
    path = tmp_path / "p.zip"
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_STORED) as zf:
        info = zipfile.ZipInfo("a.txt")
        info.extra = struct.pack("<HH", 0xCAFE, 2000) + bytes(2000)   # an unknown extra block of 2,000 bytes
        zf.writestr(info, b"payload")
        zf.writestr("b.txt", b"more")
    with zipfile.ZipFile(path) as zf, open(path, "rb") as fp:
        assert archive._quick_sizes(fp, zf.infolist()) == [7, 4]


def test_a_damaged_member_in_the_window_is_reported_as_the_careful_path_reports_it(tmp_path, monkeypatch):
    path = _zip(tmp_path / "p.zip", MEMBERS, zipfile.ZIP_STORED)
    raw = bytearray(path.read_bytes())
    raw[raw.index(b"// file 7\n") + 3] ^= 1
    path.write_bytes(bytes(raw))
    with zipfile.ZipFile(path) as zf, open(path, "rb") as fp:
        sizes = archive._quick_sizes(fp, zf.infolist())
        fast = scan_archive(zf)
    monkeypatch.setattr(archive, "_quick_sizes", lambda fp, infos, *rest: [None] * len(infos))
    with zipfile.ZipFile(path) as zf:
        careful = scan_archive(zf)
    assert [i for i, s in enumerate(sizes) if s is None] == [7]
    assert fast.problems == careful.problems == [
        "entry 'src/f7.cpp' cannot be read: Bad CRC-32 for file 'src/f7.cpp'"]


def test_a_truncated_archive_leaves_the_missing_members_to_the_careful_path(tmp_path):
    path = _zip(tmp_path / "p.zip", MEMBERS, zipfile.ZIP_STORED)
    with zipfile.ZipFile(path) as zf:
        infos = zf.infolist()
    cut = infos[30].header_offset + 10
    with open(path, "rb") as src:
        data = src.read()
    short = tmp_path / "short.bin"
    short.write_bytes(data[:cut])
    with open(short, "rb") as fp:
        sizes = archive._quick_sizes(fp, infos)
    assert sizes == [len(d) for _, d in MEMBERS[:30]] + [None] * (len(MEMBERS) - 30)


def test_the_total_limit_counts_members_checked_from_the_window(tmp_path):
    path = _zip(tmp_path / "p.zip", MEMBERS)
    with zipfile.ZipFile(path) as zf:
        total = sum(len(d) for _, d in MEMBERS)
        assert scan_archive(zf, Limits(max_total_size=total)).inflated == total
        with pytest.raises(archive.UnsafeArchive):
            scan_archive(zf, Limits(max_total_size=total - 1))


def test_a_member_declaring_more_than_a_chunk_is_streamed_not_inflated_whole(tmp_path):
    import os
    big = os.urandom(600_000) + bytes(600_000)   # 1.2 MB from about 0.6 MB: not a bomb by ratio
    path = _zip(tmp_path / "p.zip", [("small.h", b"#pragma once\n"), ("big.bin", big)])
    with zipfile.ZipFile(path) as zf, open(path, "rb") as fp:
        assert archive._quick_sizes(fp, zf.infolist()) == [13, None]
        scan = scan_archive(zf)
    assert (scan.problems, scan.inflated) == ([], 13 + len(big))


def _raw_deflate(data: bytes) -> bytes:
    import zlib
    c = zlib.compressobj(6, zlib.DEFLATED, -15)
    return c.compress(data) + c.flush()


def _with_deflated_body(tmp_path, content: bytes, body: bytes):
    """A zip whose one member ``m.h`` declares deflate, ``content``'s CRC-32 and size, and holds ``body``."""
    import zlib
    path = tmp_path / "p.zip"
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_STORED) as zf:
        zf.writestr("m.h", body)
    raw = bytearray(path.read_bytes())
    crc, size = zlib.crc32(content), len(content)
    local = raw.index(b"PK\x03\x04")
    central = raw.index(b"PK\x01\x02")
    for at, method_at, crc_at in ((local, 8, 14), (central, 10, 16)):
        struct.pack_into("<H", raw, at + method_at, zipfile.ZIP_DEFLATED)
        struct.pack_into("<III", raw, at + crc_at, crc, len(body), size)
    path.write_bytes(bytes(raw))
    return path


CONTENT = b"".join(b"#define RTE_OP_%d %d\n" % (i, i * 7919 % 1000) for i in range(60))


@pytest.mark.parametrize("body, quick, passes", [
    (_raw_deflate(CONTENT), True, True),
    (_raw_deflate(CONTENT) + b"trailing bytes", True, True),     # zipfile stops at the stream's end too
    (_raw_deflate(CONTENT)[:-40], False, None),                  # cut: zipfile decides
    (_raw_deflate(CONTENT + b"more"), False, False),             # more than declared: refused on both paths
    (_raw_deflate(CONTENT[:-2] + b"X\n"), False, False),         # right size, wrong CRC-32
])
def test_a_tiny_deflated_member_gets_the_careful_path_s_verdict(tmp_path, monkeypatch, body, quick, passes):
    path = _with_deflated_body(tmp_path, CONTENT, body)
    with zipfile.ZipFile(path) as zf, open(path, "rb") as fp:
        assert archive._quick_sizes(fp, zf.infolist()) == [len(CONTENT) if quick else None]
        fast = scan_archive(zf)
    monkeypatch.setattr(archive, "_quick_sizes", lambda fp, infos, *rest: [None] * len(infos))
    with zipfile.ZipFile(path) as zf:
        careful = scan_archive(zf)
    assert (fast.problems, fast.inflated) == (careful.problems, careful.inflated)
    if passes is not None:
        assert (fast.problems == []) is passes
