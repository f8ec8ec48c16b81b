"""Zip safety and bounded streaming reads for a ``.pack`` (the ``archive`` check of verify-pack).

A pack is a zip archive (the Open-CMSIS-Pack spec).  :func:`scan_archive` decides
whether it is safe to read at all, in two passes:

1. from the central directory only (nothing is inflated): entry count, entry
   names (absolute, ``..``, backslash, NUL), symlink entries, duplicates,
   encryption, compression method, overlapping entries, and the declared
   sizes and ratios -- a zip bomb is refused here, before it is inflated;
2. then every member is streamed in fixed-size chunks to verify its CRC-32,
   counting the bytes actually produced, because declared sizes can lie.

Memory stays flat whatever the pack's size: members are never read whole,
except the few small files a check needs, which go through
:func:`read_member` with a hard byte cap.  The central directory itself
(one ``ZipInfo`` per entry) is the only thing that grows, with the entry
count.
"""

from __future__ import annotations

import contextlib
import io
import os
import posixpath
import re
import stat
import struct
import zipfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

from bot.errors import PackError

CHUNK = 1 << 20  # bytes per streamed read
_DRIVE = re.compile(r"^[A-Za-z]:")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")  # C0 control characters and DEL
#: A name :func:`name_problem` accepts, in one match: canonical segments (none empty, ``.``, ``..``,
#: or ending in a space or a dot; no backslash, control character or DEL), no drive, one optional
#: trailing ``/``.  A name it does not match is examined by the rules one by one.
_SEGMENT = r"[^/\\\x00-\x1f\x7f]*[^/\\\x00-\x1f\x7f .]"
_CANONICAL = re.compile(rf"(?![A-Za-z]:){_SEGMENT}(?:/{_SEGMENT})*/?")


@dataclass(frozen=True)
class Limits:
    """Bounds that make a pack a zip bomb.

    Attributes:
        max_entries: most entries in the central directory (a real v1.4.1 pack
            has about 1,000; the v1.4.1 release asset); checked from the
            end-of-central-directory record before the directory is parsed.
        max_total_size: most uncompressed bytes, declared and actually inflated.
        max_ratio: most uncompressed/compressed ratio of one member ...
        ratio_floor: ... counted only for members larger than this many bytes
            (small text files legitimately compress very well).
    """

    max_entries: int = 50_000
    max_total_size: int = 4 << 30
    max_ratio: int = 100
    ratio_floor: int = 1 << 20


class UnsafeArchive(PackError):
    """The archive must not be read further (unreadable, or a zip bomb); a failed check, not bad usage."""


class UnreadableMember(UnsafeArchive):
    """One member cannot be inflated (bad CRC, corrupt deflate stream, bad local header, truncated data).

    Raised by every reader of this module (:func:`stream_member`,
    :func:`read_member`, :func:`read_head`, :func:`iter_lines`), so that a
    check reading a member reports a failure naming it instead of letting a
    ``zlib.error`` or ``EOFError`` escape.
    """


#: What zipfile/zlib raise for a member whose bytes are damaged.
READ_ERRORS = (zipfile.BadZipFile, zlib.error, EOFError, OSError, NotImplementedError, RuntimeError, ValueError)


@contextlib.contextmanager
def _reading(name: str):
    """Turn the errors of :data:`READ_ERRORS` raised while reading member ``name`` into :class:`UnreadableMember`."""
    try:
        yield
    except UnsafeArchive:
        raise
    except READ_ERRORS as exc:
        raise UnreadableMember(f"entry {name!r} cannot be read: {exc}") from exc


