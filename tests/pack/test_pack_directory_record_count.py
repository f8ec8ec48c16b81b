"""The entry limit holds for the records the central directory really holds, not only for the count its
end record declares: zipfile parses records until the directory's size is used up, so a directory of a
million records declaring one would be parsed whole (about 600 MB of ZipInfo) before any later check."""

from __future__ import annotations

import struct
import zipfile
import zlib

import pytest

from bot.pack.archive import Limits, UnsafeArchive, declared_entries, open_zip


def _pack(path, names: list[bytes], declared: int):
    """One stored member ``a`` and a central directory of ``names``, every record pointing at it."""
    local = struct.pack("<4s5H3L2H", b"PK\x03\x04", 20, 0, 0, 0, 0, zlib.crc32(b"x"), 1, 1, 1, 0) + b"ax"
    cd = b"".join(struct.pack("<4s6H3L5H2L", b"PK\x01\x02", 20, 20, 0, 0, 0, 0, zlib.crc32(b"x"), 1, 1, len(n),
                              0, 0, 0, 0, 0, 0) + n for n in names)
    path.write_bytes(local + cd + struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, declared, declared, len(cd),
                                              len(local), 0))
    return path


def test_a_directory_holding_more_records_than_the_limit_is_refused_whatever_it_declares(tmp_path):
    pack = _pack(tmp_path / "p.pack", [b"n%d" % i for i in range(101)], declared=1)
    assert declared_entries(pack, 100) == (1, 101 * 46 + sum(len(b"n%d" % i) for i in range(101)), 101)
    with pytest.raises(UnsafeArchive) as exc:
        open_zip(pack, Limits(max_entries=100))
    assert (exc.value.path, exc.value.message) == (
        "p.pack", "the central directory holds more than 100 entries (the limit), though it declares 1")


def test_names_holding_the_record_signature_are_counted_as_records_are(tmp_path):
    # 3 signatures in each of 50 names: 200 occurrences, 50 records; the records are walked, not guessed
    names = [b"PK\x01\x02%dPK\x01\x02PK\x01\x02" % i for i in range(50)]
    pack = _pack(tmp_path / "p.pack", names, declared=50)
    assert declared_entries(pack, 100)[2] == 50
    with open_zip(pack, Limits(max_entries=100)) as zf:
        assert len(zf.infolist()) == 50


def test_a_directory_at_the_limit_opens(tmp_path):
    pack = _pack(tmp_path / "p.pack", [b"n%d" % i for i in range(100)], declared=1)
    with open_zip(pack, Limits(max_entries=100)) as zf:
        assert isinstance(zf, zipfile.ZipFile) and len(zf.infolist()) == 100
