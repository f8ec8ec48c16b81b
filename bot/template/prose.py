"""Prose manager: ExecuTorch version mentions in documentation and in comments.

What it reads (FORMATS.md section 1, rows README / docs / pack maintenance
page / setup_venv / workflows): Markdown, reStructuredText and plain-text
files are prose as a whole, code blocks included (YAML and shell inside
Markdown are prose, not pins).  In every other handled file only the
*comments* are prose: YAML (``#`` comments outside any scalar; in
``.github/workflows`` also the shell comments of block-scalar ``run``
scripts), requirements files (whole-line and inline ``#`` comments),
Python (``#`` comments via :mod:`tokenize`; docstrings and strings are
code), shell scripts and Dockerfiles (``#`` at a word start, outside
quotes), Windows batch (``REM`` and ``::`` lines), CMake (``#`` and
``#[[...]]`` comments outside quoted arguments) and C/C++ sources and
headers (``//`` and ``/* */`` outside literals; vendored trees such as
``ai_layer/engine`` are never scanned).  A YAML or requirement
*value* is never edited here; the cmsis, lockfile, requirements and
scripts managers own those spans, so edits never overlap.

Which mentions move on a bump (the "current" version is ``bump.old_executorch``
or ``bump.old_pack``, compared as text after whole-version matching):

* strong forms, anywhere in prose: ``PyTorch::ExecuTorch@X`` (also ``@^X``,
  ``@~X``, ``@>=X``; the pack ID spelled exactly so, as CMSIS writes it), ``executorch==X`` (any case, with extras),
  ``PyTorch.ExecuTorch.X.pack``, the release URL
  ``executorch/releases/download/vX/`` (or ``/X/``, and ``releases/tag/``),
  source links ``executorch/tree|blob/vX``, and the word form
  "ExecuTorch X" / "ExecuTorch vX" / "ExecuTorch version X" (the word in
  any letter case, so ``executorch 1.4.0`` counts too);
* weak forms, only when the same or the previous paragraph (blank-line
  separated block) mentions ExecuTorch: a bare pack version ``@X`` / ``@^X``
  ("exact rather than a ``@^X`` range"), "the vX tag", "tag vX", git refs
  (``git checkout vX``, ``--branch vX``, ``-b vX``), ``X-local``
  (``--version X-local``, ``VERSION=X-local``) and ``release/MAJOR.MINOR``;
* major.minor forms ("ExecuTorch 1.4", ``release/1.4``) move only when the
  bump changes major.minor; otherwise they are still right and stay;
* restatements of the derived pins, for every package of ``bump.changes``
  other than executorch whose old value is known: ``torch==Y`` (pip form)
  under the paragraph rule above, and the word form "torch Y" / "PyTorch Y"
  only inside a sentence that mentions ExecuTorch.

What never moves: a version is matched whole (never inside ``0.5.1``,
``21.5.10`` or ``3.1.5-rc.1``), so other packs, tools and libraries stay
byte-identical.  A mention of another ExecuTorch version is history: it
stays and becomes a non-blocking ``history-mention`` flag.  A line that
reads as a measurement (a number with a unit such as fps, ms, cycles, KB,
MB, %, MHz, or the words measured/benchmark/results) is history even when
it names the current version: it is flagged, never edited.  So is a test
claim ("tested with", "verified on", "validated against"): nobody ran the
new versions.

History text is never rewritten (second new-user trial, issue 2):

* a file whose name says it is history (:func:`is_history_file`:
  ``CHANGELOG*``, ``CHANGES*``, ``HISTORY*``, ``NEWS*``, ``RELEASE*NOTES*``,
  any case, any extension) gets no edit at all: each of its mentions is a
  ``history-mention`` flag;
* a Markdown section whose heading holds a date (``### 2026-05: ExecuTorch
  1.4.0``, ``## v1.4.0 (2026-05-14)``) or names history (Changelog, History,
  Release notes, What changed, What's new, Changes; any case) is history down
  to the next heading of the same or a higher level, heading line included
  (:func:`history_sections`): its mentions are ``history-mention`` flags;
* a sentence (it may span lines; Markdown headings, list items, table rows and
  every code-block line start a new one; in other files a sentence stays
  inside its comment block) in which "ExecuTorch OLD" is the subject of a
  past-tense change verb ("ExecuTorch 1.4.0 changed the .pte format") is a
  version-change statement: history, one ``history-mention`` flag, no edit;
* a sentence that claims compatibility ("requires", "needs", "supports",
  "compatible", "works with") with another tool's named ``X.Y.Z``
  ("ExecuTorch 1.4.0 requires CMSIS-Toolbox 2.15.0") is mixed (below);
* a sentence that would be edited but also names another ExecuTorch version,
  holds a bare three-part version (``X.Y.Z``) the bump does not move (the
  ``1.5.0`` of "ExecuTorch 1.4.0 -> 1.5.0"; a version that names another
  tool, path or package, as in ``CMSIS-Toolbox 2.14.1``, ``PackChk 1.4.5``,
  ``release/3.1.5-rc.1``, ``flatbuffers==24.3.25``, does not count, and
  neither does ``X.Y`` such as ``Vela 5.1``: :func:`_bare_version`), or carries the old version as bare text
  outside every mention edited (the link text of ``[1.4.0 release
  notes](.../releases/tag/v1.4.0)``) is left as written: one non-blocking
  ``mixed-mention`` flag for the sentence says why;
* a mention is either edited or flagged, never both.
"""

