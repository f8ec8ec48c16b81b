"""What the prose manager reports for each mention, asserted whole: every edit's span, text, line,
kind and reason, and every flag's code, message, path, line and blocking (the rules:
bot/template/prose/__init__.py)."""

from __future__ import annotations

from bot.model import Edit, Finding, Flag
from bot.template.prose.manager import ProseManager
from bot.textfile import TextDocument
from helpers import SAMPLE_BUMP, assert_flags

M = ProseManager()


def update(path: str, text: str):
    return M.update(TextDocument.from_bytes(path, text.encode()), SAMPLE_BUMP)


GUIDE = ("# Demo\n\n"
         "This template uses ExecuTorch 1.4.0.\n\n"
         "On ExecuTorch 1.4.0 inference takes 12 ms.\n\n"
         "ExecuTorch 1.2.0 was the first.\n\n"
         "ExecuTorch 1.4.0 and ExecuTorch 1.3.0 both work.\n\n"
         "Checkout release/1.4 of ExecuTorch; release/1.3 of ExecuTorch is old.\n\n"
         "ExecuTorch 1.4 boards take 3 ms.\n")


def test_each_kind_of_mention_in_a_guide_gives_a_whole_edit_or_flag():
    result = update("docs/guide.md", GUIDE)
    assert result.edits == (Edit("docs/guide.md", 38, 43, "1.4.0", "1.5.1", 3, "prose",
                                 'prose: "ExecuTorch X" in text names the current ExecuTorch 1.4.0'),)
    p = "docs/guide.md"
    assert_flags(
        result.flags,
        Flag("history-mention", "reads as a measurement and names the current ExecuTorch 1.4.0; measurements are "
             "history, left as written: On ExecuTorch 1.4.0 inference takes 12 ms.", path=p, line=5, blocking=False),
        Flag("history-mention", 'names ExecuTorch 1.2.0 ("ExecuTorch X" in text), not the current 1.4.0; left as '
             "history: ExecuTorch 1.2.0 was the first.", path=p, line=7, blocking=False),
        Flag("mixed-mention", "left as written: this sentence also names ExecuTorch 1.3.0 (history), so moving it to "
             "1.5.1 would rewrite history or a claim the bump does not check; edit it by hand if it should move: "
             "ExecuTorch 1.4.0 and ExecuTorch 1.3.0 both work", path=p, line=9, blocking=False),
        Flag("mixed-mention", "left as written: this sentence also names ExecuTorch 1.3 (history), so moving it to "
             "1.5.1 would rewrite history or a claim the bump does not check; edit it by hand if it should move: "
             "Checkout release/1.4 of ExecuTorch; release/1.3 of ExecuTorch is old", path=p, line=11, blocking=False),
        Flag("history-mention", "reads as a measurement and names the current ExecuTorch 1.4; measurements are "
             "history, left as written: ExecuTorch 1.4 boards take 3 ms.", path=p, line=13, blocking=False),
    )


def test_a_version_change_statement_is_one_whole_history_flag():
    result = update("docs/guide.md", "# Demo\n\nExecuTorch 1.4.0 changed the quantizer API; ExecuTorch 1.3.0 did "
                                     "not.\n\nExecuTorch 1.4.0 removed the old flag.\n")
    assert result.edits == ()
    assert_flags(
        result.flags,
        Flag("history-mention", "left as written: this sentence states what ExecuTorch 1.4.0 changed (it also names "
             "ExecuTorch 1.3.0); a version-change statement is history: ExecuTorch 1.4.0 changed the quantizer API; "
             "ExecuTorch 1.3.0 did not", path="docs/guide.md", line=3, blocking=False),
        Flag("history-mention", "left as written: this sentence states what ExecuTorch 1.4.0 removed; a "
             "version-change statement is history: ExecuTorch 1.4.0 removed the old flag",
             path="docs/guide.md", line=5, blocking=False),
    )


def test_a_mention_in_a_history_file_is_a_whole_flag_and_no_edit():
    result = update("CHANGELOG.md", "# Changes\n\nMoved to ExecuTorch 1.4.0 in May.\n")
    assert result.edits == ()
    assert_flags(result.flags, Flag(
        "history-mention", "names ExecuTorch 1.4.0 in a history file (CHANGELOG*, CHANGES*, HISTORY*, NEWS*, "
        "RELEASE*NOTES*); history files are never edited, left as written: Moved to ExecuTorch 1.4.0 in May.",
        path="CHANGELOG.md", line=3, blocking=False))


