"""The fingerprint of the runtime a ``run-model`` image was built from: which pack files the compiler could read.

Two packs of different versions may carry byte-identical runtime sources
(the v1.4.0 and v1.4.1 ExecuTorch packs differ only in the PDSC's version
strings, tests/bench/results/run_model_cross_check_v1.4.0_v1.4.1.md).  Then
the cross check (the new ``.pte`` on the old pack's runtime) runs the very
same code twice, and "loads and matches" says nothing about the old
runtime that the new run did not; the PR section says so when the two
fingerprints are equal (:mod:`bot.report.modelrun`).
"""

from __future__ import annotations

import hashlib
from pathlib import Path


def runtime_digest(root: Path, sources: list[str], include_dirs: list[str]) -> str:
    """SHA-256 (64 hex digits) over the pack files one image is built from.

    Args:
        root: the unpacked pack root.
        sources: pack-relative source entries compiled (the selected components' ``<file>`` entries).
        include_dirs: pack-relative include folders; every regular file under them is taken.

    Each file adds its pack-relative path (``/`` separated), a NUL, its length and its bytes, in path
    order, so a renamed or moved file changes the digest as a changed byte does. The PDSC and the
    generated ``RTE_Components.h``/``Pre_Include_Global.h`` are not taken: they carry the pack's version
    (``Cversion``), which differs between packs of the same code. Files that cannot be read are
    skipped (the compile stage names them).
    """
    base = Path(root)
    names = set(sources)
    for d in include_dirs:
        folder = base / d
        if folder.is_dir():
            names.update(p.relative_to(base).as_posix() for p in folder.rglob("*") if p.is_file() and not p.is_symlink())
    h = hashlib.sha256()
    for name in sorted(names):
        try:
            data = (base / name).read_bytes()
        except OSError:
            continue
        h.update(name.encode("utf-8", "surrogateescape") + b"\0" + str(len(data)).encode() + b"\0" + data)
    return h.hexdigest()