@dataclass
class EntryIndex:
    """Constant-time lookups over the entry names of a pack.

    Attributes:
        files: entry name -> ``ZipInfo`` of its first occurrence (directory
            entries, ending in ``/``, included).
        dirs: every directory prefix implied by a name, with a trailing ``/``
            (``"include/flatbuffers/"``), whether or not it has its own entry.
    """

    files: dict = field(default_factory=dict)
    dirs: set = field(default_factory=set)
    _folded: dict | None = None

    def add(self, info: zipfile.ZipInfo) -> None:
        """Index ``info`` (its first occurrence wins) and every directory prefix of its name.

        The prefixes are walked from the nearest up and the walk stops at one already
        known: every prefix in :attr:`dirs` has its own prefixes there too, except
        one ending in ``//`` (a directory entry ``a//`` stands without ``a/``), which
        never stops the walk.
        """
        name = info.filename
        self.files.setdefault(name, info)
        dirs = self.dirs
        if name[-1:] == "/":
            dirs.add(name)
        base = name.rstrip("/")
        i = base.rfind("/")
        while i >= 0:
            prefix = base[:i + 1]
            if prefix in dirs and base[i - 1:i] != "/":
                break
            dirs.add(prefix)
            i = base.rfind("/", 0, i)

    def is_file(self, name: str) -> bool:
        """True when ``name`` is a (non-directory) entry."""
        return name in self.files and not name.endswith("/")

    def is_dir(self, name: str) -> bool:
        """True when ``name`` (with or without trailing ``/``) is a directory of the pack."""
        return (name.rstrip("/") + "/") in self.dirs

    def resolves(self, name: str) -> bool:
        """True when ``name`` is a file entry or a directory prefix."""
        return self.is_file(name) or self.is_dir(name)

    def case_variant(self, name: str) -> str | None:
        """An entry or directory spelled like ``name`` except for letter case, or None."""
        if self._folded is None:
            self._folded = {}
            for n in list(self.files) + list(self.dirs):
                self._folded.setdefault(n.rstrip("/").casefold(), n)
        return self._folded.get(name.rstrip("/").casefold())

    def under(self, prefix: str) -> list[str]:
        """File entries (not directories) whose name starts with ``prefix``."""
        return [n for n in self.files if n.startswith(prefix) and not n.endswith("/")]


@dataclass
class ArchiveScan:
    """What :func:`scan_archive` found.

    Attributes:
        problems: failures, one line each naming the entry.
        warnings: things a reviewer should see (case-only name clashes).
        index: the entry index (set even when there are problems, unless unreadable).
        entries: number of central directory entries.
        total_size / compressed_size: declared byte counts.
        inflated: bytes actually produced while verifying CRCs.
    """

    problems: list = field(default_factory=list)
    warnings: list = field(default_factory=list)
    index: EntryIndex = field(default_factory=EntryIndex)
    entries: int = 0
    total_size: int = 0
    compressed_size: int = 0
    inflated: int = 0

    @property
    def ok(self) -> bool:
        return not self.problems


def name_problem(name: str) -> str | None:
    """Why an entry name is unsafe or ambiguous to extract, or None.

    Refused: absolute paths (``/x``, ``C:x``), ``..`` segments, backslashes
    (a Windows separator that some extractors honour), NUL and other control
    characters, and names that are not canonical -- an empty name, an empty
    segment (``a//b``), a ``.`` segment (``./a``), or a segment ending in a
    space or a dot (Windows drops those).  Extractors normalise a
    non-canonical name to another entry's path, so ``./include/x.h`` would
    silently replace ``include/x.h`` while the checks read the other one.
    A directory entry keeps its one trailing ``/``.  A name of canonical
    segments is accepted in one pattern match (:data:`_CANONICAL`); any other
    name is examined rule by rule (:func:`_rule_problem`), which gives the reason.
    """
    return None if _CANONICAL.fullmatch(name) else _rule_problem(name)


def _rule_problem(name: str) -> str | None:
    """:func:`name_problem` rule by rule, in the order its reasons are given."""
    if not name:
        return "is empty"
    if "\x00" in name:
        return "contains a NUL character"
    if _CONTROL.search(name):
        return "contains a control character"
    if "\\" in name:
        return "contains a backslash"
    if name.startswith("/") or _DRIVE.match(name):
        return "is an absolute path"
    segments = (name[:-1] if name.endswith("/") else name).split("/")
    if ".." in segments:
        return "contains a '..' segment"
    if "" in segments:
        return "is not a canonical path (empty segment)"
    if "." in segments:
        return "is not a canonical path ('.' segment)"
    if any(seg.endswith((" ", ".")) for seg in segments):
        return "has a segment ending in a space or a dot (Windows drops it)"
    return None


def pdsc_file_name(name: str) -> tuple[str, str | None]:
    """A PDSC ``<file name>`` as a pack entry name, and why it is unsafe (or None).

    Backslashes become ``/`` and leading ``./`` are dropped (both appear in
    hand-written PDSCs); the result must then pass :func:`name_problem`, so
    absolute paths and ``..`` segments, which point outside the pack, are
    reported instead of being looked up or handed to a compiler.
    Returns ``(normalised name, problem)``.
    """
    norm = name.replace("\\", "/")
    while norm.startswith("./"):
        norm = norm[2:]
    if not norm or norm in (".", "./"):
        return norm, "names the pack root" if name else "is empty"
    return norm, name_problem(norm)


