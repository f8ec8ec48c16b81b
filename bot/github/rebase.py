"""Putting the bot's edits onto a base that moved since the plan was made.

The runner clones the base branch, the bot plans on that clone, and a person
may push to the base before the bot's commit is made.  Laying the planned
*whole files* over the new base would revert that person's lines; so the
bot applies its *edits* to the files as the new base has them:

- :func:`rebase_text` takes the lines the plan changed (the hunks between
  the file the plan read and the file it wrote, :mod:`difflib`) and
  replaces the same lines in the new base's file, found by their content
  (the new base may have added or removed lines elsewhere, also right next
  to an edited line).  When the new base changed one of the lines the plan
  edits, the edit no longer applies and the result is None: ``run``
  re-plans on the new base instead, ``publish`` asks for ``update`` again.
- :func:`worktree_text` gives a file of a commit as a checkout would have
  it (``git cat-file --filters``: the ``.gitattributes`` and
  ``core.autocrlf`` conversions), so it compares with what the plan read.
"""

from __future__ import annotations

import difflib
from typing import Optional


def rebase_text(original: bytes, planned: bytes, base: bytes) -> Optional[bytes]:
    """``base`` with the line changes that turn ``original`` into ``planned``; None when they do not apply.

    All three are one file's bytes in working-tree form.  Lines keep their
    own endings.  A hunk applies when every line it replaces is in ``base``
    unchanged, in the same order (matched by :class:`difflib.SequenceMatcher`
    between ``original`` and ``base``); an insertion applies after the base
    line that held the original line before it.
    """
    if base == original:
        return planned
    o = original.splitlines(keepends=True)
    p = planned.splitlines(keepends=True)
    b = base.splitlines(keepends=True)
    where: dict[int, int] = {}                     # original line index -> base line index (unchanged lines)
    for blk in difflib.SequenceMatcher(None, o, b, autojunk=False).get_matching_blocks():
        for k in range(blk.size):
            where[blk.a + k] = blk.b + k
    out = list(b)
    # apply hunks from the end so that earlier base indexes stay valid
    for tag, i1, i2, j1, j2 in reversed(difflib.SequenceMatcher(None, o, p, autojunk=False).get_opcodes()):
        if tag == "equal":
            continue
        if tag == "replace" and i2 - i1 == j2 - j1:    # line-for-line edits: each line goes where it now is
            idx = [where.get(i) for i in range(i1, i2)]
            if None in idx:
                return None                          # the base changed a line the plan edits
            for k, at in enumerate(idx):
                out[at] = p[j1 + k]
        elif i2 > i1:
            idx = [where.get(i) for i in range(i1, i2)]
            if None in idx or idx != list(range(idx[0], idx[0] + len(idx))):
                return None                          # the base changed (or moved apart) a line the plan edits
            out[idx[0]:idx[-1] + 1] = p[j1:j2]
        else:                                        # a pure insertion after original line i1 - 1
            if i1 == 0:
                at = 0
            elif (i1 - 1) in where:
                at = where[i1 - 1] + 1
            else:
                return None
            out[at:at] = p[j1:j2]
    return b"".join(out)


def worktree_text(git, rev: str, path: str) -> Optional[bytes]:
    """``rev:path`` as a checkout would write it (``git cat-file --filters``), or None when ``rev`` has no such file.

    ``git`` is a :class:`~bot.github.publish.Git` (or anything with its ``run``).
    """
    p = git.run("cat-file", "--filters", f"{rev}:{path}")
    return p.stdout if p.returncode == 0 else None
