"""Reading a command comment: a first line ``/executorch-pack-bot VERB [ARGS]``, and the help reply.

The grammar (docs/reviewers.md, "Commands"): a comment is a command when its
body starts, at its very first character, with ``/executorch-pack-bot`` (the
letters in any case, ASCII only) followed by a space, a line break (LF or
CR LF) or nothing more.  No leading blank, tab or byte-order mark: a comment that
starts otherwise (an indented code block, a quote) is no command.  Only the
first line is read (the rest is free text for people), the way Dependabot
reads ``@dependabot VERB`` only at the start of a comment; after the prefix
the words are separated by spaces and tabs only.  The workflow's ``command``
job gates on exactly this with ``startsWith`` (GitHub's expression functions
compare without regard to case, with JavaScript's ``toUpperCase``, which maps
no other character onto the prefix's letters: the Kelvin sign U+212A stays
itself), tested against each other with GitHub's evaluator.  A version is
ASCII digits (a regex digit class would take Arabic-Indic or full-width
digits, which no tag has).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional

PREFIX = "/executorch-pack-bot"
VERBS = ("recheck", "rebuild", "recreate", "ignore", "unignore", "help")
VERSION = re.compile(r"^v?([0-9]{1,9}\.[0-9]{1,9}\.[0-9]{1,9})$")
"""``X.Y.Z`` or ``vX.Y.Z`` in ASCII digits, at most 9 digits a part (a longer number is no release, and
would overflow what ``packaging`` and ``int()`` are asked to read)."""
_LINE = re.compile(r"/executorch-pack-bot(?: ([^\n]*?))?(?:\r?\n|\Z)", re.IGNORECASE | re.ASCII)
_BLANKS = re.compile(r"[ \t]+")
TAKES = {"recheck": 0, "rebuild": 0, "recreate": 0, "ignore": 1, "unignore": 1}
"""How many arguments a verb takes at most (``help`` takes any: it only answers)."""


@dataclass(frozen=True)
class Command:
    """``verb`` in lower case (may be unknown: checked by the handler), ``args`` as written."""

    verb: str
    args: tuple[str, ...]


def parse(body: Optional[str]) -> Optional[Command]:
    """The command on the first line of ``body``, or None when that line is not ``/executorch-pack-bot ...``.

    ``/executorch-pack-bot`` alone is the verb ``""`` (unknown: answered with the help).
    A prefix run together with more letters (``/executorch-pack-botx``), or
    followed by anything but a space, a line break (LF, CR LF) or the end (a
    tab, a lone CR, a no-break space, a zero-width space), is no command; so is
    a body with anything before the prefix.  A verb with a letter outside
    ASCII is kept as written (and so unknown).
    """
    m = _LINE.match(body or "")
    if not m:
        return None
    words = [w for w in _BLANKS.split(m.group(1) or "") if w]
    if not words:
        return Command("", ())
    verb = words[0].lower() if words[0].isascii() else words[0]
    return Command(verb, tuple(words[1:]))


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