from __future__ import annotations

import bisect
import fnmatch
import io
import re
import tokenize
from dataclasses import dataclass
from functools import lru_cache
from typing import Optional

from bot.model import Bump, Edit, Finding, Flag, ManagerResult, norm
from bot.template.interface import Manager
from bot.textfile import TextDocument
from bot.versions import major_minor

# --------------------------------------------------------------------------
# File kinds and their comment regions
# --------------------------------------------------------------------------

#: (kind, base-name patterns), first match wins; "CMakeLists.txt" before "*.txt".
_KINDS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("cmake", ("CMakeLists.txt", "*.cmake")),
    ("requirements", ("*requirements*.txt", "*constraints*.txt", "*requirements*.in")),
    ("markdown", ("*.md", "*.markdown", "*.rst", "*.txt")),
    ("yaml", ("*.yml", "*.yaml")),
    ("python", ("*.py",)),
    ("shell", ("*.sh", "*.bash", "Dockerfile", "*.Dockerfile", "Dockerfile.*")),
    ("batch", ("*.bat", "*.cmd")),
    ("c", ("*.c", "*.cc", "*.cpp", "*.cxx", "*.h", "*.hh", "*.hpp", "*.hxx")),
)

Span = tuple[int, int]


def file_kind(relpath: str) -> Optional[str]:
    """The prose kind of a repository-relative POSIX path, or None when not handled.

    One of ``"markdown"`` (the whole text is prose), ``"requirements"``,
    ``"yaml"``, ``"python"``, ``"shell"`` (also Dockerfiles), ``"batch"``,
    ``"cmake"``, ``"c"`` (only comments are prose).
    """
    base = relpath.rsplit("/", 1)[-1]
    if ("/" + relpath).rsplit("/", 2)[-2] == "requirements" and base.endswith((".txt", ".in")):
        return "requirements"  # requirements/base.txt: a requirement file, comments only are prose
    for kind, pats in _KINDS:
        if any(fnmatch.fnmatchcase(base, p) for p in pats):
            return kind
    if is_history_file(relpath):
        return "markdown"  # NEWS, CHANGES.adoc: read as a whole, to list their mentions as history
    return None


def is_workflow(relpath: str) -> bool:
    """True for a GitHub Actions workflow: ``.github/workflows/*.yml`` (or ``.yaml``) at any depth."""
    return ("/" + relpath).find("/.github/workflows/") != -1 and relpath.endswith((".yml", ".yaml"))


#: Base-name patterns (lower case) of files that record history: never edited, mentions listed.
HISTORY_FILES = ("changelog*", "changes*", "history*", "news*", "release*notes*")


def is_history_file(relpath: str) -> bool:
    """True when the base name says the file is history (:data:`HISTORY_FILES`, any case, any extension)."""
    base = relpath.rsplit("/", 1)[-1].lower()
    return any(fnmatch.fnmatchcase(base, p) for p in HISTORY_FILES)


def comment_spans(relpath: str, text: str) -> Optional[list[Span]]:
    """Character spans ``[(start, end), ...]`` of the comments of a file, in order.

    Returns None for a prose kind whose whole text is prose (Markdown, rst,
    plain text), and ``[]`` for a path this module does not handle.  Each
    span starts at the comment marker (``#``, ``REM``, ``::``) and ends
    before the line break.  Used by the scripts manager too, which edits
    only outside these spans.  Never raises: a file its parser rejects falls
    back to a conservative rule (invalid YAML: ``#`` at a word start outside
    quotes; Python that does not tokenize: whole-line comments only).
    """
    kind = file_kind(relpath)
    if kind is None or kind == "markdown":
        return None if kind else []
    if kind == "yaml":
        return _yaml_comments(text, is_workflow(relpath))
    if kind == "requirements":
        return [m.span() for m in _REQ_COMMENT.finditer(text)]
    if kind == "python":
        return _python_comments(text)
    if kind == "shell":
        return _shell_comments(text, 0, len(text))
    if kind == "batch":
        return [(m.start(1), m.end()) for m in _BATCH_COMMENT.finditer(text)]
    if kind == "c":
        return _c_comments(text)
    return _cmake_comments(text)


