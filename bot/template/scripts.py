"""Scripts manager: machine installs and version checks in workflows, Dockerfiles and shell scripts.

What it reads (public CMSIS ExecuTorch templates such as Arm-Examples/CMSIS-Executorch, rows ``requirements.txt`` "pins in a
Dockerfile (``pip install executorch==1.0.0``)" and ``.github/workflows/*.yml``
"a step may check an installed version (``pip show flatbuffers | grep
"Version: 24.3.25"``) ... a machine check that must move with the TOSA pin"):

* installs ``NAME==X`` (``pip install executorch==1.4.0``, with extras, any
  spacing around ``==``) for every package in ``bump.changes`` (executorch,
  torch, torchao, ethos-u-vela and only the TOSA pins that changed); names
  are compared whole after PEP 503 normalisation, so ``torch`` never
  matches ``torchao`` or ``executorch``;
* checks ``pip show NAME ... Version: X`` on one line, for the same packages;
* the pack itself, when it names exactly the current pack version:
  ``PyTorch::ExecuTorch@X`` (``cpackget add``), ``PyTorch.ExecuTorch.X.pack``
  and ``executorch/releases/download/vX/``;
* version variables ``NAME_VERSION=X`` / ``NAME_VERSION: X`` (``ARG
  EXECUTORCH_VERSION=1.4.0``, a workflow ``env:`` entry) whose name has the
  package as a whole ``_``-separated part, only when X is exactly the old value;
* a git ref of the old release tag in a script that names ExecuTorch
  (``git clone --branch vX`` / ``--branch=vX`` / ``-b vX``, ``git checkout vX``);
* Makefile variables (``Makefile``, ``*.mk``) with every assignment operator
  (``=``, ``:=``, ``::=``, ``?=``, ``+=``, ``!=``) and Dockerfile ``ENV NAME value``;
* in CMake files (``CMakeLists.txt``, ``*.cmake``), ``set(EXECUTORCH_VERSION X)``
  and ``set(ET_VERSION "X")``-style variables (``EXECUTORCH`` or ``ET`` as a
  whole ``_`` part of a name ending in ``_VERSION``), only when X is exactly
  the old ExecuTorch version;
* ExecuTorch pinned by commit (``GIT_TAG <sha>  # v1.4.0`` in a FetchContent
  block, ``git checkout <sha>``, a workflow ``ref: <sha>``): the SHA moves to
  the target tag's commit with its comment, or the line is a blocking
  ``commit-pin`` item (:mod:`bot.template.commitpins`).

Only code is edited: the comment spans of :func:`bot.template.prose.comment_spans`
belong to the prose manager, so the two never propose overlapping edits.  An
install or check naming a value other than the expected old one is still
moved to the new value (a bump makes every install agree) and reported with a
non-blocking ``script-pin-drift`` flag.
"""

from __future__ import annotations

import bisect
import fnmatch
import re
from functools import lru_cache
from typing import Optional

from bot.model import Bump, Edit, Finding, Flag, ManagerResult, PinChange, norm
from bot.template import commitpins
from bot.template.interface import Manager
from bot.template.prose import GUARD, VER, comment_spans, is_workflow
from bot.textfile import TextDocument

#: Base-name patterns of scripts outside ``.github/workflows`` (CMake files for ``set(..._VERSION X)``).
SCRIPT_PATTERNS = ("Dockerfile", "*.Dockerfile", "Dockerfile.*", "*.sh", "*.bash", "*.bat", "*.cmd",
                   "CMakeLists.txt", "*.cmake", "Makefile", "GNUmakefile", "makefile", "*.mk")
CMAKE_PATTERNS = ("CMakeLists.txt", "*.cmake")
_SCRIPT_RX = re.compile("|".join(fnmatch.translate(p) for p in SCRIPT_PATTERNS))

#: CMake ``set(EXECUTORCH_VERSION 1.4.0)`` / ``set(ET_VERSION "1.4.0")``: a variable whose name has
#: ``EXECUTORCH`` or ``ET`` as a whole ``_``-separated part and ends in ``_VERSION``.
_CMAKE_SET = re.compile(r"(?<![\w.])(?i:set)[ \t]*\([ \t]*(?:[A-Z0-9]+_)*(?:EXECUTORCH|ET)_(?:[A-Z0-9]+_)*VERSION"
                        r"[ \t]+\"?" + VER + GUARD)

