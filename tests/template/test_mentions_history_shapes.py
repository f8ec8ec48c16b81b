"""History is never rewritten: provenance sentences, setext and reStructuredText history sections,
another pack's range on an edited line, and a line that is never both edited and history."""

from __future__ import annotations

import pytest

from mentionkit import PINS, counts, edits, flags, left, plan


def test_since_executorch_is_history(tmp_path, tags, capsys):
    data = plan(tmp_path, tags, capsys, {
        "README.md": "Since ExecuTorch 1.4.0, the Cortex-M operators ship inside the pack.\n"})
    assert edits(data) == PINS
    assert flags(data) == [("history-mention", "README.md", 1, False)]
    assert left(data) == [("history", "README.md", 1, "1.4.0", "history-mention")]
    assert counts(data) == (2, 1, 0, 0)


@pytest.mark.parametrize("sentence", [
    "Starting with ExecuTorch 1.4.0 the pack carries the Cortex-M operators.",
    "As of ExecuTorch v1.4.0, the operators are registered at build time.",
    "The portable add kernel was deprecated in ExecuTorch 1.4.0.",
    "Removed in ExecuTorch 1.4.0: the old kernel registration.",
    "The EthosU backend component is new in ExecuTorch 1.4.0.",
    "The selective build was introduced in\nExecuTorch 1.4.0.",
])
def test_other_provenance_statements_are_history(tmp_path, tags, capsys, sentence):
    data = plan(tmp_path, tags, capsys, {"docs/guide.md": "# Guide\n\n" + sentence + "\n"})
    line = 3 + sentence.count("\n")
    assert edits(data) == PINS
    assert flags(data) == [("history-mention", "docs/guide.md", line, False)]
    assert counts(data) == (2, 1, 0, 0)


def test_a_plain_statement_beside_a_provenance_one_still_moves(tmp_path, tags, capsys):
    data = plan(tmp_path, tags, capsys, {
        "README.md": "Install ExecuTorch 1.4.0.\n\nSince ExecuTorch 1.4.0, the operators ship in the pack.\n"})
    assert edits(data) == [("README.md", 1, "1.4.0", "1.5.1")] + PINS
    assert left(data) == [("history", "README.md", 3, "1.4.0", "history-mention")]


RST = """Demo template
=============

Install ExecuTorch 1.4.0 first.

Changelog
---------

2026-05-14
~~~~~~~~~~

- Moved the template to ExecuTorch 1.4.0.

Usage
-----

Build with ExecuTorch 1.4.0.
"""


def test_a_restructuredtext_changelog_section_is_history(tmp_path, tags, capsys):
    data = plan(tmp_path, tags, capsys, {"README.rst": RST})
    assert edits(data) == [("README.rst", 4, "1.4.0", "1.5.1"), ("README.rst", 17, "1.4.0", "1.5.1")] + PINS
    assert flags(data) == [("history-mention", "README.rst", 12, False)]
    assert left(data) == [("history", "README.rst", 12, "1.4.0", "history-mention")]


def test_a_setext_changelog_section_in_markdown_is_history(tmp_path, tags, capsys):
    md = RST.replace("Demo template\n=============", "Demo\n====")
    data = plan(tmp_path, tags, capsys, {"README.md": md})
    assert edits(data) == [("README.md", 4, "1.4.0", "1.5.1"), ("README.md", 17, "1.4.0", "1.5.1")] + PINS
    assert left(data) == [("history", "README.md", 12, "1.4.0", "history-mention")]


def test_an_overlined_rst_title_and_nested_levels(tmp_path, tags, capsys):
    text = ("==========\n Project\n==========\n\nUse ExecuTorch 1.4.0.\n\n"
            "History\n=======\n\nv1.4.0\n------\n\n* Adopted ExecuTorch 1.4.0.\n\n"
            "Older\n^^^^^\n\n* ExecuTorch 1.4.0 was tested.\n\n"
            "Build\n=====\n\nBuild ExecuTorch 1.4.0 from source.\n")
    data = plan(tmp_path, tags, capsys, {"docs/notes.rst": text})
    assert edits(data) == [PINS[0], ("docs/notes.rst", 5, "1.4.0", "1.5.1"), ("docs/notes.rst", 23, "1.4.0", "1.5.1"),
                           PINS[1]]
    assert left(data) == [("history", "docs/notes.rst", 10, "1.4.0", 'in the history section "History"'),
                          ("history", "docs/notes.rst", 13, "1.4.0", "history-mention"),
                          ("history", "docs/notes.rst", 18, "1.4.0", "history-mention")]