_REQ_COMMENT = re.compile(r"(?m)(?:^|(?<=[ \t]))#[^\r\n]*")
_LINE_COMMENT = re.compile(r"(?m)^[ \t]*(#[^\r\n]*)")
_BATCH_COMMENT = re.compile(r"(?im)^[ \t]*@?((?:rem(?=[ \t]|\r?$)|::))[^\r\n]*")
_CMAKE_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"|#\[(=*)\[.*?\]\1\]|\[(=*)\[.*?\]\2\]|#[^\r\n]*', re.S)


def _yaml_comments(text: str, workflow: bool) -> list[Span]:
    """YAML comments: the ``#`` runs in the gaps between PyYAML scanner tokens."""
    import yaml  # PyYAML is a runtime dependency; imported here to keep start-up fast

    try:
        tokens = list(yaml.scan(text, Loader=yaml.SafeLoader))
    except yaml.YAMLError:
        # Invalid YAML (the cmsis manager reports it for pin files): a ``#`` at a
        # word start outside quotes, the shell rule, which YAML comments follow too.
        return _shell_comments(text, 0, len(text))
    spans: list[Span] = []
    pos = 0
    for tok in tokens:
        start, end = tok.start_mark.index, tok.end_mark.index
        if start > pos:
            spans.extend(_gap_comments(text, pos, start))
        if workflow and isinstance(tok, yaml.ScalarToken) and tok.style in ("|", ">"):
            spans.extend(_shell_comments(text, start, end))
        pos = max(pos, end)
    spans.extend(_gap_comments(text, pos, len(text)))
    return spans


def _gap_comments(text: str, start: int, end: int) -> list[Span]:
    """Between two YAML tokens there is only white space and comments: every ``#`` starts one."""
    out = []
    i = text.find("#", start, end)
    while i != -1:
        eol = _eol(text, i, end)
        out.append((i, eol))
        i = text.find("#", eol, end)
    return out


def _eol(text: str, i: int, limit: int) -> int:
    """Offset of the line break (``\\r\\n`` or ``\\n``) ending the line at ``i``, at most ``limit``."""
    j = text.find("\n", i, limit)
    if j == -1:
        j = limit
    if j > i and text[j - 1] == "\r":
        j -= 1
    return j


def _shell_comments(text: str, start: int, end: int) -> list[Span]:
    """Shell comments inside ``text[start:end]``: ``#`` at a word start, outside quotes, line by line."""
    out = []
    pos = start
    while pos < end:
        eol = _eol(text, pos, end)
        c = _shell_comment_start(text, pos, eol)
        if c != -1:
            out.append((c, eol))
        nl = text.find("\n", eol, end)
        if nl == -1:
            break
        pos = nl + 1
    return out


def _shell_comment_start(text: str, i: int, end: int) -> int:
    """Offset of the ``#`` that starts a shell comment on the line ``text[i:end]``, or -1."""
    if text.find("#", i, end) == -1:
        return -1
    quote = None
    line_start = i
    while i < end:
        c = text[i]
        if quote:
            if c == "\\" and quote == '"':
                i += 2
                continue
            if c == quote:
                quote = None
        elif c == "\\":
            i += 2
            continue
        elif c in "\"'":
            quote = c
        elif c == "#" and (i == line_start or text[i - 1] in " \t;&|()"):
            return i
        i += 1
    return -1


def _python_comments(text: str) -> list[Span]:
    """``#`` comments found by :mod:`tokenize` (never a string or docstring)."""
    starts = [0] + [m.end() for m in re.finditer("\n", text)]
    out = []
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type == tokenize.COMMENT:
                s = starts[tok.start[0] - 1] + tok.start[1]
                out.append((s, s + len(tok.string)))
    except (tokenize.TokenError, SyntaxError):
        return [m.span(1) for m in _LINE_COMMENT.finditer(text)]
    return out


#: C/C++ tokens that matter for comments: C++11 raw string literals ``R"d(...)d"`` (with an
#: optional ``u8``/``u``/``U``/``L`` prefix; may span lines and hold quotes and ``//``), string and
#: character literals (skipped), ``//`` and ``/* */``.
_C_TOKENS = re.compile(r"""(?<![\w])(?:u8|[uUL])?R"(?P<d>[^()\\\s"]{0,16})\(.*?\)(?P=d)"|"""
                       r""""(?:[^"\\\r\n]|\\.)*"|'(?:[^'\\\r\n]|\\.)*'|//[^\r\n]*|/\*.*?(?:\*/|\Z)""", re.S)


def _c_comments(text: str) -> list[Span]:
    """C and C++ ``//`` line comments and ``/* */`` block comments, outside string and character literals."""
    if "/" not in text:
        return []
    return [m.span() for m in _C_TOKENS.finditer(text) if m.group(0).startswith("/")]


