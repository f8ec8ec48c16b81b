"""A past move to the current version ("we moved to ExecuTorch 1.4.0") is history, left as written and
listed; an instruction to move ("Upgrade to ExecuTorch 1.4.0") still moves."""

from __future__ import annotations

import pytest

from bot.template.prose.sentences import migration_statement
from mentionkit import PINS, counts, edits, flags, left, plan


@pytest.mark.parametrize("sentence", [
    "In June we moved to ExecuTorch 1.4.0.",
    "The template was upgraded to ExecuTorch v1.4.0 last spring.",
    "We migrated the firmware to ExecuTorch 1.4.0 after the audit.",
    "The demo switched its runtime to\nExecuTorch 1.4.0.",
    "We bumped the template to ExecuTorch 1.4.0 (see the pull request).",
    "The pin was updated to the ExecuTorch release 1.4.0 in May.",
])
def test_a_past_move_to_the_current_version_is_history(tmp_path, tags, capsys, sentence):
    data = plan(tmp_path, tags, capsys, {"docs/notes.md": "# Notes\n\n" + sentence + "\n"})
    line = 3 + sentence.count("\n")
    assert edits(data) == PINS
    assert flags(data) == [("history-mention", "docs/notes.md", line, False)]
    assert left(data) == [("history", "docs/notes.md", line, "1.4.0", "history-mention")]
    assert counts(data) == (2, 1, 0, 0)


@pytest.mark.parametrize("sentence", [
    "Upgrade to ExecuTorch 1.4.0 before you export the model.",
    "Move to ExecuTorch 1.4.0 with the pinned requirements.",
    "This template is pinned to ExecuTorch 1.4.0.",
    "The runtime moved its headers; install ExecuTorch 1.4.0.",
])
def test_an_instruction_or_a_present_statement_still_moves(tmp_path, tags, capsys, sentence):
    data = plan(tmp_path, tags, capsys, {"docs/notes.md": "# Notes\n\n" + sentence + "\n"})
    assert edits(data) == sorted([("docs/notes.md", 3, "1.4.0", "1.5.1")] + PINS)
    assert flags(data) == []
    assert counts(data) == (3, 0, 0, 0)


def test_the_history_item_says_why(tmp_path, tags, capsys):
    data = plan(tmp_path, tags, capsys, {"README.md": "Last year we moved to ExecuTorch 1.4.0.\n"})
    (flag,) = [f for f in data["flags"] if f["code"] == "history-mention"]
    assert flag["message"] == (
        'tells of a past move to ExecuTorch 1.4.0 ("moved / upgraded / migrated / switched / updated to ExecuTorch '
        '1.4.0"); when something happened is history, left as written: Last year we moved to ExecuTorch 1.4.0.')


@pytest.mark.parametrize("before,expected", [
    ("we moved to ExecuTorch ", True),
    ("we moved to ", True),
    ("We MOVED the docs to executorch v", True),
    ("We moved the demo and the docs to ExecuTorch ", False),   # four words
    ("we moved a b c d to ExecuTorch ", False),      # more than three words between the verb and "to"
    ("please move to ExecuTorch ", False),
    ("we moved to ExecuTorch and then ", False),
    ("moved\tto\nthe ExecuTorch release ", True),
    ("", False),
    ("we moved to the PyTorch ExecuTorch version v", True),   # five skipped words before the version
])
def test_migration_statement_reads_the_words_before_the_version(before, expected):
    text = before + "1.4.0 today"
    assert migration_statement(text, len(before)) is expected
