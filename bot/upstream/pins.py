"""What upstream ExecuTorch pins at a release tag, and which pins a bump changes.

Facts (ExecuTorch's pin files at tags v1.0.0 to v1.4.1, which upstream file pins what at a tag): the pin
sources moved between tags and sometimes disagree, so each package has a
stated order of sources and every value records the source that gave it.

* ``torch``: ``torch_pin.py`` ``TORCH_VERSION`` (v1.1.0+), else a literal
  ``"torch==X"`` in ``install_requirements.py`` (v1.0.x), else the ``torch``
  dependency of ``pyproject.toml``.  v1.1.0 says 2.11.0 in ``torch_pin.py``
  and 2.10.0 in ``install_requirements.py``: the first wins and a
  non-blocking ``source-disagreement`` flag names both.
* ``torchao``: ``install_requirements.py`` (``f"torchao=={TORCHAO_NIGHTLY_VERSION}"``
  with a module-level constant, a literal ``"torchao==X"``, or the bare
  ``TORCHAO_NIGHTLY_VERSION`` constant; v1.4.x), else an exact ``torchao==X``
  in ``pyproject.toml`` (v1.0.x, v1.1.0).  A range only (``torchao>=0.17.0``,
  v1.2.0 and v1.3.x) is unresolved.
* ``ethos-u-vela``: ``backends/arm/requirements-arm-ethos-u.txt``, else the
  ``ethos_u`` / ``ethos-u`` extra of ``pyproject.toml``.
* TOSA: every requirement of ``backends/arm/requirements-arm-tosa.txt``
  (``ml_dtypes == 0.5.1`` with spaces; a ``git+https://...@v2025.07.1`` URL pin
  at v1.0.x is unresolved).
* ``requires-python`` from ``pyproject.toml``.

No guessing: a package named on several lines of one requirement file with
different pins is unresolved (every line named); a ``===`` pin that is not a
PEP 440 version is unresolved; a ``TORCH_VERSION`` that exists but is not a
version string gives a non-blocking ``source-unusable`` flag when a later
source supplies the value.

The upstream files are parsed in :mod:`bot.upstream.pinfiles`; a value that
cannot be found is a :class:`ResolvedPin` with a ``reason``, never an exception.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from packaging.version import InvalidVersion, Version

from bot.errors import UpstreamError, UsageError
from bot.model import Flag, PinChange, PinSet, ResolvedPin, norm
from bot.upstream.pinfiles import MAX_UPSTREAM_FILE, ReqLine, parse_pyproject, parse_python, parse_requirement_file
from bot.upstream.source import UpstreamSource
from bot.versions import tag_version, to_semver

TORCH_PIN = "torch_pin.py"
INSTALL_REQUIREMENTS = "install_requirements.py"
PYPROJECT = "pyproject.toml"
ETHOS_U_REQUIREMENTS = "backends/arm/requirements-arm-ethos-u.txt"
TOSA_REQUIREMENTS = "backends/arm/requirements-arm-tosa.txt"

#: The packages every bump writes besides ``executorch`` itself, in report order.
MAIN_PACKAGES = ("torch", "torchao", "ethos-u-vela")


# --------------------------------------------------------------------------------------
# Resolution
# --------------------------------------------------------------------------------------

@dataclass
class _Candidates:
    """Values found for one package, in source order, and notes on sources that gave none."""

    name: str
    found: list[tuple[str, str, str]] = field(default_factory=list)  # (version, source, spec)
    notes: list[str] = field(default_factory=list)
    #: ``(values found before it, why)`` for sources that exist and name the package but give
    #: no usable value; flagged when a later source supplies the value
    unusable: list[tuple[int, str]] = field(default_factory=list)

    def offer(self, req: ReqLine, source: str) -> None:
        if req.version is not None:
            self.found.append((req.version, source, req.spec))
        else:
            self.notes.append(f"{source}: {req.why_unresolved()}")
            self.unusable.append((len(self.found), f"{source}: {req.why_unresolved()}"))

    def skip(self, why: str) -> None:
        """A source that names the package in a form that is not a pin (a non-string constant)."""
        self.notes.append(why)
        self.unusable.append((len(self.found), why))


class _TagFiles:
    """The pin files of one tag, read and parsed at most once."""

    def __init__(self, source: UpstreamSource, tag: str):
        self.source, self.tag = source, tag
        self._cache: dict[str, object] = {}

    def get(self, path: str, parser):
        if path not in self._cache:
            data = self.source.read(self.tag, path)
            if data is not None and len(data) > MAX_UPSTREAM_FILE:
                raise UpstreamError(f"{len(data)} bytes @ {self.tag}, more than the {MAX_UPSTREAM_FILE} a pin file "
                                    "may have", path=path)
            self._cache[path] = None if data is None else parser(data, path, self.tag)
        return self._cache[path]


def _src(path: str, tag: str, detail: str = "") -> str:
    return f"{path}{' ' + detail if detail else ''} @ {tag}"


def _torch(files: _TagFiles) -> _Candidates:
    c, tag = _Candidates("torch"), files.tag
    pin = files.get(TORCH_PIN, parse_python)
    if pin is None:
        c.notes.append(f"{TORCH_PIN} is absent")
    elif "TORCH_VERSION" in pin.constants:
        c.offer(_constant_req("torch", pin.constants["TORCH_VERSION"]), _src(TORCH_PIN, tag, "TORCH_VERSION"))
    elif "TORCH_VERSION" in pin.assigned:
        c.skip(f"{TORCH_PIN} TORCH_VERSION @ {tag} is {pin.assigned['TORCH_VERSION']}, not a version string")
    else:
        c.notes.append(f"{TORCH_PIN} has no TORCH_VERSION")
    _from_install_requirements(files, c)
    _from_pyproject_deps(files, c)
    return c


def _torchao(files: _TagFiles) -> _Candidates:
    c = _Candidates("torchao")
    _from_install_requirements(files, c, constant="TORCHAO_NIGHTLY_VERSION")
    _from_pyproject_deps(files, c)
    _metadata_before_nightly(c)
    return c


def _metadata_before_nightly(c: _Candidates) -> None:
    """Put the package metadata (``pyproject.toml`` dependencies) before a value taken from a script
    variable whose name says nightly (``TORCHAO_NIGHTLY_VERSION``): the metadata is what pip installs
    for the release, the variable is what the install script uses for nightly builds."""
    if not c.found or "NIGHTLY" not in c.found[0][1].upper():
        return
    meta = [f for f in c.found if f[1].startswith(PYPROJECT)]
    if meta:
        c.found[:] = meta + [f for f in c.found if f not in meta]


def _single(reqs: list[ReqLine], name: str, path: str, tag: str) -> Optional[ReqLine]:
    """The one requirement of a requirement file for ``name`` (None when it names it nowhere).

    A package named on several lines with the same pin (environment markers) is one pin; with
    different pins it cannot be chosen without guessing, so the result is unresolved, its
    ``problem`` naming every line (a range is never guessed).
    """
    mine = [r for r in reqs if r.name == name]
    if not mine:
        return None
    if len({(r.version, r.spec if r.version is None else None, r.url) for r in mine}) == 1:
        return mine[0]
    listing = ", ".join(f"{path}:{r.line} {r.spec or r.url}" for r in mine)
    return ReqLine(name, None, mine[0].spec, line=mine[0].line,
                   problem=f"pinned differently on several lines @ {tag} ({listing})")


def _vela(files: _TagFiles) -> _Candidates:
    c, tag = _Candidates("ethos-u-vela"), files.tag
    reqs = files.get(ETHOS_U_REQUIREMENTS, parse_requirement_file)
    if reqs is None:
        c.notes.append(f"{ETHOS_U_REQUIREMENTS} is absent")
    else:
        one = _single(reqs, c.name, ETHOS_U_REQUIREMENTS, tag)
        if one is not None:
            c.offer(one, _src(ETHOS_U_REQUIREMENTS, tag))
        else:
            c.notes.append(f"{ETHOS_U_REQUIREMENTS} does not name ethos-u-vela")
    py = files.get(PYPROJECT, parse_pyproject)
    if py is not None and "ethos-u" in py.extras:
        key, extra = py.extras["ethos-u"]
        for r in [r for r in extra if r.name == c.name][:1]:
            c.offer(r, _src(PYPROJECT, tag, f"[project.optional-dependencies] {key}"))
    return c


def _constant_req(name: str, value: str) -> ReqLine:
    """A version constant as a requirement line: exact when ``value`` is a PEP 440 version."""
    try:
        return ReqLine(name, str(Version(value)), f"=={value}")
    except InvalidVersion:
        return ReqLine(name, None, f"=={value}", problem=f"{value!r} is not a version")


def _from_install_requirements(files: _TagFiles, c: _Candidates, constant: Optional[str] = None) -> None:
    facts = files.get(INSTALL_REQUIREMENTS, parse_python)
    if facts is None:
        c.notes.append(f"{INSTALL_REQUIREMENTS} is absent")
        return
    mine = [r for r in facts.requirements if r.name == c.name]
    exact = [r for r in mine if r.version is not None]
    for r in exact or mine[:1]:
        c.offer(r, _src(INSTALL_REQUIREMENTS, files.tag, r.via or ""))
    if not mine:
        if constant and constant in facts.constants:
            c.offer(_constant_req(c.name, facts.constants[constant]), _src(INSTALL_REQUIREMENTS, files.tag, constant))
        else:
            c.notes.append(f"{INSTALL_REQUIREMENTS} has no {c.name} requirement")


def _from_pyproject_deps(files: _TagFiles, c: _Candidates) -> None:
    py = files.get(PYPROJECT, parse_pyproject)
    if py is None:
        c.notes.append(f"{PYPROJECT} is absent")
        return
    mine = [r for r in py.dependencies if r.name == c.name]
    for r in mine[:1]:
        c.offer(r, _src(PYPROJECT, files.tag, "[project.dependencies]"))
    if not mine:
        c.notes.append(f"{PYPROJECT} [project.dependencies] has no {c.name}")


def _decide(c: _Candidates, tag: str) -> tuple[ResolvedPin, list[Flag]]:
    if not c.found:
        reason = "; ".join(dict.fromkeys(c.notes)) or "no source names it"
        return ResolvedPin(c.name, None, None, reason=f"no exact pin at {tag}: {reason}"), []
    version, source, spec = c.found[0]
    # A source before the chosen one named the package without a usable pin: say so, never fall back silently.
    flags = [Flag("source-unusable", f"{c.name}: {why}; using {version} from {source}",
                  path=why.split(" ", 1)[0], blocking=False) for before, why in c.unusable if before == 0]
    seen = set()
    for other_v, other_src, _ in c.found[1:]:
        if Version(other_v) != Version(version) and other_src not in seen:
            seen.add(other_src)
            flags.append(Flag("source-disagreement",
                              f"{c.name}: {source} says {version} but {other_src} says {other_v}; using {version}",
                              path=source.split(" ", 1)[0], blocking=False))
    return ResolvedPin(c.name, version, source, spec=spec), flags


def _tosa(files: _TagFiles) -> tuple[ResolvedPin, ...]:
    reqs = files.get(TOSA_REQUIREMENTS, parse_requirement_file)
    out, seen = [], set()
    for first in reqs or []:
        if first.name in seen:
            continue
        seen.add(first.name)
        r = _single(reqs, first.name, TOSA_REQUIREMENTS, files.tag)
        src = _src(TOSA_REQUIREMENTS, files.tag)
        if r.version is not None:
            out.append(ResolvedPin(r.name, r.version, src, spec=r.spec))
        else:
            out.append(ResolvedPin(r.name, None, src, reason=f"{TOSA_REQUIREMENTS} @ {files.tag}: {r.why_unresolved()}",
                                   spec=r.spec))
    return tuple(out)


def resolve_pinset(source: UpstreamSource, tag: str) -> PinSet:
    """Everything upstream ExecuTorch pins at ``tag`` (see the module docstring for the source order).

    Returns:
        a :class:`PinSet` whose ``pins`` are always torch, torchao and
        ethos-u-vela in that order (each resolved with its ``source``, or
        unresolved with a ``reason``), whose ``tosa`` are the requirements of
        ``backends/arm/requirements-arm-tosa.txt`` (empty when absent), and whose
        ``flags`` hold only observations (``source-disagreement``, non-blocking).
        Unresolved pins are *not* flagged here: :func:`plan_changes` does that
        for the target.

    Raises:
        UpstreamError: ``tag`` is not a release or rc tag, does not exist, or a
            pin file at it does not parse (naming the upstream path, line and tag).
    """
    version = tag_version(tag)
    if version is None:
        raise UpstreamError(f"{tag!r} is not a release tag (vX.Y.Z or vX.Y.Z-rcN) in {source.describe()}")
    files = _TagFiles(source, tag)
    pins, flags = [], []
    for gather in (_torch, _torchao, _vela):
        pin, more = _decide(gather(files), tag)
        pins.append(pin)
        flags.extend(more)
    py = files.get(PYPROJECT, parse_pyproject)
    return PinSet(tag=tag, executorch=str(version), pack=to_semver(version), pins=tuple(pins),
                  tosa=_tosa(files), requires_python=py.requires_python if py else None, flags=tuple(flags))


# --------------------------------------------------------------------------------------
# Changes between two pin sets
# --------------------------------------------------------------------------------------

def _normalise_sets(sets: Optional[dict[str, str]], allowed: set[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for key, value in (sets or {}).items():
        name = norm(key)
        if name == "executorch":
            raise UsageError("--set executorch=...: choose the ExecuTorch version with --version")
        if name not in allowed:
            raise UsageError(f"--set {key}={value}: {name} is not a pin the bump writes "
                             f"(known: {', '.join(sorted(allowed))})")
        try:
            out[name] = str(Version(value.strip()))
        except InvalidVersion as exc:
            raise UsageError(f"--set {key}={value}: {value!r} is not a version") from exc
    return out


def _same(a: Optional[str], b: Optional[str]) -> bool:
    return a is not None and b is not None and Version(a) == Version(b)


def plan_changes(current: Optional[PinSet], target: PinSet,
                 sets: Optional[dict[str, str]] = None) -> tuple[tuple[PinChange, ...], tuple[Flag, ...]]:
    """The Python pins a bump from ``current`` to ``target`` writes, and what to flag.

    Args:
        current: the pin set at the template's current version's tag, or None
            when that version has no tag upstream (a nightly).
        target: the pin set at the target tag.
        sets: ``--set NAME=VERSION`` values; names in any spelling (PEP 503),
            restricted to torch, torchao, ethos-u-vela and the TOSA requirements.

    Returns:
        ``(changes, flags)``.  ``changes`` are, in order: ``executorch``
        (new = ``target.executorch``), torch, torchao, ethos-u-vela (new = the
        target's value, with its source; always listed, even when equal to the
        old value, so that a stale template pin is corrected), then only the TOSA
        requirements whose exact pin differs between the two tags (a new one
        has ``old=None``).  A downgrade upstream asks for is still a change
        (pytorch/executorch PR #7160: ethos-u-vela 4.1.0 -> 4.0.0); the engine reports it.  A ``--set``
        value always wins, with source ``"--set"``.
        ``flags`` are produced here only (``target.flags`` are the caller's to
        merge): a blocking ``unresolved-pin`` per package the target cannot pin
        (package, tag and reason; no change); a blocking ``tosa-unknown`` when
        ``current`` is None (TOSA changes cannot be computed; the engine may
        drop it when the template pins no TOSA package); a non-blocking
        ``removed-pin`` for a TOSA requirement upstream dropped; a
        non-blocking ``set-override`` when ``--set`` replaces a resolved value.

    Raises:
        UsageError: a ``sets`` name the bump does not write, ``executorch``, or
            a value that is not a PEP 440 version.
    """
    tosa_names = [p.name for p in target.tosa] + [p.name for p in (current.tosa if current else ()) if target.get(p.name) is None]
    chosen = _normalise_sets(sets, set(MAIN_PACKAGES) | set(tosa_names))
    changes = [PinChange("executorch", current.executorch if current else None, target.executorch,
                         f"release tag {target.tag}")]
    flags: list[Flag] = []

    def old_of(name: str) -> Optional[str]:
        p = current.get(name) if current else None
        return p.version if p else None

    def from_set(name: str, resolved: Optional[ResolvedPin]) -> None:
        changes.append(PinChange(name, old_of(name), chosen[name], "--set"))
        if resolved is not None and resolved.resolved and not _same(resolved.version, chosen[name]):
            flags.append(Flag("set-override", f"{name}: --set {chosen[name]} replaces {resolved.version} "
                                              f"from {resolved.source}", blocking=False))

    def unresolved(name: str, pin: Optional[ResolvedPin]) -> None:
        why = pin.reason if pin is not None and pin.reason else "no source names it"
        flags.append(Flag("unresolved-pin", f"{name}: cannot resolve the pin at {target.tag}: {why}; "
                                            f"pass --set {name}=VERSION", blocking=True))

    for name in MAIN_PACKAGES:
        pin = target.get(name)
        if name in chosen:
            from_set(name, pin)
        elif pin is not None and pin.resolved:
            changes.append(PinChange(name, old_of(name), pin.version, pin.source or target.tag))
        else:
            unresolved(name, pin)

    if current is None:
        for name in tosa_names:
            if name in chosen:
                from_set(name, target.get(name))
        if target.tosa:
            flags.append(Flag("tosa-unknown", f"the template's ExecuTorch version has no tag upstream, so the TOSA "
                                              f"pins that changed up to {target.tag} cannot be computed "
                                              f"({TOSA_REQUIREMENTS}); check them or pass --set NAME=VERSION",
                              path=TOSA_REQUIREMENTS, blocking=True))
        return tuple(changes), tuple(flags)

    for name in tosa_names:
        new, old = target.get(name), current.get(name)
        if name in chosen:
            from_set(name, new)
        elif new is None:
            flags.append(Flag("removed-pin", f"{name}: {TOSA_REQUIREMENTS} no longer names it at {target.tag} "
                                             f"(it was {old.version or old.spec} at {current.tag}); left alone",
                              path=TOSA_REQUIREMENTS, blocking=False))
        elif new.resolved:
            if old is None or not _same(old.version, new.version):
                changes.append(PinChange(name, old.version if old else None, new.version, new.source or target.tag))
        elif old is None or old.resolved or old.spec != new.spec:
            unresolved(name, new)
    return tuple(changes), tuple(flags)
