"""A provenance statement ("Since ExecuTorch X", "Starting with X", "As of vX", "Deprecated in ...") says
since when something holds: the prose manager leaves it as written with one whole history flag
(rules: bot/template/prose/__init__.py, the phrase: bot/template/prose/manager.py PROVENANCE)."""

from __future__ import annotations

import pytest

from bot.model import Edit, Flag
from bot.template.prose.manager import ProseManager
from bot.textfile import TextDocument
from helpers import SAMPLE_BUMP, assert_flags

M = ProseManager()
WHY = ('says since when something holds ("Since / Starting with / As of / Deprecated in / Removed in / New in '
       'ExecuTorch 1.4.0"); a provenance statement is history, left as written: ')


def update(path: str, text: str):
    return M.update(TextDocument.from_bytes(path, text.encode()), SAMPLE_BUMP)


@pytest.mark.parametrize("sentence", [
    "Since ExecuTorch 1.4.0 the operators ship in the pack.",
    "Starting with ExecuTorch 1.4.0 the operators ship in the pack.",
    "As of ExecuTorch v1.4.0 the operators ship in the pack.",
    "Deprecated in ExecuTorch 1.4.0: the old quantizer.",
    # five words may stand between the phrase and the version: the, PyTorch, ExecuTorch, version, v
    "Read this: since the PyTorch ExecuTorch version v1.4.0 the operators ship in the pack.",
    "Read this: new in the PyTorch ExecuTorch release v1.4.0, the operators ship in the pack.",
])
def test_a_provenance_statement_is_one_whole_history_flag_and_no_edit(sentence):
    result = update("docs/guide.md", f"# Guide\n\n{sentence}\n")
    assert result.edits == ()
    assert_flags(result.flags, Flag("history-mention", WHY + sentence, path="docs/guide.md", line=3, blocking=False))


def test_a_provenance_phrase_reads_up_to_80_characters_before_the_version():
    # "since" starts exactly 80 characters before the version: provenance; one character further: not
    near = "Since" + " " * 64 + "ExecuTorch 1.4.0 the operators ship.\n"
    far = "Since" + " " * 65 + "ExecuTorch 1.4.0 the operators ship.\n"
    assert near.index("1.4.0") == 80 and far.index("1.4.0") == 81
    result = update("docs/near.txt", near)
    assert result.edits == ()
    assert_flags(result.flags, Flag("history-mention", WHY + near.rstrip("\n"),
                                    path="docs/near.txt", line=1, blocking=False))
    result = update("docs/far.txt", far)
    assert result.edits == (Edit("docs/far.txt", 81, 86, "1.4.0", "1.5.1", 1, "prose",
                                 'prose: "ExecuTorch X" in text names the current ExecuTorch 1.4.0'),)
    assert result.flags == ()


def test_a_word_ending_like_a_provenance_phrase_is_not_one():
    # "with" ends the phrase only after "starting": "Built with ExecuTorch 1.4.0" is a plain statement
    result = update("docs/guide.md", "# Guide\n\nBuilt with ExecuTorch 1.4.0 for the board.\n")
    assert result.edits == (Edit("docs/guide.md", 31, 36, "1.4.0", "1.5.1", 3, "prose",
                                 'prose: "ExecuTorch X" in text names the current ExecuTorch 1.4.0'),)
    assert result.flags == ()


def test_a_mention_after_a_provenance_statement_still_moves():
    result = update("docs/guide.md", "# Guide\n\nSince ExecuTorch 1.4.0 the operators ship.\n\nInstall ExecuTorch 1.4.0.\n")
    assert result.edits == (Edit("docs/guide.md", 72, 77, "1.4.0", "1.5.1", 5, "prose",
                                 'prose: "ExecuTorch X" in text names the current ExecuTorch 1.4.0'),)
    assert_flags(result.flags, Flag("history-mention", WHY + "Since ExecuTorch 1.4.0 the operators ship.",
                                    path="docs/guide.md", line=3, blocking=False))


def test_a_past_move_to_the_current_version_is_one_whole_history_flag():
    result = update("docs/guide.md", "# Guide\n\nWe moved to ExecuTorch 1.4.0 in May.\n")
    assert result.edits == ()
    assert_flags(result.flags, Flag(
        "history-mention", 'tells of a past move to ExecuTorch 1.4.0 ("moved / upgraded / migrated / switched / '
        'updated to ExecuTorch 1.4.0"); when something happened is history, left as written: We moved to ExecuTorch '
        "1.4.0 in May.", path="docs/guide.md", line=3, blocking=False))