def _cmake_comments(text: str) -> list[Span]:
    """CMake line comments and bracket comments, skipping quoted and bracket arguments."""
    return [m.span() for m in _CMAKE_TOKENS.finditer(text) if m.group(0).startswith("#")]


def _merge(spans: list[Span], text: str) -> list[Span]:
    """Join comment spans separated only by white space (a comment block is one region)."""
    out: list[Span] = []
    for s, e in spans:
        if out and (s == out[-1][1] or text[out[-1][1]:s].isspace()):
            out[-1] = (out[-1][0], e)
        else:
            out.append((s, e))
    return out


# --------------------------------------------------------------------------
# Mention forms
# --------------------------------------------------------------------------

#: A version matched whole: X.Y or X.Y.Z with an optional pre/dev/post part.
VER = r"(?P<v>\d+\.\d+(?:\.\d+)?(?:-?rc\d+|a\d+|b\d+|\.dev\d+|\.post\d+)?)"
#: What may not follow a whole version: a word character, or ".", "-", "+" before one.
GUARD = r"(?![\w]|[.+\-][0-9A-Za-z])"
_V = VER + GUARD

#: (form name, regex, weak, pack-form).  Order is priority when spans coincide.
_FORMS: tuple[tuple[str, "re.Pattern[str]", bool, bool, tuple[str, ...]], ...] = (
    # (form, regex, weak, pack form, lower-case literals one of which must be in the text)
    ("PyTorch::ExecuTorch@", re.compile(r"PyTorch::ExecuTorch@(?P<op>\^|~|>=)?" + _V), False, True,
     ("pytorch::executorch@",)),
    ("executorch==", re.compile(r"(?<![\w.\-/])executorch(?:\[[^\]\n]*\])?[ \t]*==[ \t]*" + _V, re.I), False, False,
     ("==",)),
    ("pack-file", re.compile(r"PyTorch\.ExecuTorch\." + VER + r"(?=\.pack(?!\w)|/)", re.I), False, True,
     ("pytorch.executorch.",)),
    # the repository must be named exactly "executorch": acme/cmsis-executorch/releases/... is another project
    ("release-url", re.compile(r"(?<![\w.\-])executorch/releases/(?:download|tag)/v?" + _V, re.I), False, True,
     ("executorch/releases/",)),
    ("source-url", re.compile(r"(?<![\w.\-])executorch/(?:tree|blob)/v" + _V, re.I), False, False,
     ("executorch/tree/", "executorch/blob/")),
    ("@version", re.compile(r"(?<![\w:@])@(?P<op>\^|~|>=)?" + _V), True, True, ("@",)),
    ("local-build", re.compile(r"(?<![\w.])" + VER + r"-local(?![\w-])"), True, True, ("-local",)),
    ("tag", re.compile(r"\btag[ \t]+`?v" + _V + r"|(?<![\w.\-])v" + _V.replace("?P<v>", "?P<v2>")
                       + r"`?[ \t]+tag\b", re.I), True, False, ("tag",)),
    ("git-ref", re.compile(r"(?:\bgit[ \t]+(?:checkout|switch)|--branch|(?<!\w)-b)[ \t]+v" + _V), True, False,
     ("checkout", "switch", "--branch", "-b")),
    ("ExecuTorch", re.compile(r"\bExecuTorch(?:[ \t]+|[ \t]*\r?\n[ \t]*(?:(?:#+|//|::)[ \t]*)?)"
                              r"(?:(?:version|release)[ \t]+)?v?" + _V, re.I), False, False, ("executorch",)),
    ("release-branch", re.compile(r"(?<![\w.\-])release/(?P<v>\d+\.\d+)" + GUARD), True, False, ("release/",)),
)

#: Human words for each form, used in Edit.why and flag messages.
FORM_WHY = {
    "PyTorch::ExecuTorch@": "pack reference PyTorch::ExecuTorch@X",
    "executorch==": "pip pin executorch==X",
    "pack-file": "pack file name PyTorch.ExecuTorch.X.pack",
    "release-url": "release download URL",
    "source-url": "upstream source link",
    "@version": "pack version @X / @^X",
    "local-build": "local pack build version X-local",
    "tag": "release tag vX",
    "git-ref": "git ref vX",
    "ExecuTorch": '"ExecuTorch X" in text',
    "release-branch": "release branch release/MAJOR.MINOR",
}

_EXECUTORCH = re.compile(r"executorch", re.I)
_BLANK_LINE = re.compile(r"\n[ \t]*\r?(?=\n)")
_MEASURE = re.compile(
    r"(?<![\w.])\d+(?:\.\d+)?[ \t]?(?:fps|ms|µs|us|ns|cycles|[kKMG]i?B|%|[kMG]Hz|MACs?|inf/s|inferences/s)(?!\w)"
    r"|\b(?:measured|measurements?|benchmark(?:s|ed)?)\b"
    # a test claim ("tested with ... torch==2.13.0") is history too: nobody ran the new versions
    r"|\b(?:tested|verified|validated|qualified)\s+(?:with|on|against)\b", re.I)
