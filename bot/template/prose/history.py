"""History in prose: history files (CHANGELOG*, NEWS* ...) and Markdown history sections.

A history section is found from the Markdown structure (ATX headings and
fenced code blocks, CommonMark sections 4.2 and 4.5): a heading holding a
date or a history word opens one, down to the next heading of the same or a
higher level.  Mentions in history are flagged, never edited.
"""

from __future__ import annotations

import fnmatch
import re
from typing import Optional

#: Base-name patterns (lower case) of files that record history: never edited, mentions listed.
HISTORY_FILES = ("changelog*", "changes*", "history*", "news*", "release*notes*")


def is_history_file(relpath: str) -> bool:
    """True when the base name says the file is history (:data:`HISTORY_FILES`, any case, any extension)."""
    base = relpath.rsplit("/", 1)[-1].lower()
    return any(fnmatch.fnmatchcase(base, p) for p in HISTORY_FILES)


#: An ATX heading line (CommonMark): up to three spaces, 1-6 ``#``, then text; closing ``#``s dropped.
_ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*\r?$")
#: A fence line opening or closing a fenced code block (CommonMark): ``` or ~~~, three or more.
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
#: A line that starts a new Markdown block without a blank line: list item, table row, block HTML.
_BLOCK_START = re.compile(r"^[ \t>]*(?:[-*+][ \t]|\d{1,9}[.)][ \t]|\||<)")
#: A heading that says its section is history: a date (2026-05, 2026-05-14) or a history word.
_HISTORY_HEADING = re.compile(
    r"(?<!\d)(?:19|20)\d\d-(?:0[1-9]|1[0-2])(?:-\d\d)?(?!\d)"
    r"|\b(?:change[ \t]?log|history|release[ \t]+notes|what[ \t]+changed|what['’]?s[ \t]+new|changes)\b", re.I)


def markdown_structure(text: str) -> tuple[list[tuple[int, int, int, str]], list[int]]:
    """Headings and block breaks of a Markdown text, outside fenced code blocks.

    Returns ``(headings, breaks)``: headings as ``(line_start, line_end, level, heading_text)``
    (ATX headings only, CommonMark section 4.2; setext headings are not read), and
    the sorted offsets of line starts where a sentence can not continue: a heading,
    a list item, a table row, a fence, and every line of a fenced code block (code
    is read line by line).
    """
    headings: list[tuple[int, int, int, str]] = []
    breaks: list[int] = [0]
    fence: Optional[str] = None
    pos = 0
    n = len(text)
    while pos < n:
        nl = text.find("\n", pos)
        end = n if nl == -1 else nl + 1
        line = text[pos:end].rstrip("\n")
        f = _FENCE.match(line)
        if fence is not None:
            breaks.extend((pos, end))
            if f and f.group(1)[0] == fence[0] and len(f.group(1)) >= len(fence) and not line[f.end():].strip():
                fence = None
        elif f:
            fence = f.group(1)
            breaks.extend((pos, end))
        else:
            h = _ATX.match(line)
            if h:
                headings.append((pos, end, len(h.group(1)), (h.group(2) or "").strip()))
                breaks.extend((pos, end))
            elif _BLOCK_START.match(line):
                breaks.append(pos)
        pos = end
    return headings, sorted(set(breaks))


def history_sections(text: str) -> list[tuple[int, int, str]]:
    """The history sections of a Markdown text, as ``[(start, end, heading_text), ...]`` character spans.

    A section whose ATX heading holds a date (``### 2026-05: ExecuTorch 1.4.0``,
    ``## v1.4.0 (2026-05-14)``) or names history (Changelog, Change log, History,
    Release notes, What changed, What's new, Changes; any case) runs from its
    heading line down to the next heading of the same or a higher level (or the
    end of the text); nested sections are inside it.  Headings inside fenced
    code blocks are code, not headings (CommonMark sections 4.2 and 4.5).
    """
    headings, _ = markdown_structure(text)
    out: list[tuple[int, int, str]] = []
    for i, (start, _end, level, title) in enumerate(headings):
        if out and start < out[-1][1]:
            continue  # nested in a history section already listed
        if not _HISTORY_HEADING.search(title):
            continue
        stop = next((h[0] for h in headings[i + 1:] if h[2] <= level), len(text))
        out.append((start, stop, title))
    return out


def section_at(sections: list[tuple[int, int, str]], pos: int) -> Optional[str]:
    """The heading text of the history section holding ``pos`` (:func:`history_sections`), or None."""
    for a, b, title in sections:
        if a <= pos < b:
            return title
    return None
