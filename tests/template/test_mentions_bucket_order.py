"""Which bucket an occurrence lands in, rule by rule and in rule order (docs/mentions.md): an edit that covers
it moves it; else an ``ignore-mentions:`` entry, a flag of another thing's content, a flag listing the line for
review, a history flag, a rule naming another thing, a range constraint, a measurement, a history file or
section of a prose file; else review, with one ``review-mention`` flag per line.  Called directly; every item and
flag compared whole."""

from __future__ import annotations

import pytest

from bot.engine.mentions import IgnoreEntry, account
from bot.model import Edit, Finding, Flag
from helpers import minor_bump
from mentionkit import assert_accounting, template

REVIEW = ("names {s} {v} and the bot cannot tell whether it is this template's version, history or another "
          "thing's version; left as written: edit it by hand, or list it under ignore-mentions: in "
          ".github/executorch-pack-bot.yml with a reason: {t}")


def review_flag(path, line, text, subject="ExecuTorch", version="1.4.0"):
    return Flag("review-mention", REVIEW.format(s=subject, v=version, t=text), path=path, line=line, blocking=False)


def edit(text: str, path: str, nth: int = 0, old: str = "1.4.0", why: str = "the pack pin", kind: str = "pack"):
    """An edit of the ``nth`` occurrence of ``old`` in ``text``."""
    s = -1
    for _ in range(nth + 1):
        s = text.index(old, s + 1)
    return Edit(path, s, s + len(old), old, "1.5.1", text.count("\n", 0, s) + 1, kind, why)


# -- moved: an edit covers the occurrence --------------------------------------------------------------------

def test_an_edit_moves_the_occurrence_it_covers_and_only_that_one():
    text = "a 1.4.0 b 1.4.0\nc 1.4.0\n"
    e1, e3 = edit(text, "f.txt", 0), edit(text, "f.txt", 2, why="", kind="lock")
    acc = account(template(files={"f.txt": text}), minor_bump(), [e3, e1], [])
    assert_accounting(acc, [
        ("f.txt", 1, 3, "1.4.0", "ExecuTorch", "moved", "the pack pin", "a 1.4.0 b 1.4.0"),
        ("f.txt", 1, 11, "1.4.0", "ExecuTorch", "review", "review-mention", "a 1.4.0 b 1.4.0"),
        ("f.txt", 2, 3, "1.4.0", "ExecuTorch", "moved", "lock", "c 1.4.0"),  # no reason: the edit's kind
    ], flags=[review_flag("f.txt", 1, "a 1.4.0 b 1.4.0")])


@pytest.mark.parametrize("start, end, moved", [
    (2, 7, True),    # exactly the version
    (0, 10, True),   # a wider span
    (6, 7, True),    # its last character
    (2, 3, True),    # its first character
    (7, 10, False),  # starts where it ends
    (0, 2, False),   # ends where it starts
])
def test_an_edit_moves_an_occurrence_when_their_spans_overlap(start, end, moved):
    text = "x 1.4.0 y\n"
    e = Edit("f.txt", start, end, text[start:end], "z", 1, "pack", "the pin")
    acc = account(template(files={"f.txt": text}), minor_bump(), [e], [])
    if moved:
        assert_accounting(acc, [("f.txt", 1, 3, "1.4.0", "ExecuTorch", "moved", "the pin", "x 1.4.0 y")])
    else:
        assert_accounting(acc, [("f.txt", 1, 3, "1.4.0", "ExecuTorch", "review", "review-mention", "x 1.4.0 y")],
                          flags=[review_flag("f.txt", 1, "x 1.4.0 y")])


def test_an_edit_of_another_file_moves_nothing_here():
    text = "x 1.4.0 y\n"
    acc = account(template(files={"f.txt": text, "g.txt": text}), minor_bump(), [edit(text, "g.txt")], [])
    assert_accounting(acc, [("f.txt", 1, 3, "1.4.0", "ExecuTorch", "review", "review-mention", "x 1.4.0 y"),
                            ("g.txt", 1, 3, "1.4.0", "ExecuTorch", "moved", "the pack pin", "x 1.4.0 y")],
                      flags=[review_flag("f.txt", 1, "x 1.4.0 y")])


# -- the rule order for what no edit covers ------------------------------------------------------------------

LINE = "numpy==1.4.0 measured"  # another package and a measurement: the rule comes first


