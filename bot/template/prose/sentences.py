"""Sentence rules of the prose manager: paragraphs, sentences, measurements, and mixed sentences.

A sentence ends at ``.``, ``!`` or ``?`` before white space, or at a blank
line; Markdown block starts and comment-region ends cut it too.  A sentence
that is a version-change statement (:func:`change_verb`) is history; one that
mixes the current version with something the bump does not move
(:func:`mixed_reason`) is left as written.  The rules: :mod:`bot.template.prose`.
"""

from __future__ import annotations

import bisect
import re
from typing import Optional

from bot.lazyre import lazy
from bot.model import Edit
from bot.template.prose.regions import Span, line_end
from bot.textfile import TextDocument

EXECUTORCH = re.compile(r"executorch", re.I)
_BLANK_LINE = re.compile(r"\n[ \t]*\r?(?=\n)")
MEASURE = lazy(
    r"(?<![\w.])\d+(?:\.\d+)?[ \t]?(?:(?:[kKMG]|thousand|million|billion)[ \t]?)?"
    r"(?:fps|ms|µs|us|ns|cycles|[kKMG]i?B|%|[kMG]Hz|MACs?|inf/s|inferences/s)(?!\w)"
    r"|\b(?:measured|measurements?|benchmark(?:s|ed)?)\b"
    # a test claim ("tested with ... torch==2.13.0") is history too: nobody ran the new versions
    r"|\b(?:tested|verified|validated|qualified)\s+(?:with|on|against)\b", re.I)
#: The unit that makes the number right before it a quantity, not a version: "1.3 M cycles", "1.5 MB",
#: "2.0 ms", "1.4 GHz", "1.2x", "0.5 %".  At most one space or tab before the unit, and before and
#: after a multiplier (k, K, M, G, T, thousand, million, billion); the unit ends the word ("1.4 MBytes"
#: and "1.4.0 xyz" are not quantities).  Matched at the end of the number (``QUANTITY_UNIT.match(text, end)``).
QUANTITY_UNIT = lazy(
    r"[ \t]?(?:(?:[kKMGT]|thousand|million|billion)[ \t]?)?"
    r"(?:%|x(?!\w)|[kKMGT]?i?B(?!\w)|bytes?(?!\w)|[kMG]?Hz(?!\w)|[mµun]?s(?!\w)|sec(?:onds?)?(?!\w)"
    r"|fps(?!\w)|cycles?(?!\w)|MACs?(?!\w)|[GMT]?OPS(?!\w)|ops(?!\w)|inf/s|inferences/s|m?W(?!\w)|m?V(?!\w)"
    r"|mA(?!\w)|[cm]m(?!\w)|instructions?(?!\w)|param(?:eter)?s(?!\w)|tokens?(?!\w))")


def is_quantity(text: str, end: int) -> bool:
    """True when the number ending at ``end`` in ``text`` is followed by a unit (:data:`QUANTITY_UNIT`).

    ``("takes 1.3 M cycles", 10)`` -> True; ``("ExecuTorch 1.4 runs", 14)`` -> False.
    A quantity is never a version mention: docs/mentions.md, "The buckets".
    """
    return QUANTITY_UNIT.match(text, end) is not None


_SENTENCE_END = re.compile(r"[.!?](?=\s)|\n[ \t]*\r?\n")


#: A three-part version written whole (``2.14.1``, ``1.5.0``, ``3.1.5-rc.1``); not ``5.1``, not inside ``1.2.3.4``.
_THREE_PART = re.compile(r"(?<![\w.])v?\d+\.\d+\.\d+(?:-?rc\.?\d+|a\d+|b\d+|\.dev\d+|\.post\d+)?(?![\w]|\.\d)")


#: Past-tense change verbs: "ExecuTorch 1.4.0 changed the .pte format" is a version-change statement (history).
_CHANGE_VERBS = frozenset({"changed", "introduced", "added", "removed", "dropped", "deprecated", "fixed", "broke"})
#: Words after which a change verb no longer has the ExecuTorch mention as its subject.
_NOT_SUBJECT = frozenset({"with", "the", "a", "an", "to", "for", "of", "in", "on", "and", "or", "from", "by", "via",
                          "using", "use", "into", "at", "as", "than", "but", "which", "that", "if", "when"})