def test_a_txt_doc_is_read_as_prose_with_its_history_section(tmp_path, tags, capsys):
    text = ("Notes\n=====\n\nUse ExecuTorch 1.4.0.\n\nHistory\n-------\n\n* 2026-05: ExecuTorch 1.4.0 adopted.\n\n"
            "Build\n-----\n\nExecuTorch 1.4.0 is built by CI.\n")
    data = plan(tmp_path, tags, capsys, {"notes.txt": text})
    assert edits(data) == [("app.csolution.yml", 3, "1.4.0", "1.5.1"), ("notes.txt", 4, "1.4.0", "1.5.1"),
                           ("notes.txt", 14, "1.4.0", "1.5.1"), ("requirements.txt", 1, "1.4.0", "1.5.1")]
    assert left(data) == [("history", "notes.txt", 9, "1.4.0", "history-mention")]


def test_a_tilde_fence_is_still_code_in_markdown(tmp_path, tags, capsys):
    text = "# Build\n\nRun this for ExecuTorch:\n~~~sh\npip install executorch==1.4.0\n~~~\n"
    data = plan(tmp_path, tags, capsys, {"README.md": text})
    assert edits(data) == [("README.md", 5, "1.4.0", "1.5.1")] + PINS


def test_another_packs_range_on_an_edited_line_is_not_a_mention(tmp_path, tags, capsys):
    line = "The csolution pins `PyTorch::ExecuTorch@1.4.0`. Other packs may use ranges such as `@~1.2.3`.\n"
    data = plan(tmp_path, tags, capsys, {"README.md": line})
    assert edits(data) == [("README.md", 1, "1.4.0", "1.5.1")] + PINS
    assert flags(data) == []
    # 1.2.3 could be an earlier ExecuTorch release: it is accounted for, with the rule that says it is not
    assert left(data) == [("other", "README.md", 1, "1.2.3",
                           "a pack version range (@^X, @~X, @>=X) that does not name ExecuTorch")]
    assert counts(data) == (3, 0, 1, 0)


@pytest.mark.parametrize("text", [
    "ExecuTorch templates pin `PyTorch::ExecuTorch@1.4.0`; a board pack may say `@^2.2.0` or `@>=1.0.0`.\n",
    "ExecuTorch: use `PyTorch::ExecuTorch@1.4.0` beside `Vendor::Pack@~1.2.3`.\n",
])
def test_other_range_shapes_on_an_edited_line(tmp_path, tags, capsys, text):
    data = plan(tmp_path, tags, capsys, {"README.md": text})
    assert edits(data) == [("README.md", 1, "1.4.0", "1.5.1")] + PINS
    assert flags(data, "history-mention", "mixed-mention") == []


def test_a_line_is_never_both_edited_and_history(tmp_path, tags, capsys):
    text = "# Guide\n\nInstall ExecuTorch 1.4.0. ExecuTorch 1.3.0 had no Cortex-M operators.\n"
    data = plan(tmp_path, tags, capsys, {"docs/guide.md": text})
    assert edits(data) == [PINS[0], PINS[1]]
    assert flags(data) == [("mixed-mention", "docs/guide.md", 3, False)]
    assert left(data) == [("review", "docs/guide.md", 3, "1.4.0", "mixed-mention"),
                          ("review", "docs/guide.md", 3, "1.3.0", "mixed-mention")]


def test_a_measurement_line_naming_the_current_version_is_history(tmp_path, tags, capsys):
    text = "Install ExecuTorch 1.4.0 | measured with ExecuTorch 1.3.0 in 2025\n"
    data = plan(tmp_path, tags, capsys, {"docs/guide.md": text})
    assert edits(data) == PINS
    assert left(data) == [("history", "docs/guide.md", 1, "1.4.0", "history-mention"),
                          ("history", "docs/guide.md", 1, "1.3.0", "history-mention")]