_METHODS = (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED)


def _header_name_length(info: zipfile.ZipInfo) -> int:
    """Bytes of the entry name as stored: UTF-8 when flag bit 11 is set, else code page 437 (zip APPNOTE 4.4.4)."""
    if info.orig_filename.isascii():   # one byte a character in both
        return len(info.orig_filename)
    codec = "utf-8" if info.flag_bits & 0x800 else "cp437"
    try:
        return len(info.orig_filename.encode(codec))
    except UnicodeEncodeError:
        return len(info.orig_filename.encode("utf-8", "surrogateescape"))


def _is_symlink(info: zipfile.ZipInfo) -> bool:
    mode = info.external_attr >> 16
    return bool(mode) and stat.S_ISLNK(mode)


_EOCD = b"PK\x05\x06"
_ZIP64_LOCATOR = b"PK\x06\x07"
_ZIP64_EOCD = b"PK\x06\x06"
#: Most bytes of central directory read (46 bytes + name + extra + comment per entry; ~100 per real entry).
MAX_DIRECTORY_BYTES = 64 << 20


def declared_entries(path: Path, count_over: int | None = None) -> tuple[int, int, int | None] | None:
    """(entry count, central directory size in bytes, records counted) as the end-of-central-directory
    record declares the first two.

    Reads only the file's tail (PKWARE APPNOTE 6.3.x, sections 4.3.14-4.3.16:
    the record is at most 22 + 65,535 bytes from the end; a count of 0xFFFF
    or a size of 0xFFFFFFFF defers to the ZIP64 record the locator points at).
    None when there is no such record (:mod:`zipfile` then says why the file is not a zip).
    With ``count_over`` the records actually in the directory are counted too (at most
    ``count_over + 1``; :func:`_directory_records`) when the declared count is within it; else
    the third value is None.
    """
    with open(path, "rb") as fh:
        fh.seek(0, os.SEEK_END)
        size = fh.tell()
        tail_len = min(size, 22 + 0xFFFF)
        fh.seek(size - tail_len)
        tail = fh.read(tail_len)
        at = tail.rfind(_EOCD)
        if at < 0 or len(tail) - at < 22:
            return None
        entries = int.from_bytes(tail[at + 10:at + 12], "little")
        cd_size = int.from_bytes(tail[at + 12:at + 16], "little")
        loc = at - 20
        end = size - tail_len + at   # where the directory ends: the record, or the ZIP64 record before it
        if (entries == 0xFFFF or cd_size == 0xFFFFFFFF) and loc >= 0 and tail[loc:loc + 4] == _ZIP64_LOCATOR:
            fh.seek(int.from_bytes(tail[loc + 8:loc + 16], "little"))
            rec = fh.read(56)
            if rec[:4] == _ZIP64_EOCD and len(rec) == 56:
                entries = int.from_bytes(rec[32:40], "little")
                cd_size = int.from_bytes(rec[40:48], "little")
                end -= 20 + 56
        records = None
        if count_over is not None and entries <= count_over and 0 < cd_size <= MAX_DIRECTORY_BYTES \
                and end - cd_size >= 0:
            records = _directory_records(fh, end - cd_size, cd_size, count_over)
    return entries, cd_size, records


_CENTRAL = b"PK\x01\x02"


def _directory_records(fh, start: int, size: int, limit: int) -> int:
    """How many central directory records lie in ``size`` bytes from ``start``, counted up to ``limit + 1``.

    zipfile parses the records until the directory's declared size is used up, whatever count the
    end record declares (``zipfile._RealGetContents``), so a directory of a million records can
    declare one.  First an upper bound (the record signature's occurrences, in C); when that exceeds
    ``limit``, the records are walked (46 bytes plus the name, extra field and comment lengths,
    APPNOTE.TXT 4.3.12) until ``limit + 1`` or a bad signature, where zipfile stops too.
    """
    fh.seek(start)
    left, occurrences, carry = size, 0, b""
    while left > 0:
        chunk = fh.read(min(left, CHUNK))
        if not chunk:
            break
        left -= len(chunk)
        block = carry + chunk
        occurrences += block.count(_CENTRAL)
        carry = block[-3:]   # a signature cut by the chunk's end is counted with the next chunk
    if occurrences <= limit:
        return occurrences
    fh.seek(start)
    buf, pos, count, read = b"", 0, 0, 0
    while count <= limit:
        if len(buf) - pos < 46:
            more = fh.read(min(CHUNK, size - read))
            read += len(more)
            buf, pos = buf[pos:] + more, 0
            if len(buf) < 46:
                break
        if buf[pos:pos + 4] != _CENTRAL:
            break
        n, m, k = struct.unpack_from("<HHH", buf, pos + 28)
        pos += 46 + n + m + k
        count += 1
        while pos > len(buf) and read < size:   # a long record: skip what is not read yet
            more = fh.read(min(CHUNK, size - read))
            if not more:
                break
            read += len(more)
            buf += more
    return count


