"""Which edits and flags belong to a sentence: a mention starting right where a sentence ends (the next
Markdown line) is not part of it; each sentence is decided on its own; a line that is both edited and
history becomes one mixed-mention item while other lines keep their history flags
(rules: bot/template/prose/__init__.py; bot/template/prose/manager.py _leave_mixed_sentences)."""

from __future__ import annotations

from bot.model import Edit, Flag
from bot.template.prose.manager import ProseManager
from bot.textfile import TextDocument
from helpers import SAMPLE_BUMP, assert_flags

M = ProseManager()
P = "README.md"
MOVES = 'prose: "ExecuTorch X" in text names the current ExecuTorch 1.4.0'


def update(text: str):
    return M.update(TextDocument.from_bytes(P, text.encode()), SAMPLE_BUMP)


def local_history(version: str, line_text: str, line: int) -> Flag:
    return Flag("history-mention", f"names ExecuTorch {version} (local pack build version X-local), not the current "
                f"1.4.0; left as history: {line_text}", path=P, line=line, blocking=False)


def test_another_version_opening_the_next_line_does_not_make_a_heading_mixed():
    # the heading's sentence ends where line 2 starts, which is where 1.3.0 starts
    text = "# ExecuTorch 1.4.0 guide\n1.3.0-local was built before.\n"
    assert text.index("1.3.0") == text.index("\n") + 1
    result = update(text)
    assert result.edits == (Edit(P, 13, 18, "1.4.0", "1.5.1", 1, "prose", MOVES),)
    assert_flags(result.flags, local_history("1.3.0", "1.3.0-local was built before.", 2))


def test_a_history_flag_opening_the_line_after_a_mixed_heading_stays():
    result = update("# ExecuTorch 1.4.0 or ExecuTorch 1.3.0\n1.2.0-local was built before.\n")
    assert result.edits == ()
    assert_flags(
        result.flags,
        Flag("mixed-mention", "left as written: this sentence also names ExecuTorch 1.3.0 (history), so moving it to "
             "1.5.1 would rewrite history or a claim the bump does not check; edit it by hand if it should move: "
             "# ExecuTorch 1.4.0 or ExecuTorch 1.3.0", path=P, line=1, blocking=False),
        local_history("1.2.0", "1.2.0-local was built before.", 2))


def test_a_change_statement_lists_every_other_version_it_names():
    result = update("# A\n\nExecuTorch 1.4.0 changed the API; ExecuTorch 1.3.0 and ExecuTorch 1.2.0 did not.\n")
    assert result.edits == ()
    assert_flags(result.flags, Flag(
        "history-mention", "left as written: this sentence states what ExecuTorch 1.4.0 changed (it also names "
        "ExecuTorch 1.3.0, 1.2.0); a version-change statement is history: ExecuTorch 1.4.0 changed the API; "
        "ExecuTorch 1.3.0 and ExecuTorch 1.2.0 did not", path=P, line=3, blocking=False))


def test_every_sentence_that_may_move_keeps_its_edits():
    result = update("# A\n\nUse ExecuTorch 1.4.0. Then install ExecuTorch 1.4.0 again.\n")
    assert result.edits == (Edit(P, 20, 25, "1.4.0", "1.5.1", 3, "prose", MOVES),
                            Edit(P, 51, 56, "1.4.0", "1.5.1", 3, "prose", MOVES))
    assert result.flags == ()


def test_a_line_both_edited_and_history_is_one_item_and_other_history_lines_stay():
    result = update("# A\n\nUse ExecuTorch 1.4.0. ExecuTorch 1.2.0 was the first.\n\nExecuTorch 1.1.0 was older.\n")
    assert result.edits == ()
    assert_flags(
        result.flags,
        Flag("mixed-mention", "left as written: this line names the current ExecuTorch 1.4.0 and history (another "
             "ExecuTorch version, or a history statement); a line is never both edited and history: edit it by hand "
             "if part of it should move: Use ExecuTorch 1.4.0. ExecuTorch 1.2.0 was the first.",
             path=P, line=3, blocking=False),
        Flag("history-mention", 'names ExecuTorch 1.1.0 ("ExecuTorch X" in text), not the current 1.4.0; left as '
             "history: ExecuTorch 1.1.0 was older.", path=P, line=5, blocking=False))


def test_a_sentence_in_a_code_comment_ends_with_the_comment():
    # two trailing comments separated by code: the second one's other version is not in the first's sentence
    path = "setup.py"
    result = M.update(TextDocument.from_bytes(path, b"x = 1  # Uses ExecuTorch 1.4.0\ny = 2  # and ExecuTorch 1.3.0 too.\n"),
                      SAMPLE_BUMP)
    assert result.edits == (Edit(path, 25, 30, "1.4.0", "1.5.1", 1, "prose", MOVES),)
    assert_flags(result.flags, Flag(
        "history-mention", 'names ExecuTorch 1.3.0 ("ExecuTorch X" in text), not the current 1.4.0; left as history: '
        "y = 2  # and ExecuTorch 1.3.0 too.", path=path, line=2, blocking=False))
