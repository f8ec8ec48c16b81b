"""Bidirectional controls in foreign text ("Trojan Source", CVE-2021-42574) never reach GitHub or the log.

An unterminated RIGHT-TO-LEFT OVERRIDE inside a code span still reverses
what follows it on the rendered line, the bot's own words included (the
HTML ``code`` element does not isolate bidi text), so a template line or a
pack string could make ``1.5.1`` read as ``1.5.1`` reversed or hide a
"blocking" word.  :mod:`bot.inert` replaces them with U+FFFD like the other
control characters.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bot import inert
from bot.model import Bump, Flag
from bot.plan import PinRow, Plan
from bot.report import parse_fingerprint, pr_body

BIDI = ["\u202a", "\u202b", "\u202c", "\u202d", "\u202e", "\u2066", "\u2067", "\u2068", "\u2069"]


@pytest.mark.parametrize("ch", BIDI)
def test_each_bidi_control_is_replaced_in_every_form(ch):
    text = f"1.5.1{ch}kcolb"
    assert inert.code(text) == "`1.5.1\ufffdkcolb`"
    assert inert.markdown(text) == "1\\.5\\.1\ufffdkcolb"
    assert inert.line(text) == "1.5.1\ufffdkcolb"


def test_marks_and_joiners_that_reorder_nothing_are_kept():
    assert inert.code("a\u200eb\u200fc\u200dd") == "`a\u200eb\u200fc\u200dd`"


def test_a_pr_body_with_bidi_controls_in_template_text_shows_none(tmp_path):
    flag = Flag("range-pin", "torch>=2.1 \u202edesserp\u202c ok", "requirements\u2067.txt", 3, True)
    p = Plan(repo=Path(tmp_path), bump=Bump("1.4.0", "1.5.1", "1.4.0", "1.5.1", "v1.4.0", "v1.5.1"),
             rows=[PinRow("torch\u202e", "2.1", "2.2", "src\u2066x")], flags=[flag])
    p.contents["requirements.txt"] = b"x"
    body = pr_body(p, upstream="pytorch/executorch", pack_note="No pack.")
    assert [c for c in body if c in BIDI] == []
    assert "- [ ] `range-pin` (`requirements\ufffd.txt:3`): torch&gt;=2\\.1 \ufffddesserp\ufffd ok" in body.splitlines()
    assert parse_fingerprint(body) == p.fingerprint() and body.rstrip().endswith("-->")