def open_zip(path: Path, limits: Limits = Limits()) -> zipfile.ZipFile:
    """Open ``path`` as a zip; raises :class:`UnsafeArchive` when it is not a readable zip.

    The entry count and the central directory's size are checked from the
    end-of-central-directory record (:func:`declared_entries`) before
    :mod:`zipfile` parses the directory (one object per entry: 300,000
    entries cost hundreds of MB before any later limit could apply), and so
    are the records the directory really holds, since zipfile reads them all
    whatever count the record declares.
    """
    try:
        declared = declared_entries(path, limits.max_entries)
    except OSError as exc:
        raise UnsafeArchive(f"not a readable zip archive ({exc.strerror or exc})", path=path.name) from exc
    entries, cd_size, records = declared or (0, 0, None)
    if entries > limits.max_entries:
        raise UnsafeArchive(f"{entries} entries, more than the limit of {limits.max_entries}", path=path.name)
    if records is not None and records > limits.max_entries:
        raise UnsafeArchive(f"the central directory holds more than {limits.max_entries} entries (the limit), "
                            f"though it declares {entries}", path=path.name)
    if cd_size > MAX_DIRECTORY_BYTES:
        raise UnsafeArchive(f"central directory of {cd_size} bytes, more than the limit of {MAX_DIRECTORY_BYTES}",
                            path=path.name)
    try:
        return zipfile.ZipFile(path)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, ValueError, EOFError) as exc:
        raise UnsafeArchive(f"not a readable zip archive ({exc})", path=path.name) from exc


def scan_archive(zf: zipfile.ZipFile, limits: Limits = Limits(), *, verify_crc: bool = True) -> ArchiveScan:
    """Check every entry of an open pack; see the module docstring for what is checked.

    Returns an :class:`ArchiveScan`; raises :class:`UnsafeArchive` when the
    archive must not be read further (too many entries, a bomb by declared
    sizes or ratio, overlapping entries, or more bytes inflated than
    declared).  Problems that only concern some entries (a bad name, a bad
    CRC) are collected in ``problems`` instead.
    """
    scan = ArchiveScan()
    infos = zf.infolist()
    scan.entries = len(infos)
    if len(infos) > limits.max_entries:
        raise UnsafeArchive(f"{len(infos)} entries, more than the limit of {limits.max_entries}")
    files = scan.index.files   # the names seen so far (first occurrence)
    folded: dict[str, str] = {}
    problems = scan.problems
    for info in infos:
        name = info.filename
        # zipfile cuts a name at its first NUL (filename); the rules see the name as stored (orig_filename)
        stored = info.orig_filename
        if not _CANONICAL.fullmatch(stored):
            why = _rule_problem(stored)
            if why:
                problems.append(f"entry {stored!r} {why}")
        if info.external_attr >> 16 and _is_symlink(info):
            problems.append(f"entry {name!r} is a symbolic link")
        if info.flag_bits & 0x1:
            problems.append(f"entry {name!r} is encrypted")
        if info.compress_type not in _METHODS:
            problems.append(f"entry {name!r} uses compression method {info.compress_type} (only stored and deflate)")
        elif info.compress_type == zipfile.ZIP_STORED and info.compress_size != info.file_size:
            # zipfile reads file_size bytes and checks their CRC-32; another reader takes compress_size bytes
            problems.append(f"entry {name!r} is stored but declares {info.compress_size} bytes stored for "
                            f"{info.file_size} bytes of content")
        if name in files:
            problems.append(f"entry {name!r} appears more than once")
        else:
            # NFC: an extractor on macOS (or any normalising file system) writes both spellings to one file
            if name.isascii():
                f = name.casefold()
            else:
                import unicodedata   # here: most packs have ASCII names only
                f = unicodedata.normalize("NFC", name).casefold()
            known = folded.setdefault(f, name)
            if known != name:
                if known.casefold() == name.casefold():
                    scan.warnings.append(f"entries {known!r} and {name!r} differ only in letter case")
                else:
                    scan.warnings.append(f"entries {ascii(known)} and {ascii(name)} differ only in Unicode "
                                         "normalisation or letter case")
        scan.total_size += info.file_size
        scan.compressed_size += info.compress_size
        if info.file_size > limits.ratio_floor and info.file_size > limits.max_ratio * max(info.compress_size, 1):
            raise UnsafeArchive(
                f"entry {name!r} declares {info.file_size} bytes from {info.compress_size} compressed "
                f"(ratio above {limits.max_ratio}): refused as a zip bomb before inflating")
        scan.index.add(info)
    for name in scan.index.files:
        if not name.endswith("/") and name + "/" in scan.index.dirs:
            scan.problems.append(f"entry {name!r} is a file and also a directory of other entries")
    if scan.total_size > limits.max_total_size:
        raise UnsafeArchive(f"entries declare {scan.total_size} bytes uncompressed, more than the limit "
                            f"of {limits.max_total_size}: refused as a zip bomb before inflating")
    _check_overlaps(zf, infos)
    if verify_crc and not scan.problems:
        _verify_members(zf, infos, limits, scan)
    return scan


