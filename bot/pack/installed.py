"""Is an installed pack folder exactly the verified pack?  Byte for byte, entry by entry.

A pack root can outlive a job (a self-hosted runner keeps ``CMSIS_PACK_ROOT``),
and ``cpackget add`` can exit 0 without installing (FORMATS.md section 4), so
"``PyTorch::ExecuTorch@V`` is listed" does not prove that what the build
tools read is the pack that was verified.  :func:`installed_check` compares
the folder ``cpackget`` unpacked the pack into
(``$CMSIS_PACK_ROOT/PyTorch/ExecuTorch/V/``) with the archive: every file
entry present with the same sha256, and no other file.
"""

from __future__ import annotations

import hashlib
import os
import zipfile
from pathlib import Path

from bot import inert
from bot.model import CheckResult
from bot.pack.archive import Limits, stream_member

MAX_LISTED = 3


def _sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def installed_check(zf: zipfile.ZipFile, folder: Path, limits: Limits = Limits()) -> CheckResult:
    """``installed`` check: ``folder`` holds every file entry of ``zf`` with the same sha256, and nothing else.

    Symbolic links in the folder count as different files (never followed).
    Only call on an archive :func:`~bot.pack.archive.scan_archive` found clean.
    """
    folder = Path(folder)
    if not folder.is_dir():
        return CheckResult("installed", "fail", f"{inert.line(folder, cap=200)} is not a folder: the pack is not installed")
    wanted: dict[str, str] = {}
    total = 0
    for info in zf.infolist():
        if info.filename.endswith("/"):
            continue
        h = hashlib.sha256()
        for chunk in stream_member(zf, info, limits, already=total):
            h.update(chunk)
        total += info.file_size
        wanted[info.filename] = h.hexdigest()
    differ, missing = [], []
    for name, digest in wanted.items():
        p = folder / name
        if p.is_symlink() or not p.is_file():
            missing.append(name)
        elif _sha256_file(p) != digest:
            differ.append(name)
    extra = []
    for dirpath, dirnames, filenames in os.walk(folder):
        for n in filenames + [d for d in dirnames if os.path.islink(os.path.join(dirpath, d))]:
            rel = Path(dirpath, n).relative_to(folder).as_posix()
            if rel not in wanted:
                extra.append(rel)
    problems = [(k, v) for k, v in (("differ", differ), ("missing", missing), ("not in the pack", extra)) if v]
    if problems:
        text = "; ".join(f"{len(v)} {k}: " + ", ".join(inert.line(x, cap=120) for x in sorted(v)[:MAX_LISTED])
                         for k, v in problems)
        return CheckResult("installed", "fail", f"the installed folder is not the verified pack: {text}",
                           {"differ": differ, "missing": missing, "extra": extra})
    return CheckResult("installed", "pass", f"all {len(wanted)} files of the installed folder match the pack (sha256)")
