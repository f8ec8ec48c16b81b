"""Python pin and lock files the bot reads but never rewrites, and lock files that miss the ExecuTorch pack.

Facts:

* Python lock files hold resolved versions and hashes of a whole environment; only their own tool can
  regenerate them: ``uv.lock`` (``uv lock``), ``poetry.lock`` (``poetry lock``), ``pdm.lock`` (``pdm lock``),
  ``Pipfile.lock`` (``pipenv lock``), ``conda-lock.yml`` (``conda-lock lock``), and the standard lock
  ``pylock.toml`` / ``pylock.NAME.toml`` of PEP 751 ("A file format to record Python dependencies for
  installation reproducibility"), written by ``pip lock`` (pip 25.1+), ``uv export --format pylock.toml``
  or ``pdm export --format pylock``; its ``created-by`` key names the tool.  One that names ``executorch`` is
  stale after a bump: a blocking ``python-lock`` item names the file, the line and the command.
* Files that state pins in a form the bot does not rewrite: a ``Pipfile`` (``[packages] executorch =
  "==1.4.0"``, pipenv docs), ``setup.cfg`` ``install_requires`` and ``setup.py`` ``install_requires=[...]``
  (setuptools docs, "Declaring dependencies"), and inline script metadata (PEP 723: a ``# /// script``
  block of a ``.py`` file whose ``dependencies`` are PEP 508 strings).  A line there pinning a package the
  bump changes at its old version is a blocking ``python-pin`` item naming the file, the line and what to do.
* ``*.cbuild-pack.yml`` is written by ``cbuild setup S.csolution.yml --packs``
  (CMSIS-Toolbox docs/build-operation.md) and lists every resolved pack.  One without any
  ``PyTorch::ExecuTorch`` entry while a csolution pins ExecuTorch is stale:
  a non-blocking ``lock-missing-pack`` flag.
"""

from __future__ import annotations

import fnmatch
import re
from pathlib import Path
from typing import Optional

from bot.model import Finding, Flag, norm

#: Python lock file base names -> the command that regenerates them.
PYTHON_LOCKS = {
    "uv.lock": "uv lock",
    "poetry.lock": "poetry lock",
    "pdm.lock": "pdm lock",
    "Pipfile.lock": "pipenv lock",
    "conda-lock.yml": "conda-lock lock",
    "pylock.toml": "pip lock, uv export --format pylock.toml or pdm export --format pylock, as its created-by key says",
}
#: PEP 751's named lock files, ``pylock.NAME.toml`` (the same commands as ``pylock.toml``).
_NAMED_PYLOCK = "pylock.*.toml"
#: Files with pins the bot reads but does not rewrite -> what to do after a bump.
UNMANAGED_PIN_FILES = {
    "Pipfile": "edit its [packages] entry, then run pipenv lock",
    "setup.cfg": "edit install_requires by hand",
    "setup.py": "edit install_requires by hand",
}
#: PEP 723 inline script metadata: the block between ``# /// script`` and ``# ///``.
_SCRIPT_BLOCK = re.compile(rb"^# /// script[ \t]*\r?\n(?P<body>(?:^#(?: [^\n]*)?\r?\n)*?)^# ///[ \t]*$", re.M)

_EXECUTORCH = re.compile(rb"executorch", re.I)
#: The command that rewrites a cbuild-pack.yml (CMSIS-Toolbox docs/build-operation.md).
CBUILD_SETUP = "cbuild setup S.csolution.yml --active TARGET --packs"


def _lock_command(name: str) -> Optional[str]:
    if name in PYTHON_LOCKS:
        return PYTHON_LOCKS[name]
    if fnmatch.fnmatchcase(name, _NAMED_PYLOCK):
        return PYTHON_LOCKS["pylock.toml"]
    return None


def is_python_lock(relpath: str) -> bool:
    """True for a file of this module: a Python lock file (:data:`PYTHON_LOCKS`, ``pylock.NAME.toml``), a file with
    pins the bot does not rewrite (:data:`UNMANAGED_PIN_FILES`), or a ``.py`` file (which may hold PEP 723 inline
    script metadata)."""
    name = relpath.rsplit("/", 1)[-1]
    return _lock_command(name) is not None or name in UNMANAGED_PIN_FILES or name.endswith(".py")