_SENTENCE_END = re.compile(r"[.!?](?=\s)|\n[ \t]*\r?\n")


#: A three-part version written whole (``2.14.1``, ``1.5.0``, ``3.1.5-rc.1``); not ``5.1``, not inside ``1.2.3.4``.
_THREE_PART = re.compile(r"(?<![\w.])v?\d+\.\d+\.\d+(?:-?rc\.?\d+|a\d+|b\d+|\.dev\d+|\.post\d+)?(?![\w]|\.\d)")


#: Past-tense change verbs: "ExecuTorch 1.4.0 changed the .pte format" is a version-change statement (history).
_CHANGE_VERBS = frozenset({"changed", "introduced", "added", "removed", "dropped", "deprecated", "fixed", "broke"})
#: Words after which a change verb no longer has the ExecuTorch mention as its subject.
_NOT_SUBJECT = frozenset({"with", "the", "a", "an", "to", "for", "of", "in", "on", "and", "or", "from", "by", "via",
                          "using", "use", "into", "at", "as", "than", "but", "which", "that", "if", "when"})
_WORD = re.compile(r"[A-Za-z][A-Za-z'’-]*")
#: A compatibility claim: with a named X.Y.Z of another tool it makes a sentence mixed.
_COMPAT = re.compile(r"\b(?:requires?|required|needs?|needed|supports?|supported|compatible|compatibility"
                     r"|works?[ \t]+with)\b", re.I)


def _section_at(sections: list[tuple[int, int, str]], pos: int) -> Optional[str]:
    """The heading text of the history section holding ``pos`` (:func:`history_sections`), or None."""
    for a, b, title in sections:
        if a <= pos < b:
            return title
    return None


def _snippet(line_text: str) -> str:
    """The line, stripped and cut to 160 characters, for a flag message."""
    snippet = line_text.strip()
    return snippet if len(snippet) <= 160 else snippet[:157] + "..."


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


def _markdown_structure(text: str) -> tuple[list[tuple[int, int, int, str]], list[int]]:
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
    code blocks are code, not headings.  Source: issue 2 (new-user trial).
    """
    headings, _ = _markdown_structure(text)
    out: list[tuple[int, int, str]] = []
    for i, (start, _end, level, title) in enumerate(headings):
        if out and start < out[-1][1]:
            continue  # nested in a history section already listed
        if not _HISTORY_HEADING.search(title):
            continue
        stop = next((h[0] for h in headings[i + 1:] if h[2] <= level), len(text))
        out.append((start, stop, title))
    return out


@dataclass(frozen=True)
class Mention:
    """One version mention found in prose.

    Attributes:
        form: key of the form (``"executorch=="``, ``"ExecuTorch"``, ...); see :data:`FORM_WHY`.
        start / end: character span of the version text only (``"1.4.0"``, never the ``v``).
        version: the version text as written.
        line: 1-based line.
        exact: False for a pack range (``@^X``, ``@~X``, ``@>=X``).
        text: the whole matched text (``"PyTorch::ExecuTorch@^1.4.0"``).
        pack_form: True when the version is the pack (SemVer) form (``1.0.0-rc1``).
    """

    form: str
    start: int
    end: int
    version: str
    line: int
    exact: bool
    text: str
    pack_form: bool


class _Context:
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
        return _EXECUTORCH.search(self.text, lo, hi) is not None

    def sentence_mentions_executorch(self, start: int, end: int) -> bool:
        """True when the sentence holding ``text[start:end]`` mentions ExecuTorch."""
        lo, hi = self.sentence_span(start, end)
        return _EXECUTORCH.search(self.text, lo, hi) is not None

    def sentence_span(self, start: int, end: int, breaks: Optional[list[int]] = None,
                      clip: Optional[Span] = None) -> Span:
        """The ``(lo, hi)`` character span of the sentence holding ``text[start:end]``.

        A sentence ends at ``.``, ``!`` or ``?`` before white space, or at a blank
        line; it may span lines.  ``breaks`` (sorted line-start offsets, from
        :func:`_markdown_structure`) and ``clip`` (a comment region) cut it further.
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
        return t[lo:_eol(t, pos, len(t))]


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


def prose_regions(doc: TextDocument) -> list[Span]:
    """The spans of ``doc`` that are prose: the whole text, or its (merged) comment blocks."""
    return list(_regions(doc.path, doc.text))


