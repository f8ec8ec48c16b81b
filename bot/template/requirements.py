"""Requirement files (``*requirements*.txt``, ``requirements/*.txt``, pip-tools ``*requirements*.in``,
``*constraints*.txt``): the Python pins of a bump.

Facts (public CMSIS ExecuTorch templates such as Arm-Examples/CMSIS-Executorch): the template pins ``executorch``, ``torch``,
``torchao``, ``ethos-u-vela`` and the TOSA serializer packages
(``ml_dtypes == 0.5.1``, ``tosa-tools == 2026.5.0``, spaces around ``==``), with
extras, environment markers, nightly pins and local labels seen in the wild.

Parsing follows pip's requirement-file rules: a line ends at ``\\n``,
``\\r\\n`` or a lone ``\\r``; a physical line ending in a
backslash continues on the next one (unless it is a comment line); ``#``
at the start or after whitespace starts a comment; a line starting with
``-`` is an option line (``-r``, ``-c``, ``-e``, ``--extra-index-url`` ...);
a requirement is the text before its first option token (``--hash=...``).
Each requirement is parsed with ``packaging.requirements.Requirement``.

Rewriting: for every package of ``bump.changes`` (PEP 503 names compared in
full, so ``torch`` never matches ``torchao`` or ``torchvision``, the wrong-place
match of open-telemetry/opentelemetry-python PR #5237)
the version of EVERY exact pin (``==``/``===``) on EVERY line naming it is
replaced, so a package pinned on several lines with different environment
markers gets the new version on each of them, the markers kept byte for byte
(dependabot/dependabot-core#5300: deterministic, never one line only).  Only the
version characters change, so extras (renovatebot/renovate#2720), spaces around the operator, markers and
inline comments stay; a local label is kept (``2.13.0+cpu`` ->
``2.14.0+cpu``); a nightly pin (``executorch==1.4.0.dev20260728``, public CMSIS ExecuTorch templates such as Arm-Examples/CMSIS-Executorch) becomes the release version with a non-blocking ``nightly-pin`` flag.  A range
(``executorch>=1.4``) is a blocking ``range-pin`` flag and is not edited.  A
requirement carrying ``--hash`` options that must change is a blocking ``hashed-pin`` item naming its
line and the command that regenerates the file: hashes cannot be recomputed offline
(dependabot/dependabot-core#2689); one that does not change is left untouched.  An ``-e``/``--editable``
option line or a bare URL line (``git+https://...``) installing one of those packages
(``#egg=executorch``, or a VCS URL ending in ``/executorch``; blocking when it names the old version),
like a direct reference
(``executorch @ URL``), is a non-blocking ``url-requirement`` flag: the bot
does not rewrite URLs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional
from urllib.parse import urlsplit

from packaging.requirements import InvalidRequirement, Requirement
from packaging.specifiers import SpecifierSet
from packaging.version import InvalidVersion, Version

from bot.model import Bump, Edit, Finding, Flag, ManagerResult, PinChange, norm
from bot.template.interface import Manager, ManagerError
from bot.template.pep508 import empty_operator_problem
from bot.template.pipjoin import COMMENT as _COMMENT
from bot.template.pipjoin import logical_lines
from bot.template.publicversion import same_release
from bot.textfile import TextDocument
from bot.versions import nightly_base

_NAME = re.compile(r"\s*[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?\s*(?:\[[^\]]*\])?")
_CLAUSE = re.compile(r"(===|==|~=|!=|<=|>=|<|>)\s*([^\s,;()]+)")
_URLISH = re.compile(r"^(?:[A-Za-z][A-Za-z0-9+.-]*://|\.{0,2}/|[A-Za-z]:[\\/])|\.(?:whl|zip|tar\.gz|tgz)$")


@dataclass(frozen=True)
class Clause:
    """One version clause of a requirement: ``op`` (``"=="``), ``version`` text and its span in ``doc.text``."""

    op: str
    version: str
    start: int
    end: int


@dataclass(frozen=True)
class Entry:
    """One logical line of a requirement file.

    Attributes:
        line: 1-based first physical line.
        kind: ``"requirement"``, ``"option"`` (``-r``, ``--extra-index-url`` ...) or ``"url"``
            (a direct reference or a path, never rewritten).
        text: the logical text without comment, continuations joined.
        req: the parsed requirement (None for options and bare URLs).
        clauses: the version clauses in text order, with their spans.
        hashed: True when the requirement carries ``--hash`` options.
    """

    line: int
    kind: str
    text: str
    req: Optional[Requirement] = None
    clauses: tuple[Clause, ...] = ()
    hashed: bool = False

    @property
    def name(self) -> Optional[str]:
        """PEP 503 name of the requirement, or None."""
        return norm(self.req.name) if self.req is not None else None

    @property
    def exact(self) -> bool:
        """True for a single ``==X`` / ``===X`` clause without a wildcard."""
        return (len(self.clauses) == 1 and self.clauses[0].op in ("==", "===")
                and not self.clauses[0].version.endswith(".*"))

    @property
    def spec_text(self) -> str:
        """The clauses as written, joined: ``"==1.4.0"``, ``">=1.4,<2"``."""
        return ",".join(c.op + c.version for c in self.clauses)

    def semantic(self) -> tuple:
        """What pip sees: ``(kind, name, extras, specifier, marker, url)`` or ``(kind, text)``."""
        if self.req is None:
            return (self.kind, self.text)
        r = self.req
        return (self.kind, norm(r.name), tuple(sorted(r.extras)), r.specifier,
                str(r.marker) if r.marker else None, r.url)


def _doc_offset(pieces, i: int) -> Optional[int]:
    for lstart, dstart, length in pieces:
        if lstart <= i < lstart + length:
            return None if dstart is None else dstart + (i - lstart)
    return None


def parse(doc: TextDocument) -> list[Entry]:
    """Every non-blank, non-comment logical line of a requirement file, in order.

    Raises :class:`ManagerError` naming the file and line for a requirement
    that ``packaging`` cannot parse, or whose version clauses cannot be
    located in the text.
    """
    entries: list[Entry] = []
    for line, logical, pieces in logical_lines(doc.text):
        m = _COMMENT.search(logical)
        content = logical[:m.start()] if m else logical
        lead = len(content) - len(content.lstrip())
        content = content.strip()
        if not content:
            continue
        if content.startswith("-"):
            entries.append(Entry(line, "option", content))
            continue
        # pip's break_args_options: the requirement ends at the first token starting with "-".
        tokens = content.split(" ")
        args = []
        for tok in tokens:
            if tok.startswith("-"):
                break
            args.append(tok)
        options = tokens[len(args):]
        req_text = " ".join(args).rstrip()
        hashed = any(t.startswith("--hash") for t in options)
        problem = empty_operator_problem(req_text)
        if problem is not None:  # refused the same way whatever packaging accepts (see bot.template.pep508)
            raise ManagerError(f"cannot parse requirement: {problem}", path=doc.path, line=line)
        try:
            req = Requirement(req_text)
        except InvalidRequirement as exc:
            if _URLISH.search(req_text):  # a bare URL or path: pip installs it as is
                entries.append(Entry(line, "url", content, hashed=hashed))
                continue
            raise ManagerError(f"cannot parse requirement {req_text!r}: {exc}",
                               path=doc.path, line=line) from None
        if req.url:
            entries.append(Entry(line, "url", content, req=req, hashed=hashed))
            continue
        clauses = _clauses(doc, req, req_text, lead, pieces, line)
        entries.append(Entry(line, "requirement", content, req, clauses, hashed))
    return entries


def _clauses(doc, req, req_text, lead, pieces, line) -> tuple[Clause, ...]:
    name = _NAME.match(req_text)
    spec_end = req_text.find(";")
    spec_end = len(req_text) if spec_end == -1 else spec_end
    found = []
    for m in _CLAUSE.finditer(req_text, name.end() if name else 0, spec_end):
        s = _doc_offset(pieces, lead + m.start(2))
        e = _doc_offset(pieces, lead + m.end(2) - 1)
        if s is None or e is None or e - s != len(m.group(2)) - 1 or doc.text[s:e + 1] != m.group(2):
            raise ManagerError(f"the version of {req.name} is split across lines; this layout is not "
                               "supported", path=doc.path, line=line)
        found.append(Clause(m.group(1), m.group(2), s, e + 1))
    if sorted((c.op, c.version) for c in found) != sorted((s.operator, s.version) for s in req.specifier):
        raise ManagerError(f"cannot locate the version clauses of {req_text!r} in the text",
                           path=doc.path, line=line)
    return tuple(found)


_EDITABLE = re.compile(r"^(?:-e|--editable)(?:[ \t]*=[ \t]*|[ \t]+|(?=\S))(?P<target>\S+)")


def _option_package(option: str) -> Optional[str]:
    """The package an ``-e``/``--editable`` option line installs (its ``#egg=`` name, else the
    last path part of a VCS URL without ``.git`` and ``@ref``); None for other options or a local path."""
    m = _EDITABLE.match(option)
    if not m:
        return None
    return _url_package(m.group("target"))


def _url_package(target: str) -> Optional[str]:
    """The package a URL installs: its ``#egg=`` name, else the last part of a URL's (``scheme://``)
    path before ``@ref``, without ``.git``; None for a local path or a URL without a path
    (pip docs "VCS Support": ``#egg=`` fragment, ``@ref`` after the path)."""
    egg = re.search(r"[#&]egg=([A-Za-z0-9._-]+)", target)
    if egg:
        return egg.group(1)
    if "://" not in target:
        return None
    # the URL's path without the "@ref" pip's VCS URLs append (a ref may hold "/": "@release/1.5")
    path = urlsplit(target).path.split("@", 1)[0]
    return re.sub(r"\.git$", "", path.rstrip("/").rsplit("/", 1)[-1]) or None


#: The ref of a VCS direct reference: ``git+https://host/org/repo.git@REF`` (before ``#``/``&``).
_VCS_REF = re.compile(r"^(?:git|hg|svn|bzr)\+[^@\s#]+(?:@[^@\s#]*)?@(?P<ref>[^@\s#&]+)")
_SHA = re.compile(r"^[0-9a-fA-F]{7,40}$")
_TAG_VERSION = re.compile(r"^v?(?P<v>\d+(?:\.\d+)+(?:-?(?:rc|a|b)\d+)?)$")


def direct_ref(url: Optional[str]) -> tuple[Optional[str], Optional[str]]:
    """``(ref, version)`` of a VCS direct reference's ``@REF``: ``("v1.4.0", "1.4.0")`` for a release
    tag, ``(ref, None)`` for a commit SHA or a branch, ``(None, None)`` without a ref or for a non-VCS URL.

    Source: pip's VCS support (``git+https://...@REF``, PEP 440 direct references).
    """
    m = _VCS_REF.match(url or "")
    if not m:
        return None, None
    ref = m.group("ref")
    t = _TAG_VERSION.match(ref)
    return ref, (t.group("v") if t and not _SHA.match(ref) else None)


#: The header pip-compile (pip-tools) and ``uv pip compile`` write at the top of a compiled file.
_COMPILED = re.compile(r"^#[ \t]*This file (?:is|was) autogenerated by (?P<tool>pip-compile|uv)\b", re.M)
#: The command line the header records (``#    pip-compile --output-file=requirements.txt requirements.in``).
_COMPILE_COMMAND = re.compile(r"^#[ \t]+(?P<cmd>(?:pip-compile|uv pip compile)\b[^\n\r]*)", re.M)


def compiled_by(doc: TextDocument) -> Optional[str]:
    """The command that regenerates a compiled requirement file (pip-compile / ``uv pip compile``
    header in its first 30 lines), or None for a hand-written file.

    Source: the headers pip-tools' ``pip-compile`` and uv's ``uv pip compile`` write.
    """
    head = "\n".join(doc.text.splitlines()[:30])
    m = _COMPILED.search(head)
    if not m:
        return None
    c = _COMPILE_COMMAND.search(head)
    if c:
        return c.group("cmd").strip()
    base = doc.path.rsplit("/", 1)[-1]
    src = base[:-4] + ".in" if base.endswith(".txt") else base
    return f"pip-compile {src}" if m.group("tool") == "pip-compile" else f"uv pip compile {src} -o {base}"


def new_version_text(old: str, new: str) -> str:
    """The version to write over ``old``: ``new``, keeping a local label (``2.13.0+cpu`` -> ``2.14.0+cpu``)."""
    if "+" in old and "+" not in new:
        return f"{new}+{old.split('+', 1)[1]}"
    return new


def _names_version(text: str, version: Optional[str]) -> bool:
    """True when ``text`` (a URL or option line) names ``version`` as a whole version (``@v1.4.0``,
    ``executorch-1.4.0-cp311-...whl``): a pin the bot leaves behind, so its item is blocking."""
    if not version:
        return False
    return re.search(r"(?<![\d.])v?" + re.escape(version) + r"(?![\d]|\.\d)", text) is not None


def is_requirements_folder_file(relpath: str) -> bool:
    """True for ``.../requirements/NAME.txt`` or ``.../requirements/NAME.in`` (a folder of requirement files)."""
    parts = relpath.rsplit("/", 2)
    return len(parts) >= 2 and parts[-2] == "requirements" and parts[-1].endswith((".txt", ".in"))


def _same(a: str, b: str) -> bool:
    try:
        return Version(a) == Version(b)
    except InvalidVersion:
        return a == b


class RequirementsManager(Manager):
    """Exact pins of the packages in ``bump.changes`` in ``requirements*.txt`` / ``*requirements*.txt``.

    ``extract`` gives one Finding (kind ``"requirement"``, PEP 503 name,
    version as written, ``exact``) per requirement with a version clause.
    ``update`` gives Edits (kind ``"requirement"``, old/new only the version
    text) and flags; raises :class:`ManagerError` (file and line) for an
    unparsable requirement or a hash-pinned requirement that must change.
    """

    name = "requirements"
    # pip constraint files (``-c constraints.txt``) have the same format and pin the same packages;
    # pip-tools inputs (``requirements.in``) too
    patterns = ("requirements*.txt", "*requirements*.txt", "*constraints*.txt", "*requirements*.in")

    def matches(self, relpath: str) -> bool:
        """By base name (:attr:`patterns`), or any ``.txt``/``.in`` file in a ``requirements/``
        folder (``requirements/base.txt``, ``requirements/dev.txt``)."""
        return super().matches(relpath) or is_requirements_folder_file(relpath)

    def extract(self, doc: TextDocument) -> list[Finding]:
        """Exact and range pins as ``Finding(kind="requirement")``; in a compiled file (pip-compile,
        ``uv pip compile``) ``kind="unmanaged-requirement"``: read and audited, never rewritten."""
        out = []
        kind = "unmanaged-requirement" if compiled_by(doc) else "requirement"
        for e in parse(doc):
            if e.kind == "url" and e.req is not None:
                _, version = direct_ref(e.req.url)
                if version is not None:  # a release tag ref is a pin (executorch @ git+...@v1.4.0)
                    out.append(Finding(path=doc.path, line=e.line, kind=kind, name=e.name,
                                       version=version, exact=True, text=e.text))
                continue
            if e.kind != "requirement" or not e.clauses:
                continue
            version = e.clauses[0].version if e.exact else e.spec_text
            out.append(Finding(path=doc.path, line=e.line, kind=kind, name=e.name,
                               version=version, exact=e.exact, text=e.text))
        return out

    def update(self, doc: TextDocument, bump: Bump) -> ManagerResult:
        """Edits moving every exact pin of a changed package (module docstring); a compiled file
        is never edited: one blocking ``compiled-requirements`` flag per line naming a
        package whose version changes, with the command that regenerates it."""
        edits: list[Edit] = []
        flags: list[Flag] = []
        command = compiled_by(doc)
        if command is not None:
            for e in parse(doc):
                change = bump.change_for(e.req.name) if e.req is not None else None
                if change is None or not e.clauses or same_release(e.clauses[0].version, change.new):
                    continue
                flags.append(Flag("compiled-requirements", f"{e.req.name}{e.spec_text} is in a compiled file; "
                                  f"the bot edits its input, not its output: regenerate it with `{command}` "
                                  f"(for {e.req.name} {change.new})", path=doc.path, line=e.line, blocking=True))
            return ManagerResult((), tuple(flags))
        for e in parse(doc):
            if e.req is None:
                # an option line (-e URL) or a bare URL line (git+https://.../executorch.git@v1.4.0)
                named = _option_package(e.text) if e.kind == "option" else _url_package(e.text.split()[0])
                change = bump.change_for(named) if named else None
                if change is not None:
                    behind = _names_version(e.text, change.old)
                    flags.append(Flag("url-requirement", f"{named} is installed by the "
                                      f"{'option' if e.kind == 'option' else 'URL'} line {e.text!r}; "
                                      f"it was not changed to {change.new}"
                                      + (f" (it names the old {change.old}: move it by hand)" if behind else ""),
                                      path=doc.path, line=e.line, blocking=behind))
                continue
            change = bump.change_for(e.req.name)
            if change is None:
                continue
            if e.kind == "url":
                edit, flag = self._direct_reference(doc, e, change)
                if edit is not None:
                    edits.append(edit)
                if flag is not None:
                    flags.append(flag)
                continue
            if not e.clauses:
                continue
            if not e.exact:
                flags.append(Flag("range-pin", f"{e.req.name}{e.spec_text} is a "
                                  f"range; the bump pins {change.new} exactly, so it was left for you "
                                  "to change", path=doc.path, line=e.line, blocking=True))
                continue
            clause = e.clauses[0]
            new = new_version_text(clause.version, change.new)
            if clause.version == new or _same(clause.version, new):
                continue
            if e.hashed:
                flags.append(Flag("hashed-pin", f"{e.req.name}=={clause.version} is pinned with --hash; the hashes of "
                                  f"{change.new} cannot be recomputed offline, so the bot does not rewrite it: "
                                  "regenerate the file with hashes (pip-compile --generate-hashes, or uv pip compile "
                                  "--generate-hashes, from its input), or update this requirement and its hashes "
                                  "yourself", path=doc.path, line=e.line, blocking=True))
                continue
            nightly = nightly_base(clause.version)
            if nightly is not None and (change.old is None or _same(nightly, change.old)):
                flags.append(Flag("nightly-pin", f"{e.req.name}=={clause.version} is a "
                                  f"nightly{' of ' + nightly if change.old else ''}; rewritten to {new} like "
                                  "any other pin", path=doc.path, line=e.line, blocking=False))
            elif change.old and not _same(clause.version.split("+", 1)[0], change.old):
                flags.append(Flag("pin-was-different", f"{e.req.name} was pinned "
                                  f"at {clause.version}, not upstream's {change.old}; it is moved to "
                                  f"{new} too", path=doc.path, line=e.line, blocking=False))
            edits.append(Edit(path=doc.path, start=clause.start, end=clause.end, old=clause.version,
                              new=new, line=doc.line_of(clause.start), kind="requirement",
                              why=f"{norm(e.req.name)} pin ({change.source})"))
        return ManagerResult(edits=tuple(edits), flags=tuple(flags))

    def _direct_reference(self, doc: TextDocument, e: Entry, change: PinChange):
        """The edit of a direct reference's release tag ref, or the flag saying why there is none.

        ``executorch @ git+https://...@v1.4.0``: the tag's version moves (``@v1.5.1``,
        the ``v`` kept as written); a commit SHA or a branch ref (or no ref: the
        default branch) is a blocking ``direct-reference`` flag, since the bot
        cannot tell which release it installs; a URL that is not a VCS reference
        (a wheel, a path) stays a non-blocking ``url-requirement``.
        """
        url = e.req.url or ""
        ref, version = direct_ref(url)
        if not url.startswith(("git+", "hg+", "svn+", "bzr+")):
            behind = _names_version(url, change.old)
            return None, Flag("url-requirement", f"{e.req.name} is installed from a URL or path; it was not "
                              f"changed to {change.new}"
                              + (f" (it names the old {change.old}: move it by hand)" if behind else ""),
                              path=doc.path, line=e.line, blocking=behind)
        if version is None:
            what = f"the commit {ref}" if ref and _SHA.match(ref) else (f"the branch {ref!r}" if ref else
                                                                         "the default branch")
            return None, Flag("direct-reference", f"{e.req.name} is installed from {what} of {url.split('@')[0]}"
                              f"; the bot cannot tell which release that is, so it was not moved to "
                              f"{change.new}: pin a release tag (@v{change.new}) or ==, by hand",
                              path=doc.path, line=e.line, blocking=True)
        if _same(version, change.new):
            return None, None
        line_start = next(start for n, start, _ in doc.lines() if n == e.line)
        at = doc.text.find("@" + ref, line_start)
        s = at + 1 + (len(ref) - len(version))
        flag = None
        if change.old and not _same(version, change.old):
            flag = Flag("pin-was-different", f"{e.req.name} was pinned at the tag {ref}, not upstream's "
                        f"{change.old}; it is moved to {change.new} too", path=doc.path, line=e.line, blocking=False)
        return Edit(doc.path, s, s + len(version), version, change.new, e.line, "requirement",
                    f"{norm(e.req.name)} direct reference tag ({change.source})"), flag

    def check(self, before: TextDocument, after: TextDocument, edits: list[Edit]) -> None:
        """Assert that ``after`` has the same requirements as ``before`` except the planned versions.

        Line by line, each logical entry's ``(kind, name, extras, specifier,
        marker, url)`` must be equal, except that a clause whose version span
        an edit replaced must now carry that edit's new version.  An edit that
        cuts across a version clause is refused.  Raises :class:`ManagerError`
        naming the file and line.
        """
        old = parse(before)
        try:
            new = parse(after)
        except ManagerError as exc:
            raise ManagerError(f"the edited file no longer parses: {exc.message}",
                               path=after.path, line=exc.line) from None
        if len(old) != len(new):
            raise ManagerError(f"the edited file has {len(new)} requirement/option lines instead of "
                               f"{len(old)}; nothing written", path=after.path)
        for a, b in zip(old, new):
            want = a.semantic()
            if a.req is not None and a.clauses:
                parts = []
                for c in a.clauses:
                    version = c.version
                    for ed in edits:
                        if ed.end <= c.start or ed.start >= c.end:
                            continue
                        if (ed.start, ed.end) != (c.start, c.end) or not _valid_version(ed.new, c.op):
                            raise ManagerError(f"a planned edit ({ed.old!r} -> {ed.new!r}) does not "
                                               f"replace just the version of {a.req.name}",
                                               path=before.path, line=a.line)
                        version = ed.new
                    parts.append(c.op + version)
                want = want[:3] + (SpecifierSet(",".join(parts)),) + want[4:]
            if a.kind == "url" and a.req is not None and b.req is not None:
                url = a.req.url or ""
                for ed in edits:
                    lo = next((st for n, st, _ in before.lines() if n == a.line), None)
                    if lo is not None and before.line_of(ed.start) == a.line:
                        ref, _ = direct_ref(url)
                        if ref is not None:
                            url = url[:len(url) - len(ref)] + ref[:len(ref) - len(ed.old)] + ed.new \
                                if url.endswith(ref) else url.replace("@" + ref, "@" + ref[:len(ref) - len(ed.old)] + ed.new)
                want = want[:5] + (url,)
            if want != b.semantic():
                raise ManagerError(f"after the edits the line reads {b.text!r}, which is not the "
                                   f"planned change of {a.text!r}; nothing written",
                                   path=after.path, line=b.line)


def _valid_version(text: str, op: str) -> bool:
    if op == "===":
        return bool(text) and not any(c.isspace() or c in ",;#" for c in text)
    try:
        Version(text)
    except InvalidVersion:
        return False
    return True
