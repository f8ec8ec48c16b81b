"""Discovery: which files of a template checkout each manager handles.

Files are found by pattern, never by a fixed name (public CMSIS ExecuTorch templates such as Arm-Examples/CMSIS-Executorch:
names vary between forks, and a repository may hold several solutions,
projects and layers).  The walk never follows a symbolic link; it skips
version-control, build, vendored and generated-header trees without
descending into them, and files that are large or binary without decoding
them, so a tree of thousands of vendored headers and multi-MB model binaries
costs little more than listing it.

A symbolic link is never followed.  One to a pin file (csolution, cproject,
clayer, cbuild-pack, requirements, pyproject) whose target lies outside the
repository is a blocking :class:`~bot.model.Flag` ("symlink-outside-repo");
one to a prose or script file or to a folder outside is the same code,
non-blocking; a dangling link is a non-blocking "symlink-dangling".
"""

from __future__ import annotations

import fnmatch
import functools
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from bot.errors import TemplateError
from bot.model import Flag
from bot.template.interface import Manager
from bot.template.locks import is_python_lock
from bot.template.rawtext import _WIDE_BOMS, mentions_executorch  # noqa: F401 - defined there, read here too

#: Directory names never descended into (anywhere in the tree).
SKIP_DIRS = frozenset({
    ".git", ".hg", ".svn", "node_modules", "__pycache__", ".venv", "venv", ".tox",
    ".mypy_cache", ".pytest_cache", "vendor", "third_party", "third-party",
    "RTE", "tmp", "out", "build", "dist",
})
#: Directory name prefixes never descended into (CMake build trees: ``cmake-out-arm``).
SKIP_DIR_PREFIXES = ("cmake-out", "cmake-build", ".cmsis")
#: Repository-relative directories never descended into: generated engine trees of the AI layer.
SKIP_SUBTREES = ("ai_layer/engine",)
#: Prose and script files larger than this (bytes) are never read.  Files a *pin* manager
#: handles (:data:`PIN_MANAGERS`) are read whatever their size: skipping one would leave
#: its pin behind silently.
MAX_FILE_BYTES = 2 * 1024 * 1024
#: Names of the managers whose files hold pins (csolution/cproject/clayer, lock file, requirements, pyproject).
PIN_MANAGERS = frozenset({"cmsis", "lockfile", "requirements", "pyproject", "conda"})


def managers() -> list[Manager]:
    """One instance of every manager, in a fixed order (pins first, prose last)."""
    from bot.template.cmsis import CmsisManager
    from bot.template.conda import CondaManager
    from bot.template.lockfile import LockfileManager
    from bot.template.prose import ProseManager
    from bot.template.pyproject import PyprojectManager
    from bot.template.requirements import RequirementsManager
    from bot.template.scripts import ScriptsManager
    return [CmsisManager(), LockfileManager(), RequirementsManager(), PyprojectManager(), CondaManager(),
            ScriptsManager(), ProseManager()]


@dataclass
class Scan:
    """The result of a walk.

    Attributes:
        files: ``[(relpath, [managers...]), ...]`` in path order; relpath is POSIX.
        flags: links refused and similar items for the report.
        skipped: count of files not handed to any manager (for progress output).
        excluded: count of paths (files or whole folders) left out by ``--exclude``.
        others: files no manager handles, at most :data:`MAX_FILE_BYTES` (the engine searches
            them for leftovers of the old version), in walk order.
        skipped_dirs: repository-relative POSIX paths of the folders not descended into
            (:data:`SKIP_DIRS`, :data:`SKIP_DIR_PREFIXES`, :data:`SKIP_SUBTREES`, ``*.egg-info``),
            sorted; version-control folders (``.git``) are left out of this list.
        python_locks: ``uv.lock``, ``poetry.lock``, ``pdm.lock``, ``Pipfile.lock`` paths, any size
            (:mod:`bot.template.locks`).
    """

    files: list[tuple[str, list[Manager]]] = field(default_factory=list)
    flags: list[Flag] = field(default_factory=list)
    skipped: int = 0
    excluded: int = 0
    others: list[str] = field(default_factory=list)
    skipped_dirs: list[str] = field(default_factory=list)
    python_locks: list[str] = field(default_factory=list)
    #: submodule working trees (bot.template.submodules), never descended into; sorted
    submodules: list[str] = field(default_factory=list)


