"""File kinds and their prose regions: which files the prose manager reads, and which spans are prose.

Markdown, reStructuredText and plain text are prose as a whole; in every
other handled kind only the comments are (:func:`comment_spans`): YAML
(PyYAML's scanner), requirements files, Python (:mod:`tokenize`), shell and
Dockerfiles, Windows batch, CMake and C/C++.
"""

from __future__ import annotations

import fnmatch
import io
import re
import tokenize
from functools import lru_cache
from typing import Optional

from bot.template.prose.history import is_history_file
from bot.textfile import TextDocument

#: (kind, base-name patterns), first match wins; "CMakeLists.txt" before "*.txt".
KINDS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("cmake", ("CMakeLists.txt", "*.cmake")),
    ("requirements", ("*requirements*.txt", "*constraints*.txt", "*requirements*.in")),
    ("markdown", ("*.md", "*.markdown", "*.rst", "*.txt")),
    ("yaml", ("*.yml", "*.yaml")),
    ("python", ("*.py",)),
    ("shell", ("*.sh", "*.bash", "Dockerfile", "*.Dockerfile", "Dockerfile.*", "Makefile", "GNUmakefile", "makefile",
               "*.mk")),
    ("batch", ("*.bat", "*.cmd")),
    ("c", ("*.c", "*.cc", "*.cpp", "*.cxx", "*.h", "*.hh", "*.hpp", "*.hxx")),
)

Span = tuple[int, int]


@lru_cache(maxsize=1)
def _kind_matchers() -> tuple:
    """``(kind, match)`` for each of :data:`KINDS`: one compiled alternation of its globs (what
    :func:`fnmatch.fnmatchcase` tries one glob at a time), made on first use."""
    return tuple((kind, re.compile("|".join(fnmatch.translate(p) for p in pats)).match) for kind, pats in KINDS)


@lru_cache(maxsize=8192)
def file_kind(relpath: str) -> Optional[str]:
    """The prose kind of a repository-relative POSIX path, or None when not handled.

    One of ``"markdown"`` (the whole text is prose), ``"requirements"``,
    ``"yaml"``, ``"python"``, ``"shell"`` (also Dockerfiles), ``"batch"``,
    ``"cmake"``, ``"c"`` (only comments are prose).
    """
    base = relpath.rsplit("/", 1)[-1]
    if ("/" + relpath).rsplit("/", 2)[-2] == "requirements" and base.endswith((".txt", ".in")):
        return "requirements"  # requirements/base.txt: a requirement file, comments only are prose
    for kind, match in _kind_matchers():
        if match(base):
            return kind
    if is_history_file(relpath):
        return "markdown"  # NEWS, CHANGES.adoc: read as a whole, to list their mentions as history
    return None


def is_workflow(relpath: str) -> bool:
    """True for a GitHub Actions workflow: ``.github/workflows/*.yml`` (or ``.yaml``) at any depth."""
    return ("/" + relpath).find("/.github/workflows/") != -1 and relpath.endswith((".yml", ".yaml"))


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
    except (yaml.YAMLError, RecursionError):   # RecursionError: nested too deeply
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
        eol = line_end(text, i, end)
        out.append((i, eol))
        i = text.find("#", eol, end)
    return out


def line_end(text: str, i: int, limit: int) -> int:
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
        eol = line_end(text, pos, end)
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


def prose_regions(doc: TextDocument) -> list[Span]:
    """The spans of ``doc`` that are prose: the whole text, or its (merged) comment blocks."""
    return list(regions_of(doc.path, doc.text))


@lru_cache(maxsize=8192)  # a whole template's files: the engine extracts from all, then updates all
def regions_of(path: str, text: str) -> tuple[Span, ...]:
    """Cached :func:`prose_regions` (the engine calls extract then update on the same document)."""
    spans = comment_spans(path, text)
    if spans is None:
        return ((0, len(text)),)
    return tuple(_merge(spans, text))