def python_lock_flags(repo: Path, paths: list[str], bump=None, edited=frozenset()) -> list[Flag]:
    """Blocking items for the Python pin and lock files in ``paths`` that a bump leaves stale.

    ``paths`` are repository-relative POSIX paths (any size: a file is read as bytes and only searched).
    A lock file (:data:`PYTHON_LOCKS`) naming executorch: a ``python-lock`` item on its first line naming
    executorch, with the command that regenerates it.  With ``bump`` (a :class:`bot.model.Bump`), a line of a
    :data:`UNMANAGED_PIN_FILES` file or of a PEP 723 block pinning a package of the bump at its old version: a
    ``python-pin`` item naming the line and what to do, unless the plan edits that line (``edited``: its
    ``(path, line)`` pairs; a PEP 723 dependency restating a pin is moved as a comment).  Unreadable files are
    skipped.
    """
    out = []
    for rel in paths:
        name = rel.rsplit("/", 1)[-1]
        command = _lock_command(name)
        if command is None and bump is None:
            continue
        try:
            raw = (Path(repo) / rel).read_bytes()
        except OSError:
            continue
        if command is not None:
            m = _EXECUTORCH.search(raw)
            if m is None:
                continue
            out.append(Flag("python-lock", f"{name} names executorch and the bot does not rewrite Python lock files: "
                            f"regenerate it after the bump ({command}) and commit it in the same PR",
                            path=rel, line=raw.count(b"\n", 0, m.start()) + 1, blocking=True))
            continue
        if name in UNMANAGED_PIN_FILES:
            out.extend(_pin_lines(rel, raw, 0, len(raw), bump, f"the bot does not rewrite {name}: "
                                  f"{UNMANAGED_PIN_FILES[name]}"))
        elif b"# /// script" in raw:
            for m in _SCRIPT_BLOCK.finditer(raw):
                out.extend(_pin_lines(rel, raw, m.start("body"), m.end("body"), bump,
                                      "the bot does not rewrite inline script metadata (PEP 723): edit its "
                                      "dependencies by hand"))
    return [f for f in out if f.code != "python-pin" or (f.path, f.line) not in edited]


def _pin_lines(rel: str, raw: bytes, start: int, end: int, bump, what: str) -> list[Flag]:
    """A blocking ``python-pin`` flag per line of ``raw[start:end]`` naming a package of ``bump`` at its old
    version (``name ... ==OLD`` / ``name = "==OLD"`` / ``name==OLD``; PEP 503 spellings of the name)."""
    olds = {"executorch": {bump.old_executorch}}
    for c in bump.changes:
        if c.old and c.old != c.new:
            olds.setdefault(norm(c.name), set()).add(c.old)
    out = []
    text = raw[start:end].decode("utf-8", "replace")
    for i, line in enumerate(text.splitlines()):
        for name, versions in olds.items():
            rx = r"[-_.]+".join(re.escape(p) for p in name.split("-"))
            for v in sorted(versions):
                m = re.search(r"(?<![\w.\-])" + rx + r"(?![\w]|[-_.]\w)(?:\[[^\]]*\])?[\"']?[ \t]*(?:=[ \t]*[\"'])?"
                              r"[ \t]*(?:===|==|~=|>=|<=)?[ \t]*v?" + re.escape(v) + r"(?![\w.+]*\d)", line, re.I)
                if m:
                    out.append(Flag("python-pin", f"{line.strip()[:160]!r} pins {name} {v}, which the bump moves to "
                                    f"{bump.new_executorch if name == 'executorch' else bump.change_for(name).new}; "
                                    f"{what}", path=rel,
                                    line=raw.count(b"\n", 0, start) + i + 1, blocking=True))
                    break
    return out


#: The version a lock records for executorch: ``version = "1.4.0"`` (uv, Poetry, PDM, pylock.toml), ``"version":
#: "==1.4.0"`` (Pipfile.lock), ``version: 1.4.0`` (conda-lock), at most 400 characters after the name.
_LOCKED = re.compile(rb"""[\"' ]executorch[\"']?[\s\S]{0,400}?\bversion[\"']?[ \t]*[:=][ \t]*[\"']?(?:==)?(?P<v>\d[\w.+!]*)""", re.I)


def audit_lock_flags(repo: Path, paths: list[str], pinned: str) -> list[Flag]:
    """For ``audit``: a blocking ``python-lock`` flag per Python lock file of ``paths`` whose executorch entry
    records another version than ``pinned`` (the version the template's pins agree on): the template would
    install another ExecuTorch than it pins until the lock is regenerated.  Versions compare as PEP 440."""
    from packaging.version import InvalidVersion, Version

    out = []
    for rel in paths:
        name = rel.rsplit("/", 1)[-1]
        command = _lock_command(name)
        if command is None:
            continue
        try:
            raw = (Path(repo) / rel).read_bytes()
        except OSError:
            continue
        m = _LOCKED.search(raw)
        if m is None:
            continue
        v = m.group("v").decode("ascii", "replace")
        try:
            same = Version(v) == Version(pinned)
        except InvalidVersion:
            same = v == pinned
        if not same:
            out.append(Flag("python-lock", f"{name} locks executorch {v}, but the template pins {pinned}: "
                            f"regenerate it ({command})", path=rel, line=raw.count(b"\n", 0, m.start("v")) + 1,
                            blocking=True))
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