#: The one byte sequence every version form holds (:func:`may_name_version`).
_DIGIT_DOT_DIGIT = re.compile(rb"[0-9]\.[0-9]")

#: Folders skipped without a word: version control, never part of a template's content.
_SILENT_DIRS = frozenset({".git", ".hg", ".svn"})


def excluded(rel: str, patterns: tuple[str, ...]) -> bool:
    """True when the repository-relative POSIX path matches one of the ``--exclude`` globs.

    Globs are :mod:`fnmatch` patterns on the whole path (``*`` also matches
    ``/``, so ``docs/*`` excludes everything under ``docs``); a glob naming a
    directory (``docs``, ``docs/``) excludes the directory and everything under it.
    """
    return any(fnmatch.fnmatchcase(rel, p) for p in patterns)


def exclude_problem(pattern: str) -> str | None:
    """Why an ``--exclude`` glob can never match a repository-relative POSIX path, or None.

    Globs are relative to the repository root: an absolute path (``/docs``,
    ``C:/x``), a ``..`` part, or a ``\\`` separator never matches, and
    silently reading what the user meant to leave out would be a guess.
    """
    p = pattern.strip()
    if p.startswith("/") or (len(p) > 1 and p[1] == ":" and p[0].isalpha()):
        return "is an absolute path; globs are relative to the repository root (docs/old, not /docs/old)"
    if ".." in p.replace("\\", "/").split("/"):
        return "has a '..' part; globs name paths inside the repository"
    if "\\" in p:
        return "has a backslash; separate folders with / (docs/old)"
    return None


def normalise_excludes(patterns) -> tuple[str, ...]:
    """Strip ``./`` prefixes and trailing ``/`` from ``--exclude`` globs; drop empty ones."""
    out = []
    for p in patterns or ():
        p = p.strip()
        while p.startswith("./"):
            p = p[2:]
        p = p.rstrip("/")
        if p:
            out.append(p)
    return tuple(out)


