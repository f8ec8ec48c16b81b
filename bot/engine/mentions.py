"""Closed-world accounting of the versions a bump moves: every occurrence lands in exactly one bucket.

After planning, every occurrence of a *tracked* version in every file the bot
read (the loaded template files and the other text files of the scan) is put
in one of four buckets:

``moved``
    an edit of the plan rewrites it (in ``audit``: a bump would rewrite it);
``history``
    left alone on purpose: its line is a history item (a history file or
    section, a provenance or version-change sentence, a measurement);
``other``
    another thing's version, and the rule that says so is named (another
    pack ``ARM::X@1.4.0``, another package ``numpy==1.4.0``, a tool
    ``CMSIS-Toolbox 1.4.0``, a size ``1.4 MB``, an ``ignore-mentions:`` entry);
``review``
    the bot cannot tell: left alone and listed (file, line, text) as a
    non-blocking flag in ``update``, the PR's reviewer items and ``audit``.

There is no fifth bucket: what no rule explains is for review.  Tracked
versions: the template's current ExecuTorch version in every form (``X.Y.Z``,
``vX.Y.Z``, ``X.Y.Z-local``, the pack form when it differs, and ``X.Y`` when
the bump changes major.minor), the template's own values of the derived pins
the bump moves (torch, torchao, ethos-u-vela, the TOSA pins that change), and
every other full ExecuTorch version the template itself names in an ExecuTorch
context (its history).  Source of the rule: docs/mentions.md ("The buckets").

:func:`account` is a pure function of the read template, the plan's edits and
flags, and the ``ignore-mentions:`` entries; it reads the other text files of
the scan through :meth:`bot.engine.read.Template.other_text`.
"""

from __future__ import annotations

import bisect
import fnmatch
import re
from dataclasses import dataclass, field
from typing import Optional

from bot.engine.read import PACK, REQUIREMENT_KINDS, Template
from bot.model import Bump, Edit, Flag, PinChange, norm
from bot.template.prose.sentences import MEASURE, is_quantity
from bot.template.publicversion import same_release
from bot.textfile import TextDocument
from bot.versions import major_minor

#: The buckets, in report order.
BUCKETS = ("moved", "history", "other", "review")
#: Flag codes whose lines are history: a tracked version on such a line, not edited, is history.
HISTORY_CODES = frozenset({"history-mention"})
#: Flag codes that already list their line for a person (the reason of a ``review`` item; no second flag).
REVIEW_CODES = frozenset({"mixed-mention", "leftover", "url-requirement", "python-lock", "compiled-requirements",
                          "conda-pin", "restatement-partial", "direct-reference", "range-pin", "unmanaged-pin",
                          "script-pin-drift", "nightly-pin", "pin-was-different", "companion-pin",
                          "unresolved-pin", "commit-pin", "hashed-pin", "python-pin"})
#: Flag codes that name another thing's version on their line (the rule is the code): a line inside
#: content the template does not own.  A submodule's files are never read (bot.template.submodules lists
#: each submodule once, "inside submodule X (not edited)", a flag without a line), so none of their
#: occurrences reaches the buckets; a line-level item of that code would land in ``other``.
OTHER_CODES = frozenset({"submodule-not-edited"})
#: The rule of a version-shaped number followed by a unit ("1.3 M cycles", "1.5 MB", "2.0 ms", "1.4 GHz").
QUANTITY_RULE = "a quantity (a number with a unit)"
#: The flag code of a review item no other flag lists.
REVIEW_FLAG = "review-mention"


@dataclass(frozen=True)
class IgnoreEntry:
    """One ``ignore-mentions:`` entry of the config file: ``path:line`` or a path glob, with a reason.

    ``line`` is None for a glob (every line of the matching files); ``config_line``
    is the entry's line in ``.github/executorch-pack-bot.yml``.
    """

    pattern: str
    line: Optional[int]
    reason: str
    config_line: int = 0

    def matches(self, path: str, line: int) -> bool:
        if self.line is not None:
            return path == self.pattern and line == self.line
        return fnmatch.fnmatchcase(path, self.pattern)


