"""A local git repository of ExecuTorch (a clone or a bare repository) read at release tags.

Files are read without a checkout, through one long-lived
``git cat-file --batch`` process (started on the first read, closed by
:meth:`GitSource.close` or when the object is collected); tags come from
``git for-each-ref refs/tags``.  Objects are named ``refs/tags/TAG:PATH`` so a
branch that happens to share a tag's name can never be read by mistake.
Facts: git-cat-file(1) "BATCH OUTPUT" (``<oid> <type> <size>LF<contents>LF``,
or ``<object> missing LF``).
"""

from __future__ import annotations

import os
import subprocess
import threading
import weakref
from pathlib import Path

from bot.errors import UpstreamError
from bot.upstream.source import UpstreamSource, _clean_path, is_git_repository


def _git_env() -> dict[str, str]:
    """The environment for git: no system/global config (hooks, pagers, aliases) and no prompts."""
    env = dict(os.environ)
    env.update({"GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull,
                "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C"})
    for var in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY",
                "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_NAMESPACE"):
        env.pop(var, None)
    return env


def _close_process(proc: subprocess.Popen) -> None:
    try:
        if proc.stdin:
            proc.stdin.close()
        proc.wait(timeout=5)
    except Exception:  # pragma: no cover - best effort at interpreter exit
        proc.kill()
    finally:
        if proc.stdout:
            proc.stdout.close()


