"""Prose: history sections inside an ordinary Markdown page, and mixed *sentences*.

A Markdown section whose heading holds a date or names history is history
down to the next heading of the same or a higher level; the mixed-mention
check reads the whole sentence (which may span lines); a version-change
statement ("ExecuTorch 1.4.0 changed ...") is history and a compatibility
claim ("ExecuTorch 1.4.0 requires CMSIS-Toolbox 2.15.0") is mixed.
Fixtures are written here, modelled on public CMSIS ExecuTorch templates such as Arm-Examples/CMSIS-Executorch.
"""

from __future__ import annotations

import pytest

from bot.model import Bump, PinChange
from bot.template.prose import ProseManager, history_sections
from bot.textfile import TextDocument

PM = ProseManager()


def bump() -> Bump:
    """1.4.0 -> 1.5.1 with torch 2.13.0 -> 2.14.0."""
    return Bump("1.4.0", "1.5.1", "1.4.0", "1.5.1", "v1.4.0", "v1.5.1",
                (PinChange("executorch", "1.4.0", "1.5.1", "release tag v1.5.1"),
                 PinChange("torch", "2.13.0", "2.14.0", "torch_pin.py")))


def run(path: str, text: str):
    doc = TextDocument.from_bytes(path, text.encode())
    res = PM.update(doc, bump())
    return doc.apply(list(res.edits)).decode(), res


GUIDE = """\
# Guide

Install ExecuTorch 1.4.0 with torch 2.13.0 for ExecuTorch.

## Updates

### 2026-05: ExecuTorch 1.4.0

- Moved the template to ExecuTorch 1.4.0 and torch 2.13.0.

#### Details of ExecuTorch 1.4.0

Pinned `PyTorch::ExecuTorch@1.4.0`.

### Usage

Use `PyTorch::ExecuTorch@1.4.0`.

## Changelog

- ExecuTorch 1.4.0 pinned with executorch==1.4.0.

```
# not a heading: ExecuTorch 1.4.0 in a code block
```

# Next chapter

See ExecuTorch 1.4.0.
"""

GUIDE_BUMPED = (GUIDE
                .replace("Install ExecuTorch 1.4.0 with torch 2.13.0", "Install ExecuTorch 1.5.1 with torch 2.14.0")
                .replace("Use `PyTorch::ExecuTorch@1.4.0`.", "Use `PyTorch::ExecuTorch@1.5.1`.")
                .replace("See ExecuTorch 1.4.0.", "See ExecuTorch 1.5.1."))


def test_dated_and_named_history_sections_are_never_edited():
    new, res = run("docs/guide.md", GUIDE)
    assert new == GUIDE_BUMPED
    # heading line 7 included; the sub-section (line 11, 13) belongs to the dated section; the code
    # block's "# not a heading" line stays inside "## Changelog"
    assert [(f.code, f.line) for f in res.flags] == [("history-mention", n) for n in (7, 9, 11, 13, 21, 21, 24)]
    assert "history section" in res.flags[0].message and "2026-05" in res.flags[0].message


@pytest.mark.parametrize("heading", ["## 2026-05-14", "## v1.4.0 (2026-05-14)", "## Change log", "## HISTORY",
                                     "## Release notes", "## What changed", "## What's new", "### changes"])
def test_history_heading_forms(heading):
    text = f"# ExecuTorch\n\n{heading}\n\nExecuTorch 1.4.0 here.\n\n## Setup\n\nExecuTorch 1.4.0 there.\n"
    new, res = run("README.md", text)
    assert new == text.replace("1.4.0 there", "1.5.1 there")
    assert [(f.code, f.line) for f in res.flags] == [("history-mention", 5)]


@pytest.mark.parametrize("heading", ["## Setup", "## Exchanges", "## Version 1.4.0", "## Building in 2026"])
def test_ordinary_headings_are_not_history(heading):
    text = f"{heading}\n\nExecuTorch 1.4.0 here.\n"
    new, res = run("README.md", text)
    assert new == text.replace("1.4.0 here", "1.5.1 here") and res.flags == ()


def test_history_sections_spans():
    text = "# A\n## Changelog\nx\n### sub\ny\n## B\n"
    assert history_sections(text) == [(4, text.index("## B"), "Changelog")]