_WORD = re.compile(r"[A-Za-z][A-Za-z'’-]*")
#: A past move to a version, ending right before it: "we moved to ExecuTorch X", "the template was upgraded to vX",
#: "switched the firmware to ExecuTorch X".  It tells when something happened (history), like a provenance statement.
_MIGRATION = lazy(
    r"\b(?:moved|upgraded|migrated|switched|ported|bumped|updated)(?:[ \t\r\n]+[\w-]{1,30}){0,3}?[ \t\r\n]+to"
    # the words between "to" and the version, each after white space (a line break in wrapped prose) or
    # Markdown emphasis and code marks: "to **ExecuTorch 1.4.0**", "to `ExecuTorch` 1.4.0"
    r"(?:[\s*_`]+(?:the|PyTorch|ExecuTorch|version|release))*[\s*_`]+v?\Z", re.I)
_MIGRATION_SKIP = frozenset({"executorch", "pytorch", "version", "release", "the", "v", ""})
_MARKS = "*_`"
#: Words right before the verb that make the move an instruction or a requirement, not a past event:
#: "Make sure you have upgraded to ExecuTorch 1.4.0", "It must be updated to ExecuTorch 1.4.0".
_NOT_PAST = frozenset({"you", "you've", "you’ve", "your", "must", "should", "shall", "need", "needs", "please",
                       "ensure", "sure", "be", "can", "will"})


def migration_statement(text: str, pos: int) -> bool:
    """True when the words before ``pos`` state a past move to the version at ``pos`` ("we moved to ExecuTorch ").

    The verb is past tense (``moved``, ``upgraded``, ``migrated``, ``switched``, ``ported``,
    ``bumped``, ``updated``), at most three words before ``to``: "Upgrade to ExecuTorch 1.4.0"
    (an instruction) is not one, nor is a verb after one of :data:`_NOT_PAST` within three words
    ("make sure you have upgraded to", "must be updated to").  Line breaks and Markdown marks
    (``**``, `````, ``_``) may stand between the words.  A word check first; the pattern runs on
    at most 120 characters before ``pos``.
    """
    words = text[max(0, pos - 80):pos].split()
    while words and words[-1].strip(_MARKS).lower() in _MIGRATION_SKIP:
        words.pop()
    if not words or words[-1].strip(_MARKS).lower() != "to":
        return False
    m = _MIGRATION.search(text, max(0, pos - 120), pos)
    if m is None:
        return False
    before = text[max(0, m.start() - 40):m.start()].split()[-3:]
    return not any(w.strip(_MARKS + ",;:()").lower() in _NOT_PAST for w in before)


#: A compatibility claim: with a named X.Y.Z of another tool it makes a sentence mixed.
_COMPAT = re.compile(r"\b(?:requires?|required|needs?|needed|supports?|supported|compatible|compatibility"
                     r"|works?[ \t]+with)\b", re.I)


def clip_line(line_text: str) -> str:
    """The line, stripped and cut to 160 characters, for a flag message."""
    snippet = line_text.strip()
    return snippet if len(snippet) <= 160 else snippet[:157] + "..."


class Context:
    """Lazy per-document helpers: the paragraph rule, the sentence rule and line text."""

    def __init__(self, text: str):
        self.text = text
        self._blanks: Optional[list[int]] = None

    def paragraph_mentions_executorch(self, pos: int) -> bool:
        """True when the block holding ``pos`` or the block before it mentions ExecuTorch."""
        if self._blanks is None:
            self._blanks = [m.start() for m in _BLANK_LINE.finditer(self.text)]
        i = bisect.bisect_left(self._blanks, pos)
        lo = self._blanks[i - 2] if i >= 2 else 0
        hi = self._blanks[i] if i < len(self._blanks) else len(self.text)
        return EXECUTORCH.search(self.text, lo, hi) is not None

    def sentence_mentions_executorch(self, start: int, end: int) -> bool:
        """True when the sentence holding ``text[start:end]`` mentions ExecuTorch."""
        lo, hi = self.sentence_span(start, end)
        return EXECUTORCH.search(self.text, lo, hi) is not None

    def sentence_span(self, start: int, end: int, breaks: Optional[list[int]] = None,
                      clip: Optional[Span] = None) -> Span:
        """The ``(lo, hi)`` character span of the sentence holding ``text[start:end]``.

        A sentence ends at ``.``, ``!`` or ``?`` before white space, or at a blank
        line; it may span lines.  ``breaks`` (sorted line-start offsets, from
        :func:`markdown_structure`) and ``clip`` (a comment region) cut it further.
        """
        t = self.text
        lo = 0
        for m in _SENTENCE_END.finditer(t, max(0, start - 400), start):
            lo = m.end()
        m = _SENTENCE_END.search(t, end)
        hi = m.start() if m else len(t)
        if breaks:
            i = bisect.bisect_right(breaks, start)
            if i:
                lo = max(lo, breaks[i - 1])
            j = bisect.bisect_right(breaks, max(start, end - 1))
            if j < len(breaks):
                hi = min(hi, breaks[j])
        if clip:
            lo, hi = max(lo, clip[0]), min(hi, clip[1])
        return lo, hi

    def line_text(self, pos: int) -> str:
        """The line holding ``pos``, without its line break."""
        t = self.text
        lo = t.rfind("\n", 0, pos) + 1
        return t[lo:line_end(t, pos, len(t))]


