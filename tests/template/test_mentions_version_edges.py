"""What counts as one occurrence of a tracked version (docs/mentions.md, "What is tracked"): the whole version,
with any text around it but no digit, dot-digit, pre-release, dev, post or local part that makes it another
version; earlier releases of the same major; the position (line, column) and text of each item at the edges of
a file and of a line."""

from __future__ import annotations

import pytest

from bot.engine.mentions import account
from bot.model import Bump, Edit, PinChange
from helpers import minor_bump, patch_bump
from mentionkit import rows, template


def _found(text: str, bump: Bump = None, **kw) -> list[tuple]:
    """``(line, column, version, subject)`` of every item of ``text`` in one other file."""
    acc = account(template(others={"f.txt": text}), bump or minor_bump(), [], [], **kw)
    return [(o.line, o.column, o.version, o.subject) for o in acc.items]


@pytest.mark.parametrize("text", [
    "1.4.0.1", "1.4.01", "11.4.0", "2026.1.4.0", "1.4.0rc1", "1.4.0-rc1", "1.4.0.rc1", "1.4.0rc.1", "1.4.0-rc.1",
    "1.4.0a1", "1.4.0b1", "1.4.0c1", "1.4.0alpha1", "1.4.0beta2", "1.4.0pre3", "1.4.0.a1", "1.4.0-alpha.1",
    "1.4.0.dev1", "1.4.0dev1", "1.4.0.post1", "1.4.0post1", "1.4.0+local", "1.4.0+1", "1.4.0-1", "x21.4.0",
    "0.1.4.0", "1.4.00",
])
def test_a_longer_version_is_not_an_occurrence(text):
    assert _found(f"see {text} here\n") == []


@pytest.mark.parametrize("text, column", [
    ("v1.4.0", 6), ("1.4.0-local", 5), ("1.4.0.tar.gz", 5), ("executorch-1.4.0-cp311-none.whl", 16),
    ("PyTorch.ExecuTorch.1.4.0.pack", 24), ("x_1.4.0", 7), ("1.4.0rc", 5), ("1.4.0.dev", 5), ("1.4.0-rc", 5),
    ("1.4.0+", 5), ("1.4.0-x", 5), ("(1.4.0)", 6), ("1.4.0.", 5), ("release/1.4", 13), ("a.1.4.0", 7),
])
def test_text_around_the_version_does_not_hide_it(text, column):
    version = "1.4" if text == "release/1.4" else "1.4.0"
    assert _found(f"see {text} here\n") == [(1, column, version, "ExecuTorch")]


def test_the_longest_tracked_form_is_the_occurrence():
    assert _found("1.4.0 and 1.4 and 1.4.5\n") == [(1, 1, "1.4.0", "ExecuTorch"), (1, 11, "1.4", "ExecuTorch")]


def test_the_pairs_given_are_searched_longest_first():
    """``tracked`` replaces the default pairs; a form that extends another (``1.4.0-local``, a pack build label)
    is one occurrence of the longer form, under its own subject."""
    acc = account(template(others={"f.txt": "a 1.4.0-local b 1.4.0 c 2.13.0\n"}), minor_bump(), [], [],
                  tracked=[("ExecuTorch", "1.4.0"), ("the local build", "1.4.0-local")])
    assert [(o.column, o.version, o.subject) for o in acc.items] == [(3, "1.4.0-local", "the local build"),
                                                                     (17, "1.4.0", "ExecuTorch")]
    assert acc.tracked == (("ExecuTorch", "1.4.0"), ("the local build", "1.4.0-local"),
                           ("ExecuTorch", "earlier than 1.4.0 (1.x.y)"))


def test_major_minor_is_tracked_only_when_the_bump_changes_it():
    assert _found("release/1.5 and 1.5.0\n", patch_bump()) == [(1, 17, "1.5.0", "ExecuTorch")]


def test_earlier_releases_of_the_same_major_are_tracked():
    text = "1.3.0 1.0.0 1.3.99 1.4.1 1.10.0 0.9.0 2.0.0 1.4.0\n"
    assert _found(text) == [(1, 1, "1.3.0", "ExecuTorch"), (1, 7, "1.0.0", "ExecuTorch"),
                            (1, 13, "1.3.99", "ExecuTorch"), (1, 45, "1.4.0", "ExecuTorch")]


def test_earlier_than_sets_the_bound_of_earlier_releases():
    text = "1.3.0 1.4.1 1.5.0\n"
    assert _found(text, earlier_than="1.5.0") == [(1, 1, "1.3.0", "ExecuTorch"), (1, 7, "1.4.1", "ExecuTorch")]
    acc = account(template(others={"f.txt": text}), minor_bump(), [], [], earlier_than="1.5.0")
    assert acc.tracked[-1] == ("ExecuTorch", "earlier than 1.5.0 (1.x.y)")
    assert acc.version == "1.4.0"
    assert account(template(), minor_bump(), [], [], version="9.9.9").version == "9.9.9"