@dataclass(frozen=True)
class Occurrence:
    """One occurrence of a tracked version in one file.

    Attributes:
        path: repository-relative POSIX path; line: 1-based; column: 1-based column of the version text.
        version: the version text as found (``"1.4.0"``, ``"1.4"``); subject: what it versions
            (``"ExecuTorch"``, ``"torch"``, ...).
        bucket: one of :data:`BUCKETS`; rule: why (the edit's reason, the flag code, the rule's name).
        text: the whole line, stripped (at most 160 characters).
    """

    path: str
    line: int
    column: int
    version: str
    subject: str
    bucket: str
    rule: str
    text: str

    def to_json(self) -> dict:
        return {"path": self.path, "line": self.line, "column": self.column, "version": self.version,
                "subject": self.subject, "bucket": self.bucket, "rule": self.rule, "text": self.text}


@dataclass
class Accounting:
    """The result of :func:`account`: every occurrence in exactly one bucket.

    ``version`` is the ExecuTorch version the summary names (the bump's old
    version; the pinned one in ``audit``); ``tracked`` the ``(subject, version)``
    pairs searched; ``items`` every occurrence in file order; ``flags`` the
    ``review-mention`` flags for review items no other flag lists.
    """

    version: str
    tracked: tuple[tuple[str, str], ...] = ()
    #: the occurrences outside ``moved``, as found
    left: list[Occurrence] = field(default_factory=list)
    flags: list[Flag] = field(default_factory=list)
    #: the moved occurrences, kept raw ``(path, offset, version, subject, rule, text, line_of)`` until
    #: :attr:`items` is read (most of a bump's occurrences are moved; a summary needs only their count)
    moved: list[tuple] = field(default_factory=list, repr=False)
    _items: Optional[list[Occurrence]] = field(default=None, repr=False, compare=False)

    @property
    def items(self) -> list[Occurrence]:
        """Every occurrence, sorted by (path, line, column)."""
        if self._items is None:
            out = list(self.left)
            for path, s, v, subject, rule, text, line_of in self.moved:
                lo, hi = _line_bounds(text, s)
                t = text[lo:hi].strip()
                out.append(Occurrence(path, line_of(s), s - lo + 1, v, subject, "moved", rule,
                                      t if len(t) <= 160 else t[:157] + "..."))
            out.sort(key=lambda o: (o.path, o.line, o.column))
            self._items = out
        return self._items

    def counts(self) -> dict[str, int]:
        out = {b: 0 for b in BUCKETS}
        out["moved"] = len(self.moved)
        for o in self.left:
            out[o.bucket] += 1
        return out

    @property
    def review(self) -> list[Occurrence]:
        return [o for o in self.items if o.bucket == "review"]

    def summary(self) -> str:
        """``mentions of 1.4.0: 14 moved, 3 history, 2 other versions, 1 for review``."""
        c = self.counts()
        return (f"mentions of {self.version}: {c['moved']} moved, {c['history']} history, "
                f"{c['other']} other version{'' if c['other'] == 1 else 's'}, {c['review']} for review")

    def to_json(self) -> dict:
        """``{"version", "tracked": [{"subject", "version"}], "counts": {bucket: n}, "review": [item],
        "items": [item]}``; an item is :meth:`Occurrence.to_json`."""
        return {"version": self.version,
                "tracked": [{"subject": s, "version": v} for s, v in self.tracked],
                "counts": self.counts(),
                "review": [o.to_json() for o in self.review],
                "items": [o.to_json() for o in self.items]}