#: A version as scripts write it after ``==`` or ``Version:`` (ends on a word character).
_ANY_VER = r"(?P<v>\d(?:[\w.+!]*\w)?)"


def _name_rx(name: str) -> str:
    """Regex for any PEP 503 spelling of ``name`` as a whole name (``ethos-u-vela`` ~ ``Ethos_U.Vela``)."""
    return r"(?<![\w.\-/])" + r"[-_.]+".join(re.escape(p) for p in norm(name).split("-")) + r"(?![\w]|[-_.]\w)"


@lru_cache(maxsize=256)
def _package_patterns(name: str) -> tuple["re.Pattern[str]", "re.Pattern[str]"]:
    """(install ``NAME[extras]==X``, check ``pip show NAME ... Version: X``) for one package."""
    n = _name_rx(name)
    install = re.compile(n + r"(?:\[[^\]\s]*\])?[ \t]*==[ \t]*" + _ANY_VER, re.I)
    check = re.compile(r"\bpip3?(?:\.exe)?[ \t]+show[ \t]+(?:[^\n|;&#]*?[ \t])?"
                       + n + r"[^\n]*?Version:[ \t]*" + _ANY_VER, re.I)
    return install, check


@lru_cache(maxsize=256)
def _variable_pattern(name: str, old: str) -> "re.Pattern[str]":
    """``[PREFIX_]NAME[_PART]_VERSION = old`` (shell, Dockerfile ARG/ENV, YAML env)."""
    up = re.escape(norm(name).upper().replace("-", "_"))
    if up == "EXECUTORCH":
        up = "(?:EXECUTORCH|ET)"  # ET_PACK_VERSION, ET_VERSION: the short name templates use
    # = (shell, export, ARG, ENV), : (YAML), Make's ?= := ::= += != and Dockerfile's "ENV NAME value"
    return re.compile(r"(?<![A-Za-z0-9_])(?:[A-Z0-9]+_)*" + up + r"_(?:[A-Z0-9]+_)*VERSION[\"']?"
                      r"(?:[ \t]*(?:::=|[?:+!]?=|:)[ \t]*|(?<=[A-Z])[ \t]+(?=[\"']?v?\d))[\"']?v?"
                      r"(?P<v>" + re.escape(old) + r")" + GUARD)


#: A git ref naming a release tag: ``git clone --branch vX`` / ``--branch=vX`` / ``-b vX``, ``git checkout vX``.
_GIT_REF = re.compile(r"(?:\bgit\b[^\n#]*?(?:--branch(?:=|[ \t]+)|(?<![\w-])-b[ \t]+)"
                      r"|\bgit[ \t]+(?:-C[ \t]+\S+[ \t]+)?(?:checkout|switch)[ \t]+(?:--detach[ \t]+|-q[ \t]+)*)"
                      r"[\"']?v" + VER + GUARD)


_PACK_FORMS = (
    ("pack reference PyTorch::ExecuTorch@X", re.compile(r"PyTorch::ExecuTorch@v?" + VER + GUARD, re.I)),
    ("pack file name PyTorch.ExecuTorch.X.pack", re.compile(r"PyTorch\.ExecuTorch\." + VER + r"(?=\.pack(?!\w)|/)", re.I)),
    ("release download URL", re.compile(r"(?<![\w.\-])executorch/releases/download/v?" + VER + GUARD, re.I)),
)