def test_comment_files_have_no_history_sections():
    # a YAML comment "## History" is a comment, not a Markdown heading
    text = "## History\n# ExecuTorch 1.4.0 pack\npacks: []\n"
    new, _ = run("app.csolution.yml", text)
    assert new == text.replace("1.4.0", "1.5.1")


NOTE = """\
# ExecuTorch

> **Note:** ExecuTorch 1.4.0 changed the `.pte` format. Re-export every model
> after upgrading; programs exported with ExecuTorch 1.3.0 do not load.

Install ExecuTorch 1.4.0 first.
"""


def test_version_change_statement_is_history():
    new, res = run("docs/guide.md", NOTE)
    assert new == NOTE.replace("Install ExecuTorch 1.4.0", "Install ExecuTorch 1.5.1")
    assert [(f.code, f.line) for f in res.flags] == [("history-mention", 3), ("history-mention", 4)]
    assert "changed" in res.flags[0].message


@pytest.mark.parametrize("sentence", ["ExecuTorch 1.4.0 has removed the old quantizer.",
                                      "ExecuTorch 1.4.0 also dropped Python 3.9.",
                                      "ExecuTorch 1.4.0 deprecated\nthe old API."])
def test_change_verbs(sentence):
    new, res = run("docs/guide.md", sentence + "\n")
    assert new == sentence + "\n" and [f.code for f in res.flags] == ["history-mention"]


def test_a_change_verb_after_a_preposition_is_not_a_change_statement():
    text = "Install ExecuTorch 1.4.0 with the fixed wheel.\n"
    new, res = run("docs/guide.md", text)
    assert new == text.replace("1.4.0", "1.5.1") and res.flags == ()


def test_mixed_sentence_spans_lines():
    text = ("# ExecuTorch\n\nMove from ExecuTorch 1.4.0 (pinned by\n`PyTorch::ExecuTorch@1.4.0`) to\n"
            "1.5.0 later. Install ExecuTorch 1.4.0 now.\n")
    new, res = run("docs/guide.md", text)
    assert new == text.replace("Install ExecuTorch 1.4.0", "Install ExecuTorch 1.5.1")
    assert [(f.code, f.line) for f in res.flags] == [("mixed-mention", 3)]
    assert "1.5.0" in res.flags[0].message and "sentence" in res.flags[0].message


def test_other_executorch_version_on_the_next_line_of_the_sentence():
    text = "Our pack is ExecuTorch 1.4.0, the successor\nof ExecuTorch 1.3.0.\n"
    new, res = run("docs/guide.md", text)
    assert new == text and [(f.code, f.line) for f in res.flags] == [("mixed-mention", 1)]


@pytest.mark.parametrize("sentence", ["ExecuTorch 1.4.0 requires CMSIS-Toolbox 2.15.0 or newer.",
                                      "ExecuTorch 1.4.0 needs Vela 4.4.1.",
                                      "ExecuTorch 1.4.0 is compatible with\nARM::CMSIS@6.1.0.",
                                      "ExecuTorch 1.4.0 works with Arm Compiler 6.22.0."])
def test_compatibility_claim_is_mixed(sentence):
    new, res = run("docs/guide.md", sentence + "\n")
    assert new == sentence + "\n"
    assert [(f.code, f.line) for f in res.flags] == [("mixed-mention", 1)]


def test_named_tool_version_without_a_claim_still_moves():
    text = "ExecuTorch 1.4.0 is built here; CMSIS-Toolbox 2.15.0 builds the app.\n"
    new, res = run("docs/guide.md", text)
    assert new == text.replace("ExecuTorch 1.4.0", "ExecuTorch 1.5.1") and res.flags == ()


def test_restated_derived_pin_with_requires_still_moves():
    # torch 2.13.0 is a derived pin the bump moves, not another tool's version
    text = "ExecuTorch 1.4.0 requires torch 2.13.0.\n"
    new, res = run("docs/guide.md", text)
    assert new == "ExecuTorch 1.5.1 requires torch 2.14.0.\n" and res.flags == ()


def test_code_block_lines_are_separate_sentences():
    text = "# ExecuTorch\n\n```\npip install executorch==1.4.0\n# upgrade to 3.2.1 later\n```\n"
    new, res = run("README.md", text)
    assert new == text.replace("executorch==1.4.0", "executorch==1.5.1") and res.flags == ()
