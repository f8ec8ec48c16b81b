"""Reading a command comment: a first line ``/executorch-pack-bot VERB [ARGS]``, and the help reply.

Only the first line of a comment is read (the rest is free text for people),
the way Dependabot reads ``@dependabot VERB`` only at the start of a
comment.  Leading spaces are allowed; the prefix and the verb are matched
without regard to case; arguments are split on white space.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional

PREFIX = "/executorch-pack-bot"
VERBS = ("recheck", "rebuild", "recreate", "ignore", "unignore", "help")
VERSION = re.compile(r"^v?(\d+\.\d+\.\d+)$")
_LINE = re.compile(r"^\s*/executorch-pack-bot(?:\s+(.*))?$", re.IGNORECASE)


@dataclass(frozen=True)
class Command:
    """``verb`` in lower case (may be unknown: checked by the handler), ``args`` as written."""

    verb: str
    args: tuple[str, ...]


def parse(body: Optional[str]) -> Optional[Command]:
    """The command on the first line of ``body``, or None when that line is not ``/executorch-pack-bot ...``.

    ``/executorch-pack-bot`` alone is the verb ``""`` (unknown: answered with the help).
    A prefix run together with more letters (``/executorch-pack-botx``) is no command.
    """
    first = (body or "").lstrip("\ufeff").split("\n", 1)[0].rstrip("\r")
    m = _LINE.match(first)
    if not m:
        return None
    words = (m.group(1) or "").split()
    return Command(words[0].lower() if words else "", tuple(words[1:]))


def version_arg(text: str) -> Optional[str]:
    """``X.Y.Z`` from an argument ``X.Y.Z`` or ``vX.Y.Z``; None for anything else."""
    m = VERSION.match(text.strip())
    return m.group(1) if m else None


HELP = f"""executorch-pack-bot answers these commands, given as the first line of a comment on its pull request \
by someone with write, maintain or admin permission on the repository:

| command | what it does |
|---|---|
| `{PREFIX} recheck` | verify the pack and audit the template again, then refresh this pull request |
| `{PREFIX} rebuild` | build the pack on the Arm runner, even when the release has a pack asset |
| `{PREFIX} recreate` | regenerate the bump on the current base branch, discarding this branch (also commits that are not the bot's) |
| `{PREFIX} ignore` | skip this pull request's version: the pull request is closed and the next newer release is proposed when it comes |
| `{PREFIX} ignore X.Y.Z` | skip ExecuTorch X.Y.Z |
| `{PREFIX} unignore X.Y.Z` | propose X.Y.Z again |
| `{PREFIX} help` | this list |
"""