class ScriptsManager(Manager):
    """Moves pip installs, ``pip show`` checks, pack references and version variables in scripts.

    Handles ``.github/workflows/*.yml`` (at any depth), Dockerfiles, shell
    and batch scripts; edits kind ``"script"``, code only (never comments).
    """

    name = "scripts"
    patterns = SCRIPT_PATTERNS

    def matches(self, relpath: str) -> bool:
        """True for a workflow under ``.github/workflows/`` or a script/Dockerfile by base name."""
        if is_workflow(relpath):
            return True
        return _SCRIPT_RX.match(relpath.rsplit("/", 1)[-1]) is not None

    def extract(self, doc: TextDocument) -> list[Finding]:
        """Installs of ``executorch==X`` and pack references in code, as ``Finding(kind="script")``.

        ``name`` is ``"executorch"`` or ``"PyTorch::ExecuTorch"``; these are
        listed for the report, not counted as pins by the audit.
        """
        text = doc.text
        if "xecu" not in text.lower():
            return []
        comments = _comments(doc)
        out = []
        install, _ = _package_patterns("executorch")
        for m in install.finditer(text):
            if not _in_comment(m.start("v"), m.end("v"), comments):
                out.append(Finding(doc.path, doc.line_of(m.start()), "script", "executorch",
                                   m.group("v"), True, m.group(0)))
        for _, rx in _PACK_FORMS[:1]:
            for m in rx.finditer(text):
                if not _in_comment(m.start("v"), m.end("v"), comments):
                    out.append(Finding(doc.path, doc.line_of(m.start()), "script", "PyTorch::ExecuTorch",
                                       m.group("v"), True, m.group(0)))
        out.extend(commitpins.findings(doc, self._commit_pins(doc, comments)))
        out.sort(key=lambda f: f.line)
        return out

    def _commit_pins(self, doc: TextDocument, comments) -> list[commitpins.CommitPin]:
        """The ExecuTorch commit pins of ``doc`` outside its comments (:func:`commitpins.find_commit_pins`)."""
        base = doc.path.rsplit("/", 1)[-1]
        kind = ("workflow" if is_workflow(doc.path) else
                "cmake" if any(fnmatch.fnmatchcase(base, p) for p in CMAKE_PATTERNS) else "script")
        return [p for p in commitpins.find_commit_pins(doc, kind, ExecutorchRefs(doc.text))
                if not _in_comment(p.start, p.end, comments)]

    def update(self, doc: TextDocument, bump: Bump) -> ManagerResult:
        """Edits (kind ``"script"``) moving every install/check of a changed package to its new value.

        Only packages in ``bump.changes`` are touched (executorch itself is
        taken from ``bump`` when the changes do not list it).  Flags
        ``script-pin-drift`` (non-blocking) when the value replaced is not
        the expected old one.
        """
        text = doc.text
        low = text.lower()
        changes = _changes(bump)
        relevant = [c for c in changes if _mentions(low, c.name)]
        pack_relevant = "executorch" in low and bump.old_pack != bump.new_pack
        base = doc.path.rsplit("/", 1)[-1]
        cmake = (bump.old_executorch != bump.new_executorch and "_version" in low
                 and any(fnmatch.fnmatchcase(base, p) for p in CMAKE_PATTERNS))
        if not relevant and not pack_relevant and not cmake and "git" not in low:
            return ManagerResult()
        comments = _comments(doc)
        edits: list[Edit] = []
        flags: list[Flag] = []
        taken: list[tuple[int, int]] = []
        # commits first: a SHA and the release its comment names move together (the comment edit is the one
        # place this manager edits inside a comment; the prose manager proposes the same edit or none)
        pin_edits, pin_flags = commitpins.update(doc, bump, self._commit_pins(doc, comments))
        edits.extend(pin_edits)
        flags.extend(pin_flags)
        taken.extend((e.start, e.end) for e in pin_edits)

        def add(s: int, e: int, old: str, new: str, why: str, expected: Optional[str]) -> None:
            if old == new or _in_comment(s, e, comments) or any(s < te and ts < e for ts, te in taken):
                return
            taken.append((s, e))
            line = doc.line_of(s)
            edits.append(Edit(doc.path, s, e, old, new, line, "script", why))
            if expected is not None and old != expected:
                flags.append(Flag("script-pin-drift",
                                  f"{why}: found {old}, expected the old value {expected}; moved to {new}",
                                  path=doc.path, line=line, blocking=False))

        for c in relevant:
            install, check = _package_patterns(c.name)
            n = norm(c.name)
            for m in check.finditer(text):
                add(m.start("v"), m.end("v"), m.group("v"), c.new, f"pip show {n} version check", c.old)
            for m in install.finditer(text):
                add(m.start("v"), m.end("v"), m.group("v"), c.new, f"install {n}=={c.new}", c.old)
            if c.old:
                for m in _variable_pattern(c.name, c.old).finditer(text):
                    add(m.start("v"), m.end("v"), m.group("v"), c.new, f"{n} version variable", None)
        if pack_relevant:
            for why, rx in _PACK_FORMS:
                for m in rx.finditer(text):
                    if m.group("v") == bump.old_pack:
                        add(m.start("v"), m.end("v"), m.group("v"), bump.new_pack, why, None)
        if bump.old_executorch != bump.new_executorch and "git" in low and "executorch" in low:
            # a release tag of ExecuTorch checked out by git: the line, or the script, names ExecuTorch
            refs = ExecutorchRefs(text)
            for m in _GIT_REF.finditer(text):
                if m.group("v") == bump.old_executorch and refs(text, m.start()):
                    add(m.start("v"), m.end("v"), m.group("v"), bump.new_executorch, "git ref of the ExecuTorch "
                        f"release tag v{bump.old_executorch}", None)
        if cmake:
            for m in _CMAKE_SET.finditer(text):
                v = m.group("v")
                if v in (bump.old_executorch, bump.old_pack):
                    new = bump.new_executorch if v == bump.old_executorch else bump.new_pack
                    add(m.start("v"), m.end("v"), v, new, "ExecuTorch version variable set(..._VERSION X)", None)
        edits.sort(key=lambda e: e.start)
        return ManagerResult(tuple(edits), tuple(flags))