def _line_bounds(text: str, s: int) -> tuple[int, int]:
    """``(start, end)`` of the line holding offset ``s``, without its line break: a line ends at ``\\n``,
    ``\\r\\n`` or a lone ``\\r``, as :meth:`bot.textfile.TextDocument.line_of` counts lines."""
    lo = text.rfind("\n", 0, s) + 1
    hi = text.find("\n", s)
    hi = len(text) if hi == -1 else hi
    # a "\r" is searched only inside the "\n" line: no scan of the whole file per occurrence
    cr = text.find("\r", s, hi)
    return max(lo, text.rfind("\r", lo, s) + 1), hi if cr == -1 else cr


# -- the rules of the "other" bucket -------------------------------------------------------------

_PACK_ID = re.compile(r"([A-Za-z0-9_.\-]+::[A-Za-z0-9_.\-]+)@(?:\^|~|>=)?v?$")
#: A requirement ``name==X`` (every PEP 440 comparison) or an assignment ``NAME = X``, ``NAME := X``,
#: ``NAME ::= X``, ``NAME ?= X`` (make).
_PIP = re.compile(r"(?<![\w.\-])([A-Za-z0-9][A-Za-z0-9._\-]*)(?:\[[^\]\n]*\])?[ \t]*(?:===|==|~=|!=|<=|>=|<|>|::?=|\?=|=)[ \t]*v?$")
#: Variable name parts that name no thing: ``VERSION = X`` could be ExecuTorch's, so it stays for review.
_GENERIC_VARS = frozenset({"VERSION", "VER", "PACK", "RELEASE", "TAG", "REF", "BRANCH", "DEFAULT", "MY", "THE", ""})
_NAME_PARTS = re.compile(r"[_.\-]")
_BARE_RANGE = re.compile(r"(?<![\w:])@(?:\^|~|>=)$")
_PIP_AT = re.compile(r"(?<![\w.\-])([A-Za-z0-9][A-Za-z0-9._\-]*)@v?$")
#: Tools whose version sits beside ExecuTorch's in templates (public CMSIS ExecuTorch templates such as Arm-Examples/CMSIS-Executorch: vcpkg, created-for, PackChk ...).
_TOOLS = ("cmsis-toolbox", "cmsis toolbox", "packchk", "cmake", "gcc", "arm-none-eabi-gcc", "armclang", "fvp",
          "python", "node", "ninja", "cpackget", "cbuild", "vcpkg", "ubuntu", "llvm", "clang", "arm compiler",
          "numpy", "pip", "setuptools", "flatc", "flatbuffers", "ml_dtypes", "pybind11", "zephyr", "mbed")
_TOOL = re.compile(r"(?<![\w\-])(" + "|".join(re.escape(t) for t in _TOOLS) + r")(?:[ \t]+version)?[ \t]*[:=@ ]?[ \t]*v?$",
                   re.I)


def _other_rule(subject: str, line: str, col: int, end: int) -> Optional[str]:
    """The rule naming the occurrence at ``line[col:end]`` as another thing's version, or None."""
    before = line[max(0, col - 80):col]
    m = _PACK_ID.search(before)
    if m:
        if m.group(1) == PACK and subject == "ExecuTorch":
            return None
        return f"another pack ({m.group(1)})"
    if _BARE_RANGE.search(before):
        return "a pack version range (@^X, @~X, @>=X) that does not name ExecuTorch"
    m = _PIP.search(before) or _PIP_AT.search(before)
    if m:
        name = norm(m.group(1))
        if m.group(1).isupper() or "_" in m.group(1):  # a variable: NAME = X, NAME := X
            # parts split at "_", "-" and "." (make allows "-" and "." in a name: ETHOS-U-VELA_VERSION)
            parts = set(_NAME_PARTS.split(m.group(1).upper()))
            if parts & {"EXECUTORCH", "ET"} or set(norm(subject).upper().split("-")) <= parts \
                    or (subject == "torch" and "PYTORCH" in parts) or parts <= _GENERIC_VARS:
                # names ExecuTorch, the subject (ETHOS_U_VELA_VERSION; PYTORCH_VERSION for torch, its conda name)
                # or nothing: not another thing's
                return None
            return f"another variable ({m.group(1)})"
        if name not in (norm(subject), "executorch", "pytorch" if subject == "torch" else ""):
            return f"another package ({m.group(1)})"
        return None
    m = _TOOL.search(before)
    if m and norm(m.group(1)) != norm(subject):
        return f"a tool version ({m.group(1)})"
    cells = line.strip()
    if cells.startswith("|") and cells.count("|") >= 2:
        first = cells.strip("|").split("|")[0].strip(" \t*`")
        if first and "executorch" not in first.lower() and norm(subject) not in first.lower():
            return f"a table row of another thing ({first[:40]})"
    return None


