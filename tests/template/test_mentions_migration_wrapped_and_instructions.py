"""A past move to the current version is history wherever hard-wrapped prose breaks its line and whatever
Markdown marks its words; a move the reader is told to make ("make sure you have upgraded to", "must be
updated to") is an instruction about the current version, which moves."""

from __future__ import annotations

import pytest

from bot.template.prose.sentences import migration_statement
from mentionkit import PINS, counts, edits, flags, left, plan


@pytest.mark.parametrize("before, expected", [
    ("we moved to ExecuTorch\n", True),             # a line wrapped after the name
    ("we moved to ExecuTorch\r\n", True),
    ("we moved to the\nExecuTorch ", True),
    ("we moved to PyTorch\nExecuTorch ", True),
    ("we moved to ExecuTorch version\n", True),
    ("we moved to `ExecuTorch` ", True),             # Markdown code and emphasis marks
    ("we moved to **ExecuTorch ", True),
    ("we moved to _ExecuTorch_ v", True),
    ("The template was upgraded to ExecuTorch ", True),
    ("Make sure you have upgraded to ExecuTorch ", False),
    ("Once you have updated to ExecuTorch ", False),
    ("It must be updated to ExecuTorch ", False),
    ("The pin should be bumped to ", False),
    ("After we switched the board to ExecuTorch ", True),
    ("we moved to ExecuTorchX ", False),
])
def test_migration_statement_reads_wrapped_and_marked_words(before, expected):
    assert migration_statement(before + "1.4.0 today", len(before)) is expected


def test_a_wrapped_past_move_is_history(tmp_path, tags, capsys):
    data = plan(tmp_path, tags, capsys, {"docs/notes.md": "# Notes\n\nIn June we moved the demo to ExecuTorch\n1.4.0.\n"})
    assert edits(data) == PINS
    assert flags(data) == [("history-mention", "docs/notes.md", 4, False)]
    assert left(data) == [("history", "docs/notes.md", 4, "1.4.0", "history-mention")]
    assert counts(data) == (2, 1, 0, 0)


def test_an_instruction_in_the_perfect_tense_moves(tmp_path, tags, capsys):
    data = plan(tmp_path, tags, capsys, {"docs/notes.md": "# Notes\n\nMake sure you have upgraded to ExecuTorch 1.4.0.\n"})
    assert edits(data) == sorted([("docs/notes.md", 3, "1.4.0", "1.5.1")] + PINS)
    assert flags(data) == []
    assert counts(data) == (3, 0, 0, 0)
