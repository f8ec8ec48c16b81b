"""The bot's hidden state in an issue or PR body: one HTML comment holding JSON.

``<!-- executorch-pack-bot:state {"ignored": [...], ...} -->``.  An HTML
comment is not rendered by GitHub (GFM spec, "HTML blocks"), so the state
travels with the body it describes and needs no other storage.  ``<`` and
``>`` are written as ``\\u003c``/``\\u003e`` JSON escapes, so no value can
end the comment early (``-->``) or open another; the last block in a body
counts.
"""

from __future__ import annotations

import json
import re
from typing import Optional

_BLOCK = re.compile(r"<!--\s*executorch-pack-bot:state\s+(\{.*?\})\s*-->", re.DOTALL)


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
        except ValueError:
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