def _check_overlaps(zf: zipfile.ZipFile, infos: list) -> None:
    """Refuse entries whose data overlap (the non-recursive zip bomb reuses one compressed stream)."""
    ordered = sorted(infos, key=lambda i: i.header_offset)
    end_of_data = getattr(zf, "start_dir", None)
    for a, b in zip(ordered, ordered[1:]):
        a_end = a.header_offset + 30 + _header_name_length(a) + a.compress_size
        if b.header_offset < a_end:
            raise UnsafeArchive(f"entries {a.filename!r} and {b.filename!r} overlap in the archive")
    if ordered and end_of_data is not None:
        last = ordered[-1]
        if last.header_offset + 30 + last.compress_size > end_of_data:
            raise UnsafeArchive(f"entry {last.filename!r} runs into the central directory")


#: The local file header (APPNOTE.TXT 4.3.7), as zipfile reads it: ``zipfile.structFileHeader``.
_LOCAL_HEADER = struct.Struct(zipfile.structFileHeader)


#: Bytes of the archive read at a time by the CRC pass's fast path (members are inflated from this window).
BLOCK = 1 << 20
#: Compressed size up to which the fast path inflates a member without a cap (deflate expands at most
#: about 1,032 times: 4 KiB gives at most about 4 MiB); a larger member is inflated capped at its declared size.
_TINY = 4 << 10


#: General-purpose flag bits (APPNOTE.TXT 4.4.4) that send a member to the careful path when set in either
#: header: all but bits 1-2 (deflate options) and 11 (UTF-8 name).  zipfile refuses bits 5 (patched data) and
#: 6 (strong encryption) from the central directory; bits 0 (encryption) and 3 (data descriptor) change the reading.
_NOT_FAST = 0xFFFF & ~0x0806


