"""A version-shaped number followed by a unit is a quantity, not a version mention ("1.3 M cycles", "1.5 MB",
"2.0 ms", "1.4 GHz"): it lands in the ``other`` bucket under the quantity rule, never in ``review``, and the
prose manager neither edits it nor calls its sentence mixed.  docs/mentions.md, "The buckets"."""

from __future__ import annotations

import pytest

from bot.engine.mentions import QUANTITY_RULE, account
from bot.model import Flag
from bot.template.prose.sentences import is_quantity
from helpers import minor_bump
from mentionkit import PINS, assert_accounting, edits, flags, plan, template


def _one(line: str, bump=None, flag_list=()):
    """The accounting of the 1.4.0 -> 1.5.1 bump over one file ``notes.txt`` holding ``line``."""
    return account(template(others={"notes.txt": f"{line}\n"}), bump or minor_bump(), [], list(flag_list))


@pytest.mark.parametrize("line", [
    "The model takes 1.4 M cycles.", "takes 1.4M cycles", "takes 1.4 Mcycles", "takes 1.4 million cycles",
    "takes 1.4 K cycles", "takes 1.4 cycles", "flash 1.4 MB", "flash 1.4 bytes", "flash 1.4 GiB", "latency 1.4 ms",
    "latency 1.4 s", "latency 1.4 µs", "latency 1.4 seconds", "clock 1.4 GHz", "clock 1.4 kHz", "compute 1.4 GOPS",
    "compute 1.4 TOPS", "compute 1.4 MACs", "power 1.4 mW", "current 1.4 mA", "1.4 instructions per cycle",
    "1.4 M params", "speed-up 1.4x", "rate 1.4 fps", "rate 1.4 inferences/s",
])
def test_a_number_with_a_unit_is_a_quantity(line):
    column = line.index("1.4") + 1
    assert_accounting(_one(line), [("notes.txt", 1, column, "1.4", "ExecuTorch", "other", QUANTITY_RULE, line)])


@pytest.mark.parametrize("line", [
    "takes 1.4 M", "takes 1.4 M  cycles", "takes 1.4  M cycles", "on 1.4 Mainline", "see 1.4 street",
    "1.4 xyz", "1.4 Wh-ish", "1.4 Bytes-ish", "release 1.4 supports it",
])
def test_a_word_that_is_no_unit_leaves_it_for_review(line):
    acc = _one(line)
    assert [(o.bucket, o.rule) for o in acc.items] == [("review", "review-mention")]
    assert [f.line for f in acc.flags] == [1]


def test_a_quantity_on_a_line_another_flag_lists_is_still_a_quantity():
    """The quantity is the occurrence itself: a review flag of its line does not pull it into review."""
    line = "ExecuTorch 1.4.0 and 1.3.0 take 1.4 M cycles"
    acc = _one(line, flag_list=[Flag("mixed-mention", "m", path="notes.txt", line=1, blocking=False)])
    assert [(o.version, o.bucket, o.rule) for o in acc.items] == [
        ("1.4.0", "review", "mixed-mention"), ("1.3.0", "review", "mixed-mention"), ("1.4", "other", QUANTITY_RULE)]


def test_is_quantity_reads_at_the_end_of_the_number():
    text = "takes 1.3 M cycles, ExecuTorch 1.3 runs"
    assert is_quantity(text, text.index("1.3") + 3) is True
    assert is_quantity(text, text.rindex("1.3") + 3) is False
    assert is_quantity(text, text.index("1.3")) is False       # at the number's start: the number is no unit


def test_a_quantity_in_prose_is_not_edited_nor_makes_its_sentence_mixed(tmp_path, tags, capsys):
    data = plan(tmp_path, tags, capsys, {"README.md": (
        "# Firmware\n\n"
        "This template uses ExecuTorch 1.4.0.\nThe model needs 1.4 M cycles per inference.\n\n"
        "The ExecuTorch 1.4 MB runtime fits in flash.\n\n"
        "Use ExecuTorch 1.4 and expect 1.4 ms per frame\n")})
    assert edits(data) == [("README.md", 3, "1.4.0", "1.5.1")] + PINS
    assert flags(data, "mixed-mention", "review-mention") == []
    items = [(i["line"], i["version"], i["bucket"], i["rule"]) for i in data["mentions"]["items"]
             if i["path"] == "README.md"]
    assert items == [(3, "1.4.0", "moved", 'prose: "ExecuTorch X" in text names the current ExecuTorch 1.4.0'), (4, "1.4", "other", QUANTITY_RULE),
                     (6, "1.4", "other", QUANTITY_RULE),
                     (8, "1.4", "history", "history-mention"), (8, "1.4", "other", QUANTITY_RULE)]


@pytest.mark.parametrize("line, quantity", [
    ("ExecuTorch is 1.4.0 and its arena holds 1.4.0 KB.", "1.4.0"),       # the old version's digits, with a unit
    ("ExecuTorch 1.4.0 draws 2.0.1 W on this board.", "2.0.1"),           # another three-part number, with a unit
])
def test_a_three_part_quantity_does_not_make_its_sentence_mixed(tmp_path, tags, capsys, line, quantity):
    data = plan(tmp_path, tags, capsys, {"README.md": f"# Firmware\n\n{line}\n"})
    assert edits(data) == [("README.md", 3, "1.4.0", "1.5.1")] + PINS
    assert flags(data, "mixed-mention", "review-mention") == []
    readme = [(i["version"], i["bucket"], i["rule"]) for i in data["mentions"]["items"] if i["path"] == "README.md"]
    assert readme[0][:2] == ("1.4.0", "moved")
    assert readme[1:] == ([("1.4.0", "other", QUANTITY_RULE)] if quantity == "1.4.0" else [])
