"""Files of a template that cannot matter, as ``git grep`` finds them, so the reader never opens them.

On a large template most files hold no version at all: the reader
(:func:`bot.engine.read.read_template`) would open each one to find that
out.  ``git grep`` searches the whole tree in C on every core while the
reader walks it, and lists (``-L``) the files in which it found none of
:func:`quiet_pattern`: such a *quiet* file is ASCII text (no NUL byte, no
byte above 127) without a digit, dot, digit sequence.

Every version the bot reads, moves or counts holds a digit, a dot and a digit
(``1.4.0``, ``2.13.0``, ``1.4``; in a file that is not ASCII, the second digit
may be written in another script), so a quiet file holds no mention, no
leftover and no occurrence for the accounting, provided every version they
search for has that shape (:func:`versions_have_quiet_shape`; when one does
not, the quiet files are searched as well, as the walk would).  A quiet file
that names ExecuTorch is one the byte filter
(:data:`bot.engine.read.BYTE_FILTER`) leaves out after reading it; without
the filter, a file naming ExecuTorch (any ASCII letter case) is never quiet.
The walk still decides which files are read at all (skipped folders,
``--exclude``, symbolic links, size limits): a quiet file is only a file the
walk found that need not be opened.

A command may start git before its own imports (:func:`prestart`, as
``update`` does); the reader then takes that run (:func:`take`).  This
module imports nothing of the bot, so starting git costs a command nothing.

``git grep --no-index`` reads the working tree as it is on disk (tracked,
untracked and ignored files alike, never the index), in or outside a git
checkout.  ``GIT_DIR`` names no repository, so git never opens the
template's own ``.git`` (its config, a ``.git`` file naming a folder that is
not there, an unknown repository extension: each made git fail or warn, and
every file was read).  When git is missing, fails, or writes anything to stderr (a file
it could not read), nothing is quiet and every file is read as before.
Source of the options: git-grep(1) (``--no-index``, ``-L``, ``-z``, ``-P``).
"""

from __future__ import annotations

import os
import re
import subprocess
import threading
from typing import Optional


def quiet_pattern(byte_filter: bool = True) -> str:
    """What makes a file worth opening (PCRE over bytes; ``LC_ALL=C``): a digit, dot, digit, or a byte that is
    NUL or above 127; without the byte filter also ``executorch`` in any ASCII letter case."""
    return (r"[0-9]\.[0-9]|[^\x01-\x7f]" if byte_filter else r"(?i)executorch|[0-9]\.[0-9]|[^\x01-\x7f]")


#: What a searched ASCII version must hold for a quiet file to hold none of it (see the module docstring).
_QUIET_SHAPE = re.compile(r"[0-9]\.[0-9]")


def versions_have_quiet_shape(versions) -> bool:
    """True when no version text in ``versions`` can be in a quiet file: each holds a digit, a dot, and a
    digit (``"1.4.0"``, ``"2.13"``) or a character that is not ASCII (``"1.\u0663"``, ``"\u0661.\u0664"``);
    False for one such as ``"2"`` (a conda ``pytorch=2``)."""
    return all(not v.isascii() or _QUIET_SHAPE.search(v) for v in versions)


#: Folders the walk never enters (bot.template.scan: SKIP_DIRS, SKIP_DIR_PREFIXES, SKIP_SUBTREES,
#: ``*.egg-info``), as git pathspecs that keep git out of them.  A subset is enough (a file git does not
#: list is simply read); a test checks that these are the walk's.
SKIPPED_NAMES = (".git", ".hg", ".svn", "node_modules", "__pycache__", ".venv", "venv", ".tox", ".mypy_cache",
                 ".pytest_cache", "vendor", "third_party", "third-party", "RTE", "tmp", "out", "build", "dist")
SKIPPED_PREFIXES = ("cmake-out", "cmake-build", ".cmsis")
SKIPPED_SUBTREES = ("ai_layer/engine",)


