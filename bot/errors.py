"""Exception hierarchy of the bot, and the exit codes it maps to.

Exit codes are part of the interface (README, "Exit codes"): 0 done or nothing to do,
1 a check failed, 2 bad usage or bad input, 3 a transient failure (GitHub,
the network or the package index kept failing after the retries; nothing
was changed and the run can be repeated).  Every error that reaches the
command line is a :class:`BotError`; the CLI prints ``str(error)`` (which
names the file and line when known) and exits with ``error.exit_code``.
No traceback is ever shown for a ``BotError``.

Each role has one base class that implementations subclass for context
(the pip-audit pattern): :class:`TemplateError` for the template managers,
:class:`UpstreamError` for the upstream datasources, :class:`PackError`
for pack building and verification, :class:`PlatformError` for GitHub.
"""

from __future__ import annotations

EXIT_OK = 0
EXIT_CHECK_FAILED = 1
EXIT_BAD_INPUT = 2
EXIT_TRANSIENT = 3

# One table for every --help epilog and the docs (docs/github.md, "Exit codes").
EXIT_CODES = (
    (EXIT_OK, "done, or nothing to do (also: a pull request opened with some decorations refused)"),
    (EXIT_CHECK_FAILED, "a check failed: a blocking item, a pack that failed verification"),
    (EXIT_BAD_INPUT, "bad usage or bad input (an option, a file, a refusal by GitHub that a rerun would repeat)"),
    (EXIT_TRANSIENT, "a transient failure outlasted the retries; nothing was changed; the run can be repeated"),
)


def exit_code_epilog(codes=None, extra: str = "") -> str:
    """The exit-code table as plain text for an argparse epilog: every code, or only ``codes`` (the ones a
    command can return), then ``extra`` lines (a command's own, e.g. build-pack's failing build step)."""
    rows = [f"  {code}  {text}" for code, text in EXIT_CODES if codes is None or code in codes]
    return "exit codes:\n" + "\n".join(rows + ([extra] if extra else []))


class BotError(Exception):
    """An error with a message fit for a user, and optionally a file and line.

    Args:
        message: what went wrong, naming the package and version involved.
        path: the file concerned (repository-relative POSIX path when it is
            inside the template checkout), or None.
        line: 1-based line number inside ``path``, or None.

    ``str(error)`` is ``"PATH:LINE: message"`` (or ``"PATH: message"``, or
    just the message).  ``exit_code`` is 2 (bad input) unless a subclass says
    otherwise.
    """

    exit_code = EXIT_BAD_INPUT

    def __init__(self, message: str, *, path: str | None = None, line: int | None = None):
        super().__init__(message)
        self.message = message
        self.path = path
        self.line = line

    def __str__(self) -> str:
        where = ""
        if self.path:
            where = self.path + (f":{self.line}" if self.line else "") + ": "
        return where + self.message


class UsageError(BotError):
    """Bad command-line usage (exit 2)."""


class TemplateError(BotError):
    """A template file cannot be read, parsed or safely rewritten (exit 2)."""


class UpstreamError(BotError):
    """Upstream ExecuTorch cannot be read at a tag, or a tag does not exist (exit 2)."""


class PackError(BotError):
    """A pack cannot be read, built or fetched (exit 2; a failed *check* is exit 1)."""


class PlatformError(BotError):
    """GitHub (or the package index) refused or failed a request (exit 2).

    ``reason`` is GitHub's answer alone (``HTTP 422: ...``) when known, else the message.
    """

    reason: str = ""


class CheckFailed(BotError):
    """A check ran and failed: pins disagree, a pack failed verification, a blocking item is flagged (exit 1)."""

    exit_code = EXIT_CHECK_FAILED


class TransientError(PlatformError):
    """GitHub, the network or the package index kept failing (5xx, 429, a rate limit, a broken connection)
    after every retry allowed (exit 3).

    ``str(error)`` ends with :attr:`advice`, "nothing was changed; the run can
    be repeated" (``message`` is the failure alone, for callers that report it
    their own way): the operations that raise it undo what the run did (the
    branch it created, the files it wrote) before the error reaches the
    command line; one that cannot sets ``advice`` to say what changed.
    """

    exit_code = EXIT_TRANSIENT
    advice = "nothing was changed; the run can be repeated"   # an instance may say what did change

    def __str__(self) -> str:
        return f"{super().__str__()}; {self.advice}"
