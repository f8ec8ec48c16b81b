"""Lock files the bot reads but never rewrites, and lock files that miss the ExecuTorch pack.

Facts:

* Python lock files (``uv.lock``, ``poetry.lock``, ``pdm.lock`` in TOML,
  ``Pipfile.lock`` in JSON) hold resolved versions and hashes of a whole
  environment; only their own tool can regenerate them (``uv lock``,
  ``poetry lock``, ``pdm lock``, ``pipenv lock``).  One that names
  ``executorch`` is stale after a bump: a non-blocking ``python-lock`` flag
  says which command regenerates it.
* ``*.cbuild-pack.yml`` is written by ``cbuild setup S.csolution.yml --packs``
  (CMSIS-Toolbox docs/build-operation.md) and lists every resolved pack.  One without any
  ``PyTorch::ExecuTorch`` entry while a csolution pins ExecuTorch is stale:
  a non-blocking ``lock-missing-pack`` flag.
"""

from __future__ import annotations

import re
from pathlib import Path

from bot.model import Finding, Flag

#: Python lock file base names -> the command that regenerates them.
PYTHON_LOCKS = {
    "uv.lock": "uv lock",
    "poetry.lock": "poetry lock",
    "pdm.lock": "pdm lock",
    "Pipfile.lock": "pipenv lock",
}

_EXECUTORCH = re.compile(rb"executorch", re.I)
#: The command that rewrites a cbuild-pack.yml (CMSIS-Toolbox docs/build-operation.md).
CBUILD_SETUP = "cbuild setup S.csolution.yml --active TARGET --packs"


def is_python_lock(relpath: str) -> bool:
    """True when the base name is one of :data:`PYTHON_LOCKS`."""
    return relpath.rsplit("/", 1)[-1] in PYTHON_LOCKS


def python_lock_flags(repo: Path, paths: list[str]) -> list[Flag]:
    """A non-blocking ``python-lock`` flag for each Python lock file in ``paths`` that names executorch.

    ``paths`` are repository-relative POSIX paths (any size: a lock file is
    read as bytes and only searched).  The flag's line is the first line
    naming executorch.  Unreadable files are skipped.
    """
    out = []
    for rel in paths:
        try:
            raw = (Path(repo) / rel).read_bytes()
        except OSError:
            continue
        m = _EXECUTORCH.search(raw)
        if m is None:
            continue
        name = rel.rsplit("/", 1)[-1]
        out.append(Flag("python-lock", f"{name} names executorch and the bot does not rewrite Python lock files: "
                        f"regenerate it after the bump ({PYTHON_LOCKS[name]}) and commit it in the same PR",
                        path=rel, line=raw.count(b"\n", 0, m.start()) + 1, blocking=False))
    return out


def lock_missing_pack_flags(findings: list[Finding], lock_paths: list[str], solution_paths: list[str]) -> list[Flag]:
    """A non-blocking ``lock-missing-pack`` flag per cbuild-pack.yml with no ExecuTorch entry.

    ``S.cbuild-pack.yml`` belongs to ``S.csolution.yml`` of the same folder
    (``solution_paths``: every csolution of the template); it is flagged when
    that csolution pins ``PyTorch::ExecuTorch`` (a ``pack-pin`` finding), or,
    for a lock file without its csolution, when any csolution does.
    """
    pinned = {f.path for f in findings if f.kind == "pack-pin" and f.name == "PyTorch::ExecuTorch"}
    pinned_solutions = sorted(p for p in solution_paths if p in pinned)
    locked = {f.path for f in findings if f.kind == "lock"}
    out = []
    for rel in lock_paths:
        if rel in locked or not pinned_solutions:
            continue
        stem = re.sub(r"\.cbuild-pack\.ya?ml$", "", rel)
        own = [s for s in solution_paths if re.sub(r"\.csolution\.ya?ml$", "", s) == stem]
        if own and own[0] not in pinned:
            continue
        by = own[0] if own else pinned_solutions[0]
        out.append(Flag("lock-missing-pack", f"the lock file has no PyTorch::ExecuTorch entry although {by} "
                        f"pins it: it is stale; regenerate it ({CBUILD_SETUP})", path=rel, line=1,
                        blocking=False))
    return out