def test_a_mention_in_a_dated_section_is_a_whole_flag_and_no_edit():
    result = update("README.md", "# Demo\n\nThis template uses ExecuTorch 1.4.0 with torch==2.13.0.\n\n"
                                 "## 2025-05-01\n\nUpgraded to ExecuTorch 1.4.0.\n")
    assert result.edits == (
        Edit("README.md", 38, 43, "1.4.0", "1.5.1", 3, "prose",
             'prose: "ExecuTorch X" in text names the current ExecuTorch 1.4.0'),
        Edit("README.md", 56, 62, "2.13.0", "2.14.0", 3, "prose",
             "prose: torch== restates the torch pin of ExecuTorch 1.4.0"),
    )
    assert_flags(result.flags, Flag(
        "history-mention", 'names ExecuTorch 1.4.0 in the history section "2025-05-01" (a dated or changelog '
        "heading); history sections are never edited, left as written: Upgraded to ExecuTorch 1.4.0.",
        path="README.md", line=7, blocking=False))


def test_a_comment_mention_in_a_build_file_is_a_whole_edit():
    result = update("CMakeLists.txt", "# Build\n# ExecuTorch 1.4.0\nset(ET_VERSION 1.4.0)\n")
    assert result == type(result)((Edit("CMakeLists.txt", 21, 26, "1.4.0", "1.5.1", 2, "prose",
                                        'prose: "ExecuTorch X" in text names the current ExecuTorch 1.4.0'),), ())


def test_extract_gives_whole_findings():
    doc = TextDocument.from_bytes("docs/guide.md", b"# Demo\n\nUses ExecuTorch 1.4.0 and PyTorch::ExecuTorch@^1.4.0.\n")
    assert M.extract(doc) == [
        Finding("docs/guide.md", 3, "prose", "ExecuTorch", "1.4.0", True, "ExecuTorch 1.4.0"),
        Finding("docs/guide.md", 3, "prose", "PyTorch::ExecuTorch@", "1.4.0", False, "PyTorch::ExecuTorch@^1.4.0"),
    ]


def test_a_mixed_sentence_in_a_comment_ends_with_the_comment():
    result = update("build.py", "# ExecuTorch 1.4.0 and ExecuTorch 1.3.0 work\nimport os\nprint(os.sep)\n")
    assert result.edits == ()
    assert_flags(result.flags, Flag(
        "mixed-mention", "left as written: this sentence also names ExecuTorch 1.3.0 (history), so moving it to "
        "1.5.1 would rewrite history or a claim the bump does not check; edit it by hand if it should move: "
        "# ExecuTorch 1.4.0 and ExecuTorch 1.3.0 work", path="build.py", line=1, blocking=False))


def test_a_comment_sentence_followed_by_code_naming_another_version_is_edited():
    result = update("run.sh", "#!/bin/sh\necho hi # for ExecuTorch 1.4.0 and\necho ExecuTorch 1.3.0 done\n")
    assert result.edits == (Edit("run.sh", 35, 40, "1.4.0", "1.5.1", 2, "prose",
                                 'prose: "ExecuTorch X" in text names the current ExecuTorch 1.4.0'),)
    assert result.flags == ()


def restated(path: str, text: str, bump=SAMPLE_BUMP):
    result = M.update(TextDocument.from_bytes(path, text.encode()), bump)
    return [(e.start, e.end, e.old, e.new, e.line, e.why) for e in result.edits], result.flags


def test_restated_pins_in_the_sentence_of_executorch_move_with_the_reason_of_their_form():
    edits, flags = restated("docs/a.md", "# A\n\nExecuTorch 1.4.0 targets torch 2.13.0 and torchao 0.18.0.\n\n"
                                         "Tested with torch==2.13.0.\n")
    assert edits == [
        (16, 21, "1.4.0", "1.5.1", 3, 'prose: "ExecuTorch X" in text names the current ExecuTorch 1.4.0'),
        (36, 42, "2.13.0", "2.14.0", 3, 'prose: "torch Y" restates the torch pin of ExecuTorch 1.4.0'),
        (55, 61, "0.18.0", "0.19.0", 3, 'prose: "torchao Y" restates the torchao pin of ExecuTorch 1.4.0'),
    ]
    assert flags == ()