def discover(repo: Path, mgrs: list[Manager] | None = None, exclude: tuple[str, ...] = ()) -> Scan:
    """Walk ``repo`` and pair every file with the managers that handle it.

    Args:
        repo: the template checkout (a directory).
        mgrs: managers to match (default :func:`managers`).
        exclude: globs (:func:`excluded`) of paths never read, links included.

    Returns a :class:`Scan`.  Raises :class:`~bot.errors.TemplateError` (exit 2)
    naming a folder that cannot be listed (and ``--exclude`` as the way out);
    the caller checks that ``repo`` is a directory.
    """
    from bot.template.submodules import declared_paths, is_submodule

    # The default managers' answer is memoised per :func:`match_key` (a template has thousands of
    # files and few distinct name shapes).  Other managers are asked for every path.
    memo: dict | None = {} if mgrs is None and _memo_is_exact() else None
    mgrs = managers() if mgrs is None else mgrs
    root = Path(repo).resolve()
    declared = declared_paths(root)
    scan = Scan()
    stack = [""]
    while stack:
        rel_dir = stack.pop()
        try:
            with os.scandir(root / rel_dir if rel_dir else root) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError as exc:
            # a folder that cannot be listed may hold pins: skipping it would be a silent, partial bump
            name = rel_dir or "."
            raise TemplateError(f"cannot read the folder {name}/: {exc.strerror or exc}; make it readable, or "
                                f"leave it out with --exclude {name} (or an exclude: entry in "
                                ".github/executorch-pack-bot.yml)", path=name) from None
        subdirs = []
        in_requirements = rel_dir.rsplit("/", 1)[-1] == "requirements"
        in_workflows = ("/" + rel_dir + "/").find("/.github/workflows/") != -1
        for entry in entries:
            rel = f"{rel_dir}/{entry.name}" if rel_dir else entry.name
            if exclude and excluded(rel, exclude):
                scan.excluded += 1
                continue
            if entry.is_symlink():
                _check_link(root, rel, entry, mgrs, scan)
                continue
            if entry.is_dir(follow_symlinks=False):
                if _skip_dir(entry.name, rel):
                    if entry.name not in _SILENT_DIRS:
                        scan.skipped_dirs.append(rel)
                    continue
                if is_submodule(entry.path, rel, declared):
                    scan.submodules.append(rel)      # another repository: never edited (bot.template.submodules)
                    continue
                subdirs.append(rel)
                continue
            if not entry.is_file(follow_symlinks=False):
                continue
            if memo is None:
                handlers = [m for m in mgrs if m.matches(rel)]
                lock = is_python_lock(rel)
            else:
                key = (in_requirements, entry.name.encode("utf-8", "surrogateescape").translate(_DIGITS),
                       in_workflows)
                hit = memo.get(key)
                if hit is None:
                    hit = memo[key] = ([m for m in mgrs if m.matches(rel)], is_python_lock(rel))
                handlers, lock = list(hit[0]), hit[1]
            if lock:
                scan.python_locks.append(rel)
            if not handlers:
                scan.skipped += 1
                try:
                    if entry.stat(follow_symlinks=False).st_size <= MAX_FILE_BYTES:
                        scan.others.append(rel)
                except OSError:
                    pass
                continue
            try:
                if entry.stat(follow_symlinks=False).st_size > MAX_FILE_BYTES \
                        and not any(m.name in PIN_MANAGERS for m in handlers):
                    scan.skipped += 1
                    continue
            except OSError:
                continue
            scan.files.append((rel, handlers))
        stack.extend(reversed(subdirs))
    scan.files.sort(key=lambda item: item[0])
    scan.skipped_dirs.sort()
    scan.submodules.sort()
    return scan


#: Every digit written ``0`` (:func:`match_key`; a bytes translation, the quickest): the default managers'
#: name patterns hold no digit (:func:`_memo_is_exact`).
_DIGITS = bytes.maketrans(b"123456789", b"000000000")


def match_key(rel: str) -> tuple[bool, bytes, bool]:
    """What the default managers (:func:`managers`) look at to match a repository-relative POSIX path:
    ``(in a folder named requirements, base name (UTF-8 bytes) with every digit written 0, under
    .github/workflows/)``; ``"docs/part07/f123.md"`` -> ``(False, b"f000.md", False)``.

    The managers match ``fnmatch`` patterns (``*``, ``?`` and literal characters, no digit, no ``[...]``) on
    the base name, ``requirements/*.txt`` and ``.github/workflows/*.yml``: two paths with the same key
    are handled by the same managers, and :func:`discover` memoises on it.
    """
    rel_dir, _, base = rel.rpartition("/")
    return (rel_dir.rsplit("/", 1)[-1] == "requirements", base.encode("utf-8", "surrogateescape").translate(_DIGITS),
            ("/" + rel_dir + "/").find("/.github/workflows/") != -1)


@functools.lru_cache(maxsize=1)
def _memo_is_exact() -> bool:
    """True when no name pattern of the default managers (nor a Python lock file name) holds a digit or a
    ``[...]`` set (see :func:`match_key`)."""
    from bot.template.locks import PYTHON_LOCKS
    from bot.template.prose.history import HISTORY_FILES
    from bot.template.scripts import SCRIPT_PATTERNS
    pats = [p for m in managers() for p in m.patterns] + [*HISTORY_FILES, *SCRIPT_PATTERNS, *PYTHON_LOCKS]
    return not any(c.isdigit() or c == "[" for p in pats for c in p)