def test_earlier_than_a_pre_release_is_below_its_release():
    assert _found("1.4.0 1.3.9 1.5.0\n", earlier_than="1.5.0rc1") == [
        (1, 1, "1.4.0", "ExecuTorch"), (1, 7, "1.3.9", "ExecuTorch")]
    acc = account(template(), minor_bump(), [], [], earlier_than="1.5.0rc1")
    assert acc.tracked[-1] == ("ExecuTorch", "earlier than 1.5.0 (1.x.y)")


def test_earlier_than_compares_the_first_three_parts_of_the_bound():
    assert _found("1.4.9 1.5.0 1.5.1\n", earlier_than="1.5.0.1") == [(1, 1, "1.4.9", "ExecuTorch")]


def test_no_earlier_releases_without_a_valid_bound():
    acc = account(template(others={"f.txt": "1.3.0 1.4.0\n"}), minor_bump(), [], [], earlier_than="main")
    assert [(o.line, o.column, o.version) for o in acc.items] == [(1, 7, "1.4.0")]
    assert acc.tracked == (("ExecuTorch", "1.4.0"), ("ExecuTorch", "1.4"), ("torch", "2.13.0"),
                           ("torchao", "0.18.0"), ("flatbuffers", "24.3.25"))


def test_a_bump_of_another_major_tracks_that_majors_earlier_releases():
    bump = Bump("2.1.0", "2.2.0", "2.1.0", "2.2.0", "v2.1.0", "v2.2.0",
                (PinChange("executorch", "2.1.0", "2.2.0", "tag"),))
    assert _found("1.3.0 2.0.5 2.1.0 3.0.0\n", bump) == [(1, 7, "2.0.5", "ExecuTorch"),
                                                        (1, 13, "2.1.0", "ExecuTorch")]


# -- positions -----------------------------------------------------------------------------------------------

def test_positions_at_the_edges_of_the_file_and_of_lines():
    text = "1.4.0\n\n  x 1.4.0  \r\nlast 1.4.0"
    assert _found(text) == [(1, 1, "1.4.0", "ExecuTorch"), (3, 5, "1.4.0", "ExecuTorch"),
                            (4, 6, "1.4.0", "ExecuTorch")]
    acc = account(template(others={"f.txt": text}), minor_bump(), [], [])
    assert [o.text for o in acc.items] == ["1.4.0", "x 1.4.0", "last 1.4.0"]


def test_a_moved_item_has_the_same_position_and_text_as_a_left_one():
    text = "1.4.0\n\n  x 1.4.0  \r\nlast 1.4.0"
    starts = [0, 11, 23]
    edits = [Edit("f.txt", s, s + 5, "1.4.0", "1.5.1", 0, "pack", "why") for s in starts]
    acc = account(template(files={"f.txt": text}), minor_bump(), edits, [])
    assert rows(acc) == [("f.txt", 1, 1, "1.4.0", "ExecuTorch", "moved", "why", "1.4.0"),
                         ("f.txt", 3, 5, "1.4.0", "ExecuTorch", "moved", "why", "x 1.4.0"),
                         ("f.txt", 4, 6, "1.4.0", "ExecuTorch", "moved", "why", "last 1.4.0")]


@pytest.mark.parametrize("width, clipped", [(159, False), (160, False), (161, True), (200, True)])
def test_the_text_of_an_item_is_clipped_at_160_characters(width, clipped):
    line = "1.4.0 " + "y" * (width - 6)
    want = line[:157] + "..." if clipped else line
    left = account(template(others={"f.txt": f"  {line}  \n"}), minor_bump(), [], [])
    moved = account(template(files={"f.txt": f"  {line}  \n"}), minor_bump(),
                    [Edit("f.txt", 2, 7, "1.4.0", "1.5.1", 1, "pack", "why")], [])
    assert [o.text for o in left.items] == [want]
    assert [o.text for o in moved.items] == [want]
    assert left.flags[0].message.endswith(": " + want)


def test_items_are_sorted_by_path_line_and_column_across_files():
    acc = account(template(files={"b.txt": "1.4.0 1.3.0\n"}, others={"a.txt": "x\n1.4.0\n", "c.txt": "1.4.0\n"}),
                  minor_bump(), [Edit("b.txt", 0, 5, "1.4.0", "1.5.1", 1, "pack", "why")], [])
    assert [(o.path, o.line, o.column, o.bucket) for o in acc.items] == [
        ("a.txt", 2, 1, "review"), ("b.txt", 1, 1, "moved"), ("b.txt", 1, 7, "review"), ("c.txt", 1, 1, "review")]
    assert [(o.path, o.line) for o in acc.left] == [("a.txt", 2), ("b.txt", 1), ("c.txt", 1)]
    assert [(f.path, f.line) for f in acc.flags] == [("b.txt", 1), ("a.txt", 2), ("c.txt", 1)]