# -- tracking ------------------------------------------------------------------------------------

#: What makes a version longer (another version, not an occurrence of this one): more digits or parts, a
#: pre-release, dev, post or local part (PEP 440, SemVer).  Anything else may follow: ``.tar.gz``, ``-cp311``,
#: ``-local``, ``.pack``, a word.  Wide on purpose: a look-alike lands in a bucket, never outside them.
_CONTINUES = (r"\d|\.\d|[.\-]?(?:rc|alpha|beta|pre|a|b|c)\.?\d|\.?(?:dev|post)\d|\+[0-9A-Za-z]|-\d")


def _version_rx(versions: list[str], major: Optional[int]) -> "re.Pattern[str]":
    alts = [re.escape(v) for v in sorted(set(versions), key=len, reverse=True)]
    if major is not None:
        alts.append(str(major) + r"\.\d+\.\d+")  # earlier releases of the same major (filtered by value)
    # a whole version: no digit, word or "." before (a "v" prefix is part of the form), none after
    # except the "-local" form of a pack build label
    # (?=[0-9]) first: most positions fail on it before the look-behinds run
    return re.compile(r"(?=[0-9])(?<![0-9])(?<![0-9]\.)(?P<v>" + "|".join(alts) + r")(?!" + _CONTINUES + ")")


def _earlier(v: str, before) -> bool:
    """True when ``v`` (``X.Y.Z``) is a release earlier than ``before`` (a packaging Version)."""
    try:
        return tuple(int(p) for p in v.split(".")) < before.release[:3]
    except ValueError:
        return False


def tracked_versions(tpl: Template, bump: Bump, pinned_only: bool = False) -> list[tuple[str, str]]:
    """The ``(subject, version)`` pairs :func:`account` searches for, in a fixed order.

    ``subject`` is ``"ExecuTorch"`` for the old ExecuTorch version (and its pack
    form, and ``X.Y`` when the bump changes major.minor) and for every other
    full ExecuTorch version the template names in an ExecuTorch context; a
    package name for the template's own values of the derived pins whose
    version the bump changes, and for the version of every conda-level spec of
    a Python pin (never rewritten, so always accounted for).  A bump with nothing to move tracks only the
    named history versions (``pinned_only`` skips those).
    """
    out: list[tuple[str, str]] = []
    seen: set[str] = set()

    def add(subject: str, v: Optional[str]) -> None:
        if v and v not in seen:  # a version is tracked once, under the first subject that names it
            seen.add(v)
            out.append((subject, v))

    moving = bump.old_executorch != bump.new_executorch or bump.old_pack != bump.new_pack
    if moving:
        add("ExecuTorch", bump.old_executorch)
        add("ExecuTorch", bump.old_pack)
        if bump.major_minor_changed:
            add("ExecuTorch", major_minor(bump.old_executorch))
    # one pass over the findings (a template may hold thousands of prose mentions)
    pinned: dict[str, list[str]] = {}
    conda: list[tuple[str, str]] = []
    prose: dict[str, None] = {}
    for f in tpl.findings:
        if not f.version:
            continue
        if f.kind in REQUIREMENT_KINDS:
            if f.exact:
                values = pinned.setdefault(norm(f.name), [])
                if f.version not in values:
                    values.append(f.version)
        elif f.kind == "conda-pin":
            if f.version[0].isdigit():
                conda.append((f.name, f.version))
        elif f.kind == "prose" and f.version.count(".") == 2 and f.version[0].isdigit() \
                and not (f.name == "@version" and not f.exact):  # a bare @~X range: another pack's
            prose[f.version] = None
    for c in bump.changes:
        name = norm(c.name)
        if name == "executorch":
            continue
        for v in pinned.get(name) or ([c.old] if c.old else []):
            if not same_release(v, c.new):  # torch==2.14.0+cpu is the new 2.14.0 with its label: not moving
                add(name, v)
    for name, v in conda:
        add(name, v)  # a conda-level spec the bot never rewrites: always accounted for
    if not pinned_only:
        for v in prose:
            add("ExecuTorch", v if v != bump.new_executorch else None)
    return out


