"""The CRC pass of the archive check reads small sound members in one zlib call, and hands every
other member to zipfile's reader, so its verdicts and messages are those of the careful path."""

from __future__ import annotations

import zipfile

import pytest

from bot.pack import archive
from bot.pack.archive import Limits, scan_archive


def _zip(path, members, method=zipfile.ZIP_DEFLATED):
    with zipfile.ZipFile(path, "w", compression=method) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return path


def _flip(path, needle: bytes, at: int = 0):
    """Change one byte of the first stored occurrence of ``needle`` (the member's data, not its name)."""
    raw = bytearray(path.read_bytes())
    i = raw.index(needle) + at
    raw[i] ^= 0x01
    path.write_bytes(bytes(raw))


@pytest.mark.parametrize("method", [zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED])
def test_sound_small_members_take_the_fast_path(tmp_path, method):
    members = {"a.txt": b"hello " * 100, "dir/b.h": b"#pragma once\n", "empty": b""}
    path = _zip(tmp_path / "p.zip", members, method)
    with zipfile.ZipFile(path) as zf, open(path, "rb") as fp:
        sizes = archive._quick_sizes(fp, zf.infolist())
        scan = scan_archive(zf)
    assert sizes == [600, 13, 0]
    assert (scan.problems, scan.inflated) == ([], 613)


def test_a_damaged_member_goes_to_the_careful_path_and_is_reported_as_before(tmp_path, monkeypatch):
    path = _zip(tmp_path / "p.zip", {"a.txt": b"0123456789abcdef" * 4, "b.txt": b"fine"}, zipfile.ZIP_STORED)
    _flip(path, b"0123456789abcdef", 3)
    with zipfile.ZipFile(path) as zf, open(path, "rb") as fp:
        assert archive._quick_sizes(fp, [zf.getinfo("a.txt"), zf.getinfo("b.txt")]) == [None, 4]
        fast = scan_archive(zf)
    monkeypatch.setattr(archive, "_quick_sizes", lambda fp, infos, *rest: [None] * len(infos))  # the careful path only
    with zipfile.ZipFile(path) as zf:
        careful = scan_archive(zf)
    assert fast.problems == careful.problems
    assert len(fast.problems) == 1 and fast.problems[0].startswith("entry 'a.txt' cannot be read")


def test_a_local_header_that_disagrees_with_the_central_directory_is_not_trusted(tmp_path):
    path = _zip(tmp_path / "p.zip", {"name1.txt": b"data"}, zipfile.ZIP_STORED)
    raw = path.read_bytes()
    path.write_bytes(raw.replace(b"name1.txt", b"name2.txt", 1))  # the local header only
    with zipfile.ZipFile(path) as zf, open(path, "rb") as fp:
        assert archive._quick_sizes(fp, [zf.getinfo("name1.txt")]) == [None]
        scan = scan_archive(zf)
    assert len(scan.problems) == 1 and "name1.txt" in scan.problems[0]


def test_the_total_limit_still_applies_on_the_fast_path(tmp_path):
    path = _zip(tmp_path / "p.zip", {"a": b"x" * 1000, "b": b"y" * 1000})
    with zipfile.ZipFile(path) as zf:
        with pytest.raises(archive.UnsafeArchive):
            scan_archive(zf, Limits(max_total_size=1500))