def _flagged(*codes, ignore=(), findings=(), line=LINE, path="f.txt", flag_line=1):
    flags = [Flag(c, "m", path=path, line=flag_line, blocking=False) for c in codes]
    return account(template(files={path: line + "\n"}, findings=findings), minor_bump(), [], flags, tuple(ignore))


@pytest.mark.parametrize("codes, bucket, rule", [
    (("submodule-not-edited", "mixed-mention", "history-mention"), "other", "submodule-not-edited"),
    (("history-mention", "mixed-mention"), "review", "mixed-mention"),
    (("history-mention",), "history", "history-mention"),
    (("leftover",), "review", "leftover"),
    (("url-requirement",), "review", "url-requirement"),
    (("python-lock",), "review", "python-lock"),
    (("compiled-requirements",), "review", "compiled-requirements"),
    (("conda-pin",), "review", "conda-pin"),
    (("restatement-partial",), "review", "restatement-partial"),
    (("direct-reference",), "review", "direct-reference"),
    (("range-pin",), "review", "range-pin"),
    (("unmanaged-pin",), "review", "unmanaged-pin"),
    (("script-pin-drift",), "review", "script-pin-drift"),
    (("nightly-pin",), "review", "nightly-pin"),
    (("pin-was-different",), "review", "pin-was-different"),
    (("companion-pin",), "review", "companion-pin"),
    (("unresolved-pin",), "review", "unresolved-pin"),
    (("some-other-code",), "other", "another package (numpy)"),
    ((), "other", "another package (numpy)"),
])
def test_a_flag_on_the_line_decides_before_the_rules(codes, bucket, rule):
    assert_accounting(_flagged(*codes), [("f.txt", 1, 8, "1.4.0", "ExecuTorch", bucket, rule, LINE)])


def test_a_flag_of_another_line_or_file_or_without_a_line_does_not_count():
    for acc in (_flagged("mixed-mention", flag_line=2), _flagged("mixed-mention", flag_line=None)):
        assert_accounting(acc, [("f.txt", 1, 8, "1.4.0", "ExecuTorch", "other", "another package (numpy)", LINE)])
    flags = [Flag("mixed-mention", "m", path="g.txt", line=1), Flag("mixed-mention", "m", path=None, line=1)]
    acc = account(template(files={"f.txt": LINE + "\n"}), minor_bump(), [], flags)
    assert_accounting(acc, [("f.txt", 1, 8, "1.4.0", "ExecuTorch", "other", "another package (numpy)", LINE)])


def test_an_ignore_entry_comes_before_every_flag():
    entry = IgnoreEntry("f.txt", 1, "the zoo's version", config_line=3)
    acc = _flagged("submodule-not-edited", "mixed-mention", ignore=[entry])
    assert_accounting(acc, [("f.txt", 1, 8, "1.4.0", "ExecuTorch", "other", "ignore-mentions: the zoo's version",
                             LINE)])


@pytest.mark.parametrize("entry, ignored", [
    (IgnoreEntry("f.txt", 1, "r"), True),
    (IgnoreEntry("f.txt", 2, "r"), False),
    (IgnoreEntry("g.txt", 1, "r"), False),
    (IgnoreEntry("f.tx", 1, "r"), False),
    (IgnoreEntry("*.txt", None, "r"), True),
    (IgnoreEntry("*", None, "r"), True),
    (IgnoreEntry("F.TXT", None, "r"), False),  # globs are case-sensitive
    (IgnoreEntry("f.txt", None, "r"), True),
    (IgnoreEntry("g*", None, "r"), False),
])
def test_an_ignore_entry_matches_its_line_or_its_glob(entry, ignored):
    acc = account(template(files={"f.txt": "label 1.4.0\n"}), minor_bump(), [], [], (entry,))
    if ignored:
        assert_accounting(acc, [("f.txt", 1, 7, "1.4.0", "ExecuTorch", "other", "ignore-mentions: r", "label 1.4.0")])
    else:
        assert_accounting(acc, [("f.txt", 1, 7, "1.4.0", "ExecuTorch", "review", "review-mention", "label 1.4.0")],
                          flags=[review_flag("f.txt", 1, "label 1.4.0")])


