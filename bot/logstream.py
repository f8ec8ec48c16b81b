"""stdout and stderr that never carry a workflow command the bot did not issue.

The Actions runner reads every line a step prints on stdout or stderr and
runs it as a workflow command when it starts with ``::`` after leading
white space (``::error``, ``::add-mask::``, ``::stop-commands::``), or when
it holds ``##[`` anywhere (the older form; GitHub docs, "Workflow commands
for GitHub Actions"; the runner's ``ActionCommand.TryParse``).  The bot
prints foreign text (pins, messages, build output) through
:mod:`bot.inert`; :class:`CommandSafeStream` is the last line of defence
around ``sys.stdout``/``sys.stderr`` while a command runs: every line
written through it passes :func:`bot.inert.log_safe`.  The bot's own
commands (:mod:`bot.actions`) go through :meth:`CommandSafeStream.command`,
the one way around it.

That covers what passes through the bot.  Upstream code can also write to
the step's standard output directly (an inherited descriptor, or
``/proc/PID/fd/1`` of the step's shell), so where upstream code runs the
step's workflow commands are stopped: ``::stop-commands::TOKEN`` makes the
runner ignore every command until a line ``::TOKEN::`` (GitHub docs,
"Workflow commands for GitHub Actions", "Stopping and starting workflow
commands"; nektos/act's ``commandHandler`` does the same).  The token is
random (:func:`new_stop_token`), made by a non-dumpable process and never
printed but in those two commands.  A bot process that holds it
(:func:`adopt_stop_token`, from :data:`STOP_VAR`) writes each of its own
commands resumed and stopped again around it, in one ``write`` of at most
``PIPE_BUF`` (4096) bytes, which POSIX keeps whole on a pipe: no line of
another writer can fall between the resume and the stop.
"""

from __future__ import annotations

import atexit
import contextlib
import io
import os
import re
import sys
from typing import Iterator, MutableMapping, Optional, TextIO

from bot.inert import log_safe


class CommandSafeStream(io.TextIOBase):
    """A text stream wrapping ``raw`` that holds each line until it is complete, then writes it command-safe.

    A partial line is written on :meth:`flush` (progress output); what
    follows it on the same line is then never at a line start.  Line ends
    are ``\\n`` and ``\\r`` (where the runner splits lines).
    """

    def __init__(self, raw: TextIO):
        super().__init__()
        self.raw = raw
        self._buf = ""
        self._mid_line = False   # the part of the current line already written (flushed) made its start

    @property
    def encoding(self):  # noqa: D401 - mirrors the wrapped stream
        return getattr(self.raw, "encoding", "utf-8")

    @property
    def errors(self):
        return getattr(self.raw, "errors", "strict")

    def writable(self) -> bool:
        return True

    def isatty(self) -> bool:
        return bool(getattr(self.raw, "isatty", lambda: False)())

    def fileno(self) -> int:
        return self.raw.fileno()

    def write(self, s: str) -> int:
        self._buf += s
        cut = max(self._buf.rfind("\n"), self._buf.rfind("\r"))
        if cut >= 0:
            done, self._buf = self._buf[:cut + 1], self._buf[cut + 1:]
            self._emit(done)
            self._mid_line = False
        return len(s)

    def _emit(self, text: str) -> None:
        if self._mid_line:
            # the start of this line was written already: only ``##[`` can still form a command
            ends = [k for k in (text.find("\n"), text.find("\r")) if k >= 0]
            i = min(ends) if ends else len(text)
            self.raw.write(text[:i].replace("##[", "##\u200b[") + log_safe(text[i:]))
        else:
            self.raw.write(log_safe(text))

    def flush(self) -> None:
        # a line start that could still become ``::`` waits for more text (or for :meth:`drain`)
        if self._buf and (self._mid_line or self._buf.lstrip() not in ("", ":")):
            self.drain()
        self.raw.flush()

    def drain(self) -> None:
        """Write whatever is held, even a line start that is only white space or ``:``."""
        if self._buf:
            self._emit(self._buf)
            self._buf = ""
            self._mid_line = True
        self.raw.flush()

    def command(self, text: str) -> None:
        """Write one workflow command line the bot itself issues (:mod:`bot.actions`), at a line start."""
        if self._buf or self._mid_line:
            self.write("\n")
        self.raw.flush()
        self.raw.write(framed(text))
        self.raw.flush()


