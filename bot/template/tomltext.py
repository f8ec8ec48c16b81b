"""Locating values in TOML text: string literals and ``key =`` positions, for byte-exact edits.

:mod:`tomllib` gives values but no positions; these scanners find where a
value is written (comments skipped, the TOML 1.0 string forms: basic,
literal, multi-line) so that an edit replaces only the characters of one
string and every other byte of the file stays.
"""

from __future__ import annotations

import re
from typing import Optional

try:  # Python 3.11+
    import tomllib
except ModuleNotFoundError:  # pragma: no cover - Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]


def key_position(text: str, table: list[str], key: str) -> Optional[int]:
    """Offset of ``key =`` in the TOML text, looked for after the ``[table]`` header when there is
    one (else from the start, which also finds dotted keys); None when not found."""
    def name(part: str) -> str:
        return r"[\"']?" + re.escape(part) + r"[\"']?"

    start = 0
    for n in range(len(table), 0, -1):
        header = re.search(r"(?m)^[ \t]*\[\[?[ \t]*" + r"[ \t]*\.[ \t]*".join(name(x) for x in table[:n])
                           + r"[ \t]*\]", text)
        if header:
            start = header.end()
            break
    m = re.compile(r"(?m)^[ \t]*(?:[\w\"'.-]+\.)?" + name(key) + r"[ \t]*=").search(text, start)
    return m.start() if m else None


def array_tokens(text: str, tokens: list, table: tuple[str, ...], key: str, items: list) -> Optional[list]:
    """The string token of each item of the array ``table.key`` (None for a non-string item), or None.

    The array is found after its ``key =`` (:func:`key_position`), its extent
    by bracket matching outside strings and comments; the string items must
    then match the tokens inside it in order, value for value.  None when
    the array cannot be located so (an inline table, another layout).
    """
    at = key_position(text, list(table), key)
    if at is None:
        return None
    eq = text.find("=", at)
    lb = eq + 1
    while lb < len(text) and text[lb] in " \t":
        lb += 1
    if eq == -1 or not text.startswith("[", lb):
        return None
    starts = {t[0] - len(t[4]): t for t in tokens}
    depth, i, inside = 0, lb, []
    while i < len(text):
        c = text[i]
        if i in starts:
            tok = starts[i]
            inside.append(tok)
            i = tok[1] + len(tok[4])
            continue
        if c == "#":
            j = text.find("\n", i)
            i = len(text) if j == -1 else j
            continue
        if c == "[":
            depth += 1
        elif c == "]":
            depth -= 1
            if depth == 0:
                break
        i += 1
    out: list = []
    j = 0
    for item in items:
        if not isinstance(item, str):
            out.append(None)
            continue
        while j < len(inside) and (inside[j][2] if inside[j][3] else token_value(inside[j])) != item:
            j += 1
        if j == len(inside):
            return None
        out.append(inside[j])
        j += 1
    return out


def string_tokens(text: str) -> list[tuple[int, int, str, bool]]:
    """Every TOML string literal: ``(start, end, raw, plain)``; ``start``/``end`` exclude the quotes,
    ``raw`` is the text between them, ``plain`` is True when that text equals the value (no
    escapes, one line).  :func:`token_value` gives the value of any token."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == "#":
            j = text.find("\n", i)
            i = n if j == -1 else j
            continue
        if c in "\"'":
            q3 = text.startswith(c * 3, i)
            quote = c * 3 if q3 else c
            s = i + len(quote)
            j = s
            while True:
                j = text.find(quote, j)
                if j == -1:
                    return out  # unterminated: tomllib has already refused such a file
                if c == '"' and escaped_at(text, s, j):
                    j += 1
                    continue
                break
            raw = text[s:j]
            plain = "\\" not in raw if c == '"' else True
            plain = plain and not q3 and "\n" not in raw
            out.append((s, j, raw, plain, quote))
            i = j + len(quote)
            continue
        i += 1
    return out


def token_value(tok) -> Optional[str]:
    """The value of a :func:`string_tokens` token (escapes decoded with tomllib); None if it does not parse."""
    if tok[3]:
        return tok[2]
    quote = tok[4]
    try:
        value = tomllib.loads(f"v = {quote}{tok[2]}{quote}").get("v")
    except tomllib.TOMLDecodeError:
        return None
    return value if isinstance(value, str) else None


def escaped_at(text: str, start: int, j: int) -> bool:
    """True when the quote at ``text[j]`` is escaped: an odd run of backslashes before it, not before ``start``."""
    k = j - 1
    count = 0
    while k >= start and text[k] == "\\":
        count += 1
        k -= 1
    return count % 2 == 1