class GitSource(UpstreamSource):
    """ExecuTorch's tags and tag files from a local git repository (clone or bare).

    Args:
        path: the work-tree root of a clone, or a bare repository.  A folder
            that is merely inside another repository is refused.

    Raises:
        UpstreamError: ``path`` is not a git repository (naming it, with git's
            own message when git refused it), or ``read`` names a tag that
            does not exist.
    """

    def __init__(self, path: str | os.PathLike):
        self.path = Path(path)
        if not self.path.is_dir() or not is_git_repository(self.path):
            raise UpstreamError(f"upstream source {self.path} is not a git repository")
        dot_git = self.path / ".git"
        self.git_dir = dot_git if dot_git.exists() else self.path
        self._proc: subprocess.Popen | None = None
        self._lock = threading.Lock()
        self._finalizer = None
        # The tag list is read now: the same git process proves the repository readable (one process, not two).
        probe = self._run("for-each-ref", "--format=%(objecttype) %(*objecttype) %(refname)", "refs/tags",
                          check=False)
        if probe.returncode != 0:
            detail = probe.stderr.decode("utf-8", "replace").strip().splitlines()
            raise UpstreamError(f"upstream source {self.path} is not a readable git repository"
                                + (f": {detail[-1]}" if detail else ""))
        self._tags: list[str] = []
        for line in probe.stdout.decode("utf-8", "replace").splitlines():
            kind, peeled, ref = line.split(" ", 2) if line.count(" ") >= 2 else ("", "", "")
            if ref.startswith("refs/tags/") and (kind == "commit" or peeled in ("commit", "tag")):
                self._tags.append(ref[len("refs/tags/"):])

    # -- plumbing -----------------------------------------------------------------
    def _cmd(self, *args: str) -> list[str]:
        return ["git", f"--git-dir={self.git_dir}", *args]

    def _run(self, *args: str, check: bool = True) -> subprocess.CompletedProcess:
        try:
            res = subprocess.run(self._cmd(*args), capture_output=True, env=_git_env(), timeout=120)
        except FileNotFoundError as exc:
            raise UpstreamError("git is not installed (needed to read upstream source "
                                f"{self.path})") from exc
        if check and res.returncode != 0:
            msg = res.stderr.decode("utf-8", "replace").strip()
            raise UpstreamError(f"git {args[0]} failed in {self.path}: {msg}")
        return res

    def _batch(self) -> subprocess.Popen:
        if self._proc is None or self._proc.poll() is not None:
            try:
                self._proc = subprocess.Popen(self._cmd("cat-file", "--batch"), stdin=subprocess.PIPE,
                                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                              env=_git_env())
            except FileNotFoundError as exc:
                raise UpstreamError(f"git is not installed (needed to read upstream source {self.path})") from exc
            self._finalizer = weakref.finalize(self, _close_process, self._proc)
        return self._proc

    # -- UpstreamSource -------------------------------------------------------------
    def tags(self) -> list[str]:
        """Every tag that names a commit (``git for-each-ref refs/tags``, read once when the source is
        opened).

        A release is a commit: a tag of a tree or a blob (lightweight or annotated) is
        left out, so it can never become the target.  A tag of a tag is kept (git peels it).
        """
        return list(self._tags)

    def read(self, tag: str, path: str) -> bytes | None:
        """The bytes of ``path`` at ``tag``; None when the path is absent or is a folder.

        Raises:
            UpstreamError: unknown tag, or git stopped answering.
        """
        if tag not in self.tags():
            raise UpstreamError(f"tag {tag!r} does not exist in {self.describe()}")
        rel = _clean_path(path)
        if not rel:
            return None
        request = f"refs/tags/{tag}:{rel}\n".encode("utf-8")
        with self._lock:
            proc = self._batch()
            try:
                proc.stdin.write(request)
                proc.stdin.flush()
                header = proc.stdout.readline()
                if not header:
                    raise OSError("git cat-file exited")
                fields = header.split()
                if len(fields) != 3:  # "<name> missing" / "ambiguous"
                    return None
                size = int(fields[2])
                data = proc.stdout.read(size + 1)
                if len(data) != size + 1:
                    raise OSError("short read from git cat-file")
            except (OSError, ValueError) as exc:
                self.close()
                raise UpstreamError(f"cannot read {rel} @ {tag} from {self.describe()}: {exc}") from exc
        return data[:-1] if fields[1] == b"blob" else None

    def describe(self) -> str:
        return f"git {self.path}"

    def _commit(self, tag: str) -> str:
        if tag not in self.tags():
            raise UpstreamError(f"tag {tag!r} does not exist in {self.describe()}")
        return f"refs/tags/{tag}^{{commit}}"

    def tag_commit(self, tag: str) -> str:
        """``git rev-parse --verify refs/tags/TAG^{commit}``: the commit the tag names, annotated tags (and tags
        of tags) peeled (gitrevisions(7), ``<rev>^{<type>}``).

        Raises:
            UpstreamError: an unknown tag, or one that names no commit (a tree or a blob).
        """
        res = self._run("rev-parse", "--verify", "--quiet", self._commit(tag), check=False)
        sha = res.stdout.decode("ascii", "replace").strip()
        if res.returncode != 0 or len(sha) != 40:
            raise UpstreamError(f"tag {tag!r} in {self.describe()} names no commit")
        return sha

    def changed_paths(self, old_tag: str, new_tag: str) -> list[str]:
        """``git diff --name-only -z --no-renames OLD NEW``: every added, modified or deleted path, sorted.

        Raises:
            UpstreamError: an unknown tag, or git failing.
        """
        out = self._run("diff", "--name-only", "-z", "--no-renames", "--no-ext-diff",
                        self._commit(old_tag), self._commit(new_tag)).stdout
        return sorted(p.decode("utf-8", "replace") for p in out.split(b"\0") if p)

    rename_method = "`git diff -M`, at least 50% similar content"

    def renames(self, old_tag: str, new_tag: str) -> list[tuple[str, str]]:
        """``git diff -M --name-status -z --diff-filter=R OLD NEW``: each ``R<score>``, old path, new path
        (git-diff(1), ``-M``: a file at least 50% similar to a deleted one is its rename; ``-z`` output:
        ``R086 NUL old NUL new NUL``), sorted.

        Raises:
            UpstreamError: an unknown tag, or git failing.
        """
        out = self._run("diff", "-M", "--name-status", "-z", "--diff-filter=R", "--no-ext-diff",
                        self._commit(old_tag), self._commit(new_tag)).stdout
        fields = [f.decode("utf-8", "replace") for f in out.split(b"\0")]
        pairs, i = [], 0
        while i + 2 < len(fields) + 0 and fields[i].startswith("R"):
            pairs.append((fields[i + 1], fields[i + 2]))
            i += 3
        return sorted(pairs)

    def ancestry(self, old_tag: str, new_tag: str) -> tuple[bool, int]:
        """``git merge-base --is-ancestor`` (exit 0 yes, 1 no) and ``git rev-list --count OLD..NEW``."""
        old, new = self._commit(old_tag), self._commit(new_tag)
        probe = self._run("merge-base", "--is-ancestor", old, new, check=False)
        if probe.returncode not in (0, 1):
            raise UpstreamError(f"git merge-base failed in {self.path}: "
                                + probe.stderr.decode("utf-8", "replace").strip())
        count = self._run("rev-list", "--count", f"{old}..{new}").stdout.decode().strip()
        return probe.returncode == 0, int(count or 0)

    # -- lifecycle --------------------------------------------------------------------
    def close(self) -> None:
        """Stop the ``git cat-file`` process (if any).  The source stays usable: a later read restarts it."""
        if self._finalizer is not None:
            self._finalizer()
            self._finalizer = None
        self._proc = None

    def __enter__(self) -> "GitSource":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