def _quick_sizes(fp, infos: list, end_of_data: int | None = None) -> list:
    """The inflated size of each small member whose bytes are sound, or None to take the careful path.

    A fast path for the CRC pass over many small members: the archive is read
    in order of ``header_offset``, :data:`BLOCK` bytes at a time, and each file
    member of at most :data:`CHUNK` bytes, compressed and declared, is checked
    from that window (a larger one is streamed, so memory stays flat): its
    local header (APPNOTE.TXT 4.3.7) must carry the same name,
    flags, method, CRC-32 and sizes as the central directory (no data
    descriptor, no encryption, no flag but the deflate options and UTF-8), and its data must end
    before the next member's local header (or the central directory); its data is inflated with zlib in one call
    (capped at its declared size unless it is at most :data:`_TINY` bytes
    compressed), the stream must end, and it must give exactly the declared
    size with the declared CRC-32.  Returns a list parallel to ``infos``: the size, or None
    for a directory, a large member and anything that does not check out, which
    :func:`stream_member` (zipfile's own reader, with every guard and error
    message) then decides.
    """
    sizes: list = [None] * len(infos)
    order = sorted(range(len(infos)), key=lambda k: infos[k].header_offset)
    head = _LOCAL_HEADER.size
    buf, start = b"", 0   # the window: archive bytes [start, start + len(buf))
    view = memoryview(buf)
    for n, k in enumerate(order):
        info = infos[k]
        csize = info.compress_size
        if (csize > CHUNK or info.file_size > CHUNK or info.flag_bits & _NOT_FAST or info.compress_type not in _METHODS
                or info.filename[-1:] == "/"):
            continue
        # where the next member's local header (or the central directory) begins: the data must end before it
        limit = infos[order[n + 1]].header_offset if n + 1 < len(order) else end_of_data
        orig = info.orig_filename
        ascii_name = orig.encode("ascii") if orig.isascii() else None
        off = info.header_offset
        want = head + (len(ascii_name) if ascii_name is not None else 2 * len(orig)) + csize + 64
        if off < start or off + want > start + len(buf):
            fp.seek(off)
            buf, start = fp.read(max(want, BLOCK)), off
            view = memoryview(buf)
        at = off - start
        if len(buf) - at < head:
            continue
        (sig, _, _, flags, method, _, _, crc, lcsize, usize, nlen, xlen) = _LOCAL_HEADER.unpack_from(buf, at)
        if (sig != zipfile.stringFileHeader or flags & _NOT_FAST or method != info.compress_type or crc != info.CRC
                or lcsize != csize or usize != info.file_size):
            continue
        if limit is not None and off + head + nlen + xlen + csize > limit:   # runs into the next member
            continue
        if at + head + nlen + xlen + csize > len(buf):   # a long name or extra field: read this member whole
            fp.seek(off)
            buf, start, at = fp.read(max(head + nlen + xlen + csize, BLOCK)), off, 0
            view = memoryview(buf)
            if head + nlen + xlen + csize > len(buf):
                continue
        raw = buf[at + head:at + head + nlen]
        if ascii_name is not None:
            if raw != ascii_name:    # a name that is not ASCII never decodes to an ASCII one (UTF-8, cp437)
                continue
        else:
            try:   # strict, as zipfile decodes it: a name that does not decode goes to the careful path
                if raw.decode("utf-8" if flags & 0x800 else "cp437") != orig:
                    continue
            except UnicodeDecodeError:
                continue
        begin = at + head + nlen + xlen
        data = view[begin:begin + csize]
        if method == zipfile.ZIP_DEFLATED:
            try:
                if csize <= _TINY:   # inflates to at most about 1,032 x 4 KiB: no cap needed, one call
                    data = zlib.decompress(data, -15)   # raises on a stream that does not end
                else:
                    inflater = zlib.decompressobj(-15)
                    data = inflater.decompress(data, usize + 1)
                    if not inflater.eof or inflater.unconsumed_tail:
                        continue
            except zlib.error:
                continue
        if len(data) == usize and zlib.crc32(data) == crc:
            sizes[k] = usize
    return sizes


def _verify_members(zf: zipfile.ZipFile, infos: list, limits: Limits, scan: ArchiveScan) -> None:
    """Inflate every file member once, checking its CRC-32 and the total inflated (:func:`_quick_sizes`, then
    :func:`stream_member` for the members it leaves); a damaged member is a problem naming it (20 at most)."""
    quick: list = [None] * len(infos)
    starts: dict = {}
    end_of_data = getattr(zf, "start_dir", None)
    if isinstance(zf.filename, (str, os.PathLike)):
        try:
            with open(zf.filename, "rb") as fp:
                quick = _quick_sizes(fp, infos, end_of_data)
                scan.problems.extend(_check_local_extents(fp, infos, quick, end_of_data, starts))
        except OSError:
            pass   # the careful path reads every member and reports what it finds
    for k, (info, size) in enumerate(zip(infos, quick)):
        if info.filename[-1:] == "/":
            continue
        if size is not None and scan.inflated + size <= limits.max_total_size:
            scan.inflated += size
            continue
        try:
            for chunk in stream_member(zf, info, limits, already=scan.inflated):
                scan.inflated += len(chunk)
            if info.compress_type == zipfile.ZIP_DEFLATED and k in starts:
                with open(zf.filename, "rb") as fp:
                    if _inflates_past(fp, starts[k], info):
                        scan.problems.append(f"entry {info.filename!r} inflates past its declared {info.file_size} "
                                             "bytes (zipfile stops there; another reader would not)")
        except UnreadableMember as exc:
            scan.problems.append(str(exc))
            if len(scan.problems) >= 20:
                scan.problems.append("(stopped after 20 unreadable entries)")
                return


