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
"""

from __future__ import annotations

import contextlib
import io
import sys
from typing import Iterator, TextIO

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
        self.raw.write(text + "\n")
        self.raw.flush()


def write_command(out: TextIO, text: str) -> None:
    """Write the bot's own workflow command ``text`` to ``out`` (through :meth:`CommandSafeStream.command` when guarded)."""
    if isinstance(out, CommandSafeStream):
        out.command(text)
    else:
        print(text, file=out, flush=True)


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