def test_a_restated_pin_is_found_when_an_earlier_package_is_not_named():
    edits, _ = restated("docs/b.md", "# B\n\nThis uses ExecuTorch 1.4.0 with torchao 0.18.0.\n")
    assert edits == [
        (26, 31, "1.4.0", "1.5.1", 3, 'prose: "ExecuTorch X" in text names the current ExecuTorch 1.4.0'),
        (45, 51, "0.18.0", "0.19.0", 3, 'prose: "torchao Y" restates the torchao pin of ExecuTorch 1.4.0'),
    ]


def test_a_pip_pin_on_the_line_of_executorch_moves_and_a_measurement_stays():
    edits, flags = restated("docs/c.md", "# C\n\nInstall ExecuTorch:\n\n    pip install executorch==1.4.0 torch==2.13.0\n\n"
                                         "With ExecuTorch 1.4.0, torch 2.13.0 runs in 5 ms.\n")
    assert edits == [
        (54, 59, "1.4.0", "1.5.1", 5, "prose: pip pin executorch==X names the current ExecuTorch 1.4.0"),
        (67, 73, "2.13.0", "2.14.0", 5, "prose: torch== restates the torch pin of ExecuTorch 1.4.0"),
    ]
    assert [(f.code, f.line) for f in flags] == [("history-mention", 7)]


def test_a_pin_the_bump_does_not_move_is_not_restated():
    from bot.model import Bump, PinChange
    bump = Bump("1.4.0", "1.5.1", "1.4.0", "1.5.1", "v1.4.0", "v1.5.1", (
        PinChange("executorch", "1.4.0", "1.5.1", "release tag v1.5.1"),
        PinChange("torch", "2.13.0", "2.13.0", "torch_pin.py"),
        PinChange("torchao", None, "0.19.0", "install_requirements.py")))
    edits, flags = restated("docs/a.md", "# A\n\nExecuTorch 1.4.0 targets torch 2.13.0 and torchao 0.18.0.\n", bump)
    # torchao has no old value to restate: the sentence is left whole rather than half-edited
    assert edits == []
    assert_flags(flags, Flag(
        "restatement-partial", "left as written: this sentence restates several pins and torchao 0.18.0 cannot move "
        "with the others (no new value for it in this bump), so none is moved (a half-edited sentence is worse than "
        "none); edit it by hand: ExecuTorch 1.4.0 targets torch 2.13.0 and torchao 0.18.0",
        path="docs/a.md", line=3, blocking=False))


def test_a_dated_heading_in_a_python_comment_is_not_a_history_section():
    edits, flags = restated("setup.py", "# ## 2025-05-01\n# Runs on ExecuTorch 1.4.0.\nimport os\n")
    assert edits == [(37, 42, "1.4.0", "1.5.1", 2, 'prose: "ExecuTorch X" in text names the current ExecuTorch 1.4.0')]
    assert flags == ()


def test_a_pip_pin_moves_on_a_line_naming_executorch_a_word_pin_only_in_its_sentence():
    edits, flags = restated("docs/d.md", "# D\n\nUses ExecuTorch 1.4.0.\n\nPins: torch==2.13.0. See executorch docs.\n\n"
                                         "Pins: torch 2.13.0. See ExecuTorch docs.\n")
    assert edits == [
        (21, 26, "1.4.0", "1.5.1", 3, 'prose: "ExecuTorch X" in text names the current ExecuTorch 1.4.0'),
        (42, 48, "2.13.0", "2.14.0", 5, "prose: torch== restates the torch pin of ExecuTorch 1.4.0"),
    ]
    assert flags == ()


def test_a_restated_pin_after_a_measurement_line_still_moves():
    edits, flags = restated("docs/e.md", "# E\n\nOn ExecuTorch 1.4.0, torch 2.13.0 runs in 5 ms.\n"
                                         "ExecuTorch 1.4.0 targets torch 2.13.0.\n")
    assert edits == [
        (64, 69, "1.4.0", "1.5.1", 4, 'prose: "ExecuTorch X" in text names the current ExecuTorch 1.4.0'),
        (84, 90, "2.13.0", "2.14.0", 4, 'prose: "torch Y" restates the torch pin of ExecuTorch 1.4.0'),
    ]
    assert [(f.code, f.line) for f in flags] == [("history-mention", 3)]
