"""Making foreign text inert before it reaches a log, an annotation or GitHub.

Text read from a template (a prose line, a path), from upstream at a tag (a
pin expression, a requirement, ``requires-python``) or from a pack (a
component name, a compiler message) is not the bot's own: on GitHub it could
notify people (``@user``, ``@org/team``), cross-link issues (``#12``,
``GH-12``, ``owner/repo#12``, a commit SHA), hide the rest of a body
(``<!--``), draw images or links, or break a table (``|``); in an Actions
log a line starting ``::`` is read as a workflow command.  Every renderer
passes such text through exactly one of the three functions here:

- :func:`code` for a value shown as-is (a line of a file, a requirement, a
  component name): one line, inside a Markdown code span.  GitHub renders
  nothing inside a code span (no mention, reference, autolink, HTML or
  emphasis: GitHub Flavored Markdown spec, "Code spans"); a ``|`` is still a
  cell border in a table row, so ``in_table=True`` escapes it as ``\\|``
  (GFM spec, "Tables", example 200).
- :func:`markdown` for foreign text running inside a sentence the bot
  writes: one line, Markdown punctuation backslash-escaped, ``<``/``>``/``&``
  as entities, and a zero-width space (``&#8203;``) after ``@``, after ``#``
  and ``GH-`` before a digit, inside any run of 7 or more hex digits that
  holds a letter ``a``-``f`` (a run of decimal digits is a number, a size or
  a count, and stays whole: GitHub links a SHA only when that commit exists,
  and a link to a commit notifies no one), after
  a URL scheme's ``:`` before ``//`` (``https:&#8203;//``), after ``www``
  before a full stop (ASCII, ideographic or full-width) and before the
  colon of ``mailto:``/``xmpp:``, so none of GitHub's autolinked references,
  mentions or URLs forms ("Autolinked references and URLs" in GitHub's
  docs; GFM spec, "Autolinks (extension)": a link starts with ``www.``,
  ``http://``, ``https://``, ``mailto:`` or ``xmpp:``).  Escaping the dots
  of a URL is not enough: GitHub autolinks ``https://evil%2Eexample/`` and
  ``https://evil\u3002example/``, and a backslash escape is gone before
  its autolinker runs.
- :func:`line` for text printed to stdout/stderr: one line with control
  characters replaced, never starting with ``::`` (GitHub docs, "Workflow
  commands for GitHub Actions": a command is a line that starts with ``::``)
  and never holding ``##[`` (the runner's older command form, which its
  ``ActionCommand.TryParse`` accepts anywhere in a line: ``##[error]x``).
- :func:`log_safe` for many lines printed as they are (a diff, a build
  log): each line keeps its text but can start no workflow command.

Each caps its result (``cap`` characters of the foreign text, an ellipsis
``…`` marking the cut), so one padded string cannot crowd out the rest of a
report.
"""

from __future__ import annotations

import re

ELLIPSIS = "…"
ZWSP = "&#8203;"   # zero-width space as an HTML entity: invisible, but it splits a mention or reference

# C0 and C1 control characters and the Unicode line/paragraph separators: each ends or garbles a line.
# The bidirectional embeddings, overrides and isolates (U+202A-U+202E, U+2066-U+2069; "Trojan Source",
# CVE-2021-42574) reorder what is shown after them up to the end of the paragraph, the bot's own words
# included, also outside the code span that holds them: they are replaced too.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
_NEWLINES = re.compile(r"\r\n|[\r\n\t]")
_MD_PUNCT = re.compile(r"([\\`*_{}\[\]()#+\-.!|~>])")
_HEX_RUN = re.compile(r"[0-9a-fA-F]{7,}")
_REF = re.compile(r"(?i)(#|gh-)(?=\d)")
# Where GitHub's autolinker starts a URL (GFM "Autolinks (extension)"): a scheme's "://", "www" before a
# full stop (ASCII, ideographic U+3002, full-width U+FF0E, half-width U+FF61), "mailto:" and "xmpp:".
_URL_START = re.compile(r"(?i)(?<=[a-z0-9]):(?=//)|(?<![a-z0-9])www(?=[.\u3002\uff0e\uff61])|(?<![a-z0-9])(?:mailto|xmpp)(?=:)")


def _cut(s: str, cap: int) -> str:
    """The first ``cap`` characters of ``s`` and ``…``, backed off to a word end when one is in the last quarter,
    and never leaving a bracket open in its second half: ``see (a, b, c)`` cut inside the brackets ends before ``(``
    (a cell cut at ``(…`` says nothing); a bracket opened in the first half keeps what follows it."""
    kept = s[:cap]
    space = kept.rfind(" ")
    if s[cap:cap + 1] not in ("", " ", "\n", "\r", "\t") and space >= cap * 3 // 4:
        kept = kept[:space].rstrip(" ,;:")
    opened: list[int] = []
    for i, ch in enumerate(kept):
        if ch in "([{":
            opened.append(i)
        elif ch in ")]}" and opened:
            opened.pop()
    closer = {"(": ")", "[": "]", "{": "}"}
    if opened and opened[0] >= cap // 2 and closer[kept[opened[0]]] in s[len(kept):]:   # the cut split a group
        kept = kept[:opened[0]].rstrip(" ,;:")
    return kept + ELLIPSIS


