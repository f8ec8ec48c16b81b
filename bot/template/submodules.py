"""Submodules are someone else's repository: never scanned for edits, their mentions listed once.

A template may carry a git submodule (``board-sdk/``, checked out with
``actions/checkout``'s ``submodules: recursive``).  Its files belong to
another repository: the bot cannot commit into it (the template's tree holds
only the submodule's commit, a *gitlink*, mode ``160000``; git docs,
"gitsubmodules"), and a bump of the template must not edit them.  So:

- :func:`is_submodule` tells the scan (:func:`bot.template.scan.discover`) a
  folder is a submodule's working tree: it holds a ``.git`` entry (a
  ``gitdir:`` file for a submodule, a folder for a nested clone), or
  ``.gitmodules`` declares its path.  The scan never descends into it.
- :func:`submodule_flags` lists each submodule whose files mention
  ExecuTorch once, as ``inside submodule PATH (not edited)``, an
  informational item (the template's own edits go ahead).
"""

from __future__ import annotations

import os
from pathlib import Path

from bot.model import Flag

CODE = "submodule-not-edited"
#: Files larger than this (bytes) are not read for mentions (a submodule may be a whole SDK).
MAX_FILE_BYTES = 2 * 1024 * 1024


def declared_paths(repo: Path) -> frozenset[str]:
    """The ``path = ...`` values of ``REPO/.gitmodules`` (git-config syntax; git docs, "gitmodules"), or empty."""
    try:
        text = (Path(repo) / ".gitmodules").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return frozenset()
    # One line at a time and str.partition/strip, never a regex: "^\s*path\s*=\s*(.+?)\s*$" under re.M was
    # quadratic on a long run of blanks (40,000 spaces: 3 s).
    paths = []
    for raw in text.splitlines():
        key, eq, value = raw.partition("=")
        if eq and key.strip() == "path" and value.strip():
            paths.append(value.strip())
    return frozenset(p.strip('"').strip("/") for p in paths)


def is_submodule(dir_path: str, rel: str, declared: frozenset[str]) -> bool:
    """True when folder ``dir_path`` (repository-relative ``rel``) is a submodule's (or a nested repository's) tree."""
    return rel in declared or os.path.lexists(os.path.join(dir_path, ".git"))


def mentioning_files(root: Path, rel: str) -> int:
    """How many regular files under submodule ``rel`` name ExecuTorch (any case; its ``.git`` never read)."""
    from bot.template.rawtext import mentions_executorch

    count = 0
    for d, dirs, names in os.walk(Path(root) / rel):
        dirs[:] = [x for x in dirs if x != ".git"]
        for n in names:
            p = os.path.join(d, n)
            try:
                if os.path.islink(p) or os.path.getsize(p) > MAX_FILE_BYTES:
                    continue
                with open(p, "rb") as fh:
                    if mentions_executorch(fh.read()):
                        count += 1
            except OSError:
                continue
    return count


def submodule_flags(root: Path, submodules: list[str]) -> list[Flag]:
    """One informational :class:`Flag` per submodule whose files mention ExecuTorch, in path order.

    The message starts ``inside submodule PATH (not edited)`` and counts the
    files; the flag's path is the submodule's folder.
    """
    out = []
    for rel in sorted(submodules):
        n = mentioning_files(root, rel)
        if n:
            files = "1 file mentions" if n == 1 else f"{n} files mention"
            out.append(Flag(CODE, f"inside submodule {rel} (not edited): {files} ExecuTorch; a submodule is "
                                  "another repository: bump it there, then move the submodule",
                            path=rel, line=None, blocking=False))
    return out
