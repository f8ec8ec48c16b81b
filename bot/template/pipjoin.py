"""pip's joining of a requirement file's physical lines into logical lines.

The rules of ``join_lines`` in pip's ``pip/_internal/req/req_file.py``: a line
(without its line break: ``\n``, ``\r\n`` or a lone ``\r``, as
``str.splitlines`` cuts) that ends with a backslash continues on the next one,
unless it is a comment line; the backslashes at both ends of a continued line
are dropped and the pieces are joined with nothing between them; a comment line
inside a continuation is joined after one space; a backslash on the last line
continues into nothing.  A backslash followed by spaces ends nothing: pip reads
that line as it is.  Used for the template's requirement files
(:mod:`bot.template.requirements`, which maps every logical offset back to the
file) and upstream's (:mod:`bot.upstream.pinfiles`).
"""

from __future__ import annotations

import re
from typing import Optional

#: A comment as pip's ``COMMENT_RE`` (``(^|\s+)#.*$``) finds it: a ``#`` that starts the text or
#: follows white space, to the end.  Written with a look-behind: pip's ``\s+`` retried from
#: every space of a long run (quadratic); the match here starts at the ``#`` instead of the white
#: space before it, which every caller strips.
COMMENT = re.compile(r"(?:^|(?<=\s))#.*$")
#: A comment line (pip: ``COMMENT_RE.match``): white space, then ``#``.
COMMENT_LINE = re.compile(r"\s*#")


def logical_lines(text: str):
    """Yield ``(first_line, logical_text, pieces)`` for the whole file ``text``, following pip's ``join_lines``.

    ``first_line`` is the 1-based number of the logical line's first physical line; ``pieces`` are ``(logical_start, doc_start or None, length)``; a piece
    with ``doc_start`` None is the space pip puts before a comment line.
    """
    pos = 0
    pending: list[tuple[Optional[int], str]] = []  # (doc_start, segment)
    first = 0
    for lineno, chunk in enumerate(_split(text), start=1):
        body = chunk.rstrip("\r\n")
        start = pos
        pos += len(chunk)
        if body.endswith("\\") and not COMMENT_LINE.match(body):
            if not pending:
                first = lineno
            lead = len(body) - len(body.lstrip("\\"))
            pending.append((start + lead, body.strip("\\")))
            continue
        segments = [(start, body)]
        if COMMENT_LINE.match(body):
            segments = [(None, " "), (start, body)]
        if pending:
            yield (first, *_join(pending + segments))
            pending = []
        else:
            yield (lineno, *_join(segments))
    if pending:
        yield (first, *_join(pending))


def _split(text: str) -> list[str]:
    """Physical lines with their line break; ``\\n``, ``\\r\\n`` and a lone ``\\r`` end a line
    (pip reads requirement files with ``str.splitlines``)."""
    return re.findall(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$", text)


def _join(segments):
    pieces = []
    out = []
    at = 0
    for doc_start, seg in segments:
        pieces.append((at, doc_start, len(seg)))
        out.append(seg)
        at += len(seg)
    return "".join(out), tuple(pieces)