@lru_cache(maxsize=16)
def _regions(path: str, text: str) -> tuple[Span, ...]:
    """Cached :func:`prose_regions` (the engine calls extract then update on the same document)."""
    spans = comment_spans(path, text)
    if spans is None:
        return ((0, len(text)),)
    return tuple(_merge(spans, text))


def find_mentions(doc: TextDocument) -> list[Mention]:
    """Every ExecuTorch version mention inside the prose regions of ``doc`` (:func:`prose_regions`).

    Weak forms count only under the paragraph rule (module docstring).
    Spans never overlap: where two forms match the same version text, the
    first form of :data:`_FORMS` wins.  Returns mentions in file order
    (cached per document text: the engine calls extract, then update).
    """
    return list(_find_mentions(doc.path, doc.text))


@lru_cache(maxsize=16)
def _find_mentions(path: str, text: str) -> tuple[Mention, ...]:
    if _EXECUTORCH.search(text) is None:
        return ()
    doc = TextDocument(path=path, text=text)
    regions = _regions(path, text)
    ctx = _Context(text)
    found: list[Mention] = []
    taken: set[int] = set()  # offsets covered by an accepted version span
    low = text.lower()
    for form, rx, weak, pack_form, literals in _FORMS:
        if not any(lit in low for lit in literals):
            continue
        for lo, hi in regions:
            for m in rx.finditer(text, lo, hi):
                group = "v" if m.group("v") is not None else "v2"
                s, e = m.span(group)
                if not taken.isdisjoint(range(s, e)):
                    continue
                if weak and not ctx.paragraph_mentions_executorch(s):
                    continue
                exact = not (form in ("PyTorch::ExecuTorch@", "@version") and m.group("op"))
                taken.update(range(s, e))
                found.append(Mention(form, s, e, m.group(group), doc.line_of(s), exact, m.group(0), pack_form))
    found.sort(key=lambda x: x.start)
    return tuple(found)


@lru_cache(maxsize=64)
def _restatement_patterns(names: tuple[tuple[str, str], ...]) -> tuple:
    """Compiled (name, old, pip-form regex, word-form regex) for the derived pins of a bump."""
    out = []
    for name, old in names:
        parts = norm(name).split("-")
        name_rx = r"[-_.]+".join(re.escape(p) for p in parts)
        if norm(name) == "torch":
            name_rx = r"(?:torch|PyTorch)"
        ver = r"(?P<v>" + re.escape(old) + r")" + GUARD
        pip = re.compile(r"(?<![\w.\-/:])" + name_rx + r"(?:\[[^\]\n]*\])?[ \t]*==[ \t]*" + ver, re.I)
        word = re.compile(r"(?<![\w.\-/:])" + name_rx + r"[ \t]+v?" + ver, re.I)
        out.append((name, old, pip, word))
    return tuple(out)


