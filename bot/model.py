"""Small frozen dataclasses shared by every role: pins, pin sets, findings, edits, flags, checks.

Results that could not be produced are values, not exceptions (the pip-audit
pattern): a :class:`ResolvedPin` either carries a ``version`` or a
``reason`` why none could be resolved, and the report shows the latter as a
flagged item.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Optional



@lru_cache(maxsize=4096)
def norm(name: str) -> str:
    """PEP 503 normalised package name: ``"Ethos_U.Vela"`` -> ``"ethos-u-vela"``.

    ``packaging.utils`` is imported on first use: it pulls in ``packaging.tags``
    (tens of ms), which commands such as ``verify-pack`` never need.  Answers are
    cached: the managers normalise the same few names for every file of a template.
    """
    from packaging.utils import canonicalize_name
    return canonicalize_name(name)


@dataclass(frozen=True)
class Flag:
    """An item a reviewer must look at.

    Attributes:
        code: stable machine name.  Blocking by nature: ``"unresolved-pin"``
            (upstream gives no exact value), ``"range-pin"`` (an ExecuTorch pin
            that is a range), ``"pack-id-case"``, ``"symlink-outside-repo"`` (a
            pin file linked out of the repository), ``"tosa-unknown"``,
            ``"unmanaged-pin"`` (a template pyproject.toml constraint outside the
            rewritten tables that the new version breaks), ``"direct-reference"`` (a
            VCS requirement on a commit or branch, not a release tag).
            Informational: ``"source-disagreement"``, ``"source-unusable"``,
            ``"set-override"``, ``"removed-pin"``, ``"pin-was-different"``,
            ``"nightly-pin"``, ``"url-requirement"``, ``"pack-path"``,
            ``"script-pin-drift"``, ``"history-mention"``, ``"leftover"``,
            ``"downgrade"`` (upstream pins an older version), ``"companion-pin"``,
            ``"requires-python"``, ``"ahead-of-upstream"``, ``"mixed-mention"``
            (a prose line mixing the current version with history, left as written),
            ``"python-lock"`` (uv.lock/poetry.lock/... naming executorch: regenerate it),
            ``"lock-missing-pack"`` (a cbuild-pack.yml without ExecuTorch), ``"symlink-dangling"``;
            for review (bot.engine.mentions): ``"review-mention"`` (an occurrence no rule explains),
            ``"compiled-requirements"`` (a pip-compile output: regenerate it), ``"conda-pin"`` (a
            conda-level spec), ``"restatement-partial"`` (a sentence restating pins that cannot all move);
            ``"symlink-outside-repo"`` is informational for a linked prose/script file or folder.
        message: one sentence naming the file, package and versions involved.
        path: repository-relative POSIX path (template) or upstream path, or None.
        line: 1-based line, or None.
        blocking: True when the flag must stop ``update`` (exit 1, nothing
            written) unless ``--allow-flagged`` is given.  Informational
            items (a downgrade that upstream asked for, a historical mention
            left alone) are not blocking.
    """

    code: str
    message: str
    path: Optional[str] = None
    line: Optional[int] = None
    blocking: bool = True

    def to_json(self) -> dict:
        return {"code": self.code, "message": self.message, "path": self.path,
                "line": self.line, "blocking": self.blocking}


@dataclass(frozen=True)
class ResolvedPin:
    """One Python package pin as upstream states it at a tag.

    Attributes:
        name: PEP 503 normalised name (``"torch"``, ``"torchao"``, ``"ethos-u-vela"``, ``"tosa-tools"``).
        version: the exact version (``"2.14.0"``), or None when it could not be resolved.
        source: where the value came from, e.g. ``"torch_pin.py TORCH_VERSION @ v1.5.1"``.
        reason: why it is unresolved (only a range, a ``git+`` URL, file missing), else None.
        spec: the raw specifier text upstream wrote (``"== 0.5.1"``, ``">=0.17.0"``), for the report.
    """

    name: str
    version: Optional[str]
    source: Optional[str] = None
    reason: Optional[str] = None
    spec: Optional[str] = None

    @property
    def resolved(self) -> bool:
        return self.version is not None


@dataclass(frozen=True)
class PinSet:
    """What upstream ExecuTorch pins at one release tag.

    Attributes:
        tag: the git tag, ``"v1.5.1"``.
        executorch: PEP 440 version of the release, ``"1.5.1"``.
        pack: the pack (SemVer) version, ``"1.5.1"`` / ``"1.0.0-rc1"``.
        pins: torch, torchao, ethos-u-vela (each resolved or not).
        tosa: every requirement of ``backends/arm/requirements-arm-tosa.txt`` (may be empty).
        requires_python: the ``requires-python`` of upstream's pyproject.toml, or None.
        flags: what resolving noticed (disagreeing sources, unresolved pins).
    """

    tag: str
    executorch: str
    pack: str
    pins: tuple[ResolvedPin, ...] = ()
    tosa: tuple[ResolvedPin, ...] = ()
    requires_python: Optional[str] = None
    flags: tuple[Flag, ...] = ()

    def get(self, name: str) -> Optional[ResolvedPin]:
        """The pin for a package (any spelling of its name) among ``pins`` then ``tosa``, or None."""
        n = norm(name)
        for p in self.pins + self.tosa:
            if p.name == n:
                return p
        return None


@dataclass(frozen=True)
class PinChange:
    """A Python package pin the bump writes into requirement files.

    ``old`` is upstream's value at the current tag (None when unknown);
    ``new`` is the value to write; ``source`` says where ``new`` came from
    (an upstream file at the target tag, or ``"--set"``).
    """

    name: str
    old: Optional[str]
    new: str
    source: str


@dataclass(frozen=True)
class Bump:
    """The change a run makes: from the template's current ExecuTorch version to a target.

    Attributes:
        old_executorch / new_executorch: PEP 440 versions (``"1.4.0"`` -> ``"1.5.1"``).
        old_pack / new_pack: the pack (SemVer) versions.
        old_tag / new_tag: upstream tags (``"v1.4.0"`` / ``"v1.5.1"``).
        changes: the Python pins to write (executorch itself, torch, torchao,
            ethos-u-vela and only the TOSA pins that changed between the tags);
            their ``old`` values also serve prose that restates them
            ("ExecuTorch X targets torch Y and torchao Z").
    """

    old_executorch: str
    new_executorch: str
    old_pack: str
    new_pack: str
    old_tag: str
    new_tag: str
    changes: tuple[PinChange, ...] = ()
    #: ``(name, version)`` the template itself pins for the packages of ``changes`` (the ``old`` column of
    #: the pin table): prose restating those values moves with them even when upstream's old value differs
    restated: tuple[tuple[str, str], ...] = ()
    #: the commits ``old_tag`` / ``new_tag`` name (annotated tags peeled), read from upstream only when the
    #: template pins ExecuTorch by commit (``GIT_TAG <sha>  # v1.4.0``, bot.template.commitpins); None when
    #: not needed or not readable, and ``commit_note`` then says why
    old_commit: Optional[str] = None
    new_commit: Optional[str] = None
    commit_note: str = ""

    def change_for(self, name: str) -> Optional[PinChange]:
        """The :class:`PinChange` for a package name (PEP 503 comparison), or None."""
        n = norm(name)
        for c in self.changes:
            if norm(c.name) == n:
                return c
        return None

    @property
    def major_minor_changed(self) -> bool:
        from bot.versions import major_minor
        return major_minor(self.old_executorch) != major_minor(self.new_executorch)


@dataclass(frozen=True)
class Finding:
    """A version found in a template file.

    Attributes:
        path: repository-relative POSIX path.
        line: 1-based line.
        kind: ``"pack-pin"`` (csolution/cproject/clayer), ``"lock"``
            (cbuild-pack), ``"requirement"``, or ``"prose"``.
        name: what is pinned: ``"PyTorch::ExecuTorch"`` for packs, the PEP 503
            name for requirements (``"executorch"``), or the mention's form for prose.
        version: the version text as written (``"1.4.0"``), or None for an unversioned pack entry.
        exact: False for a range (``@^1.4.0``, ``>=``), True for an exact pin.
        text: the whole matched text (``"PyTorch::ExecuTorch@1.4.0"``).
    """

    path: str
    line: int
    kind: str
    name: str
    version: Optional[str]
    exact: bool = True
    text: str = ""


@dataclass(frozen=True)
class Edit:
    """One span replacement inside a template file's decoded text.

    Attributes:
        path: repository-relative POSIX path.
        start / end: character offsets into the decoded text (BOM excluded);
            ``text[start:end] == old`` must hold when the edit is applied.
        old / new: the replaced text and its replacement (usually just a version).
        line: 1-based line of ``start``.
        kind: ``"pack-pin"``, ``"lock"``, ``"requirement"`` or ``"prose"``.
        why: a short reason for the reviewer (``"PyTorch::ExecuTorch pack pin"``).
    """

    path: str
    start: int
    end: int
    old: str
    new: str
    line: int
    kind: str
    why: str = ""

    def to_json(self) -> dict:
        return {"path": self.path, "line": self.line, "kind": self.kind,
                "old": self.old, "new": self.new, "why": self.why}


@dataclass(frozen=True)
class ManagerResult:
    """What a manager returns for one file: the edits to make and the items to flag."""

    edits: tuple[Edit, ...] = ()
    flags: tuple[Flag, ...] = ()


@dataclass(frozen=True)
class CheckResult:
    """The outcome of one named check (pack verification, audit).

    Attributes:
        name: stable check name, e.g. ``"archive"``, ``"generated-headers"``.
        status: ``"pass"``, ``"warn"`` or ``"fail"``.
        detail: one line naming the file or entry concerned.
        data: optional machine-readable extras for ``--json``.
    """

    name: str
    status: str
    detail: str = ""
    data: dict = field(default_factory=dict, compare=False, hash=False)

    def to_json(self) -> dict:
        d = {"name": self.name, "status": self.status, "detail": self.detail}
        if self.data:
            d["data"] = self.data
        return d
