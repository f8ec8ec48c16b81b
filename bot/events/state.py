"""The bot's hidden state in an issue or PR body: one HTML comment holding JSON.

``<!-- executorch-pack-bot:state {"ignored": [...], ...} -->``.  An HTML
comment is not rendered by GitHub (GFM spec, "HTML blocks"), so the state
travels with the body it describes and needs no other storage.  ``<`` and
``>`` are written as ``\\u003c``/``\\u003e`` JSON escapes, so no value can
end the comment early (``-->``) or open another; the last block in a body
that starts a line counts (a look-alike quoted inside the body never does).
"""

from __future__ import annotations

import json
import re
from typing import Optional

# Only a block that opens a line counts: the bot writes its own on a line of its own, while text the
# bot quotes (a template line, an upstream pin, a pack's component name) sits inside a code span or
# after a list marker, never at the start of a line, so a look-alike quoted there is never read.
_BLOCK = re.compile(r"^<!--[ \t]*executorch-pack-bot:state[ \t]+(\{[^\n]*?\})[ \t]*-->", re.MULTILINE)


def dump(state: dict) -> str:
    """The hidden block for ``state`` (keys sorted, so equal states give equal text)."""
    text = json.dumps(state, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    text = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return f"<!-- executorch-pack-bot:state {text} -->"


def load(body: Optional[str]) -> Optional[dict]:
    """The state in ``body`` (the last block), or None when there is none or it is not a JSON object."""
    for raw in reversed(_BLOCK.findall(body or "")):
        try:
            data = json.loads(raw)
        except (ValueError, RecursionError):   # RecursionError: nested too deeply (anyone can edit a body)
            continue
        if isinstance(data, dict):
            return data
    return None


def replace(body: Optional[str], state: dict) -> str:
    """``body`` with its state blocks removed and the block for ``state`` at the end."""
    rest = _BLOCK.sub("", body or "").rstrip("\n")
    return (rest + "\n" if rest else "") + dump(state) + "\n"


def carry(old_body: Optional[str], new_body: str) -> str:
    """``new_body`` keeping the state block of ``old_body`` (when the bot rewrites a body it must not lose it)."""
    st = load(old_body)
    return new_body if st is None else replace(new_body, st)


def proposed_version(config, pr: dict) -> Optional[str]:
    """The ExecuTorch version the bot's pull request ``pr`` (its REST JSON) proposes, from the bot's own record,
    never from its title (a person or a title convention rewrites titles: ``chore(deps): bump ...``,
    ``TICKET-123 ...``): the head branch for a ``{version}`` track (``bot/executorch-1.5.1``; a branch name
    never changes after it is pushed), else the ``version`` the publisher records in the PR's hidden state
    (:func:`dump`; written on every create and update of the PR, kept by every later write of the state; an
    HTML comment no title convention or ticket system touches, which a person would have to rewrite on
    purpose).
    ``X.Y.Z`` (ASCII digits, an optional ``rc`` suffix), or None when the bot's record names none (a PR opened
    before the record was kept: the next publish writes it)."""
    from bot.events.verbs import VERSION

    ref = str(((pr or {}).get("head") or {}).get("ref") or "")
    if "{version}" in config.branch:
        parts = config.branch.split("{version}")
        m = (re.fullmatch("(?P<v>[A-Za-z0-9._-]+)".join(re.escape(x) for x in parts), ref)
             if len(parts) == 2 else None)
        v = m.group("v") if m else ""
    else:
        v = str((load((pr or {}).get("body")) or {}).get("version") or "")
    m = VERSION.match(v) or _RC.match(v)
    return v.lstrip("v") if m else None


_RC = re.compile(r"^v?[0-9]{1,9}\.[0-9]{1,9}\.[0-9]{1,9}-?rc[0-9]{1,9}$")
