"""History in prose: history files (CHANGELOG*, NEWS* ...) and Markdown history sections.

A history section is found from the Markdown structure (ATX and setext headings and
fenced code blocks, CommonMark sections 4.2, 4.3 and 4.5; reStructuredText section
titles in ``.rst`` and ``.txt`` docs): a heading holding a
date or a history word opens one, down to the next heading of the same or a
higher level.  Mentions in history are flagged, never edited.
"""

from __future__ import annotations

import fnmatch
import re
from functools import lru_cache
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


#: A setext heading underline (CommonMark 4.3): ``===`` (level 1) or ``---`` (level 2), up to three spaces before.
_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*\r?$")
#: A reStructuredText section adornment: one punctuation character repeated (docutils "Sections").
_ADORN_CHARS = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
_RST_ADORN = re.compile(r"^([!-/:-@\[-`{-~])\1{2,}[ \t]*\r?$")


def markdown_structure(text: str, rst: bool = False) -> tuple[list[tuple[int, int, int, str]], list[int]]:
    """Headings and block breaks of a Markdown (or reStructuredText) text, outside fenced code blocks.

    Returns ``(headings, breaks)``: headings as ``(line_start, line_end, level, heading_text)``
    (ATX and setext headings, CommonMark sections 4.2 and 4.3; with ``rst``, also
    reStructuredText section titles: a title underlined, optionally overlined, with one
    repeated punctuation character, at least as long as the title, levels numbered by
    the order in which each adornment style first appears, docutils "Sections"), and
    the sorted offsets of line starts where a sentence can not continue: a heading,
    a list item, a table row, a fence, and every line of a fenced code block (code
    is read line by line).  ``line_start`` of an underlined heading is its title line
    (its overline, if any); ``line_end`` the end of the underline.
    """
    headings: list[tuple[int, int, int, str]] = []
    breaks: list[int] = [0]
    fence: Optional[str] = None
    pos = 0
    n = len(text)
    prev: Optional[tuple[int, str, bool]] = None   # (start, text, is-paragraph) of the previous line
    prev2: Optional[tuple[int, str, bool]] = None  # the line before it (an rst overline)
    styles: list[tuple[str, bool]] = []            # rst adornment styles in order of first use
    while pos < n:
        nl = text.find("\n", pos)
        end = n if nl == -1 else nl + 1
        line = text[pos:end].rstrip("\n")
        f = _FENCE.match(line)
        paragraph = False
        if fence is not None:
            breaks.extend((pos, end))
            if f and f.group(1)[0] == fence[0] and len(f.group(1)) >= len(fence) and not line[f.end():].strip():
                fence = None
        elif f and not (_RST_ADORN.match(line) and prev and prev[2]
                        and (rst or len(line.rstrip()) == len(prev[1].strip()))):
            # a ~~~ line exactly as long as the paragraph line above underlines it (reStructuredText
            # style in a Markdown file); any other ~~~ / ``` line opens a fenced code block
            fence = f.group(1)
            breaks.extend((pos, end))
        else:
            h = _ATX.match(line)
            title = setext = adorn = None
            first = line.lstrip(" ")[:1]
            if first and first in _ADORN_CHARS and prev and prev[2]:  # an underline can only follow a paragraph
                title = prev[1].strip()
                setext = _SETEXT.match(line) if not rst else None
                adorn = _RST_ADORN.match(line) if rst or (not setext and len(line.rstrip()) == len(title)) else None
            if h:
                headings.append((pos, end, len(h.group(1)), (h.group(2) or "").strip()))
                breaks.extend((pos, end))
            elif title and setext:
                headings.append((prev[0], end, 1 if setext.group(1)[0] == "=" else 2, title))
                breaks.extend((prev[0], pos, end))
            elif title and adorn and len(line.rstrip()) >= len(title):
                over = prev2 is not None and prev2[1].rstrip() == line.rstrip()
                style = (adorn.group(1), over)
                if style not in styles:
                    styles.append(style)
                start = prev2[0] if over else prev[0]
                headings.append((start, end, styles.index(style) + (1 if rst else 3), title))
                breaks.extend((start, prev[0], pos, end))
            elif _BLOCK_START.match(line):
                breaks.append(pos)
                paragraph = bool(line.strip())
            else:
                paragraph = bool(line.strip())
        prev2 = prev
        prev = (pos, line, paragraph)
        pos = end
    return headings, sorted(set(breaks))


def history_sections(text: str, rst: bool = False) -> list[tuple[int, int, str]]:
    """The history sections of a Markdown text, as ``[(start, end, heading_text), ...]`` character spans.

    A section whose ATX heading holds a date (``### 2026-05: ExecuTorch 1.4.0``,
    ``## v1.4.0 (2026-05-14)``) or names history (Changelog, Change log, History,
    Release notes, What changed, What's new, Changes; any case) runs from its
    heading line down to the next heading of the same or a higher level (or the
    end of the text); nested sections are inside it.  Headings inside fenced
    code blocks are code, not headings (CommonMark sections 4.2 and 4.5).  Setext
    headings (a title underlined with ``===`` or ``---``, CommonMark 4.3) count like
    ATX ones; with ``rst`` (``.rst`` and ``.txt`` docs) reStructuredText section
    titles do (:func:`markdown_structure`).
    """
    return list(_history_sections(text, rst))


@lru_cache(maxsize=16)
def _history_sections(text: str, rst: bool) -> tuple[tuple[int, int, str], ...]:
    """:func:`history_sections`, cached per text: the prose manager and the mentions accounting both ask."""
    headings, _ = markdown_structure(text, rst)
    out: list[tuple[int, int, str]] = []
    for i, (start, _end, level, title) in enumerate(headings):
        if out and start < out[-1][1]:
            continue  # nested in a history section already listed
        if not _HISTORY_HEADING.search(title):
            continue
        stop = next((h[0] for h in headings[i + 1:] if h[2] <= level), len(text))
        out.append((start, stop, title))
    return tuple(out)


def section_at(sections: list[tuple[int, int, str]], pos: int) -> Optional[str]:
    """The heading text of the history section holding ``pos`` (:func:`history_sections`), or None."""
    for a, b, title in sections:
        if a <= pos < b:
            return title
    return None