def _pathspecs() -> list[str]:
    out = ["--", "."]
    out += [f":(exclude,glob)**/{name}/**" for name in SKIPPED_NAMES]
    out += [f":(exclude,glob)**/{prefix}*/**" for prefix in SKIPPED_PREFIXES]
    out += [f":(exclude,glob){sub}/**" for sub in SKIPPED_SUBTREES]
    out.append(":(exclude,glob)**/*.egg-info/**")
    return out


def command(byte_filter: bool = True) -> list[str]:
    """The git command line.  ``--no-full-name`` and ``--no-color`` override a ``grep.fullName`` or
    ``color.grep``/``color.ui`` setting (the user's git config, or ``GIT_CONFIG_*`` variables; a
    repository's config is never read, see the module docstring): either would change the paths git
    prints (relative to the top of an outer checkout, or wrapped in colour escapes), and a path that
    names another file of the template would leave that file unread.  Source: git-grep(1), git-config(1)."""
    return (["git", "grep", "--no-index", "--no-full-name", "--no-color", "-L", "-z", "-P",
             "-e", quiet_pattern(byte_filter)] + _pathspecs())


class QuietFiles:
    """A running ``git grep -L`` over a template; :meth:`result` waits for it.

    Start it first, walk the tree while it runs, then ask :meth:`result`.
    """

    def __init__(self, repo: str, byte_filter: bool = True):
        self.byte_filter = byte_filter
        self._proc: Optional[subprocess.Popen] = None
        self._thread: Optional[threading.Thread] = None
        self._answer: Optional[tuple[bytes, bytes, int]] = None
        try:
            self._proc = subprocess.Popen(
                command(byte_filter),
                cwd=repo, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                env=dict(os.environ, LC_ALL="C", GIT_PAGER="cat", GIT_CONFIG_NOSYSTEM="1", GIT_DIR=os.devnull))
        except OSError:  # git missing from PATH, or cannot be started
            self._proc = None
            return
        # git's output is collected as it comes (a long list must not fill the pipe and stop git)
        self._thread = threading.Thread(target=self._collect, name="git grep -L", daemon=True)
        self._thread.start()

    def _collect(self) -> None:
        out, err = self._proc.communicate()
        self._answer = (out, err, self._proc.returncode)

    def done(self) -> bool:
        """True when :meth:`result` answers without waiting."""
        return self._thread is None or not self._thread.is_alive()

    def result(self, timeout: Optional[float] = None) -> Optional[frozenset[str]]:
        """The repository-relative POSIX paths git searched and found quiet, or None when git could not
        tell (missing, exit status other than 0 or 1, anything on stderr) or did not within ``timeout``
        seconds (then it is stopped: reading every file is as quick as waiting longer)."""
        if self._proc is None:
            return None
        self._thread.join(timeout)
        if self._thread.is_alive():
            self.cancel()
            return None
        out, err, status = self._answer
        if status not in (0, 1) or err:
            return None
        return frozenset(os.fsdecode(p) for p in out.split(b"\0") if p)

    def cancel(self) -> None:
        """Stop git (its answer is not needed, or came too late)."""
        if self._proc is not None and self._proc.poll() is None:
            self._proc.kill()
        if self._thread is not None:
            self._thread.join()


#: Runs started by :func:`prestart`, by the real path of their folder.
_EARLY: dict[str, QuietFiles] = {}


def prestart(repo) -> None:
    """Start git on folder ``repo`` now (with the byte filter's pattern), for :func:`take` to pick up."""
    key = os.path.realpath(repo)
    discard(repo)
    _EARLY[key] = QuietFiles(key)


def take(repo, byte_filter: bool) -> Optional[QuietFiles]:
    """The run :func:`prestart` started on ``repo`` with the same pattern, or None (a run with
    another pattern is stopped)."""
    early = _EARLY.pop(os.path.realpath(repo), None)
    if early is not None and early.byte_filter != byte_filter:
        early.cancel()
        return None
    return early


def discard(repo) -> None:
    """Stop a run :func:`prestart` started on ``repo`` that nothing took (the command failed first)."""
    early = _EARLY.pop(os.path.realpath(repo), None)
    if early is not None:
        early.cancel()
