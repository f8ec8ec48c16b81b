"""The leftovers check: strong forms of the OLD ExecuTorch version that no edit rewrites.

Searched after planning in every loaded file and every other text file of
the scan; the forms are listed in :func:`leftovers`.
"""

from __future__ import annotations

import bisect
import re

from bot.engine.read import Template
from bot.model import Bump, Edit, Flag
from bot.textfile import TextDocument
from bot.textreport import plural


def _leftover_pattern(olds: tuple[str, ...]) -> "re.Pattern[str]":
    """The strong forms of the old ExecuTorch version, version in group ``v``."""
    v = "(?P<v>" + "|".join(re.escape(o) for o in sorted(set(olds), key=len, reverse=True)) + r")"
    guard = r"(?![\w]|[+\-][0-9A-Za-z]|\.(?!pack\b)[0-9A-Za-z])"  # whole version; ".pack" may follow
    return re.compile(
        r"(?:(?<![\w.\-/])executorch(?:\[[^\]\n]*\])?[ \t]*==[ \t]*"
        r"|PyTorch::ExecuTorch@(?:\^|~|>=)?"
        r"|PyTorch\.ExecuTorch\.(?=[\w.\-]*\.pack\b)"
        r"|pytorch/executorch/releases/download/v?"
        r"|EXECUTORCH_VERSION[ \t\"'=:]*"
        # C/C++: #define ET_VERSION_STRING "OLD", #define MY_EXECUTORCH_PACK_VERSION "OLD"
        r"|\#[ \t]*define[ \t]+(?=(?:\w*_)?(?:EXECUTORCH|ET)(?:_\w*)?[ \t])(?=\w*VERSION)\w+[ \t]+\""
        r"|find_package[ \t]*\([ \t]*executorch[ \t]+)" + v + guard, re.I)


#: Leftover flags listed per file; further hits in the file are counted in one more flag.
MAX_LEFTOVERS_PER_FILE = 20


def leftovers(tpl: Template, bump: Bump, edits: list[Edit], flags: list[Flag]) -> list[Flag]:
    """Non-blocking ``leftover`` flags: strong forms of the OLD version that no edit rewrites.

    Searched in every loaded file and in every other text file of the scan
    (environment.yml, JSON, C code, CMake code ...): ``executorch==OLD``,
    ``PyTorch::ExecuTorch@OLD``, ``PyTorch.ExecuTorch.OLD.pack``, the release
    URL ``pytorch/executorch/releases/download/vOLD/``, ``EXECUTORCH_VERSION``
    followed by OLD, CMake ``find_package(executorch OLD ...)``, C/C++
    ``#define NAME "OLD"`` where NAME holds ``VERSION`` and ``EXECUTORCH`` or
    an ``ET`` part (``ET_VERSION_STRING``, ``MY_EXECUTORCH_PACK_VERSION``).  A hit inside an edit, or on a line already flagged, is
    not reported.  Files are read only when their bytes hold the old version
    text; binary files (a NUL in the first 8 KiB) are skipped.  The report
    stays bounded: at most :data:`MAX_LEFTOVERS_PER_FILE` flags a file, then
    one flag counting the rest (a build log can hold thousands of hits).
    """
    if bump.old_executorch == bump.new_executorch and bump.old_pack == bump.new_pack:
        return []
    olds = tuple({bump.old_executorch, bump.old_pack})
    rx = _leftover_pattern(olds)
    needles = tuple(o.encode() for o in olds)
    by_path: dict[str, list[Edit]] = {}
    for e in sorted(edits, key=lambda e: e.start):
        by_path.setdefault(e.path, []).append(e)
    starts = {p: [e.start for e in es] for p, es in by_path.items()}
    flagged = {(f.path, f.line) for f in flags if f.path and f.line}
    out: list[Flag] = []

    def uncovered(path: str, text: str) -> bool:
        """True when some occurrence of an old version text lies outside every edit of the file
        (a leftover needs one; a file whose every occurrence is edited is not searched)."""
        mine, at = by_path.get(path, []), starts.get(path, [])
        if not mine:
            return True
        for o in olds:
            i = text.find(o)
            while i != -1:
                k = bisect.bisect_right(at, i)
                if not (k and mine[k - 1].end >= i + len(o)):
                    return True
                i = text.find(o, i + 1)
        return False

    def search(path: str, text: str, line_of) -> None:
        if not uncovered(path, text):
            return
        mine, at = by_path.get(path, []), starts.get(path, [])
        found = 0
        more: list[int] = []
        for m in rx.finditer(text):
            s, e = m.span("v")
            i = bisect.bisect_left(at, e)  # edits never overlap: only the last one starting before e can cover s
            if i and mine[i - 1].end > s:
                continue
            line = line_of(s)
            if (path, line) in flagged:
                continue
            flagged.add((path, line))
            if found >= MAX_LEFTOVERS_PER_FILE:
                more.append(line)
                continue
            found += 1
            snippet = m.group(0) if len(m.group(0)) <= 80 else m.group(0)[:77] + "..."
            out.append(Flag("leftover", f"not rewritten: {snippet!r} names the old ExecuTorch {m.group('v')}; "
                            "edit by hand, or open an issue for executorch-pack-bot (its issue tracker) "
                            "naming the format so the bot learns it", path=path, line=line, blocking=False))
        if more:
            out.append(Flag("leftover", f"and {plural(len(more), 'more line')} naming the old ExecuTorch {bump.old_executorch} "
                            f"(lines {more[0]}-{more[-1]}); not listed one by one", path=path, line=more[0],
                            blocking=False))

    for loaded in tpl.files:
        doc = loaded.doc
        if any(o in doc.text for o in olds):
            search(doc.path, doc.text, doc.line_of)
    for rel in tpl.others_for(olds):
        raw = tpl.other_bytes(rel)
        if raw is None or not any(n in raw for n in needles) or b"\0" in raw[:8192]:
            continue
        try:
            text = raw.decode("utf-8-sig")
        except UnicodeDecodeError:
            text = raw.decode("latin-1")
        search(rel, text, TextDocument(rel, text).line_of)
    return out