_CLONE_OR_CD = re.compile(r"\bgit[ \t]+clone\b|(?:^|[;&|(][ \t]*|\s)cd[ \t]", re.M)


def _executorch_ref(text: str, pos: int) -> bool:
    """True when the git command at ``pos`` acts on ExecuTorch: its line names executorch, or (a checkout
    or switch) the nearest ``git clone`` / ``cd`` line above it does (:class:`ExecutorchRefs` answers the
    same for many commands of one text in linear time)."""
    return ExecutorchRefs(text)(text, pos)


class ExecutorchRefs:
    """:func:`_executorch_ref` for one text: the ``git clone`` / ``cd`` lines are found once, in one pass, so a
    script with thousands of git commands is read in linear time (each answer is a bisection)."""

    def __init__(self, text: str):
        self.text = text
        self._ends: Optional[list[int]] = None
        self._starts: list[int] = []

    def __call__(self, text: str, pos: int) -> bool:
        lo = text.rfind("\n", 0, pos) + 1
        hi = text.find("\n", pos)
        line = text[lo:hi if hi != -1 else len(text)]
        if "executorch" in line.lower():
            return True
        if "clone" in line[:pos - lo]:
            return False
        if self._ends is None:
            found = list(_CLONE_OR_CD.finditer(text))
            self._starts, self._ends = [m.start() for m in found], [m.end() for m in found]
        i = bisect.bisect_right(self._ends, lo)      # the last clone/cd match that ends before this line
        if not i:
            return False
        start = self._starts[i - 1]
        a = text.rfind("\n", 0, start) + 1
        b = text.find("\n", start)
        return "executorch" in text[a:b if b != -1 else len(text)].lower()


def _changes(bump: Bump) -> list[PinChange]:
    """``bump.changes`` plus executorch itself when the changes do not list it."""
    changes = list(bump.changes)
    if bump.change_for("executorch") is None and bump.old_executorch != bump.new_executorch:
        changes.insert(0, PinChange("executorch", bump.old_executorch, bump.new_executorch, bump.new_tag))
    return [c for c in changes if c.new]


def _mentions(low: str, name: str) -> bool:
    """Cheap pre-filter: does the lower-cased text hold any part of the package name (``et_`` for executorch)."""
    first = norm(name).split("-")[0]
    return first in low or (first == "executorch" and "et_" in low)


def _comments(doc: TextDocument) -> tuple[tuple[int, int], ...]:
    """The comment spans of ``doc`` (cached: extract and update read the same document)."""
    return _comment_spans(doc.path, doc.text)


@lru_cache(maxsize=16)
def _comment_spans(path: str, text: str) -> tuple[tuple[int, int], ...]:
    return tuple(comment_spans(path, text) or ())


def _in_comment(s: int, e: int, comments: tuple[tuple[int, int], ...]) -> bool:
    return any(cs < e and s < ce for cs, ce in comments)