def _inflates_past(fp, start: int, info: zipfile.ZipInfo) -> bool:
    """True when the deflate stream of ``info`` (its data at offset ``start``) inflates to more than its declared size.

    zipfile's reader stops at the declared size and checks the CRC-32 of those bytes only, so a stream
    that goes on (a bomb for a reader that inflates it whole) passes it; this reads the stream again,
    :data:`CHUNK` bytes out at a time, and stops at the first byte past the declared size.  A stream
    zlib refuses is left to zipfile's verdict (False).
    """
    fp.seek(start)
    dec = zlib.decompressobj(-15)
    left, produced, pending = info.compress_size, 0, b""
    try:
        while not dec.eof:
            if not pending:
                if left <= 0:
                    break
                pending = fp.read(min(CHUNK, left))
                if not pending:
                    break
                left -= len(pending)
            produced += len(dec.decompress(pending, CHUNK))
            pending = dec.unconsumed_tail
            if produced > info.file_size:
                return True
    except zlib.error:
        return False
    return False


def _check_local_extents(fp, infos: list, quick: list, end_of_data: int | None, starts: dict | None = None) -> list:
    """Refuse a member whose data, placed by its local header, runs into the next member or the central directory;
    list those whose local header disagrees with the central directory.

    :func:`_check_overlaps` works from the central directory, which does not give the length of the
    local header's extra field (APPNOTE.TXT 4.3.7): a long one moves the data over the next member's
    local header, so that one stretch of bytes is read as two members.  The members :func:`_quick_sizes`
    took (``quick`` not None) were checked there; the others are checked here from their local header
    (30 bytes and the name's and extra field's lengths).  Raises :class:`UnsafeArchive` naming both.

    zipfile reads a member by the central directory's method, sizes and CRC-32 alone; an extractor
    that streams the archive (reading local headers in order, as ``bsdtar`` or Java's ZipInputStream
    do) takes them from the local header.  When the two disagree (outside a data descriptor, flag bit 3,
    and the ZIP64 placeholder 0xFFFFFFFF) the bytes verified are not the bytes such a tool extracts:
    returns one problem line per such member, naming it and both values.
    """
    problems: list = []
    order = sorted(range(len(infos)), key=lambda k: infos[k].header_offset)
    head = _LOCAL_HEADER.size
    for n, k in enumerate(order):
        info = infos[k]
        if quick[k] is not None:
            continue
        nxt = infos[order[n + 1]] if n + 1 < len(order) else None
        limit = nxt.header_offset if nxt is not None else end_of_data
        fp.seek(info.header_offset)
        raw = fp.read(head)
        if len(raw) < head or raw[:4] != zipfile.stringFileHeader:
            continue   # zipfile's reader reports a bad local header
        (_, _, _, flags, method, _, _, crc, csize, usize, nlen, xlen) = _LOCAL_HEADER.unpack(raw)
        if starts is not None:
            starts[k] = info.header_offset + head + nlen + xlen   # where the member's data begins
        if limit is not None and info.header_offset + head + nlen + xlen + info.compress_size > limit:
            if nxt is None:
                raise UnsafeArchive(f"entry {info.filename!r} runs into the central directory")
            raise UnsafeArchive(f"entries {info.filename!r} and {nxt.filename!r} overlap in the archive")
        differ = [] if method == info.compress_type else [f"method {method} (central directory: {info.compress_type})"]
        if (flags ^ info.flag_bits) & 0x1:
            differ.append(f"{'' if flags & 0x1 else 'no '}encryption (flag bit 0; central directory: "
                          f"{'set' if info.flag_bits & 0x1 else 'not set'})")
        if not flags & 0x8:
            if crc != info.CRC:
                differ.append(f"CRC-32 {crc:08x} (central directory: {info.CRC:08x})")
            if csize not in (info.compress_size, 0xFFFFFFFF):
                differ.append(f"compressed size {csize} (central directory: {info.compress_size})")
            if usize not in (info.file_size, 0xFFFFFFFF):
                differ.append(f"size {usize} (central directory: {info.file_size})")
        if differ:
            problems.append(f"entry {info.filename!r}: its local header declares {', '.join(differ)}")
    return problems