def _one_line(text: object, cap: int) -> str:
    """``text`` as one line: CR/LF/tab become a space, other control characters and bidirectional
    controls U+FFFD, cut at ``cap`` (:func:`_cut`)."""
    s = "" if text is None else str(text)
    if len(s) > cap:          # cut first: the patterns below then never see more than ``cap`` characters
        s = _cut(s, cap)
    s = _NEWLINES.sub(" ", s)
    return _CONTROL.sub("\ufffd", s)


def code(text: object, *, cap: int = 200, in_table: bool = False) -> str:
    """``text`` as one inert Markdown code span: ``"a`b"`` -> ``"`` a`b ``"``.

    The fence is one backtick longer than the longest backtick run in the
    text, padded with a space when the text starts or ends with a backtick
    (GFM spec, "Code spans").  ``in_table`` escapes ``|``.  Empty text gives
    ``""`` (an empty code span is not a code span in GFM).
    """
    s = _one_line(text, cap)
    if not s:
        return ""
    longest = max((len(m) for m in re.findall(r"`+", s)), default=0)
    fence = "`" * (longest + 1)
    if s.startswith("`") or s.endswith("`") or (s.startswith(" ") and s.endswith(" ") and s.strip()):
        s = f" {s} "
    if in_table:
        s = s.replace("|", "\\|")
    return f"{fence}{s}{fence}"


def _break_hex(m: re.Match) -> str:
    # the NUL marker becomes ZWSP after the escaping (an entity inserted here would itself be escaped).
    # A run of decimal digits is a number ("6077516 bytes"): a zero-width space inside it would show in a copy
    # and, in a code block, as "607751&#8203;6"; it is left whole.
    run = m.group(0)
    if run.isdigit():
        return run
    return "\0".join(run[i:i + 6] for i in range(0, len(run), 6))


def markdown(text: object, *, cap: int = 500) -> str:
    """``text`` as one line of inert Markdown to run inside the bot's own sentence.

    Markdown punctuation is backslash-escaped (no emphasis, link, image,
    heading, list or table cell), ``&``, ``<`` and ``>`` become entities (no
    HTML, no ``<!--``), and a zero-width space goes after every ``@``, after
    ``#``/``GH-`` before a digit and every 6 characters of a hex run of 7 or
    more that holds a letter (no mention, issue reference, ``owner/repo#N``
    or commit autolink; a decimal number stays whole).
    """
    s = _one_line(text, cap)
    s = s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    s = _HEX_RUN.sub(_break_hex, s)
    s = _REF.sub(lambda m: m.group(1) + "\0", s)     # mark before escaping: '#' is also Markdown punctuation
    s = _URL_START.sub(lambda m: m.group(0) + "\0", s)
    s = s.replace("@", "@\0")
    s = _MD_PUNCT.sub(r"\\\1", s)
    return s.replace("\0", ZWSP)


def line(text: object, *, cap: int = 500) -> str:
    """``text`` as one printable log line that Actions will not read as a workflow command.

    CR, LF and tab become spaces, other control characters U+FFFD; a
    leading ``::`` (after any spaces: the Actions runner trims them before
    it looks for a command) becomes ``:\u200b:`` (a zero-width space, which
    is not white space to the runner), and ``##[`` anywhere ``##\u200b[``.
    """
    return _no_command(_one_line(text, cap))


_LEGACY_COMMAND = re.compile(r"##\[")
_BREAK = "\u200b"   # zero-width space: not white space to the runner, invisible in the log


def _no_command(s: str) -> str:
    """``s`` (one line) with a leading ``::`` (after spaces) and every ``##[`` broken by a zero-width space."""
    if "##[" in s:
        s = _LEGACY_COMMAND.sub("##" + _BREAK + "[", s)
    body = s.lstrip()
    if body.startswith("::"):
        s = s[:len(s) - len(body)] + ":" + _BREAK + ":" + body[2:]
    return s


def log_safe(text: object) -> str:
    """Many lines of foreign text printed as they are, none of them a workflow command.

    Lines are split where the Actions runner splits them (``\n``, ``\r``);
    each keeps its text and line end, with a leading ``::`` and any ``##[``
    broken as in :func:`line`.  No cap: use it for output the bot shows in
    full (the diff of a plan), :func:`lines` for output it may cut.
    """
    s = "" if text is None else str(text)
    if "::" not in s and "##[" not in s:
        return s
    return "".join(_no_command(part) for part in re.split(r"(?<=[\r\n])", s))


def lines(text: object, *, cap: int = 500, max_lines: int = 40) -> list[str]:
    """Multi-line foreign text (a compiler message) as at most ``max_lines`` lines, each through :func:`line`.

    A last line ``… N more lines`` counts what was left out.
    """
    rows = ("" if text is None else str(text)).splitlines()
    out = [line(r, cap=cap) for r in rows[:max_lines]]
    if len(rows) > max_lines:
        out.append(f"{ELLIPSIS} {len(rows) - max_lines} more lines")
    return out
