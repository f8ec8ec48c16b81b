"""Small frozen values shared by every role: pins, pin sets, findings, edits, flags, checks.

Results that could not be produced are values, not exceptions (the pip-audit
pattern): a :class:`ResolvedPin` either carries a ``version`` or a
``reason`` why none could be resolved, and the report shows the latter as a
flagged item.

The values behave as frozen dataclasses do (keyword or positional
construction with the same defaults, equality between two values of one
class, hashing, the same ``repr``, assignment refused with an
``AttributeError``, :func:`replace`), but are plain classes with
``__slots__`` on :class:`Value`: a ``@dataclass`` generates and compiles six
methods per class when its module is imported, and every command imports
this module (``verify-pack`` and ``update`` alike).
"""

from __future__ import annotations

from functools import lru_cache
from operator import attrgetter
from typing import Optional

_set = object.__setattr__


class FrozenInstanceError(AttributeError):
    """Raised on an assignment to (or deletion of) a field of a :class:`Value` (as ``dataclasses``'s own)."""


class Value:
    """Base of the value classes of this module.

    A subclass lists its fields, in constructor order, in ``__slots__`` and sets
    them in ``__init__`` with ``object.__setattr__``.  ``_compare`` names the
    fields that equality and the hash use (default: every field).  Two values
    are equal when they are of the same class and their compared fields are
    equal; a value of another class is ``NotImplemented`` (so never equal).
    """

    __slots__ = ()
    _compare: tuple[str, ...] = ()
    _key = staticmethod(lambda value: ())

    def __init_subclass__(cls, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        compared = cls.__dict__.get("_compare") or cls.__slots__
        cls._compare = tuple(compared)
        # attrgetter of one name gives the value itself: keep a tuple, as a dataclass hashes one
        cls._key = attrgetter(*compared) if len(compared) > 1 else (lambda value, n=compared[0]: (getattr(value, n),))

    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return self._key(self) == other._key(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._key(self))

    def __repr__(self) -> str:
        return f"{self.__class__.__qualname__}(" + ", ".join(
            f"{name}={getattr(self, name)!r}" for name in self.__slots__) + ")"

    def __setattr__(self, name: str, value) -> None:
        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise FrozenInstanceError(f"cannot delete field {name!r}")


def replace(value: Value, **changes) -> Value:
    """A copy of ``value`` with the fields named in ``changes`` set (``dataclasses.replace`` for a
    :class:`Value`); an unknown field name raises ``TypeError``."""
    fields = {name: getattr(value, name) for name in value.__slots__}
    fields.update(changes)
    return value.__class__(**fields)



@lru_cache(maxsize=4096)
def norm(name: str) -> str:
    """PEP 503 normalised package name: ``"Ethos_U.Vela"`` -> ``"ethos-u-vela"``.

    ``packaging.utils`` is imported on first use: it pulls in ``packaging.tags``
    (tens of ms), which commands such as ``verify-pack`` never need.  Answers are
    cached: the managers normalise the same few names for every file of a template.
    """
    from packaging.utils import canonicalize_name
    return canonicalize_name(name)


class Flag(Value):
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

    __slots__ = ("code", "message", "path", "line", "blocking")

    def __init__(self, code: str, message: str, path: Optional[str] = None, line: Optional[int] = None,
                 blocking: bool = True) -> None:
        _set(self, "code", code)
        _set(self, "message", message)
        _set(self, "path", path)
        _set(self, "line", line)
        _set(self, "blocking", blocking)

    def to_json(self) -> dict:
        return {"code": self.code, "message": self.message, "path": self.path,
                "line": self.line, "blocking": self.blocking}


class ResolvedPin(Value):
    """One Python package pin as upstream states it at a tag.

    Attributes:
        name: PEP 503 normalised name (``"torch"``, ``"torchao"``, ``"ethos-u-vela"``, ``"tosa-tools"``).
        version: the exact version (``"2.14.0"``), or None when it could not be resolved.
        source: where the value came from, e.g. ``"torch_pin.py TORCH_VERSION @ v1.5.1"``.
        reason: why it is unresolved (only a range, a ``git+`` URL, file missing), else None.
        spec: the raw specifier text upstream wrote (``"== 0.5.1"``, ``">=0.17.0"``), for the report.
    """

    __slots__ = ("name", "version", "source", "reason", "spec")

    def __init__(self, name: str, version: Optional[str], source: Optional[str] = None,
                 reason: Optional[str] = None, spec: Optional[str] = None) -> None:
        _set(self, "name", name)
        _set(self, "version", version)
        _set(self, "source", source)
        _set(self, "reason", reason)
        _set(self, "spec", spec)

    @property
    def resolved(self) -> bool:
        return self.version is not None


class PinSet(Value):
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

    __slots__ = ("tag", "executorch", "pack", "pins", "tosa", "requires_python", "flags")

    def __init__(self, tag: str, executorch: str, pack: str, pins: tuple[ResolvedPin, ...] = (),
                 tosa: tuple[ResolvedPin, ...] = (), requires_python: Optional[str] = None,
                 flags: tuple[Flag, ...] = ()) -> None:
        _set(self, "tag", tag)
        _set(self, "executorch", executorch)
        _set(self, "pack", pack)
        _set(self, "pins", pins)
        _set(self, "tosa", tosa)
        _set(self, "requires_python", requires_python)
        _set(self, "flags", flags)

    def get(self, name: str) -> Optional[ResolvedPin]:
        """The pin for a package (any spelling of its name) among ``pins`` then ``tosa``, or None."""
        n = norm(name)
        for p in self.pins + self.tosa:
            if p.name == n:
                return p
        return None


class PinChange(Value):
    """A Python package pin the bump writes into requirement files.

    ``old`` is upstream's value at the current tag (None when unknown);
    ``new`` is the value to write; ``source`` says where ``new`` came from
    (an upstream file at the target tag, or ``"--set"``).
    """

    __slots__ = ("name", "old", "new", "source")

    def __init__(self, name: str, old: Optional[str], new: str, source: str) -> None:
        _set(self, "name", name)
        _set(self, "old", old)
        _set(self, "new", new)
        _set(self, "source", source)


class Bump(Value):
    """The change a run makes: from the template's current ExecuTorch version to a target.

    Attributes:
        old_executorch / new_executorch: PEP 440 versions (``"1.4.0"`` -> ``"1.5.1"``).
        old_pack / new_pack: the pack (SemVer) versions.
        old_tag / new_tag: upstream tags (``"v1.4.0"`` / ``"v1.5.1"``).
        changes: the Python pins to write (executorch itself, torch, torchao,
            ethos-u-vela and only the TOSA pins that changed between the tags);
            their ``old`` values also serve prose that restates them
            ("ExecuTorch X targets torch Y and torchao Z").
        restated: ``(name, version)`` the template itself pins for the packages of
            ``changes`` (the ``old`` column of the pin table): prose restating those
            values moves with them even when upstream's old value differs.
    """

    __slots__ = ("old_executorch", "new_executorch", "old_pack", "new_pack", "old_tag", "new_tag", "changes",
                 "restated")

    def __init__(self, old_executorch: str, new_executorch: str, old_pack: str, new_pack: str, old_tag: str,
                 new_tag: str, changes: tuple[PinChange, ...] = (),
                 restated: tuple[tuple[str, str], ...] = ()) -> None:
        _set(self, "old_executorch", old_executorch)
        _set(self, "new_executorch", new_executorch)
        _set(self, "old_pack", old_pack)
        _set(self, "new_pack", new_pack)
        _set(self, "old_tag", old_tag)
        _set(self, "new_tag", new_tag)
        _set(self, "changes", changes)
        _set(self, "restated", restated)

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


class Finding(Value):
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

    __slots__ = ("path", "line", "kind", "name", "version", "exact", "text")

    def __init__(self, path: str, line: int, kind: str, name: str, version: Optional[str], exact: bool = True,
                 text: str = "") -> None:
        _set(self, "path", path)
        _set(self, "line", line)
        _set(self, "kind", kind)
        _set(self, "name", name)
        _set(self, "version", version)
        _set(self, "exact", exact)
        _set(self, "text", text)


class Edit(Value):
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

    __slots__ = ("path", "start", "end", "old", "new", "line", "kind", "why")

    def __init__(self, path: str, start: int, end: int, old: str, new: str, line: int, kind: str,
                 why: str = "") -> None:
        _set(self, "path", path)
        _set(self, "start", start)
        _set(self, "end", end)
        _set(self, "old", old)
        _set(self, "new", new)
        _set(self, "line", line)
        _set(self, "kind", kind)
        _set(self, "why", why)

    def to_json(self) -> dict:
        return {"path": self.path, "line": self.line, "kind": self.kind,
                "old": self.old, "new": self.new, "why": self.why}


class ManagerResult(Value):
    """What a manager returns for one file: the edits to make and the items to flag."""

    __slots__ = ("edits", "flags")

    def __init__(self, edits: tuple[Edit, ...] = (), flags: tuple[Flag, ...] = ()) -> None:
        _set(self, "edits", edits)
        _set(self, "flags", flags)


class CheckResult(Value):
    """The outcome of one named check (pack verification, audit).

    Attributes:
        name: stable check name, e.g. ``"archive"``, ``"generated-headers"``.
        status: ``"pass"``, ``"warn"`` or ``"fail"``.
        detail: one line naming the file or entry concerned.
        data: optional machine-readable extras for ``--json`` (a new dict when None; not compared,
            not hashed).
    """

    __slots__ = ("name", "status", "detail", "data")
    _compare = ("name", "status", "detail")

    def __init__(self, name: str, status: str, detail: str = "", data: Optional[dict] = None) -> None:
        _set(self, "name", name)
        _set(self, "status", status)
        _set(self, "detail", detail)
        _set(self, "data", {} if data is None else data)

    def to_json(self) -> dict:
        d = {"name": self.name, "status": self.status, "detail": self.detail}
        if self.data:
            d["data"] = self.data
        return d
