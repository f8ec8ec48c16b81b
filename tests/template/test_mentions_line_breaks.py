"""An item's line is the line ``TextDocument.line_of`` counts: it ends at ``\\n``, ``\\r\\n`` or a lone ``\\r``
(classic Mac line breaks, which pip and PyYAML read as line breaks too).  Its column, its text and the rules that
read the line see that line only (regression: a file with lone ``\\r`` breaks was one line to them, so a
"measured" anywhere in it made every occurrence history, and each item's text was the whole file)."""

from __future__ import annotations

import pytest

from bot.engine.mentions import account
from bot.model import Edit, Flag
from helpers import minor_bump
from mentionkit import assert_accounting, template

REVIEW = ("names ExecuTorch 1.4.0 and the bot cannot tell whether it is this template's version, history or another "
          "thing's version; left as written: edit it by hand, or list it under ignore-mentions: in "
          ".github/executorch-pack-bot.yml with a reason: {t}")


def _edit_last(text):
    s = text.rindex("1.4.0")
    return Edit("a.txt", s, s + 5, "1.4.0", "1.5.1", 3, "pin", "the pin")


@pytest.mark.parametrize("brk", ["\r", "\r\n", "\n"])
def test_each_line_break_ends_the_line_of_an_item(brk):
    text = brk.join(["measured elsewhere", "label 1.4.0", "pin 1.4.0", ""])
    left = account(template(others={"a.txt": text}), minor_bump(), [], [])
    assert_accounting(left, [("a.txt", 2, 7, "1.4.0", "ExecuTorch", "review", "review-mention", "label 1.4.0"),
                             ("a.txt", 3, 5, "1.4.0", "ExecuTorch", "review", "review-mention", "pin 1.4.0")],
                      flags=[Flag("review-mention", REVIEW.format(t=t), path="a.txt", line=n, blocking=False)
                             for n, t in ((2, "label 1.4.0"), (3, "pin 1.4.0"))])
    moved = account(template(files={"a.txt": text}), minor_bump(), [_edit_last(text)], [])
    assert_accounting(moved, [("a.txt", 2, 7, "1.4.0", "ExecuTorch", "review", "review-mention", "label 1.4.0"),
                              ("a.txt", 3, 5, "1.4.0", "ExecuTorch", "moved", "the pin", "pin 1.4.0")],
                      flags=[Flag("review-mention", REVIEW.format(t="label 1.4.0"), path="a.txt", line=2,
                                  blocking=False)])


def test_the_rules_read_the_line_after_a_lone_cr_and_a_first_empty_line():
    text = "\nnumpy==1.4.0\n\rnumpy==1.4.0 at 30 ms\r\r\n"
    assert_accounting(account(template(others={"a.txt": text}), minor_bump(), [], []), [
        ("a.txt", 2, 8, "1.4.0", "ExecuTorch", "other", "another package (numpy)", "numpy==1.4.0"),
        ("a.txt", 4, 8, "1.4.0", "ExecuTorch", "other", "another package (numpy)", "numpy==1.4.0 at 30 ms"),
    ])


def test_text_after_the_version_is_read_up_to_the_line_break():
    """A measurement word glued to a letter is no measurement; the line ends at the break, not before."""
    text = "label 1.4.0 at 30 msX\r\nlabel 1.4.0 at 30 ms\r\n"
    assert_accounting(account(template(others={"a.txt": text}), minor_bump(), [], []), [
        ("a.txt", 1, 7, "1.4.0", "ExecuTorch", "review", "review-mention", "label 1.4.0 at 30 msX"),
        ("a.txt", 2, 7, "1.4.0", "ExecuTorch", "history", "a measurement or test claim", "label 1.4.0 at 30 ms"),
    ], flags=[Flag("review-mention", REVIEW.format(t="label 1.4.0 at 30 msX"), path="a.txt", line=1,
                   blocking=False)])