def _skip_dir(name: str, rel: str) -> bool:
    return (name in SKIP_DIRS or name.startswith(SKIP_DIR_PREFIXES)
            or rel in SKIP_SUBTREES or name.endswith(".egg-info"))


def _check_link(root: Path, rel: str, entry: os.DirEntry, mgrs: list[Manager], scan: Scan) -> None:
    """A link is never followed.

    Flags: a link to a *pin* file (a name a
    :data:`PIN_MANAGERS` manager handles: csolution, cproject, clayer,
    cbuild-pack, requirements, pyproject) whose target is outside the
    repository is a blocking ``symlink-outside-repo``; a linked prose or
    script file or a folder outside is the same code, non-blocking; a link
    whose target does not exist (or a loop) is a non-blocking ``symlink-dangling``.
    """
    try:
        target = (root / rel).resolve(strict=True)
    except (OSError, RuntimeError):  # missing target, or a loop
        scan.flags.append(Flag(
            "symlink-dangling", f"is a symbolic link to {os.readlink(root / rel)!r}, which does not exist; "
            "nothing was read through it", path=rel, blocking=False))
        return
    inside = target == root or root in target.parents
    if inside:
        return  # the target is scanned where it really lives
    if target.is_dir():
        scan.flags.append(Flag(
            "symlink-outside-repo",
            f"is a symbolic link to the folder {target}, outside the repository; the bot does not "
            "follow it, so pins or mentions in it are not bumped", path=rel, blocking=False))
        return
    handlers = [m for m in mgrs if m.matches(rel)]
    if any(m.name in PIN_MANAGERS for m in handlers):
        scan.flags.append(Flag(
            "symlink-outside-repo",
            f"is a symbolic link to {target}, outside the repository, and holds pins; the bot does not "
            "read or write through it: replace it with a regular file, or leave it out with --exclude",
            path=rel, blocking=True))
    elif handlers:
        scan.flags.append(Flag(
            "symlink-outside-repo",
            f"is a symbolic link to {target}, outside the repository; the bot does not read or write "
            "through it, so mentions in it are not bumped", path=rel, blocking=False))


def is_binary(raw: bytes) -> bool:
    """True when the first 8 KiB hold a NUL byte (git's heuristic)."""
    return b"\0" in raw[:8192]


def unreadable_text(raw: bytes) -> tuple[str, int] | None:
    """Why a file's bytes are not text the managers can read: ``(reason, line)``, or None.

    UTF-16/UTF-32 text with a byte order mark (what ``pip freeze >`` writes in
    Windows PowerShell) and bytes holding a NUL (binary, or wide text without a
    BOM) are not UTF-8 text.  ``line`` is the 1-based line of the first NUL (1
    for a BOM).
    """
    for bom, codec in _WIDE_BOMS:
        if raw.startswith(bom):
            return (f"{codec.upper()} text (byte order mark {bom.hex(' ')}); convert the file to "
                    "UTF-8 before running the bot", 1)
    i = raw.find(b"\0", 0, 8192)
    if i != -1:
        return (f"holds a NUL byte at offset {i} (binary data, or UTF-16 text without a byte order "
                "mark); convert the file to UTF-8 text before running the bot", raw.count(b"\n", 0, i) + 1)
    return None


def may_name_version(raw: bytes) -> bool:
    """False only when ASCII ``raw`` holds no digit, dot, digit sequence (``1.4``): then it can hold no
    version in any form the bot reads, moves or counts (``X.Y.Z``, ``vX.Y.Z``, ``X.Y.Z-local``, ``X.Y``,
    the torch/torchao/vela/TOSA pins, Python versions); True for any other bytes (a non-ASCII file may
    write digits a ``\\d`` pattern matches in other scripts)."""
    return not raw.isascii() or _DIGIT_DOT_DIGIT.search(raw) is not None
