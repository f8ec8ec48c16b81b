"""The bot's commit message: the PR title, the pins the commit changes in words, an optional sign-off.

Only rows of the pin table whose value the commit changes are listed: a
package the template does not pin (``old`` is None), one upstream leaves
unresolved (``new`` is None) or one already on the target is not a change
and is left out.  A row reads ``- torch from 2.13.0 to 2.14.0``.

``signoff`` adds ``Signed-off-by: NAME <EMAIL>`` with the configured author
as a trailer (the Developer Certificate of Origin sign-off, ``git commit
--signoff``), through ``git interpret-trailers`` so that an existing
identical trailer is not repeated and the trailer block is formed as git forms it.
"""

from __future__ import annotations

import subprocess
from typing import Iterable


def changed_rows(rows: Iterable) -> list:
    """The :class:`~bot.plan.PinRow` items whose value the commit changes (old and new known and different)."""
    return [r for r in rows if r.old is not None and r.new is not None and r.old != r.new]


def commit_message(title: str, rows: Iterable) -> str:
    """``title``, a blank line and one ``- NAME from OLD to NEW`` line per changed pin (just the title when none)."""
    lines = [f"- {r.name} from {r.old} to {r.new}" for r in changed_rows(rows)]
    return title.strip() + "\n" + ("\n" + "\n".join(lines) + "\n" if lines else "")


def signed_off(message: str, name: str, email: str) -> str:
    """``message`` with the trailer ``Signed-off-by: NAME <EMAIL>`` (once), as ``git interpret-trailers`` adds it.

    Raises nothing: without a usable git the trailer is appended after a blank line.
    """
    trailer = f"Signed-off-by: {name} <{email}>"
    try:
        p = subprocess.run(["git", "interpret-trailers", "--if-exists", "addIfDifferent", "--trailer", trailer],
                           input=message.encode(), capture_output=True, check=True)
        return p.stdout.decode()
    except (OSError, subprocess.CalledProcessError):
        return message.rstrip("\n") + "\n\n" + trailer + "\n"
