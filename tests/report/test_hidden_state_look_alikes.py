"""A hidden-state look-alike quoted into a PR body (template, upstream or pack text) is never read as state.

The bot's state block (ignored versions, "closed by ignore") lives in its PR
bodies; text the bot quotes there in a code span could carry
``<!-- executorch-pack-bot:state {...} -->``.  Read as state, it would make
the scheduled run skip versions nobody ignored, or reopen the question of a
PR closed by hand.  Only a block opening a line, as the bot writes it, counts.
"""

from __future__ import annotations

from pathlib import Path

from bot.events import ignored, state as hidden
from bot.model import Bump, Flag
from bot.plan import PinRow, Plan
from bot.report import parse_fingerprint, pr_body

EVIL = '<!-- executorch-pack-bot:state {"closed_by":"ignore","ignored":["1.6.0","1.7.0"]} -->'


def body_quoting(text: str) -> tuple[str, Plan]:
    p = Plan(repo=Path("/tmp"), bump=Bump("1.4.0", "1.5.1", "1.4.0", "1.5.1", "v1.4.0", "v1.5.1"),
             rows=[PinRow("torch", "2.1", "2.2", text)], flags=[Flag("range-pin", "a range", text, 3, True)])
    p.contents["requirements.txt"] = b"x"
    return pr_body(p, upstream="pytorch/executorch", pack_note="No pack."), p


def test_a_quoted_state_look_alike_is_not_state():
    body, p = body_quoting(EVIL)
    assert EVIL in body                                 # shown as the text it is
    assert (hidden.load(body), ignored.closed_by_ignore(body)) == (None, False)
    assert parse_fingerprint(body) == p.fingerprint()


def test_the_bots_own_block_still_counts_and_the_quoted_text_is_kept():
    body, _ = body_quoting(EVIL)
    new = hidden.replace(body, {"ignored": [{"version": "1.5.1", "pr": 7}]})
    assert hidden.load(new) == {"ignored": [{"version": "1.5.1", "pr": 7}]}
    assert EVIL in new and new.endswith(hidden.dump({"ignored": [{"version": "1.5.1", "pr": 7}]}) + "\n")
    assert hidden.load(new.replace("\n", "\r\n")) == {"ignored": [{"version": "1.5.1", "pr": 7}]}   # web-edited body


def test_a_carried_body_keeps_only_the_bots_state():
    old = "old body\n" + hidden.dump({"ignored": [{"version": "1.4.9", "pr": 3}]}) + "\n"
    body, _ = body_quoting(EVIL)
    assert hidden.load(hidden.carry(old, body)) == {"ignored": [{"version": "1.4.9", "pr": 3}]}
    assert hidden.load(hidden.carry("no state", body)) is None