def account(tpl: Template, bump: Bump, edits: list[Edit], flags: list[Flag],
            ignore: tuple[IgnoreEntry, ...] = (), version: Optional[str] = None,
            tracked: Optional[list[tuple[str, str]]] = None, earlier_than: Optional[str] = None) -> Accounting:
    """Put every occurrence of a tracked version (:func:`tracked_versions`) in one bucket.

    Args:
        tpl: the read template (:func:`bot.engine.read.read_template`).
        bump: the bump planned (``audit`` passes a hypothetical one).
        edits / flags: the plan's edits and flags (before this accounting's own flags).
        ignore: the config file's ``ignore-mentions:`` entries.
        version: the version the summary names (default ``bump.old_executorch``).
        tracked: the pairs to search (default :func:`tracked_versions`).
        earlier_than: also track every ``X.Y.Z`` of the same major that is earlier than this
            ExecuTorch version (default ``bump.old_executorch``): earlier releases are history
            candidates, so a line left for review in one bump is still listed after it.

    Returns an :class:`Accounting` whose ``flags`` hold one non-blocking
    ``review-mention`` flag per review line that no other flag lists.  Never
    raises for file content: a file that is not text was never read.
    """
    from packaging.version import InvalidVersion, Version
    tracked = tracked_versions(tpl, bump) if tracked is None else tracked
    try:
        before = Version(earlier_than or bump.old_executorch)
    except InvalidVersion:
        before = None
    result = Accounting(version or bump.old_executorch, tuple(tracked) + (
        (("ExecuTorch", f"earlier than {before.base_version} ({before.major}.x.y)"),) if before else ()))
    subject_of = {v: s for s, v in tracked}
    rx = _version_rx(list(subject_of), before.major if before else None)
    needles = tuple({v.encode() for v in subject_of} | ({f"{before.major}.".encode()} if before else set()))
    by_path: dict[str, list[Edit]] = {}
    for e in sorted(edits, key=lambda e: e.start):
        by_path.setdefault(e.path, []).append(e)
    line_flags: dict[tuple[str, int], list[Flag]] = {}
    for f in flags:
        if f.path and f.line:
            line_flags.setdefault((f.path, f.line), []).append(f)
    reviewed: set[tuple[str, int]] = set()
    ranges = {(f.path, f.line) for f in tpl.findings if f.kind in REQUIREMENT_KINDS and not f.exact}

    def scan(path: str, text: str, line_of, prose: bool = False) -> None:
        from bot.template.prose import file_kind, history_sections, is_history_file
        history: list[tuple[int, int, str]] = []
        if prose and is_history_file(path):
            history = [(0, len(text), "a history file")]
        elif prose and file_kind(path) == "markdown":
            history = [(a, b, f"the history section \"{t}\"") for a, b, t in
                       history_sections(text, path.lower().endswith((".rst", ".txt")))]
        mine = by_path.get(path, [])
        starts = [e.start for e in mine]
        for m in rx.finditer(text):
            s, e = m.span("v")
            v = m.group("v")
            subject = subject_of.get(v)
            if subject is None:
                if before is None or not _earlier(v, before):
                    continue
                subject = "ExecuTorch"
            i = bisect.bisect_left(starts, e)
            if i and mine[i - 1].end > s:  # the common case first: an edit rewrites it
                result.moved.append((path, s, v, subject, mine[i - 1].why or mine[i - 1].kind, text, line_of))
                continue
            li = line_of(s) - 1
            lo, hi = _line_bounds(text, s)
            line_text = text[lo:hi]
            bucket, rule = _classify(path, li + 1, line_text, s - lo, e - lo, subject, mine, starts, s, e,
                                     line_flags, ignore, ranges)
            if bucket == "review" and rule == REVIEW_FLAG:
                section = next((t for a, b, t in history if a <= s < b), None)
                if section is not None:
                    bucket, rule = "history", f"in {section}"
            t = line_text.strip()
            item = Occurrence(path, li + 1, s - lo + 1, v, subject, bucket, rule,
                              t if len(t) <= 160 else t[:157] + "...")
            result.left.append(item)
            if bucket == "review" and rule == REVIEW_FLAG and (path, li + 1) not in reviewed:
                reviewed.add((path, li + 1))
                result.flags.append(Flag(
                    REVIEW_FLAG, f"names {subject} {v} and the bot cannot tell whether it is this template's "
                    f"version, history or another thing's version; left as written: edit it by hand, or list "
                    f"it under ignore-mentions: in .github/executorch-pack-bot.yml with a reason: {_clip(line_text)}",
                    path=path, line=li + 1, blocking=False))

    texts = tuple(n.decode() for n in needles)
    for loaded in tpl.files:
        doc = loaded.doc
        if any(v in doc.text for v in texts):
            scan(doc.path, doc.text, doc.line_of, prose=any(m.name == "prose" for m in loaded.managers))
    for rel in tpl.others_for(subject_of):
        raw = tpl.other_bytes(rel)
        # the cheap tests first; a bytes find per needle beats one regex alternation over thousands of files
        if raw is None or b"." not in raw or b"\0" in raw[:8192] or not any(n in raw for n in needles):
            continue
        try:
            text = raw.decode("utf-8-sig")
        except UnicodeDecodeError:
            text = raw.decode("latin-1")
        scan(rel, text, TextDocument(rel, text).line_of)
    result.left.sort(key=lambda o: (o.path, o.line, o.column))
    return result


