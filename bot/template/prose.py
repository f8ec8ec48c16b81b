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
* a line that would be edited but also names another ExecuTorch version,
  holds a bare three-part version (``X.Y.Z``) the bump does not move (the
  ``1.5.0`` of "ExecuTorch 1.4.0 -> 1.5.0"; a version that names another
  tool, path or package, as in ``CMSIS-Toolbox 2.14.1``, ``PackChk 1.4.5``,
  ``release/3.1.5-rc.1``, ``flatbuffers==24.3.25``, does not count, and
  neither does ``X.Y`` such as ``Vela 5.1``: :func:`_bare_version`), or carries the old version as bare text
  outside every mention edited (the link text of ``[1.4.0 release
  notes](.../releases/tag/v1.4.0)``) is left as written: one non-blocking
  ``mixed-mention`` flag for the line says why;
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


def _snippet(line_text: str) -> str:
    """The line, stripped and cut to 160 characters, for a flag message."""
    snippet = line_text.strip()
    return snippet if len(snippet) <= 160 else snippet[:157] + "..."


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
        t = self.text
        lo = 0
        for m in _SENTENCE_END.finditer(t, max(0, start - 400), start):
            lo = m.end()
        m = _SENTENCE_END.search(t, end)
        hi = m.start() if m else len(t)
        return _EXECUTORCH.search(t, lo, hi) is not None

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
        ExecuTorch version and for each measurement line naming the current one.
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
        flags: list[Flag] = []
        mentions = find_mentions(doc)
        if is_history_file(doc.path):
            return ManagerResult((), tuple(self._history(doc, m, bump, ctx.line_text(m.start), history_file=True)
                                           for m in mentions))
        others: dict[int, list[str]] = {}  # line -> other ExecuTorch versions named there (history)
        for m in mentions:
            two_part = m.version.count(".") == 1 and m.version.replace(".", "").isdigit()
            line_text = ctx.line_text(m.start)
            if two_part:
                if m.version != old_mm:
                    flags.append(self._history(doc, m, bump, line_text))
                    others.setdefault(m.line, []).append(m.version)
                elif old_mm != new_mm:
                    if _MEASURE.search(line_text):
                        flags.append(self._history(doc, m, bump, line_text, measurement=True))
                    else:
                        edits.append(self._edit(doc, m, new_mm, bump))
                continue
            if m.version not in olds:
                flags.append(self._history(doc, m, bump, line_text))
                others.setdefault(m.line, []).append(m.version)
                continue
            if _MEASURE.search(line_text):
                flags.append(self._history(doc, m, bump, line_text, measurement=True))
                continue
            new = bump.new_pack if (m.version == bump.old_pack and (m.pack_form or m.version != bump.old_executorch)) \
                else bump.new_executorch
            if new != m.version:
                edits.append(self._edit(doc, m, new, bump))
        taken = {i for m in mentions for i in range(m.start, m.end)}
        edits.extend(self._restatements(doc, bump, regions, ctx, taken))
        edits.sort(key=lambda e: e.start)
        return self._leave_mixed_lines(doc, bump, regions, ctx, edits, flags, others)

    # -- helpers -----------------------------------------------------------

    def _edit(self, doc: TextDocument, m: Mention, new: str, bump: Bump) -> Edit:
        return Edit(doc.path, m.start, m.end, m.version, new, m.line, "prose",
                    f"prose: {FORM_WHY[m.form]} names the current ExecuTorch {m.version}")

    def _leave_mixed_lines(self, doc: TextDocument, bump: Bump, regions: list[Span], ctx: _Context,
                           edits: list[Edit], flags: list[Flag], others: dict[int, list[str]]) -> ManagerResult:
        """Drop the edits of every line that mixes the current version with history (module docstring).

        Such a line keeps no edit and loses its ``history-mention`` flags; one
        non-blocking ``mixed-mention`` flag names the line and why it was left.
        """
        by_line: dict[int, list[Edit]] = {}
        for e in edits:
            by_line.setdefault(e.line, []).append(e)
        olds = re.compile(r"(?<![\w.])(?P<v>" + "|".join(re.escape(o) for o in sorted({bump.old_executorch,
                                                                                       bump.old_pack})) + ")" + GUARD)
        keep: list[Edit] = []
        mixed: dict[int, Flag] = {}
        for line, mine in by_line.items():
            why = self._mixed_reason(doc, mine, regions, olds, others.get(line, []))
            if why is None:
                keep.extend(mine)
                continue
            mixed[line] = Flag("mixed-mention", f"left as written: this line {why}, so moving it to "
                               f"{bump.new_executorch} would rewrite history or a claim the bump does not check; "
                               f"edit it by hand if it should move: {_snippet(ctx.line_text(mine[0].start))}",
                               path=doc.path, line=line, blocking=False)
        out_flags = [f for f in flags if f.line not in mixed] + list(mixed.values())
        out_flags.sort(key=lambda f: f.line or 0)
        return ManagerResult(tuple(keep), tuple(out_flags))

    @staticmethod
    def _mixed_reason(doc: TextDocument, mine: list[Edit], regions: list[Span], olds: "re.Pattern[str]",
                      others: list[str]) -> Optional[str]:
        """Why the line of ``mine`` (its edits) must be left as written, or None when it may be edited.

        ``olds`` matches the old version written whole (group ``v``); ``others``: the
        other ExecuTorch versions the line names.  Only the prose
        part of the line (its comment, in a YAML or requirements file) is read.
        """
        if others:
            return f"also names ExecuTorch {', '.join(dict.fromkeys(others))} (history)"
        lo = doc.text.rfind("\n", 0, mine[0].start) + 1
        hi = _eol(doc.text, mine[0].start, len(doc.text))
        covered = [(e.start, e.end) for e in mine]

        def free(s: int, e: int) -> bool:
            return all(e <= a or s >= b for a, b in covered)

        segments = [(max(lo, a), min(hi, b)) for a, b in regions if a < hi and b > lo]
        for a, b in segments:
            for m in olds.finditer(doc.text, a, b):
                if free(*m.span()):
                    return f"also carries {m.group('v')} as bare text outside the mentions the bot edits"
        for a, b in segments:
            for m in _THREE_PART.finditer(doc.text, a, b):
                if free(*m.span()) and _bare_version(doc.text, lo, m.start()):
                    return f"also holds {m.group(0)}, a version the bump does not move"
        return None

    def _history(self, doc: TextDocument, m: Mention, bump: Bump, line_text: str,
                 measurement: bool = False, history_file: bool = False) -> Flag:
        snippet = _snippet(line_text)
        if history_file:
            why = (f"names ExecuTorch {m.version} in a history file (CHANGELOG*, CHANGES*, HISTORY*, NEWS*, "
                   "RELEASE*NOTES*); history files are never edited, left as written")
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