def test_the_second_of_two_ignore_entries_is_read_when_the_first_does_not_match():
    entries = (IgnoreEntry("g.txt", 1, "first"), IgnoreEntry("f.txt", 1, "second"), IgnoreEntry("*", None, "third"))
    acc = account(template(files={"f.txt": "label 1.4.0\n"}), minor_bump(), [], [], entries)
    assert_accounting(acc, [("f.txt", 1, 7, "1.4.0", "ExecuTorch", "other", "ignore-mentions: second", "label 1.4.0")])


RANGE = "a range constraint the bot reads and checks against the pin (not a pin)"


@pytest.mark.parametrize("line, findings, bucket, rule", [
    # a requirement that is not exact on the line: a range constraint (after the other rules)
    ("executorch>=1.4.0 measured", [Finding("f.txt", 1, "requirement", "executorch", "1.4.0", exact=False)],
     "other", RANGE),
    ("executorch>=1.4.0", [Finding("f.txt", 1, "unmanaged-requirement", "executorch", "1.4.0", exact=False)],
     "other", RANGE),
    # an exact one, or one of another line or file, or another kind: not a range
    ("x 1.4.0", [Finding("f.txt", 1, "requirement", "torch", "1.4.0", exact=True)], "review", "review-mention"),
    ("x 1.4.0", [Finding("f.txt", 2, "requirement", "torch", "1.4.0", exact=False)], "review", "review-mention"),
    ("x 1.4.0", [Finding("g.txt", 1, "requirement", "torch", "1.4.0", exact=False)], "review", "review-mention"),
    ("x 1.4.0", [Finding("f.txt", 1, "pack-pin", "ARM::X", "1.4.0", exact=False)], "review", "review-mention"),
    # a measurement or test claim
    ("ran at 30 fps on 1.4.0", [], "history", "a measurement or test claim"),
    ("tested with 1.4.0", [], "history", "a measurement or test claim"),
    # nothing: review
    ("build 1.4.0", [], "review", "review-mention"),
])
def test_ranges_and_measurements_come_after_the_rules(line, findings, bucket, rule):
    acc = account(template(files={"f.txt": line + "\n"}, findings=findings), minor_bump(), [], [])
    col = line.index("1.4.0") + 1
    flags = [review_flag("f.txt", 1, line)] if rule == "review-mention" else []
    assert_accounting(acc, [("f.txt", 1, col, "1.4.0", "ExecuTorch", bucket, rule, line)], flags=flags)


# -- history files and sections of prose files ---------------------------------------------------------------

def test_a_history_file_of_the_prose_manager_is_history_but_a_rule_or_flag_still_wins():
    text = "Moved to 1.4.0.\nnumpy==1.4.0\nlabel 1.4.0\n"
    acc = account(template(prose={"docs/CHANGELOG.md": text}), minor_bump(), [],
                  [Flag("mixed-mention", "m", path="docs/CHANGELOG.md", line=3, blocking=False)])
    assert_accounting(acc, [
        ("docs/CHANGELOG.md", 1, 10, "1.4.0", "ExecuTorch", "history", "in a history file", "Moved to 1.4.0."),
        ("docs/CHANGELOG.md", 2, 8, "1.4.0", "ExecuTorch", "other", "another package (numpy)", "numpy==1.4.0"),
        ("docs/CHANGELOG.md", 3, 7, "1.4.0", "ExecuTorch", "review", "mixed-mention", "label 1.4.0"),
    ])


def test_a_history_file_name_outside_the_prose_manager_is_not_history():
    text = "Moved to 1.4.0.\n"
    acc = account(template(files={"CHANGELOG.md": text}, others={"HISTORY.md": text}), minor_bump(), [], [])
    assert_accounting(acc, [
        ("CHANGELOG.md", 1, 10, "1.4.0", "ExecuTorch", "review", "review-mention", "Moved to 1.4.0."),
        ("HISTORY.md", 1, 10, "1.4.0", "ExecuTorch", "review", "review-mention", "Moved to 1.4.0."),
    ], flags=[review_flag("CHANGELOG.md", 1, "Moved to 1.4.0."), review_flag("HISTORY.md", 1, "Moved to 1.4.0.")])


MD = "# Guide\n\nlabel 1.4.0\n\n## Changelog\n\nlabel 1.4.0\n\n## Usage\n\nlabel 1.4.0\n"