#: Words that join two versions ("1.4.0 -> 1.5.0", "from 1.4.0 to 1.5.0"): a version after one is bare.
_JOINERS = frozenset({"to", "from", "and", "or", "vs", "versus", "than", "then", "into", "over"})
_LAST_WORD = re.compile(r"([A-Za-z][\w+.-]*)\s*$")


def _bare_version(text: str, line_start: int, pos: int) -> bool:
    """True when the version at ``pos`` stands bare, not as the version of something named.

    ``CMSIS-Toolbox 2.14.1``, ``PackChk 1.4.5``, ``Vela@5.1.0``, ``release/3.1.5-rc.1``
    and ``flatbuffers==24.3.25`` name the version of another tool, path or
    package: they do not make a line mixed.  A version after an arrow, a
    bracket, a joining word (``to``, ``from``, ``and`` ...) or at the start of
    the line is bare ("ExecuTorch 1.4.0 -> 1.5.0" names a second release).
    """
    before = text[line_start:pos].rstrip()
    if not before:
        return True
    if before[-1] in "/@=:#~^<>" and not before.endswith("->"):
        return False
    m = _LAST_WORD.search(before)
    if m and before.endswith(m.group(1)):
        return m.group(1).lower() in _JOINERS
    return True


def change_verb(text: str, segments: list[Span], change: "re.Pattern[str]") -> Optional[str]:
    """The change verb when ExecuTorch OLD is its subject ("ExecuTorch 1.4.0 changed ..."), else None.

    The verb (:data:`_CHANGE_VERBS`) must be one of the first four words after
    the mention, with no preposition or article before it (:data:`_NOT_SUBJECT`):
    "with the fixed wheel" is not a change statement.
    """
    for a, b in segments:
        for m in change.finditer(text, a, b):
            for word in _WORD.findall(text, m.end(), b)[:4]:
                w = word.lower()
                if w in _CHANGE_VERBS:
                    return w
                if w in _NOT_SUBJECT:
                    break
    return None


def mixed_reason(doc: TextDocument, mine: list[Edit], segments: list[Span], olds: "re.Pattern[str]",
                  others: list[str], mention_spans: list[Span]) -> Optional[str]:
    """Why the sentence of ``mine`` (its edits) must be left as written, or None when it may be edited.

    ``segments``: the prose parts of the sentence; ``olds`` matches the old version
    written whole (group ``v``); ``others``: the other ExecuTorch versions the
    sentence names; ``mention_spans``: every mention of the document.
    """
    if others:
        return f"also names ExecuTorch {', '.join(dict.fromkeys(others))} (history)"
    text = doc.text
    covered = [(e.start, e.end) for e in mine]

    def free(s: int, e: int, spans: list[Span]) -> bool:
        return all(e <= a or s >= b for a, b in spans)

    for a, b in segments:
        for m in olds.finditer(text, a, b):
            if free(*m.span(), covered) and not is_quantity(text, m.end()):
                return f"also carries {m.group('v')} as bare text outside the mentions the bot edits"
    named: list[str] = []
    for a, b in segments:
        for m in _THREE_PART.finditer(text, a, b):
            if not free(*m.span(), covered) or is_quantity(text, m.end()):
                continue
            if _bare_version(text, text.rfind("\n", 0, m.start()) + 1, m.start()):
                return f"also holds {m.group(0)}, a version the bump does not move"
            if free(*m.span(), mention_spans):
                named.append(m.group(0))
    if named and any(_COMPAT.search(text, a, b) for a, b in segments):
        return (f"claims compatibility with another tool's {', '.join(dict.fromkeys(named))} "
                "(nobody knows whether the new release has the same requirement)")
    return None