class ProseManager(Manager):
    """Rewrites mentions of the current ExecuTorch version in prose and comments (kind ``"prose"``).

    Handles Markdown/rst/plain text as a whole and the comments of YAML,
    requirements, Python, shell, Dockerfile, batch and CMake files (see the
    module docstring for the forms and rules).  ``check()`` is the default:
    prose has no parser beyond the text itself.
    """

    name = "prose"
    patterns = tuple(p for _, pats in _KINDS for p in pats)

    def matches(self, relpath: str) -> bool:
        """By :attr:`patterns`, or a history file of any extension (:func:`is_history_file`)."""
        return super().matches(relpath) or is_history_file(relpath)

    def extract(self, doc: TextDocument) -> list[Finding]:
        """Every ExecuTorch version mention as ``Finding(kind="prose", name=form, version=text)``.

        ``name`` is the mention form (``"ExecuTorch"``, ``"executorch=="``,
        ``"PyTorch::ExecuTorch@"``, ``"release-url"``, ``"release-branch"``,
        ...); ``exact`` is False for a ``@^X`` style range.  Major.minor
        mentions carry a two-part version (``"1.4"``).
        """
        return [Finding(doc.path, m.line, "prose", m.form, m.version, m.exact, m.text)
                for m in find_mentions(doc)]

    def update(self, doc: TextDocument, bump: Bump) -> ManagerResult:
        """Edits moving every mention of the current version to the new one, and history flags.

        Edits replace only the version text (``"1.4.0"`` -> ``"1.5.1"``,
        ``"1.4"`` -> ``"1.5"``, ``"2.13.0"`` -> ``"2.14.0"``); kind ``"prose"``.
        Flags: ``history-mention`` (non-blocking) for each mention of another
        ExecuTorch version, for each measurement line naming the current one,
        for each mention inside a Markdown history section (:func:`history_sections`)
        and for a version-change statement; ``mixed-mention`` for a mixed sentence.
        """
        text = doc.text
        if _EXECUTORCH.search(text) is None:
            return ManagerResult()
        regions = prose_regions(doc)
        if not regions:
            return ManagerResult()
        ctx = _Context(text)
        old_mm, new_mm = major_minor(bump.old_executorch), major_minor(bump.new_executorch)
        olds = {bump.old_executorch, bump.old_pack}
        edits: list[Edit] = []
        flags: list[tuple[int, Flag]] = []  # (offset of the mention, flag)
        mentions = find_mentions(doc)
        if is_history_file(doc.path):
            return ManagerResult((), tuple(self._history(doc, m, bump, ctx.line_text(m.start), history_file=True)
                                           for m in mentions))
        markdown = file_kind(doc.path) == "markdown"
        sections = history_sections(text) if markdown else []
        others: list[tuple[int, str]] = []  # (offset, other ExecuTorch version named there): history
        for m in mentions:
            line_text = ctx.line_text(m.start)
            section = _section_at(sections, m.start)
            if section is not None:
                flags.append((m.start, self._history(doc, m, bump, line_text, section=section)))
                continue
            two_part = m.version.count(".") == 1 and m.version.replace(".", "").isdigit()
            if two_part:
                if m.version != old_mm:
                    flags.append((m.start, self._history(doc, m, bump, line_text)))
                    others.append((m.start, m.version))
                elif old_mm != new_mm:
                    if _MEASURE.search(line_text):
                        flags.append((m.start, self._history(doc, m, bump, line_text, measurement=True)))
                    else:
                        edits.append(self._edit(doc, m, new_mm, bump))
                continue
            if m.version not in olds:
                flags.append((m.start, self._history(doc, m, bump, line_text)))
                others.append((m.start, m.version))
                continue
            if _MEASURE.search(line_text):
                flags.append((m.start, self._history(doc, m, bump, line_text, measurement=True)))
                continue
            new = bump.new_pack if (m.version == bump.old_pack and (m.pack_form or m.version != bump.old_executorch)) \
                else bump.new_executorch
            if new != m.version:
                edits.append(self._edit(doc, m, new, bump))
        taken = {i for m in mentions for i in range(m.start, m.end)}
        edits.extend(e for e in self._restatements(doc, bump, regions, ctx, taken)
                     if _section_at(sections, e.start) is None)
        edits.sort(key=lambda e: e.start)
        breaks = _markdown_structure(text)[1] if markdown else None
        return self._leave_mixed_sentences(doc, bump, regions, ctx, breaks, mentions, edits, flags, others)

    # -- helpers -----------------------------------------------------------

    def _edit(self, doc: TextDocument, m: Mention, new: str, bump: Bump) -> Edit:
        return Edit(doc.path, m.start, m.end, m.version, new, m.line, "prose",
                    f"prose: {FORM_WHY[m.form]} names the current ExecuTorch {m.version}")

    def _leave_mixed_sentences(self, doc: TextDocument, bump: Bump, regions: list[Span], ctx: _Context,
                               breaks: Optional[list[int]], mentions: list[Mention], edits: list[Edit],
                               flags: list[tuple[int, Flag]], others: list[tuple[int, str]]) -> ManagerResult:
        """Drop the edits of every sentence that mixes the current version with history (module docstring).

        Edits are grouped by sentence (:meth:`_Context.sentence_span`, cut at Markdown
        block breaks and at the end of a comment region).  A version-change statement
        keeps no edit and gets one ``history-mention`` flag; any other mixed sentence
        keeps no edit and gets one ``mixed-mention`` flag; the per-mention flags of
        that sentence are folded into the one flag.
        """
        groups: dict[Span, list[Edit]] = {}
        for e in edits:
            clip = next(((a, b) for a, b in regions if a <= e.start < b), None) if breaks is None else None
            groups.setdefault(ctx.sentence_span(e.start, e.end, breaks, clip), []).append(e)
        old_alt = "|".join(re.escape(o) for o in sorted({bump.old_executorch, bump.old_pack}))
        olds = re.compile(r"(?<![\w.])(?P<v>" + old_alt + ")" + GUARD)
        change = re.compile(r"\bExecuTorch[ \t]*(?:\r?\n[ \t>#/*]*)?(?:(?:version|release)[ \t]+)?v?(?:"
                            + old_alt + ")" + GUARD, re.I)
        mention_spans = [(m.start, m.end) for m in mentions]
        keep: list[Edit] = []
        left: list[tuple[Span, Flag]] = []
        for (lo, hi), mine in groups.items():
            named = [v for pos, v in others if lo <= pos < hi]
            segments = [(max(lo, a), min(hi, b)) for a, b in regions if a < hi and b > lo]
            verb = self._change_verb(doc.text, segments, change)
            sentence = _snippet(" ".join(doc.text[lo:hi].split()))
            if verb:
                also = f" (it also names ExecuTorch {', '.join(dict.fromkeys(named))})" if named else ""
                left.append(((lo, hi), Flag(
                    "history-mention", f"left as written: this sentence states what ExecuTorch "
                    f"{bump.old_executorch} {verb}{also}; a version-change statement is history: {sentence}",
                    path=doc.path, line=mine[0].line, blocking=False)))
                continue
            why = self._mixed_reason(doc, mine, segments, olds, named, mention_spans)
            if why is None:
                keep.extend(mine)
                continue
            left.append(((lo, hi), Flag(
                "mixed-mention", f"left as written: this sentence {why}, so moving it to "
                f"{bump.new_executorch} would rewrite history or a claim the bump does not check; "
                f"edit it by hand if it should move: {sentence}", path=doc.path, line=mine[0].line, blocking=False)))
        out_flags = [f for pos, f in flags if not any(a <= pos < b for (a, b), _ in left)]
        out_flags.extend(f for _, f in left)
        out_flags.sort(key=lambda f: f.line or 0)
        return ManagerResult(tuple(keep), tuple(out_flags))

    @staticmethod
    def _change_verb(text: str, segments: list[Span], change: "re.Pattern[str]") -> Optional[str]:
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

    @staticmethod
    def _mixed_reason(doc: TextDocument, mine: list[Edit], segments: list[Span], olds: "re.Pattern[str]",
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
                if free(*m.span(), covered):
                    return f"also carries {m.group('v')} as bare text outside the mentions the bot edits"
        named: list[str] = []
        for a, b in segments:
            for m in _THREE_PART.finditer(text, a, b):
                if not free(*m.span(), covered):
                    continue
                if _bare_version(text, text.rfind("\n", 0, m.start()) + 1, m.start()):
                    return f"also holds {m.group(0)}, a version the bump does not move"
                if free(*m.span(), mention_spans):
                    named.append(m.group(0))
        if named and any(_COMPAT.search(text, a, b) for a, b in segments):
            return (f"claims compatibility with another tool's {', '.join(dict.fromkeys(named))} "
                    "(nobody knows whether the new release has the same requirement)")
        return None

    def _history(self, doc: TextDocument, m: Mention, bump: Bump, line_text: str,
                 measurement: bool = False, history_file: bool = False, section: Optional[str] = None) -> Flag:
        snippet = _snippet(line_text)
        if history_file:
            why = (f"names ExecuTorch {m.version} in a history file (CHANGELOG*, CHANGES*, HISTORY*, NEWS*, "
                   "RELEASE*NOTES*); history files are never edited, left as written")
        elif section is not None:
            why = (f"names ExecuTorch {m.version} in the history section \"{_snippet(section)}\" (a dated or "
                   "changelog heading); history sections are never edited, left as written")
        elif measurement:
            why = (f"reads as a measurement and names the current ExecuTorch {m.version}; "
                   "measurements are history, left as written")
        else:
            why = (f"names ExecuTorch {m.version} ({FORM_WHY[m.form]}), not the current "
                   f"{bump.old_executorch}; left as history")
        return Flag("history-mention", f"{why}: {snippet}",
                    path=doc.path, line=m.line, blocking=False)

    def _restatements(self, doc: TextDocument, bump: Bump, regions: list[Span], ctx: _Context,
                      taken: set[int]) -> list[Edit]:
        """Edits for "torch==Y" / "targets torch Y and torchao Z" restating the old derived pins."""
        names = tuple((c.name, c.old) for c in bump.changes
                      if c.old and c.old != c.new and norm(c.name) != "executorch")
        if not names:
            return []
        text = doc.text
        news = {norm(c.name): c.new for c in bump.changes}
        out: list[Edit] = []
        for name, old, pip, word in _restatement_patterns(names):
            if old not in text:
                continue
            for rx, pip_form in ((pip, True), (word, False)):
                for lo, hi in regions:
                    for m in rx.finditer(text, lo, hi):
                        s, e = m.span("v")
                        if not taken.isdisjoint(range(s, e)):
                            continue
                        # Both forms need ExecuTorch in the same sentence (or, for the pip
                        # form, on the same line): "Tested with ... torch==2.13.0" under an
                        # ExecuTorch code block is a test claim, not a restated pin.
                        ok = (ctx.sentence_mentions_executorch(m.start(), m.end())
                              or (pip_form and "xecu" in ctx.line_text(s).lower()))
                        if not ok or _MEASURE.search(ctx.line_text(s)):
                            continue
                        taken.update(range(s, e))
                        form = f"{norm(name)}==" if pip_form else f'"{norm(name)} Y"'
                        out.append(Edit(doc.path, s, e, old, news[norm(name)], doc.line_of(s), "prose",
                                        f"prose: {form} restates the {norm(name)} pin of ExecuTorch "
                                        f"{bump.old_executorch}"))
        return out