def _classify(path, line, line_text, col, end, subject, mine, starts, s, e, line_flags, ignore, ranges):
    """``(bucket, rule)`` of an occurrence no edit covers, in rule order: an ``ignore-mentions:`` entry,
    a flag naming the line's content as another's, a quantity (the occurrence is followed by a unit:
    :func:`~bot.template.prose.sentences.is_quantity`), a flag listing the line for review, a history flag, a rule naming another thing, a range
    constraint, a measurement; otherwise review."""
    here = line_flags.get((path, line), [])
    for entry in ignore:
        if entry.matches(path, line):
            return "other", f"ignore-mentions: {entry.reason}"
    owned = next((f for f in here if f.code in OTHER_CODES), None)
    if owned is not None:
        return "other", owned.code
    if is_quantity(line_text, end):  # the occurrence itself is a number with a unit, whatever its line says
        return "other", QUANTITY_RULE
    listed = next((f for f in here if f.code in REVIEW_CODES), None)
    if listed is not None:
        return "review", listed.code
    if any(f.code in HISTORY_CODES for f in here):
        return "history", "history-mention"
    rule = _other_rule(subject, line_text, col, end)
    if rule is not None:
        return "other", rule
    if (path, line) in ranges:
        return "other", "a range constraint the bot reads and checks against the pin (not a pin)"
    if MEASURE.search(line_text):
        return "history", "a measurement or test claim"
    return "review", REVIEW_FLAG


