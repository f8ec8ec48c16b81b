"""Mention recognisers: the forms an ExecuTorch version takes in prose, and :func:`find_mentions`.

Strong forms count anywhere in prose; weak forms only under the paragraph
rule (:meth:`bot.template.prose.sentences.Context.paragraph_mentions_executorch`).
The full list and the rules: :mod:`bot.template.prose`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from bot.model import norm
from bot.template.prose.regions import regions_of
from bot.template.prose.sentences import Context, is_quantity
from bot.textfile import TextDocument

#: A version matched whole: X.Y or X.Y.Z with an optional pre/dev/post part.
VER = r"(?P<v>\d+\.\d+(?:\.\d+)?(?:-?rc\d+|a\d+|b\d+|\.dev\d+|\.post\d+)?)"
#: What may not follow a whole version: a word character, or ".", "-", "+" before one.
GUARD = r"(?![\w]|[.+\-][0-9A-Za-z])"
_V = VER + GUARD

#: (form name, regex, weak, pack-form).  Order is priority when spans coincide.
_FORMS: tuple[tuple[str, "re.Pattern[str]", bool, bool, "tuple[str, ...] | None"], ...] = (
    # (form, regex, weak, pack form, lower-case literals one of which must be in the text (after _FOLDS),
    # or None: the form's own hint is looked for instead)
    ("PyTorch::ExecuTorch@", re.compile(r"PyTorch::ExecuTorch@(?P<op>\^|~|>=)?" + _V), False, True,
     ("pytorch::executorch@",)),
    ("executorch==", re.compile(r"(?<![\w.\-/])executorch(?:\[[^\]\n]*\])?[ \t]*==[ \t]*" + _V, re.I), False, False,
     ("==",)),
    ("pack-file", re.compile(r"PyTorch\.ExecuTorch\." + VER + r"(?=\.pack(?!\w)|/)", re.I), False, True,
     ("pytorch.executorch.",)),
    # the repository must be named exactly "executorch": acme/cmsis-executorch/releases/... is another project
    ("release-url", re.compile(r"(?<![\w.\-])executorch/releases/(?:download|tag)/v?" + _V, re.I), False, True,
     ("executorch/releases/",)),
    ("source-url", re.compile(r"(?<![\w.\-])executorch/(?:tree|blob|archive/refs/tags|archive|commits|compare"
                              r"|releases/tag)/v" + VER + r"(?:(?=\.(?:tar\.gz|tar\.bz2|tar\.xz|tgz|zip)\b)|" + GUARD + ")",
                              re.I), False, False,
     ("executorch/tree/", "executorch/blob/", "executorch/archive/", "executorch/commits/", "executorch/compare/",
      "executorch/releases/tag/")),
    # the package index: pypi.org/project/executorch/X/ and a wheel file name executorch-X-cp311-...whl
    ("package-url", re.compile(r"(?<![\w.\-])(?:pypi\.org/project/executorch/" + _V + r"|executorch-"
                               + VER.replace("?P<v>", "?P<v2>") + r"(?=-(?:cp|py)\d))", re.I), False, False,
     ("pypi.org/project/executorch/", "executorch-")),
    # a label: "ExecuTorch: 1.4.0", "**ExecuTorch version:** v1.4.0", "ExecuTorch pack = 1.4.0"
    ("label", re.compile(r"\bExecuTorch(?:[ \t]+(?:version|release|pack(?:[ \t]+version)?))?(?:\*\*|__|`)?"
                         r"[ \t]*[:=][ \t]*(?:\*\*|__)?[ \t]*`?v?" + _V, re.I), False, False,
     None),   # no finite list of literals: a label starts as :data:`_LABEL_START` says
    # a statement of the version in use: "ExecuTorch is 1.4.0", "The ExecuTorch version is 1.4.0", "ExecuTorch is
    # pinned to v1.4.0", "ExecuTorch version used is currently 1.4.0" (present tense only: "was" is history)
    ("statement", re.compile(r"\bExecuTorch(?:[ \t]+(?:version|release|pack))?(?:[ \t]+(?:used|pinned|in[ \t]+use))?"
                             r"[ \t]+is(?:[ \t]+(?:currently|now|still|pinned[ \t]+(?:to|at)|set[ \t]+to|at|on|version"
                             r"|release))*[ \t]+(?:\*\*|__)?`?v?" + _V, re.I), False, False, ("executorch",)),
    ("@version", re.compile(r"(?<![\w:@])@(?P<op>\^|~|>=)?" + _V), True, True, ("@",)),
    ("local-build", re.compile(r"(?<![\w.])" + VER + r"-local(?![\w-])"), True, True, ("-local",)),
    ("tag", re.compile(r"\btag[ \t]+`?v" + _V + r"|(?<![\w.\-])v" + _V.replace("?P<v>", "?P<v2>")
                       + r"`?[ \t]+tag\b", re.I), True, False, ("tag",)),
    ("git-ref", re.compile(r"(?:\bgit[ \t]+(?:checkout|switch)[ \t]+|--branch(?:=|[ \t]+)|(?<![\w-])-b[ \t]+)v" + _V),
     True, False,
     ("checkout", "switch", "--branch", "-b")),
    ("ExecuTorch", re.compile(r"\bExecuTorch(?:[ \t]+|[ \t]*\r?\n[ \t]*(?:(?:#+|//|::)[ \t]*)?)"
                              r"(?:(?:version|release)[ \t]+)?v?" + _V, re.I), False, False, ("executorch",)),
    # a Markdown table row naming ExecuTorch in a cell and the version in a later cell
    ("table-row", re.compile(r"^[ \t]*\|?[ \t]*(?:\*\*|`)?(?:PyTorch[ \t]+)?ExecuTorch(?:[ \t]+(?:pack|version|release))?"
                             r"(?:\*\*|`)?[ \t]*\|(?:[^|\n]*\|)*?[ \t]*`?v?" + _V + r"`?[ \t]*(?:\||$)", re.I | re.M),
     False, False, ("|",)),
    ("release-branch", re.compile(r"(?<![\w.\-])release/(?P<v>\d+\.\d+)" + GUARD), True, False, ("release/",)),
)

#: Human words for each form, used in Edit.why and flag messages.
FORM_WHY = {
    "PyTorch::ExecuTorch@": "pack reference PyTorch::ExecuTorch@X",
    "executorch==": "pip pin executorch==X",
    "pack-file": "pack file name PyTorch.ExecuTorch.X.pack",
    "release-url": "release download URL",
    "source-url": "upstream source link",
    "package-url": "package index link or wheel name",
    "label": "a label ExecuTorch: X",
    "statement": 'a statement "ExecuTorch is X"',
    "@version": "pack version @X / @^X",
    "local-build": "local pack build version X-local",
    "tag": "release tag vX",
    "git-ref": "git ref vX",
    "ExecuTorch": '"ExecuTorch X" in text',
    "release-branch": "release branch release/MAJOR.MINOR",
    "table-row": "a table row | ExecuTorch | X |",
}


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


def find_mentions(doc: TextDocument) -> list[Mention]:
    """Every ExecuTorch version mention inside the prose regions of ``doc`` (:func:`prose_regions`).

    Weak forms count only under the paragraph rule (module docstring).
    Spans never overlap: where two forms match the same version text, the
    first form of :data:`_FORMS` wins.  Returns mentions in file order
    (cached per document text: the engine calls extract, then update).
    """
    return list(_find_mentions(doc.path, doc.text))


#: The start of every match of the "label" form, up to its ``:`` or ``=`` (its pattern, lower case, over the
#: lower-cased text: see :data:`_FOLDS`): the form is tried only when one occurrence of ``executorch`` in
#: a version window starts this.  The spaces before the ``:`` are any number, so no list of literals can
#: say it ("ExecuTorch=1.4.0", "ExecuTorch release : 1.4.0").
_LABEL_START = re.compile(r"executorch(?:[ \t]+(?:version|release|pack(?:[ \t]+version)?))?(?:\*\*|__|`)?[ \t]*[:=]")
#: The characters ``re.I`` matches with an ASCII letter whose ``str.lower()`` is not that letter
#: (``ı`` and ``İ`` match ``i``, ``ſ`` matches ``s``; the Kelvin sign lowers to ``k``): written as that
#: letter before the literals of a form are looked for, so that a literal is found wherever the form's
#: ``re.I`` pattern matches.
_FOLDS = {0x130: "i", 0x131: "i", 0x17F: "s"}

#: Every form holds ``\d+\.\d+``: a text without a digit, dot, digit holds no mention.
_DIGIT_DOT_DIGIT = re.compile(r"\d\.\d")
#: Documents whose mentions are kept: the engine extracts from every file of a template, then
#: updates every one, so the cache must hold a whole template's files to serve the second pass.
CACHE_FILES = 8192


def version_windows(text: str) -> list[tuple[int, int]]:
    """Spans of ``text`` that hold every match of every form: around each digit, dot, digit, from the
    start of the line before to the end of the line after; merged, in order.

    A form's match holds its version (``\\d+\\.\\d+``) and crosses at most one line break, before
    the version (the word form "ExecuTorch" at a line end, the version on the next line); what a
    pattern looks at around a match (look-behind, look-ahead) is one character past a line break at
    most.  Searching ``rx.search(text, lo, hi)`` in these spans finds a match wherever
    ``rx.search(text)`` does (a look-behind sees before ``lo``); a truncated look-ahead at ``hi``
    may find one more, never one fewer.
    """
    out: list[tuple[int, int]] = []
    n = len(text)
    for m in _DIGIT_DOT_DIGIT.finditer(text):
        p = m.start()
        if out and p < out[-1][2]:
            continue   # on a line whose window is already taken (the window reaches a line further)
        line = text.rfind("\n", 0, p)
        lo = text.rfind("\n", 0, line) + 1 if line > 0 else 0
        end = text.find("\n", p)
        nxt = text.find("\n", end + 1) if end != -1 else -1
        hi = n if nxt == -1 else nxt + 1
        own_end = n if end == -1 else end + 1
        if out and lo <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], hi), own_end)
        else:
            out.append((lo, hi, own_end))
    return [(lo, hi) for lo, hi, _ in out]


def _label_may_match(low: str, windows: list[tuple[int, int]]) -> bool:
    """False only when the "label" form has no match: no occurrence of ``executorch`` in a version window
    of ``low`` (the text lower-cased after :data:`_FOLDS`, as long as the text: only ``İ`` lowers to two
    characters) starts :data:`_LABEL_START`."""
    for lo, hi in windows:
        i = low.find("executorch", lo, hi)
        while i != -1:
            if _LABEL_START.match(low, i, hi):
                return True
            i = low.find("executorch", i + 10, hi)
    return False


@lru_cache(maxsize=CACHE_FILES)
def _find_mentions(path: str, text: str) -> tuple[Mention, ...]:
    low = text.lower()
    if "executorch" not in low:   # what EXECUTORCH (re.I) finds, at a tenth of its cost on a whole text
        return ()
    windows = version_windows(text)
    if not windows:
        return ()   # no digit, dot, digit: no version, no mention
    if not low.isascii():
        low = text.translate(_FOLDS).lower()
    forms = [f for f in _FORMS if (any(lit in low for lit in f[4]) if f[4] is not None else
                                   _label_may_match(low, windows))]
    # A form with no match in the whole text has none inside a prose region either (a region ends
    # at a line end, at the end of the text, or after a comment's closing mark): such a text needs
    # no comment scan at all (most vendored sources naming executorch in their includes).  Every
    # match lies in a window around a version (:func:`version_windows`): only those are searched.
    if not any(rx.search(text, lo, hi) for _, rx, _, _, _ in forms for lo, hi in windows):
        return ()
    doc = TextDocument(path=path, text=text)
    regions = regions_of(path, text)
    ctx = Context(text)
    found: list[Mention] = []
    taken: set[int] = set()  # offsets covered by an accepted version span
    for form, rx, weak, pack_form, literals in forms:
        for lo, hi in regions:
            for m in rx.finditer(text, lo, hi):
                group = "v" if m.group("v") is not None else "v2"
                s, e = m.span(group)
                if not taken.isdisjoint(range(s, e)):
                    continue
                if is_quantity(text, e):   # "ExecuTorch 1.4 MB runtime": a size, not a version
                    continue
                if weak and not ctx.paragraph_mentions_executorch(s):
                    continue
                exact = not (form in ("PyTorch::ExecuTorch@", "@version") and m.group("op"))
                taken.update(range(s, e))
                found.append(Mention(form, s, e, m.group(group), doc.line_of(s), exact, m.group(0), pack_form))
    found.sort(key=lambda x: x.start)
    return tuple(found)


@lru_cache(maxsize=64)
def restatement_patterns(names: tuple[tuple[str, str], ...]) -> tuple:
    """Compiled (name, old, pip-form regex, word-form regex) for the derived pins of a bump (torch also
    written PyTorch, ethos-u-vela also written Vela)."""
    out = []
    for name, old in names:
        parts = norm(name).split("-")
        name_rx = r"[-_.]+".join(re.escape(p) for p in parts)
        if norm(name) == "torch":
            name_rx = r"(?:torch|PyTorch)"
        elif norm(name) == "ethos-u-vela":
            name_rx = r"(?:ethos[-_.]+u[-_.]+vela|vela)"  # "Vela 5.1.0" restates the ethos-u-vela pin
        ver = r"(?P<v>" + re.escape(old) + r")" + GUARD
        pip = re.compile(r"(?<![\w.\-/:])" + name_rx + r"(?:\[[^\]\n]*\])?[ \t]*==[ \t]*" + ver, re.I)
        word = re.compile(r"(?<![\w.\-/:])" + name_rx + r"[ \t]+v?" + ver, re.I)
        out.append((name, old, pip, word))
    return tuple(out)
