"""Shipped sample data and its builders: an upstream ExecuTorch git repository made from tag folders.

``bot/sample/upstream/<tag>/`` holds invented, minimal upstream trees (see its
README.md); :func:`build_upstream_repo` turns them into a real git repository
so that the demo and the tests read them exactly as they read a clone of
ExecuTorch (:class:`bot.upstream.git.GitSource`).  The whole history is
written by one ``git fast-import`` (git-fast-import(1)), so building takes a
few tens of milliseconds and needs no git identity configured on the machine.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from packaging.version import Version

from bot.errors import UsageError
from bot.versions import stable_version, tag_version

SAMPLE_DIR = Path(__file__).resolve().parent
UPSTREAM_DIR = SAMPLE_DIR / "upstream"

#: Tags added besides the tag folders; target selection must ignore both.
RC_TAG = "v1.5.1-rc1"
ODD_TAG = "v1.2.0-rc1-test-android"

_IDENTITY = "ExecuTorch Sample <sample@example.invalid>"
_EPOCH = 1767225600  # 2026-01-01T00:00:00Z; commit n is dated n days later


def git_env() -> dict[str, str]:
    """Environment for git commands run by the builders: fixed identity and dates, no user config."""
    env = dict(os.environ)
    for var in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY"):
        env.pop(var, None)
    env.update({
        "GIT_AUTHOR_NAME": "ExecuTorch Sample", "GIT_AUTHOR_EMAIL": "sample@example.invalid",
        "GIT_COMMITTER_NAME": "ExecuTorch Sample", "GIT_COMMITTER_EMAIL": "sample@example.invalid",
        "GIT_AUTHOR_DATE": f"{_EPOCH} +0000", "GIT_COMMITTER_DATE": f"{_EPOCH} +0000",
        "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull, "GIT_TERMINAL_PROMPT": "0",
    })
    return env


def _tree_files(folder: Path) -> list[tuple[str, str, bytes]]:
    """(mode, POSIX path, bytes) of every regular file under ``folder``, sorted by path."""
    out = []
    for p in sorted(folder.rglob("*")):
        if p.is_file() and not p.is_symlink() and "__pycache__" not in p.parts:
            mode = "100755" if os.access(p, os.X_OK) else "100644"
            out.append((mode, p.relative_to(folder).as_posix(), p.read_bytes()))
    return out


def _data(payload: bytes) -> bytes:
    return b"data %d\n" % len(payload) + payload + b"\n"


def build_upstream_repo(dest: Path, tags: list[str] | None = None, *, root: Path | None = None,
                        bare: bool = False) -> Path:
    """Create a git repository at ``dest`` from the tag folders under ``root``.

    Args:
        dest: where to create the repository (created if missing; must be
            empty or absent).
        tags: which tag folders to use (default: all of them).
        root: the folder of tag folders (default ``bot/sample/upstream``);
            tests pass their own fixture folders.
        bare: create a bare repository instead of a clone-like one (a clone-like
            repository gets its work tree checked out at the newest tag).

    Returns:
        ``dest``.  History: one commit per tag folder in version order on
        branch ``main``, each tagged with an annotated tag; plus the lightweight
        tags :data:`RC_TAG` (on a commit just before ``v1.5.1`` with the same
        tree, when ``v1.5.1`` is built) and :data:`ODD_TAG` (on the first commit).

    Raises:
        UsageError: an unknown tag folder, a folder name that is not a release
            tag, ``dest`` not empty, or git failing (its message included).
    """
    root = Path(root) if root is not None else UPSTREAM_DIR
    dest = Path(dest)
    available = {p.name for p in root.iterdir() if p.is_dir() and tag_version(p.name) is not None}
    chosen = list(tags) if tags is not None else sorted(available)
    unknown = [t for t in chosen if t not in available]
    if unknown or not chosen:
        raise UsageError(f"sample upstream: no tag folder for {', '.join(unknown) or 'any tag'} in {root} "
                         f"(available: {', '.join(sorted(available, key=tag_version))})")
    chosen = sorted(set(chosen), key=tag_version)
    if dest.exists() and any(dest.iterdir()):
        raise UsageError(f"sample upstream: {dest} is not empty")

    stream = bytearray(b"feature done\n")
    mark = 0
    for n, tag in enumerate(chosen):
        when = _EPOCH + 86400 * (n + 1)
        files = _tree_files(root / tag)
        commits = [(f"Release candidate {RC_TAG}", RC_TAG)] if tag == "v1.5.1" else []
        commits.append((f"ExecuTorch {tag[1:]}", None))
        for message, light_tag in commits:
            mark += 1
            stream += b"commit refs/heads/main\nmark :%d\n" % mark
            stream += f"author {_IDENTITY} {when} +0000\ncommitter {_IDENTITY} {when} +0000\n".encode()
            stream += _data(message.encode())
            if mark == 1:
                stream += b"deleteall\n"
            else:
                stream += b"from :%d\ndeleteall\n" % (mark - 1)
            for mode, path, payload in files:
                stream += f"M {mode} inline {path}\n".encode() + _data(payload)
            stream += b"\n"
            if light_tag:
                stream += f"reset refs/tags/{light_tag}\nfrom :{mark}\n\n".encode()
        stream += f"tag {tag}\nfrom :{mark}\ntagger {_IDENTITY} {when} +0000\n".encode()
        stream += _data(f"ExecuTorch {tag[1:]}".encode())
        if n == 0:
            stream += f"reset refs/tags/{ODD_TAG}\nfrom :1\n\n".encode()
    stream += b"done\n"

    env = git_env()
    dest.mkdir(parents=True, exist_ok=True)

    def git(*args: str, data: bytes | None = None, cwd: Path = dest) -> None:
        try:
            res = subprocess.run(["git", *args], input=data, cwd=cwd, env=env, capture_output=True, timeout=60)
        except FileNotFoundError as exc:
            raise UsageError("sample upstream: git is not installed") from exc
        if res.returncode != 0:
            raise UsageError(f"sample upstream: git {args[0]} failed: {res.stderr.decode(errors='replace').strip()}")

    git("init", "-q", "-b", "main", *(["--bare"] if bare else []), ".")
    git("fast-import", "--quiet", data=bytes(stream))
    if not bare:
        git("checkout", "-q", "-f", "main")
    return dest