def write_command(out: TextIO, text: str) -> None:
    """Write the bot's own workflow command ``text`` to ``out`` (through :meth:`CommandSafeStream.command` when guarded)."""
    if isinstance(out, CommandSafeStream):
        out.command(text)
    else:
        out.flush()
        out.write(framed(text))
        out.flush()


# ------------------------------------------------------------ stop-commands
STOP_VAR = "EXECUTORCH_PACK_BOT_STOP_COMMANDS"
"""Environment variable handing a bot process the step's stop-commands token (or ``start``: stop them itself)."""
PIPE_BUF = 4096
_TOKEN = re.compile(r"[0-9a-f]{32}")
_stop_token: Optional[str] = None


def new_stop_token() -> str:
    """A fresh random stop-commands token: 32 hex digits (``secrets``)."""
    import secrets   # here, not at startup: it loads hashlib

    return secrets.token_hex(16)


def stop_line(token: str) -> str:
    """The command that stops the step's workflow commands until :func:`resume_line`."""
    return f"::stop-commands::{token}\n"


def resume_line(token: str) -> str:
    """The command that resumes the step's workflow commands."""
    return f"::{token}::\n"


def framed(text: str) -> str:
    """``text`` (one command, no line end) as the line(s) to write: resumed and stopped again around it when
    this process holds the stop token, cut to fit one ``PIPE_BUF`` write then."""
    if _stop_token is None:
        return text + "\n"
    room = PIPE_BUF - len((resume_line(_stop_token) + stop_line(_stop_token)).encode()) - 1
    data = text.encode("utf-8")
    if len(data) > room:
        text = data[:room - 3].decode("utf-8", "ignore") + "\u2026"
    return resume_line(_stop_token) + text + "\n" + stop_line(_stop_token)


def _raw_write(text: str) -> None:
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    try:
        os.write(1, text.encode())
    except OSError:
        pass


def adopt_stop_token(env: Optional[MutableMapping[str, str]] = None) -> Optional[str]:
    """Take the stop-commands token handed in :data:`STOP_VAR` (the variable is removed, so no child process
    inherits it); returns it, or None when there is none (then nothing changes).

    ``start``: this process stops the step's commands itself (a fresh token) and resumes them when it
    exits.  Either way the process is made non-dumpable first (``prctl(PR_SET_DUMPABLE, 0)``), so a
    process of the same user cannot read the token from its ``/proc/PID/environ`` or memory.  A value
    that is neither ``start`` nor a token is dropped.
    """
    global _stop_token
    env = os.environ if env is None else env
    value = env.pop(STOP_VAR, None)
    if value is None:
        return None
    from bot.contain import make_undumpable
    make_undumpable()
    if value == "start":
        token = new_stop_token()
        _raw_write(stop_line(token))
        atexit.register(_raw_write, resume_line(token))
    elif _TOKEN.fullmatch(value):
        token = value
    else:
        return None
    _stop_token = token
    return token


@contextlib.contextmanager
def guarded() -> Iterator[None]:
    """Wrap ``sys.stdout`` and ``sys.stderr`` in :class:`CommandSafeStream` for the block, then restore them."""
    saved = sys.stdout, sys.stderr
    if isinstance(sys.stdout, CommandSafeStream):   # already guarded (a command calling another)
        yield
        return
    sys.stdout, sys.stderr = CommandSafeStream(saved[0]), CommandSafeStream(saved[1])
    try:
        yield
    finally:
        for s in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):
                if isinstance(s, CommandSafeStream):
                    s.drain()
                s.flush()
        sys.stdout, sys.stderr = saved
