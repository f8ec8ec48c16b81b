"""History sections by file kind: in ``.rst`` and ``.txt`` docs a reStructuredText section title
(an adornment line at least as long as the title, any adornment character) opens one; in Markdown
such a line is not an underline; in the comments of other files a "# 2025-05-01" line is not a
heading (rules: bot/template/prose/history.py; bot/template/prose/manager.py)."""

from __future__ import annotations

import pytest

from bot.model import Edit, Flag
from bot.template.prose.manager import ProseManager
from bot.textfile import TextDocument
from helpers import SAMPLE_BUMP, assert_flags

M = ProseManager()
MOVES = 'prose: "ExecuTorch X" in text names the current ExecuTorch 1.4.0'
DOC = ("Guide\n=====\n\nInstall ExecuTorch 1.4.0.\n\n"
       "2025-05-01\n~~~~~~~~~~~~\n\nSet up for ExecuTorch 1.4.0 there.\n")


def update(path: str, text: str):
    return M.update(TextDocument.from_bytes(path, text.encode()), SAMPLE_BUMP)


@pytest.mark.parametrize("path", ["docs/guide.rst", "docs/guide.txt"])
def test_a_dated_rst_section_title_with_a_longer_adornment_opens_a_history_section(path):
    result = update(path, DOC)
    assert result.edits == (Edit(path, 32, 37, "1.4.0", "1.5.1", 4, "prose", MOVES),)
    assert_flags(result.flags, Flag(
        "history-mention", 'names ExecuTorch 1.4.0 in the history section "2025-05-01" (a dated or changelog '
        "heading); history sections are never edited, left as written: Set up for ExecuTorch 1.4.0 there.",
        path=path, line=9, blocking=False))


def test_in_markdown_a_longer_tilde_line_is_no_underline_and_both_mentions_move():
    result = update("docs/guide.md", DOC)
    assert result.edits == (Edit("docs/guide.md", 32, 37, "1.4.0", "1.5.1", 4, "prose", MOVES),
                            Edit("docs/guide.md", 87, 92, "1.4.0", "1.5.1", 9, "prose", MOVES))
    assert result.flags == ()


def test_a_dated_comment_line_in_yaml_is_not_a_history_heading():
    # read as Markdown, "# 2025-05-01" would open a history section holding the next line
    result = update("notes.yml", "# 2025-05-01\nkey: 1  # set up for ExecuTorch 1.4.0\n")
    assert result.edits == (Edit("notes.yml", 45, 50, "1.4.0", "1.5.1", 2, "prose", MOVES),)
    assert result.flags == ()


TITLED = "Notes\n=====\n\nExecuTorch 1.4.0 setup\n" + "^" * 26 + "\nExecuTorch 1.3.0 notes follow.\n"


def test_an_rst_section_title_ends_its_sentence():
    result = update("docs/notes.rst", TITLED)
    assert result.edits == (Edit("docs/notes.rst", 24, 29, "1.4.0", "1.5.1", 4, "prose", MOVES),)
    assert_flags(result.flags, Flag(
        "history-mention", 'names ExecuTorch 1.3.0 ("ExecuTorch X" in text), not the current 1.4.0; left as '
        "history: ExecuTorch 1.3.0 notes follow.", path="docs/notes.rst", line=6, blocking=False))


def test_in_markdown_the_same_lines_are_one_mixed_sentence():
    result = update("docs/notes.md", TITLED)
    assert result.edits == ()
    assert_flags(result.flags, Flag(
        "mixed-mention", "left as written: this sentence also names ExecuTorch 1.3.0 (history), so moving it to 1.5.1 "
        "would rewrite history or a claim the bump does not check; edit it by hand if it should move: ExecuTorch "
        "1.4.0 setup " + "^" * 26 + " ExecuTorch 1.3.0 notes follow", path="docs/notes.md", line=4, blocking=False))