def stream_member(zf: zipfile.ZipFile, info: zipfile.ZipInfo, limits: Limits = Limits(), *,
                  already: int = 0, max_bytes: int | None = None) -> Iterator[bytes]:
    """Yield the member's bytes in chunks of at most :data:`CHUNK`; the CRC is checked at its end.

    Guards while inflating, whatever the headers declare: raises
    :class:`UnsafeArchive` when the member produces more than its declared
    size, more than ``max_bytes``, or pushes ``already`` (bytes inflated so
    far) past ``limits.max_total_size``.  zipfile raises ``BadZipFile`` for
    a CRC mismatch, zlib ``zlib.error`` for a corrupt stream: both become
    :class:`UnreadableMember`.
    """
    cap = info.file_size if max_bytes is None else min(info.file_size, max_bytes)
    produced = 0
    with _reading(info.filename), zf.open(info) as fh:
        while True:
            chunk = fh.read(CHUNK)
            if not chunk:
                return
            produced += len(chunk)
            if produced > info.file_size:
                raise UnsafeArchive(f"entry {info.filename!r} inflates past its declared {info.file_size} bytes")
            if produced > cap:
                raise UnsafeArchive(f"entry {info.filename!r} is larger than {cap} bytes")
            if already + produced > limits.max_total_size:
                raise UnsafeArchive(f"inflating {info.filename!r} passes the limit of {limits.max_total_size} bytes")
            yield chunk


def read_member(zf: zipfile.ZipFile, name: str, max_bytes: int) -> bytes:
    """The whole member ``name`` (a small file such as the PDSC), at most ``max_bytes`` long.

    Raises :class:`UnsafeArchive` when it is larger, :class:`UnreadableMember`
    when its bytes are damaged, KeyError when absent.
    """
    info = zf.getinfo(name)
    if info.file_size > max_bytes:
        raise UnsafeArchive(f"entry {name!r} is {info.file_size} bytes, more than the {max_bytes} allowed")
    return b"".join(stream_member(zf, info, max_bytes=max_bytes))


def read_head(zf: zipfile.ZipFile, name: str, nbytes: int) -> bytes:
    """The first ``nbytes`` bytes of member ``name`` (inflates no more than needed); :class:`UnreadableMember` when damaged."""
    with _reading(name), zf.open(name) as fh:
        return fh.read(nbytes)


def iter_lines(zf: zipfile.ZipFile, name: str, *, max_line: int = 1 << 16) -> Iterator[str]:
    """Decoded lines (UTF-8, errors replaced) of member ``name``, streamed; each at most ``max_line`` chars.

    Raises :class:`UnreadableMember` when the member's bytes are damaged.
    """
    with _reading(name), zf.open(name) as raw:
        text = io.TextIOWrapper(raw, encoding="utf-8", errors="replace", newline=None)
        while True:
            line = text.readline(max_line)
            if not line:
                return
            yield line


def extract_safely(zf: zipfile.ZipFile, dest: Path, limits: Limits = Limits(),
                   names: set[str] | None = None) -> None:
    """Extract the file entries (all, or ``names``) under ``dest``, streaming each member.

    Only call after :func:`scan_archive` found no problems; names are checked
    again anyway and an unsafe one raises :class:`UnsafeArchive`.  Nothing
    outside ``dest`` is ever written.
    """
    dest = dest.resolve()
    total = 0
    for info in zf.infolist():
        if info.is_dir() or (names is not None and info.filename not in names):
            continue
        why = name_problem(info.filename) or ("is a symbolic link" if _is_symlink(info) else None)
        if why:
            raise UnsafeArchive(f"entry {info.filename!r} {why}")
        target = dest / posixpath.normpath(info.filename)
        if dest not in target.resolve().parents:
            raise UnsafeArchive(f"entry {info.filename!r} leaves the extraction directory")
        target.parent.mkdir(parents=True, exist_ok=True)
        with open(target, "wb") as out:
            for chunk in stream_member(zf, info, limits, already=total):
                total += len(chunk)
                out.write(chunk)


def require_file(path: Path, what: str) -> Path:
    """Raise :class:`PackError` (exit 2) unless ``path`` is a readable regular file."""
    try:
        st = os.stat(path)
    except OSError as exc:
        raise PackError(f"{what}: cannot read {path}: {exc.strerror}") from exc
    if not stat.S_ISREG(st.st_mode):
        raise PackError(f"{what}: {path} is not a regular file")
    return path


__all__ = ["Limits", "UnsafeArchive", "UnreadableMember", "READ_ERRORS", "EntryIndex", "ArchiveScan", "name_problem", "open_zip",
           "pdsc_file_name", "scan_archive", "stream_member", "read_member", "read_head", "iter_lines", "extract_safely",
           "require_file"]
