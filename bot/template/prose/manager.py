"""The prose manager: moves mentions of the current ExecuTorch version, flags history and mixed sentences.

The forms it reads are in :mod:`bot.template.prose.forms`, the history rules
in :mod:`bot.template.prose.history`, the sentence rules in
:mod:`bot.template.prose.sentences`; the whole rule set is described in
:mod:`bot.template.prose`.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Optional

from bot.lazyre import lazy
from bot.model import Bump, Edit, Finding, Flag, ManagerResult, norm
from bot.template.interface import Manager
from bot.template.prose.forms import FORM_WHY, GUARD, Mention, find_mentions, restatement_patterns
from bot.template.prose.history import history_sections, is_history_file, markdown_structure, section_at
from bot.template.prose.regions import KINDS, Span, file_kind, prose_regions
from bot.template.prose.sentences import (MEASURE, Context, change_verb, clip_line, migration_statement,
                                          mixed_reason)
from bot.template.publicversion import public_version, same_release
from bot.textfile import TextDocument
from bot.versions import major_minor

#: A provenance statement ending right before a version: "Since ExecuTorch X", "Starting with X", "As of vX",
#: "Deprecated in / Removed in / New in / Introduced in / Added in ExecuTorch X": when something happened.
PROVENANCE = lazy(
    r"\b(?:since|starting\s+(?:with|from|in)|as\s+of|deprecated\s+(?:in|since)|removed\s+in"
    r"|(?:new|introduced|added|changed|dropped)\s+in)\s+(?:the\s+)?(?:(?:PyTorch\s+)?ExecuTorch\s+)?"
    r"(?:version\s+|release\s+)?v?\Z", re.I)


#: The last word of a provenance statement before the version (after ExecuTorch/version/release/the/v).
_PROVENANCE_LAST = frozenset({"since", "with", "from", "in", "of"})
_PROVENANCE_SKIP = frozenset({"executorch", "pytorch", "version", "release", "the", "v"})
#: How far before the version (characters) a provenance phrase may start: the word check and the regex
#: read the same window.
_PROVENANCE_WINDOW = 80


def _provenance(text: str, pos: int) -> bool:
    """True when the words before ``pos`` state since when something holds (:data:`PROVENANCE`).

    A word check first (the regex is tried only when the last word can end a provenance phrase):
    the engine asks this for every mention of the current version.  Both read the
    :data:`_PROVENANCE_WINDOW` characters before ``pos``.
    """
    lo = max(0, pos - _PROVENANCE_WINDOW)
    # up to five skip words ("the PyTorch ExecuTorch version v") and the last word: seven pieces
    words = text[lo:pos].rsplit(None, 6)
    while words and words[-1].lower() in _PROVENANCE_SKIP:
        words.pop()
    if not words or words[-1].lower() not in _PROVENANCE_LAST:
        return False
    return PROVENANCE.search(text, lo, pos) is not None


#: A restated derived pin: ``torch 2.13.0``, ``torch==2.13.0``, ``torchao 0.18.0``, ``Vela 5.1.0`` (full X.Y.Z only:
#: ``Vela 5.1`` names a tool release, not a pin).
_RESTATED = re.compile(r"(?<![\w.\-/:])(?P<n>torch|PyTorch|torchao|ethos[-_.]u[-_.]vela|vela|tosa[-_.]tools)"
                       r"(?:[ \t]*==[ \t]*|[ \t]+v?)(?P<v>\d+\.\d+\.\d+)" + GUARD, re.I)
_RESTATED_NAMES = {"pytorch": "torch", "vela": "ethos-u-vela"}


def _stuck_restatements(text: str, segments: list[Span], mine: list[Edit], bump: Bump) -> list[str]:
    """The derived pins a sentence restates that its edits leave behind (``["torchao 0.17.0"]``).

    A restated pin is stuck when no edit of the sentence covers its version and the
    version is not the value the bump writes for that package (or the bump writes none).
    """
    out: list[str] = []
    for a, b in segments:
        low = text[a:b].lower()
        if "torch " not in low and "torch=" not in low and "torchao" not in low and "vela" not in low \
                and "tosa" not in low:
            continue  # names no derived pin (PyTorch::ExecuTorch is not one)
        for m in _RESTATED.finditer(text, a, b):
            s, e = m.span("v")
            if any(ed.start < e and s < ed.end for ed in mine):
                continue
            name = _RESTATED_NAMES.get(m.group("n").lower(), norm(m.group("n")))
            change = bump.change_for(name)
            if change is not None and change.new == m.group("v"):
                continue
            out.append(f"{name} {m.group('v')}")
    return out


@lru_cache(maxsize=16)
def _restated_pins_of(bump: Bump) -> tuple[tuple[str, str], ...]:
    """``((package, old value), ...)``: the derived pins a sentence may restate, for :meth:`ProseManager.update`.

    The old values are upstream's at the current tag and the template's own pins
    (``Bump.restated``), for every package other than executorch whose value the bump changes.
    A pin with a local label (``torch==2.14.0+cpu``) is restated in prose without it
    ("torch 2.14.0"): both forms are old values.  A value that is the new release
    with a label is not old (:func:`~bot.template.publicversion.same_release`).
    """
    pairs = ([(c.name, c.old) for c in bump.changes if c.old and norm(c.name) != "executorch"]
             + [(n, o) for n, o in bump.restated if norm(n) != "executorch" and bump.change_for(n) is not None])
    out: list[tuple[str, str]] = []
    for n, o in pairs:
        if same_release(o, bump.change_for(n).new):
            continue
        out.append((n, o))
        public = public_version(o)
        if public is not None and "+" in o:
            out.append((n, str(public)))
    return tuple(dict.fromkeys(out))


#: The last bump :func:`_restated_pins` answered for, and its answer (a bump is asked once per file).
_LAST_RESTATED: list = [None, ()]


def _restated_pins(bump: Bump) -> tuple[tuple[str, str], ...]:
    """:func:`_restated_pins_of`, answered without hashing the bump when it is the one asked last."""
    if _LAST_RESTATED[0] is not bump:
        _LAST_RESTATED[:] = [bump, _restated_pins_of(bump)]
    return _LAST_RESTATED[1]


class ProseManager(Manager):
    """Rewrites mentions of the current ExecuTorch version in prose and comments (kind ``"prose"``).

    Handles Markdown/rst/plain text as a whole and the comments of YAML,
    requirements, Python, shell, Dockerfile, batch and CMake files (see the
    module docstring for the forms and rules).  ``check()`` is the default:
    prose has no parser beyond the text itself.
    """

    name = "prose"
    patterns = tuple(p for _, pats in KINDS for p in pats)

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
        if "executorch" not in text.lower():   # EXECUTORCH (re.I) on a whole text costs ten times more
            return ManagerResult()
        mentions = find_mentions(doc)
        if not mentions and not any(old in text for _, old in _restated_pins(bump)):
            # no mention and no old value of a restated pin: no edit, no flag (most vendored sources
            # naming executorch in their includes); the comment regions are never computed
            return ManagerResult()
        regions = prose_regions(doc)
        if not regions:
            return ManagerResult()
        ctx = Context(text)
        old_mm, new_mm = major_minor(bump.old_executorch), major_minor(bump.new_executorch)
        olds = {bump.old_executorch, bump.old_pack}
        edits: list[Edit] = []
        flags: list[tuple[int, Flag]] = []  # (offset of the mention, flag)
        if is_history_file(doc.path):
            return ManagerResult((), tuple(self._history(doc, m, bump, ctx.line_text(m.start), history_file=True)
                                           for m in mentions))
        markdown = file_kind(doc.path) == "markdown"
        rst = doc.path.lower().endswith((".rst", ".txt"))
        sections = history_sections(text, rst) if markdown else []
        others: list[tuple[int, str]] = []  # (offset, other ExecuTorch version named there): history
        measure: dict[str, bool] = {}  # a line holding several mentions is tested once

        def measured(line_text: str) -> bool:
            hit = measure.get(line_text)
            if hit is None:
                hit = measure[line_text] = MEASURE.search(line_text) is not None
            return hit

        for m in mentions:
            line_text = ctx.line_text(m.start)
            section = section_at(sections, m.start)
            if section is not None:
                flags.append((m.start, self._history(doc, m, bump, line_text, section=section)))
                continue
            two_part = m.version.count(".") == 1 and m.version.replace(".", "").isdigit()
            if two_part:
                if m.version != old_mm:
                    flags.append((m.start, self._history(doc, m, bump, line_text)))
                    others.append((m.start, m.version))
                elif old_mm != new_mm:
                    if measured(line_text):
                        flags.append((m.start, self._history(doc, m, bump, line_text, measurement=True)))
                    else:
                        edits.append(self._edit(doc, m, new_mm, bump))
                continue
            if m.version not in olds and m.form == "@version" and not m.exact:
                continue  # a bare @~X / @^X range of another version: another pack's range, not ExecuTorch's
            if m.version not in olds:
                flags.append((m.start, self._history(doc, m, bump, line_text)))
                others.append((m.start, m.version))
                continue
            if measured(line_text):
                flags.append((m.start, self._history(doc, m, bump, line_text, measurement=True)))
                continue
            if _provenance(text, m.start):
                flags.append((m.start, self._history(doc, m, bump, line_text, provenance=True)))
                continue
            if migration_statement(text, m.start):
                flags.append((m.start, self._history(doc, m, bump, line_text, migration=True)))
                continue
            new = bump.new_pack if (m.version == bump.old_pack and (m.pack_form or m.version != bump.old_executorch)) \
                else bump.new_executorch
            if new != m.version:
                edits.append(self._edit(doc, m, new, bump))
        edits.extend(e for e in self._restatements(doc, bump, regions, ctx, mentions)
                     if section_at(sections, e.start) is None)
        edits.sort(key=lambda e: e.start)
        breaks = markdown_structure(text, rst)[1] if markdown else None
        return self._leave_mixed_sentences(doc, bump, regions, ctx, breaks, mentions, edits, flags, others)

    # -- helpers -----------------------------------------------------------

    def _edit(self, doc: TextDocument, m: Mention, new: str, bump: Bump) -> Edit:
        return Edit(doc.path, m.start, m.end, m.version, new, m.line, "prose",
                    f"prose: {FORM_WHY[m.form]} names the current ExecuTorch {m.version}")

    def _leave_mixed_sentences(self, doc: TextDocument, bump: Bump, regions: list[Span], ctx: Context,
                               breaks: Optional[list[int]], mentions: list[Mention], edits: list[Edit],
                               flags: list[tuple[int, Flag]], others: list[tuple[int, str]]) -> ManagerResult:
        """Drop the edits of every sentence that mixes the current version with history (module docstring).

        Edits are grouped by sentence (:meth:`Context.sentence_span`, cut at Markdown
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
            verb = change_verb(doc.text, segments, change)

            def sentence(lo: int = lo, hi: int = hi) -> str:   # written out only into a flag
                return clip_line(" ".join(doc.text[lo:hi].split()))

            if verb:
                also = f" (it also names ExecuTorch {', '.join(dict.fromkeys(named))})" if named else ""
                left.append(((lo, hi), Flag(
                    "history-mention", f"left as written: this sentence states what ExecuTorch "
                    f"{bump.old_executorch} {verb}{also}; a version-change statement is history: {sentence()}",
                    path=doc.path, line=mine[0].line, blocking=False)))
                continue
            why = mixed_reason(doc, mine, segments, olds, named, mention_spans)
            if why is None:
                stuck = _stuck_restatements(doc.text, segments, mine, bump)
                if stuck:
                    left.append(((lo, hi), Flag(
                        "restatement-partial", f"left as written: this sentence restates several pins and "
                        f"{', '.join(stuck)} cannot move with the others (no new value for it in this bump), so "
                        f"none is moved (a half-edited sentence is worse than none); edit it by hand: {sentence()}",
                        path=doc.path, line=mine[0].line, blocking=False)))
                    continue
                keep.extend(mine)
                continue
            left.append(((lo, hi), Flag(
                "mixed-mention", f"left as written: this sentence {why}, so moving it to "
                f"{bump.new_executorch} would rewrite history or a claim the bump does not check; "
                f"edit it by hand if it should move: {sentence()}", path=doc.path, line=mine[0].line, blocking=False)))
        out_flags = [f for pos, f in flags if not any(a <= pos < b for (a, b), _ in left)]
        out_flags.extend(f for _, f in left)
        # A line is never both edited and listed as history: its edits are dropped and the line is
        # one mixed-mention item for a person (which part is history is theirs to say).
        history_lines = {f.line for f in out_flags if f.code == "history-mention"}
        both = sorted({e.line for e in keep} & history_lines)
        if both:
            keep = [e for e in keep if e.line not in both]
            lines = doc.text.splitlines()
            out_flags = [f for f in out_flags if not (f.code == "history-mention" and f.line in both)]
            out_flags.extend(Flag(
                "mixed-mention", f"left as written: this line names the current ExecuTorch {bump.old_executorch} "
                f"and history (another ExecuTorch version, or a history statement); a line is never both edited "
                f"and history: edit it by hand if part of it should move: {clip_line(lines[n - 1])}",
                path=doc.path, line=n, blocking=False) for n in both)
        out_flags.sort(key=lambda f: f.line or 0)
        return ManagerResult(tuple(keep), tuple(out_flags))

    def _history(self, doc: TextDocument, m: Mention, bump: Bump, line_text: str,
                 measurement: bool = False, history_file: bool = False, section: Optional[str] = None,
                 provenance: bool = False, migration: bool = False) -> Flag:
        snippet = clip_line(line_text)
        if migration:
            why = (f"tells of a past move to ExecuTorch {m.version} (\"moved / upgraded / migrated / switched / "
                   f"updated to ExecuTorch {m.version}\"); when something happened is history, left as written")
        elif provenance:
            why = (f"says since when something holds (\"Since / Starting with / As of / Deprecated in / Removed in "
                   f"/ New in ExecuTorch {m.version}\"); a provenance statement is history, left as written")
        elif history_file:
            why = (f"names ExecuTorch {m.version} in a history file (CHANGELOG*, CHANGES*, HISTORY*, NEWS*, "
                   "RELEASE*NOTES*); history files are never edited, left as written")
        elif section is not None:
            why = (f"names ExecuTorch {m.version} in the history section \"{clip_line(section)}\" (a dated or "
                   "changelog heading); history sections are never edited, left as written")
        elif measurement:
            why = (f"reads as a measurement and names the current ExecuTorch {m.version}; "
                   "measurements are history, left as written")
        else:
            why = (f"names ExecuTorch {m.version} ({FORM_WHY[m.form]}), not the current "
                   f"{bump.old_executorch}; left as history")
        return Flag("history-mention", f"{why}: {snippet}",
                    path=doc.path, line=m.line, blocking=False)

    def _restatements(self, doc: TextDocument, bump: Bump, regions: list[Span], ctx: Context,
                      mentions: list[Mention]) -> list[Edit]:
        """Edits for "torch==Y" / "targets torch Y and torchao Z" restating the old derived pins (never
        inside a mention's version)."""
        names = _restated_pins(bump)
        if not names:
            return []
        text = doc.text
        news = {norm(c.name): c.new for c in bump.changes}
        out: list[Edit] = []
        taken: Optional[set[int]] = None   # offsets covered by a mention or an edit made here
        for name, old, pip, word in restatement_patterns(names):
            if old not in text:
                continue
            if taken is None:
                taken = {i for m in mentions for i in range(m.start, m.end)}
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
                        if not ok or MEASURE.search(ctx.line_text(s)):
                            continue
                        taken.update(range(s, e))
                        form = f"{norm(name)}==" if pip_form else f'"{norm(name)} Y"'
                        out.append(Edit(doc.path, s, e, old, news[norm(name)], doc.line_of(s), "prose",
                                        f"prose: {form} restates the {norm(name)} pin of ExecuTorch "
                                        f"{bump.old_executorch}"))
        return out
