"""The ``archive`` check of verify-pack (archive safety and streaming), on packs from tests/worlds/packgen.py."""

from __future__ import annotations

import zipfile

import pytest

from bot.pack import archive
from bot.pack.archive import Limits, UnsafeArchive, open_zip, scan_archive
from bot.pack.verify import verify_pack
from packgen import make_pack


def _archive(tmp_path, **knobs):
    report = verify_pack(make_pack(tmp_path, **knobs), "1.5.1")
    return report, report.check("archive")


def test_good_pack_passes_with_crcs_verified(tmp_path):
    report, res = _archive(tmp_path)
    assert res.status == "pass"
    assert "CRCs verified" in res.detail
    assert res.data["entries"] == len(zipfile.ZipFile(tmp_path / "PyTorch.ExecuTorch.1.5.1.pack").infolist())


@pytest.mark.parametrize("name, why", [
    ("../../evil.h", "contains a '..' segment"),
    ("include/../../evil.h", "contains a '..' segment"),
    ("/etc/evil.h", "is an absolute path"),
    ("C:/evil.h", "is an absolute path"),
    ("include\\evil.h", "contains a backslash"),
])
def test_unsafe_names_fail_naming_the_entry(tmp_path, name, why):
    report, res = _archive(tmp_path, extra_entries=((name, b"x"),))
    assert res.status == "fail"
    assert f"entry {name!r} {why}" in res.detail
    assert report.failed


def test_duplicate_entry_fails(tmp_path):
    report, res = _archive(tmp_path, extra_entries=(("LICENSE", b"second licence"),))
    assert res.status == "fail"
    assert "entry 'LICENSE' appears more than once" in res.detail


def test_symlink_entry_fails(tmp_path):
    _, res = _archive(tmp_path, symlink=True)
    assert res.status == "fail"
    assert "entry 'include/escape' is a symbolic link" in res.detail


def test_case_only_clash_is_a_warning(tmp_path):
    _, res = _archive(tmp_path, extra_entries=(("license", b"x"),))
    assert res.status == "warn"
    assert "'LICENSE' and 'license' differ only in letter case" in res.detail


def test_truncated_archive_fails_as_a_check_not_a_crash(tmp_path):
    report, res = _archive(tmp_path, truncate=200)
    assert res.status == "fail"
    assert "not a readable zip archive" in res.detail
    assert [c.name for c in report.checks] == ["archive"]


def test_bomb_is_refused_from_the_central_directory_before_inflating(tmp_path, monkeypatch):
    pack = make_pack(tmp_path, bomb=32 << 20)

    def no_inflate(*a, **k):
        raise AssertionError("a member was inflated")
    monkeypatch.setattr(archive, "stream_member", no_inflate)
    with open_zip(pack) as zf, pytest.raises(UnsafeArchive) as exc:
        scan_archive(zf)
    assert "'Documentation/zeros.bin'" in str(exc.value)
    assert "refused as a zip bomb before inflating" in str(exc.value)
    res = verify_pack(pack, "1.5.1").check("archive")
    assert res.status == "fail" and "zip bomb" in res.detail


def test_total_size_limit_refuses_before_inflating(tmp_path):
    pack = make_pack(tmp_path)
    with open_zip(pack) as zf, pytest.raises(UnsafeArchive, match="more than the limit of 1000"):
        scan_archive(zf, Limits(max_total_size=1000))


def test_lying_declared_size_is_caught_while_inflating(tmp_path):
    # The central directory says 64 KiB; the member inflates to 4 MiB.
    _, res = _archive(tmp_path, lying_size=True)
    assert res.status == "fail"
    assert "'Documentation/lying.bin'" in res.detail


def test_inflating_guard_counts_bytes_whatever_the_header_says(tmp_path):
    pack = make_pack(tmp_path, big_members=(3 << 20,))
    with open_zip(pack) as zf:
        info = zf.getinfo("Documentation/assets/blob0.bin")
        with pytest.raises(UnsafeArchive, match="passes the limit"):
            list(archive.stream_member(zf, info, Limits(max_total_size=2 << 20)))


def test_streaming_reads_fixed_size_chunks(tmp_path):
    pack = make_pack(tmp_path, big_members=(5 << 20,))
    with open_zip(pack) as zf:
        chunks = list(archive.stream_member(zf, zf.getinfo("Documentation/assets/blob0.bin")))
    assert len(chunks) >= 5
    assert max(len(c) for c in chunks) <= archive.CHUNK


def test_crc_mismatch_is_reported_with_the_entry(tmp_path):
    pack = make_pack(tmp_path, extra_entries=(("Documentation/notes.txt", b"stored notes, flipped below"),))
    data = bytearray(pack.read_bytes())
    at = data.find(b"stored notes, flipped below")
    assert at > 0  # extra entries are stored, so their bytes are in the file as written
    data[at] ^= 0xFF
    pack.write_bytes(bytes(data))
    res = verify_pack(pack, "1.5.1").check("archive")
    assert res.status == "fail"
    assert "'Documentation/notes.txt' cannot be read" in res.detail
    assert "CRC" in res.detail


def test_missing_pack_is_bad_input_exit_2(tmp_path):
    from bot.errors import PackError
    with pytest.raises(PackError) as exc:
        verify_pack(tmp_path / "nope.pack", "1.5.1")
    assert exc.value.exit_code == 2 and "nope.pack" in str(exc.value)