def _clip(text: str, n: int = 160) -> str:
    t = text.strip()
    return t if len(t) <= n else t[:n - 3] + "..."


#: Derived pins a hypothetical bump moves in ``audit`` (the TOSA pins are known only from upstream).
AUDITED_PINS = ("torch", "torchao", "ethos-u-vela", "tosa-tools")


def hypothetical_bump(tpl: Template, pinned: str) -> Bump:
    """A bump of the template from its pinned ExecuTorch version to a placeholder next minor release.

    ``audit`` has no upstream: it asks the managers what a bump *would* edit,
    so the accounting's ``moved`` bucket there means "a bump moves it".  The
    derived pins of :data:`AUDITED_PINS` the template pins move too.
    """
    from bot.engine.current import template_values
    from bot.versions import to_semver
    from packaging.version import Version
    v = Version(pinned)
    new = f"{v.major}.{v.minor + 1}.0"
    changes = [PinChange("executorch", pinned, new, "audit")]
    for name in AUDITED_PINS:
        for old in template_values(tpl, name)[:1]:
            try:
                o = Version(old)
            except Exception:
                continue
            changes.append(PinChange(name, old, f"{o.major}.{o.minor + 1}.0" if len(o.release) > 1 else
                                     f"{o.major + 1}", "audit"))
    # a placeholder target commit: a commit pin whose comment names the pinned release is what a bump moves
    # (bot.template.commitpins); audit has no upstream to read the real one
    return Bump(pinned, new, to_semver(pinned), to_semver(new), "v" + pinned, "v" + new, tuple(changes),
                new_commit="0" * 40)


#: Flags of the hypothetical bump that hold whatever the target (the others speak of the placeholder target).
_VERSION_FREE = frozenset({"history-mention", "mixed-mention", "url-requirement", "compiled-requirements",
                           "conda-pin", "direct-reference", "restatement-partial"})


def audit_accounting(tpl: Template, pinned: str, ignore: tuple[IgnoreEntry, ...] = (),
                     flags: tuple[Flag, ...] = ()) -> Accounting:
    """The accounting of the template's pinned versions as a bump would see them (``audit``).

    Runs every manager's ``update`` with :func:`hypothetical_bump` (nothing is
    written; a file a manager refuses to rewrite, such as a hashed pin, gets no
    edits, so its occurrences are for review), then :func:`account` with the
    summary naming ``pinned``.
    """
    from bot.errors import BotError
    bump = hypothetical_bump(tpl, pinned)
    edits: list[Edit] = []
    seen: list[Flag] = list(flags)
    for loaded in tpl.files:
        for m in loaded.managers:
            try:
                res = m.update(loaded.doc, bump)
            except BotError:
                continue
            edits.extend(res.edits)
            seen.extend(f for f in res.flags if f.code in _VERSION_FREE)
    return account(tpl, bump, edits, seen, ignore, version=pinned, earlier_than=pinned)


def accounting_flags(acc: Accounting, listed: tuple[Flag, ...] = ()) -> list[Flag]:
    """One non-blocking ``review-mention`` flag per line holding a review item (``audit``'s listing).

    The lines :func:`account` flagged itself keep their flag; a line whose
    reason is another flag of the (hypothetical) plan gets a flag naming that
    reason, so ``audit`` lists every review item run after run.
    """
    out = list(acc.flags)
    seen = {(f.path, f.line) for f in out} | {(f.path, f.line) for f in listed}
    for o in acc.review:
        if (o.path, o.line) in seen:
            continue
        seen.add((o.path, o.line))
        out.append(Flag(REVIEW_FLAG, f"names {o.subject} {o.version}, left for review ({o.rule}): edit it by hand, "
                        f"or list it under ignore-mentions: in .github/executorch-pack-bot.yml with a reason: "
                        f"{o.text}", path=o.path, line=o.line, blocking=False))
    return out