def test_a_history_section_of_a_markdown_doc_is_history_up_to_the_next_heading():
    acc = account(template(prose={"README.md": MD}), minor_bump(), [], [])
    assert_accounting(acc, [
        ("README.md", 3, 7, "1.4.0", "ExecuTorch", "review", "review-mention", "label 1.4.0"),
        ("README.md", 7, 7, "1.4.0", "ExecuTorch", "history", 'in the history section "Changelog"', "label 1.4.0"),
        ("README.md", 11, 7, "1.4.0", "ExecuTorch", "review", "review-mention", "label 1.4.0"),
    ], flags=[review_flag("README.md", 3, "label 1.4.0"), review_flag("README.md", 11, "label 1.4.0")])


def test_a_history_section_is_read_only_in_a_prose_file():
    acc = account(template(files={"README.md": MD}), minor_bump(), [], [])
    assert_accounting(acc, [("README.md", n, 7, "1.4.0", "ExecuTorch", "review", "review-mention", "label 1.4.0")
                            for n in (3, 7, 11)],
                      flags=[review_flag("README.md", n, "label 1.4.0") for n in (3, 7, 11)])


RST = "Guide\n=====\n\nlabel 1.4.0\n\nChangelog\n^^^^^^^^^^^^^^\n\nlabel 1.4.0\n"


@pytest.mark.parametrize("path, history", [("docs/guide.rst", True), ("docs/guide.txt", True),
                                           ("docs/guide.md", False)])
def test_restructuredtext_titles_count_in_rst_and_txt_docs(path, history):
    """A title underlined longer than itself with ``^`` is a reStructuredText section title, not Markdown."""
    acc = account(template(prose={path: RST}), minor_bump(), [], [])
    last = ("history", 'in the history section "Changelog"') if history else ("review", "review-mention")
    assert_accounting(acc, [(path, 4, 7, "1.4.0", "ExecuTorch", "review", "review-mention", "label 1.4.0"),
                            (path, 9, 7, "1.4.0", "ExecuTorch", *last, "label 1.4.0")],
                      flags=[review_flag(path, n, "label 1.4.0") for n in ((4,) if history else (4, 9))])


def test_a_history_file_is_history_from_its_first_character():
    acc = account(template(prose={"CHANGELOG.md": "1.4.0 moved\n"}), minor_bump(), [], [])
    assert_accounting(acc, [("CHANGELOG.md", 1, 1, "1.4.0", "ExecuTorch", "history", "in a history file",
                             "1.4.0 moved")])


def test_a_history_section_ends_where_the_next_heading_of_its_level_starts():
    text = "## Changelog\n\n1.3.0 notes\n\n1.4.0 notes\n-----------\n\nlabel\n"
    acc = account(template(prose={"README.md": text}), minor_bump(), [], [])
    assert_accounting(acc, [
        ("README.md", 3, 1, "1.3.0", "ExecuTorch", "history", 'in the history section "Changelog"', "1.3.0 notes"),
        ("README.md", 5, 1, "1.4.0", "ExecuTorch", "review", "review-mention", "1.4.0 notes"),
    ], flags=[review_flag("README.md", 5, "1.4.0 notes")])


# -- review flags: one per line ------------------------------------------------------------------------------

def test_two_review_occurrences_on_one_line_make_one_flag_naming_the_first():
    text = "label 1.4.0 or 1.3.0\nlabel 1.3.0\n"
    acc = account(template(files={"f.txt": text}), minor_bump(), [], [])
    assert_accounting(acc, [
        ("f.txt", 1, 7, "1.4.0", "ExecuTorch", "review", "review-mention", "label 1.4.0 or 1.3.0"),
        ("f.txt", 1, 16, "1.3.0", "ExecuTorch", "review", "review-mention", "label 1.4.0 or 1.3.0"),
        ("f.txt", 2, 7, "1.3.0", "ExecuTorch", "review", "review-mention", "label 1.3.0"),
    ], flags=[review_flag("f.txt", 1, "label 1.4.0 or 1.3.0"),
              review_flag("f.txt", 2, "label 1.3.0", version="1.3.0")])


def test_a_review_item_explained_by_another_flag_gets_no_second_flag():
    acc = _flagged("leftover", line="label 1.4.0")
    assert_accounting(acc, [("f.txt", 1, 7, "1.4.0", "ExecuTorch", "review", "leftover", "label 1.4.0")])
