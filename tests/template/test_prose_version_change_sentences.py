"""Sentences the prose manager leaves whole: a version-change statement about the current release
("ExecuTorch 1.4.0 removed ...", in any letter case, with the pip or the pack spelling of a release
candidate) is one history flag; a sentence that also names another ExecuTorch version, even as its
first word, is one mixed-mention flag (rules: bot/template/prose/__init__.py)."""

from __future__ import annotations

from bot.model import Bump, Edit, Flag, PinChange
from bot.template.prose.manager import ProseManager
from bot.textfile import TextDocument
from helpers import SAMPLE_BUMP, assert_flags

M = ProseManager()
#: a release candidate: upstream's version 1.4.0rc2 is the pack's 1.4.0-rc2
RC = Bump("1.4.0rc2", "1.5.1", "1.4.0-rc2", "1.5.1", "v1.4.0-rc2", "v1.5.1",
          (PinChange("executorch", "1.4.0rc2", "1.5.1", "release tag v1.5.1"),))


def update(path: str, text: str, bump=SAMPLE_BUMP):
    return M.update(TextDocument.from_bytes(path, text.encode()), bump)


def change(old: str, verb: str, sentence: str, line: int, path: str = "README.md") -> Flag:
    return Flag("history-mention", f"left as written: this sentence states what ExecuTorch {old} {verb}; a "
                f"version-change statement is history: {sentence}", path=path, line=line, blocking=False)


def test_a_change_statement_of_a_release_candidate_is_history_in_both_spellings():
    text = ("# A\n\nExecuTorch 1.4.0rc2 changed the quantizer API.\n\nExecuTorch 1.4.0-rc2 removed the old flag.\n\n"
            "Install ExecuTorch 1.4.0rc2 and PyTorch::ExecuTorch@1.4.0-rc2.\n")
    result = update("README.md", text, RC)
    assert result.edits == (
        Edit("README.md", 116, 124, "1.4.0rc2", "1.5.1", 7, "prose",
             'prose: "ExecuTorch X" in text names the current ExecuTorch 1.4.0rc2'),
        Edit("README.md", 149, 158, "1.4.0-rc2", "1.5.1", 7, "prose",
             "prose: pack reference PyTorch::ExecuTorch@X names the current ExecuTorch 1.4.0-rc2"),
    )
    assert_flags(result.flags,
                 change("1.4.0rc2", "changed", "ExecuTorch 1.4.0rc2 changed the quantizer API", 3),
                 change("1.4.0rc2", "removed", "ExecuTorch 1.4.0-rc2 removed the old flag", 5))


def test_a_change_statement_is_history_in_any_letter_case():
    result = update("README.md", "# A\n\nexecutorch 1.4.0 removed the old flag.\n\n"
                                 "ExecuTorch Release 1.4.0 removed the old flag.\n")
    assert result.edits == ()
    assert_flags(result.flags,
                 change("1.4.0", "removed", "executorch 1.4.0 removed the old flag", 3),
                 change("1.4.0", "removed", "ExecuTorch Release 1.4.0 removed the old flag", 5))


def mixed(sentence: str, path: str, line: int) -> Flag:
    return Flag("mixed-mention", "left as written: this sentence also names ExecuTorch 1.3.0 (history), so moving it "
                "to 1.5.1 would rewrite history or a claim the bump does not check; edit it by hand if it should "
                f"move: {sentence}", path=path, line=line, blocking=False)


def test_another_version_as_the_first_word_of_a_sentence_makes_it_mixed():
    result = update("README.md", "# A\n\n1.3.0-local and ExecuTorch 1.4.0 both build.\n")
    assert result.edits == ()
    assert_flags(result.flags, mixed("1.3.0-local and ExecuTorch 1.4.0 both build", "README.md", 3))


def test_another_version_as_the_first_word_of_a_comment_makes_it_mixed():
    result = update("setup.py", "# 1.3.0-local and ExecuTorch 1.4.0 both build\nimport os\n")
    assert result.edits == ()
    assert_flags(result.flags, mixed("# 1.3.0-local and ExecuTorch 1.4.0 both build", "setup.py", 1))
