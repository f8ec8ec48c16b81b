"""The upgrade engine: scan a template, resolve the bump, plan every edit, validate, apply.

``plan()`` is a pure computation over the checkout and an
:class:`~bot.upstream.source.UpstreamSource`: it writes nothing.  ``apply()``
writes the planned contents all-or-nothing.  ``audit()`` reports whether the
template's ExecuTorch pins agree and which prose mentions another version.

Where the facts come from: FORMATS.md section 1 (which template files pin
what) and section 2 (which upstream file pins what at a tag), through the
managers in :mod:`bot.template` and the datasources in :mod:`bot.upstream`.
"""

from __future__ import annotations

import os

import bisect
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional

from packaging.version import InvalidVersion, Version

from bot.errors import TemplateError, UsageError
from bot.model import Bump, Edit, Finding, Flag, PinSet, norm
from bot.plan import PinRow, Plan
from bot.template import scan as scanmod
from bot.template.interface import Manager
from bot.template.locks import CBUILD_SETUP, lock_missing_pack_flags, python_lock_flags
from bot.textfile import TextDocument, write_all
from bot.textreport import plural
from bot.upstream.source import UpstreamSource
from bot.versions import to_semver, version_to_tag

PACK = "PyTorch::ExecuTorch"
#: Finding kinds that pin the ExecuTorch version (prose only mentions it).
PIN_KINDS = ("pack-pin", "lock", "requirement", "unmanaged-requirement")
#: Finding kinds of Python requirements: rewritten ones, and constraints the bot only reads
#: (``unmanaged-requirement``: a pyproject.toml Poetry/uv/build constraint, see bot.template.pyproject).
REQUIREMENT_KINDS = ("requirement", "unmanaged-requirement")

Progress = Callable[[str], None]


@dataclass
class Loaded:
    """A template file read for planning: its document and the managers that handle it."""

    doc: TextDocument
    managers: list[Manager]


@dataclass
class Template:
    """What a scan of the checkout found: loaded files, every finding, and scan flags.

    ``exclude`` are the globs in force; ``others`` the text-file candidates no
    manager handles (searched for leftovers after planning).
    """

    repo: Path
    files: list[Loaded] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    flags: list[Flag] = field(default_factory=list)
    exclude: tuple[str, ...] = ()
    others: list[str] = field(default_factory=list)
    #: folders never scanned (scan.SKIP_DIRS and friends) that exist in this template
    skipped_dirs: list[str] = field(default_factory=list)
    #: Python lock files (uv.lock, poetry.lock ...), never rewritten (bot.template.locks)
    python_locks: list[str] = field(default_factory=list)

    def executorch_pins(self, unmanaged: bool = True) -> list[Finding]:
        """Exact ExecuTorch pins: pack entries, the lock file, and ``executorch==`` requirements.

        ``unmanaged=False`` leaves out the pins the bot flags but cannot edit (a
        pyproject.toml Poetry/uv constraint): ``update`` does not let them decide the
        current version, so one edited by hand before the bump does not stop it.
        """
        kinds = REQUIREMENT_KINDS if unmanaged else ("requirement",)
        out = []
        for f in self.findings:
            if f.kind in ("pack-pin", "lock") and f.name == PACK and f.version and f.exact:
                out.append(f)
            elif f.kind in kinds and norm(f.name) == "executorch" and f.version and f.exact:
                out.append(f)
        return out


#: The optional config file of the template (owned by :mod:`bot.config`); the engine reads its ``exclude`` key.
CONFIG_PATH = ".github/executorch-pack-bot.yml"


def config_excludes(repo: Path) -> tuple[str, ...]:
    """The ``exclude:`` globs of ``REPO/.github/executorch-pack-bot.yml`` (or ``.yaml``; absent file or key: ``()``).

    Read with PyYAML here (the other keys are :mod:`bot.config`'s to
    validate).  Raises :class:`UsageError` naming the file and line when the
    file is not UTF-8 YAML, or when ``exclude`` is not a list of non-empty strings.
    """
    import yaml

    for rel in (CONFIG_PATH, CONFIG_PATH[:-4] + ".yaml"):  # bot.config accepts either spelling
        path = Path(repo) / rel
        if path.is_file() and not path.is_symlink():
            break
    else:
        return ()
    try:
        text = path.read_bytes().decode("utf-8-sig")
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except OSError as exc:
        raise UsageError(f"cannot read: {exc.strerror}", path=rel) from None
    except UnicodeDecodeError:
        raise UsageError("not UTF-8 text", path=rel) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        raise UsageError(f"invalid YAML: {getattr(exc, 'problem', None) or exc}", path=rel,
                         line=mark.line + 1 if mark else None) from None
    if not isinstance(node, yaml.MappingNode):
        return ()
    for key, value in node.value:
        if not (isinstance(key, yaml.ScalarNode) and key.value == "exclude"):
            continue
        line = value.start_mark.line + 1
        if not isinstance(value, yaml.SequenceNode):
            raise UsageError("exclude: expected a list of path globs, e.g. [docs/old/*, vendor-docs]",
                             path=rel, line=line)
        out = []
        for item in value.value:
            if not (isinstance(item, yaml.ScalarNode) and item.tag == "tag:yaml.org,2002:str" and item.value.strip()):
                raise UsageError("exclude: every item must be a non-empty string (a path glob)",
                                 path=rel, line=item.start_mark.line + 1)
            problem = scanmod.exclude_problem(item.value)
            if problem:
                raise UsageError(f"exclude: {item.value!r} {problem}", path=rel, line=item.start_mark.line + 1)
            out.append(item.value)
        return tuple(out)
    return ()


def _exclude_way_out(rel: str) -> str:
    """The second way out of an unreadable file: leaving it out of the run."""
    return f", or leave it out with --exclude {rel} (or an exclude: entry in {CONFIG_PATH})"


#: C/C++ sources and headers: searched for ``#define ET_..._VERSION "X"`` leftovers even without the word ExecuTorch.
_C_SUFFIXES = (".c", ".cc", ".cpp", ".cxx", ".h", ".hh", ".hpp", ".hxx")


def read_template(repo: Path, progress: Optional[Progress] = None, exclude: tuple[str, ...] = ()) -> Template:
    """Scan ``repo`` and extract every finding.

    ``exclude`` globs (``--exclude``) and the config file's ``exclude:`` list
    name paths that are not read at all (:func:`bot.template.scan.excluded`).

    Raises :class:`UsageError` when ``repo`` is not a directory and
    :class:`TemplateError` (file and line) for a file that cannot be decoded
    or parsed.  A file that is not UTF-8 text (another encoding, UTF-16, NUL
    bytes) is skipped only when it can hold neither a pin (no pin manager
    handles it) nor an ExecuTorch mention (no ``executorch`` in it, any case);
    otherwise it is refused, never silently left behind.
    """
    repo = Path(repo)
    if not repo.is_dir():
        raise UsageError(f"--repo {repo}: not a directory")
    for glob in exclude:
        problem = scanmod.exclude_problem(glob)
        if problem:
            raise UsageError(f"--exclude {glob!r} {problem}")
    globs = scanmod.normalise_excludes(tuple(exclude) + config_excludes(repo))
    sc = scanmod.discover(repo, exclude=globs)
    tpl = Template(repo=repo, flags=list(sc.flags), exclude=globs, others=list(sc.others),
                   skipped_dirs=list(sc.skipped_dirs), python_locks=list(sc.python_locks))
    if progress:
        progress(f"scanned {plural(len(sc.files), 'candidate file')} ({plural(sc.skipped, 'other file')} skipped"
                 + (f", {plural(len(sc.skipped_dirs), 'folder')} not scanned: "
                    + ", ".join(d + "/" for d in sc.skipped_dirs[:5])
                    + (", ..." if len(sc.skipped_dirs) > 5 else "") if sc.skipped_dirs else "")
                 + (f", {plural(sc.excluded, 'path')} excluded" if sc.excluded else "") + ")")
    root = os.fspath(repo)
    for rel, mgrs in sc.files:
        try:
            # plain os.path and open(): pathlib's per-call overhead shows on thousands of files
            with open(os.path.join(root, rel), "rb") as fh:
                raw = fh.read()
        except OSError as exc:
            raise TemplateError(f"cannot read: {exc.strerror}", path=rel) from None
        if all(m.name == "prose" for m in mgrs) and not scanmod.mentions_executorch(raw):
            if rel.endswith(_C_SUFFIXES) and b"define" in raw and b"version" in raw.lower():
                tpl.others.append(rel)  # no mention, but a #define ET_VERSION "X" leftover form is possible
            continue  # prose without the word ExecuTorch holds no mention
        bad = scanmod.unreadable_text(raw)
        if bad is not None:
            # Binary or wide text: skipped, unless it holds pins (a pin manager's file) or
            # names ExecuTorch: leaving those behind would be a silent, partial bump.
            if any(m.name in scanmod.PIN_MANAGERS for m in mgrs) or scanmod.mentions_executorch(raw):
                raise TemplateError(bad[0] + _exclude_way_out(rel), path=rel, line=bad[1])
            continue
        try:
            doc = TextDocument.from_bytes(rel, raw)
        except TemplateError as exc:
            if b"executorch" not in raw.lower() and not any(m.name in scanmod.PIN_MANAGERS for m in mgrs):
                continue
            raise TemplateError(exc.message + _exclude_way_out(rel), path=exc.path, line=exc.line) from None
        tpl.files.append(Loaded(doc, mgrs))
        for m in mgrs:
            tpl.findings.extend(m.extract(doc))
    tpl.flags.extend(Flag("pack-id-case", f"{f.text.strip()!r}: the pack ID is {PACK} (CMSIS compares it "
                          "with its letter case); the bot does not rewrite this entry: correct it by hand",
                          path=f.path, line=f.line, blocking=True)
                     for f in tpl.findings if f.kind == "pack-id-case")
    paths = [loaded.doc.path for loaded in tpl.files]
    tpl.flags.extend(lock_missing_pack_flags(
        tpl.findings, [p for p in paths if p.endswith((".cbuild-pack.yml", ".cbuild-pack.yaml"))],
        [p for p in paths if p.endswith((".csolution.yml", ".csolution.yaml"))]))
    return tpl


@dataclass(frozen=True)
class PinGroup:
    """The exact ExecuTorch pins that name one version.

    ``key`` is the PEP 440 :class:`Version` (pack ``1.0.0-rc1`` and
    ``executorch==1.0.0rc1`` are one group; a requirement's local label is
    not part of it: ``executorch==1.4.0+cpu`` is release 1.4.0, as PEP 440's
    ``==1.4.0`` says) or, for a pin that is not a
    version, its text (two different non-versions never share a group);
    ``version`` is the text of the group's first pin; ``pins`` in file order.
    """

    key: object
    version: str
    pins: tuple[Finding, ...]


def group_pins(pins: list[Finding]) -> list[PinGroup]:
    """Group exact ExecuTorch pins by version, the most pinned version first (ties: first seen first)."""
    order: dict[object, list[Finding]] = {}
    for f in pins:
        try:
            key: object = Version(f.version)
            if f.kind in REQUIREMENT_KINDS and key.local:
                key = Version(key.public)
        except InvalidVersion:
            key = f.version
        order.setdefault(key, []).append(f)
    for key in list(order):
        # A nightly requirement (``executorch==1.4.0.dev20260728``) next to a pack pin 1.4.0
        # (FORMATS.md section 1, "wild variants") agrees with the pack: it joins its group.
        if isinstance(key, Version) and key.is_devrelease and all(f.kind in REQUIREMENT_KINDS for f in order[key]):
            base = Version(key.base_version)
            if base in order and any(f.kind in ("pack-pin", "lock") for f in order[base]):
                order[base].extend(order.pop(key))
    groups = [PinGroup(k, v[0].version, tuple(v)) for k, v in order.items()]
    return sorted(groups, key=lambda g: -len(g.pins))  # stable: ties keep file order


def nightly_pins(groups: list[PinGroup]) -> list[Finding]:
    """The nightly requirements (``.devN``) that :func:`group_pins` counted with their pack's version."""
    return [f for g in groups if isinstance(g.key, Version) for f in g.pins
            if f.kind in REQUIREMENT_KINDS and _is_dev(f.version) and Version(f.version) != g.key]


def _is_dev(text: Optional[str]) -> bool:
    try:
        return Version(text).is_devrelease
    except (InvalidVersion, TypeError):
        return False


def nightly_flags(groups: list[PinGroup]) -> list[Flag]:
    """A non-blocking ``nightly-pin`` flag for each nightly requirement of the pack's version."""
    return [Flag("nightly-pin", f"executorch=={f.version} is a nightly of {Version(f.version).base_version}, "
                 "the pack's version: counted as that version", path=f.path, line=f.line, blocking=False)
            for f in nightly_pins(groups)]


#: Locations listed per minority group before "and N more".
_MAX_LOCATIONS = 5


def describe_groups(groups: list[PinGroup]) -> str:
    """``"1.4.0: 10 pins; 1.3.0: 1 pin (requirements.txt:4)"``: the majority first, the odd ones located.

    The majority group is counted only; every other group names up to five
    locations.  The result starts with ``" "`` (one line), or, when one
    line would be long, with a line break and each group on its own indented
    line: it reads well after a colon either way.
    """
    parts = []
    for i, g in enumerate(groups):
        n = len(g.pins)
        part = f"{g.version}: {n} pin{'s' if n != 1 else ''}"
        if i > 0:
            locs = ", ".join(f"{f.path}:{f.line}" for f in g.pins[:_MAX_LOCATIONS])
            if n > _MAX_LOCATIONS:
                locs += f", and {n - _MAX_LOCATIONS} more"
            part += f" ({locs})"
        parts.append(part)
    text = "; ".join(parts)
    return " " + text if len(text) <= 150 else "\n  " + "\n  ".join(parts)


def current_version(tpl: Template) -> Version:
    """The ExecuTorch version the template pins now.

    Every exact pin (csolution, cprojects, versioned clayers, the cbuild-pack
    lock, ``executorch==`` requirements) must agree; a nightly requirement
    ``executorch==X.devN`` agrees with pack pins ``X`` (the version is the
    pack's), and without pack pins counts as ``X`` too; a local label
    (``+cpu``) is ignored.  Raises
    :class:`TemplateError` when there is none, when a pin is not a version,
    or when they disagree: the message groups the pins by version with
    counts, the majority first, and its location is the first pin of the
    largest minority group (the odd one out).
    """
    pins = tpl.executorch_pins(unmanaged=False)
    if not pins:
        raise TemplateError(f"no exact {PACK} pack pin or executorch== requirement found in "
                            f"{tpl.repo}; nothing to bump", path=str(tpl.repo))
    groups = group_pins(pins)
    for g in groups:
        if not isinstance(g.key, Version):
            f = g.pins[0]
            raise TemplateError(f"{f.text or f.version!r} is not a version", path=f.path, line=f.line)
    if len(groups) > 1:
        odd = groups[1].pins[0]
        minority = [f for g in groups[1:] for f in g.pins]
        if all(f.kind == "lock" for f in minority):
            way_out = (f"  the lock file is stale: regenerate it ({CBUILD_SETUP}) and commit it, then bump")
        else:
            way_out = ("  make them equal (see `executorch-pack-bot audit`), then bump; a copy the bot should not\n"
                       "  read is left out with --exclude GLOB")
            if any(f.kind == "lock" for f in minority):
                way_out += f"; a stale lock file is regenerated with {CBUILD_SETUP}"
        raise TemplateError(f"the template's ExecuTorch pins disagree:{describe_groups(groups)}\n{way_out}",
                            path=odd.path, line=odd.line)
    key, first = groups[0].key, groups[0].pins[0]
    if key.is_devrelease and all(f.kind in REQUIREMENT_KINDS for f in groups[0].pins):
        # Only nightly requirements (no pack pin): a nightly counts as its release, as beside a pack.
        key = Version(key.base_version)
    try:
        to_semver(key)
    except UsageError:
        raise TemplateError(f"{first.text or first.version!r}: ExecuTorch {key} has no pack version (a "
                            "post-release or an epoch); pin a release X.Y.Z before bumping",
                            path=first.path, line=first.line) from None
    return key


def _template_values(tpl: Template, name: str) -> list[str]:
    """Distinct exact versions the template's requirement files pin for a package, in file order."""
    out: list[str] = []
    for f in tpl.findings:
        if f.kind in REQUIREMENT_KINDS and norm(f.name) == norm(name) and f.exact and f.version:
            if f.version not in out:
                out.append(f.version)
    return out


def plan(repo: Path, source: UpstreamSource, *, to: Optional[str] = None,
         sets: Optional[dict[str, str]] = None, allow_prerelease: bool = False,
         progress: Optional[Progress] = None, exclude: tuple[str, ...] = ()) -> Plan:
    """Compute the bump of the template at ``repo`` to ``to`` (default: newest stable release).

    Args:
        repo: the template checkout.
        source: where upstream tags and files come from.
        to: target version (``"1.5.1"``, ``"v1.5.1"``, ``"1.5.1-rc1"``) or None.
        sets: ``{package: version}`` supplied by the user for pins upstream
            does not resolve (``--set``).
        allow_prerelease: accept an rc ``to``.
        progress: called with one-line progress messages.
        exclude: ``--exclude`` globs of paths never read (added to the config file's ``exclude:``).

    Returns a :class:`~bot.plan.Plan` (nothing written).  Raises
    :class:`~bot.errors.BotError` subclasses (exit 2) for bad input: an
    unreadable or unparsable template file, disagreeing pins, an unknown or
    refused target, an upstream without the pin files, a file that cannot be
    rewritten safely.
    """
    from bot.upstream.pins import plan_changes, resolve_pinset
    from bot.upstream.releases import select_target

    tpl = read_template(repo, progress, exclude)
    current = current_version(tpl)
    target_tag = select_target(source, to=to, current=str(current), allow_prerelease=allow_prerelease)
    if progress:
        progress(f"template pins ExecuTorch {current}; target tag {target_tag} ({source.describe()})")
    current_tag = version_to_tag(current)
    upstream_tags = set(source.tags())
    flags: list[Flag] = list(tpl.flags)
    if target_tag == current_tag and target_tag not in upstream_tags:
        # The template is ahead of every stable release upstream (a nightly or a
        # local build): there is nothing newer to move to.
        return Plan(repo=Path(repo), bump=None, findings=tpl.findings, flags=sort_flags(_dedupe(flags + [Flag(
            "ahead-of-upstream", f"the template pins ExecuTorch {current}, which has no tag at "
            f"{source.describe()} and is newer than its newest stable release; nothing to do",
            blocking=False)])))
    target = resolve_pinset(source, target_tag)
    current_set: Optional[PinSet] = None
    if current_tag in upstream_tags:
        current_set = resolve_pinset(source, current_tag)
    changes, change_flags = plan_changes(current_set, target, sets)
    flags.extend(target.flags)
    tosa_names = {p.name for p in target.tosa}
    pins_tosa = any(f.kind in REQUIREMENT_KINDS and norm(f.name) in tosa_names for f in tpl.findings)
    # Without the current tag the TOSA diff is unknown; that only matters when the template pins TOSA packages.
    flags.extend(f for f in change_flags if f.code != "tosa-unknown" or pins_tosa)
    bump = Bump(
        old_executorch=str(current), new_executorch=target.executorch,
        old_pack=to_semver(current), new_pack=target.pack,
        old_tag=current_tag, new_tag=target_tag, changes=tuple(changes))
    result = Plan(repo=Path(repo), bump=bump)
    # Even when the template already is on the target, the managers run: a
    # Python pin left behind (a hand-made partial bump) is still moved.
    edits_by_file: dict[str, list[Edit]] = {}
    for loaded in tpl.files:
        for m in loaded.managers:
            res = m.update(loaded.doc, bump)
            flags.extend(res.flags)
            if res.edits:
                edits_by_file.setdefault(loaded.doc.path, []).extend(res.edits)

    for loaded in tpl.files:
        edits = _merge(edits_by_file.get(loaded.doc.path, []))
        if not edits:
            continue
        new_bytes = loaded.doc.apply(edits)
        if new_bytes == loaded.doc.raw:
            continue
        after = TextDocument.from_bytes(loaded.doc.path, new_bytes)
        for m in loaded.managers:
            m.check(loaded.doc, after, edits)
        result.contents[loaded.doc.path] = new_bytes
        result.originals[loaded.doc.path] = loaded.doc.raw
        result.edits.extend(edits)

    if bump.old_executorch != bump.new_executorch:
        flags.extend(python_lock_flags(tpl.repo, tpl.python_locks))
    flags.extend(_downgrades(tpl, bump))
    flags.extend(_companions(tpl, bump))
    flags.extend(leftovers(tpl, bump, result.edits, flags))
    flags.extend(_python_range(current_set, target))
    flags.extend(python_flags(tpl, target))
    result.rows = _rows(tpl, bump)
    result.flags = sort_flags(_dedupe(flags))
    result.findings = tpl.findings
    return result


def _leftover_pattern(olds: tuple[str, ...]) -> "re.Pattern[str]":
    """The strong forms of the old ExecuTorch version (DESIGN.md "leftovers"), version in group ``v``."""
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

    def search(path: str, text: str, line_of) -> None:
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
    for rel in tpl.others:
        try:
            raw = (Path(tpl.repo) / rel).read_bytes()
        except OSError:
            continue
        if not any(n in raw for n in needles) or b"\0" in raw[:8192]:
            continue
        try:
            text = raw.decode("utf-8-sig")
        except UnicodeDecodeError:
            text = raw.decode("latin-1")
        search(rel, text, TextDocument(rel, text).line_of)
    return out


def _merge(edits: list[Edit]) -> list[Edit]:
    """Sort edits and drop exact duplicates (two managers proposing the same replacement)."""
    seen = set()
    out = []
    for e in sorted(edits, key=lambda e: (e.start, e.end, e.new)):
        key = (e.start, e.end, e.new)
        if key in seen:
            continue
        seen.add(key)
        out.append(e)
    return out


def _rows(tpl: Template, bump: Bump) -> list[PinRow]:
    """The pin table: the pack first, then every Python pin the bump writes."""
    rows = [PinRow(PACK, bump.old_pack, bump.new_pack, f"release tag {bump.new_tag}")]
    for c in bump.changes:
        have = _template_values(tpl, c.name)
        old = ", ".join(have) if have else None
        rows.append(PinRow(c.name, old, c.new, c.source))
    return rows


def _downgrades(tpl: Template, bump: Bump) -> list[Flag]:
    """Informational flags for pins that go down because upstream pins an older version (CASES.md C19)."""
    out = []
    for c in bump.changes:
        for have in _template_values(tpl, c.name):
            try:
                if Version(c.new) < Version(have):
                    out.append(Flag("downgrade",
                                    f"{c.name} goes DOWN from {have} to {c.new}: upstream pins {c.new} "
                                    f"at {bump.new_tag} ({c.source})", blocking=False))
            except InvalidVersion:
                continue
    return out


#: Packages built against one torch release: their pins must follow torch, but the bot cannot know how.
COMPANIONS = ("torchvision", "torchaudio")


def _companions(tpl: Template, bump: Bump) -> list[Flag]:
    """Non-blocking ``companion-pin`` flags for exact torchvision/torchaudio pins when torch changes.

    Their versions are tied to a torch release, which upstream ExecuTorch does
    not pin (FORMATS.md section 1, "torchvision/torchaudio pins" in the wild):
    the bot never computes or guesses one, it says which pin to check.
    """
    torch = bump.change_for("torch")
    if torch is None:
        return []
    moved = (torch.old is not None and not _same_version(torch.old, torch.new)) \
        or any(not _same_version(v, torch.new) for v in _template_values(tpl, "torch"))
    if not moved:
        return []
    return [Flag("companion-pin", f"{f.name}=={f.version} stays at its version: check it against torch "
                 f"{torch.new} (the bot does not choose companion versions)", path=f.path, line=f.line,
                 blocking=False)
            for f in tpl.findings
            if f.kind in REQUIREMENT_KINDS and f.exact and f.version and norm(f.name) in COMPANIONS]


def _same_version(a: str, b: str) -> bool:
    try:
        return Version(a) == Version(b)
    except InvalidVersion:
        return a == b


def _python_range(current: Optional[PinSet], target: PinSet) -> list[Flag]:
    """Report a changed upstream ``requires-python`` (the template's venv may need another Python)."""
    if current is None or not target.requires_python:
        return []
    if current.requires_python != target.requires_python:
        return [Flag("requires-python",
                     f"executorch {target.executorch} declares requires-python "
                     f"{target.requires_python!r} (was {current.requires_python!r} at {current.tag}); "
                     "check the template's Python version", blocking=False)]
    return []


_PY_VERSION_KEY = re.compile(r"(?m)^[ \t-]*python-version[ \t]*:[ \t]*(?P<value>[^#\r\n]*)")
_PY_VERSION = re.compile(r"^\d+\.\d+(?:\.\d+)?$")


def stated_pythons(tpl: Template) -> list[tuple[str, int, str]]:
    """Every Python version or range the template states: ``[(path, line, text)]``.

    Sources: a ``.python-version`` file at the repository root (one version a
    line, pyenv's format), ``python-version:`` values in
    ``.github/workflows/*.yml`` (a scalar or a flow list; expressions such as
    ``${{ matrix.python }}`` and ``3.x`` are skipped), and ``requires-python``
    of the template's own ``pyproject.toml`` (a range).
    """
    from bot.template.prose import is_workflow

    out: list[tuple[str, int, str]] = []
    pv = Path(tpl.repo) / ".python-version"
    if not scanmod.excluded(".python-version", tpl.exclude) and pv.is_file() and not pv.is_symlink():
        try:
            for no, line in enumerate(pv.read_text(encoding="utf-8-sig").splitlines(), 1):
                value = line.split("#", 1)[0].strip()
                if _PY_VERSION.match(value):
                    out.append((".python-version", no, value))
        except (OSError, UnicodeDecodeError):
            pass
    for loaded in tpl.files:
        doc = loaded.doc
        if is_workflow(doc.path) and "python-version" in doc.text:
            out.extend((doc.path, line, value) for line, value in workflow_pythons(doc))
        elif doc.path.rsplit("/", 1)[-1] == "pyproject.toml" and "requires-python" in doc.text:
            from bot.template.pyproject import key_position, load as load_toml
            project = load_toml(doc).get("project")
            spec = project.get("requires-python") if isinstance(project, dict) else None
            if isinstance(spec, str):
                at = key_position(doc.text, ["project"], "requires-python")
                out.append((doc.path, doc.line_of(at if at is not None else doc.text.find("requires-python")), spec))
    return out


_MATRIX_REF = re.compile(r"^\$\{\{\s*matrix\.([\w-]+)\s*\}\}$")


def workflow_pythons(doc: TextDocument) -> list[tuple[int, str]]:
    """``[(line, version)]`` for every Python version a GitHub Actions workflow states.

    ``python-version:`` values anywhere (``actions/setup-python``'s input, a
    matrix key): a scalar, a multi-line block scalar (one version a line, as
    setup-python reads it) or a list; ``${{ matrix.NAME }}`` is resolved to
    the values of matrix key ``NAME`` (its list and ``include:`` entries).
    Values that are not ``X.Y[.Z]`` (``3.x``, ``pypy3.10``, other
    expressions) are skipped.  Invalid YAML falls back to a line scan of
    ``python-version:`` values.
    """
    import yaml

    from bot.yamlnodes import mappings

    try:
        root = yaml.compose(doc.text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except yaml.YAMLError:
        root = None
    if root is None:
        out = []
        for m in _PY_VERSION_KEY.finditer(doc.text):
            for item in m.group("value").strip().strip("[]").split(","):
                value = item.strip().strip("'\"")
                if _PY_VERSION.match(value):
                    out.append((doc.line_of(m.start("value")), value))
        return out

    def scalars(node) -> list:
        if isinstance(node, yaml.ScalarNode):
            return [node]
        if isinstance(node, yaml.SequenceNode):
            return [x for x in node.value if isinstance(x, yaml.ScalarNode)]
        return []

    matrix: dict[str, list] = {}
    for m in mappings(root):
        for k, v in m.value:
            if isinstance(k, yaml.ScalarNode) and k.value == "matrix" and isinstance(v, yaml.MappingNode):
                for mk, mv in v.value:
                    if not isinstance(mk, yaml.ScalarNode):
                        continue
                    if mk.value in ("include", "exclude"):
                        if mk.value == "include" and isinstance(mv, yaml.SequenceNode):
                            for entry in mv.value:
                                if isinstance(entry, yaml.MappingNode):
                                    for ik, iv in entry.value:
                                        if isinstance(ik, yaml.ScalarNode):
                                            matrix.setdefault(ik.value, []).extend(scalars(iv))
                        continue
                    matrix.setdefault(mk.value, []).extend(scalars(mv))
    found: list[tuple[int, str]] = []
    for m in mappings(root):
        for k, v in m.value:
            if not (isinstance(k, yaml.ScalarNode) and k.value == "python-version"):
                continue
            nodes = scalars(v)
            if len(nodes) == 1 and nodes[0] is v:
                ref = _MATRIX_REF.match(v.value.strip())
                if ref:
                    nodes = matrix.get(ref.group(1), [])
            for node in nodes:
                first = doc.line_of(node.start_mark.index)
                if node.style in ("|", ">"):
                    first += 1  # the content starts on the line after the indicator
                for i, part in enumerate(node.value.split("\n")):
                    value = part.strip()
                    if _PY_VERSION.match(value):
                        found.append((first + i if "\n" in node.value else first, value))
    return sorted(set(found))


def python_flags(tpl: Template, target: PinSet) -> list[Flag]:
    """Non-blocking ``requires-python`` flags for each Python the template states outside the target's range.

    The target's ``requires-python`` (upstream ``pyproject.toml`` at the target
    tag, FORMATS.md section 2) is a :class:`~packaging.specifiers.SpecifierSet`;
    a stated version is checked directly, a stated range by the Python minor
    versions it admits (3.0 up to one past the newest the target admits).
    """
    from packaging.specifiers import InvalidSpecifier, SpecifierSet

    from bot.template.pep508 import specifier_empty_operator

    if not target.requires_python or specifier_empty_operator(target.requires_python):
        return []
    try:
        allowed = SpecifierSet(target.requires_python)
    except InvalidSpecifier:
        return []
    minors = [Version(f"3.{n}") for n in range(0, 40)]
    top = max((v.minor for v in minors if allowed.contains(v, prereleases=True)), default=39)
    out = []
    for path, line, text in stated_pythons(tpl):
        if _PY_VERSION.match(text):
            if allowed.contains(Version(text), prereleases=True):
                continue
            why = f"Python {text}"
        else:
            if specifier_empty_operator(text):
                continue  # "===" alone: refused whatever packaging accepts (bot.template.pep508)
            try:
                spec = SpecifierSet(text)
            except InvalidSpecifier:
                continue
            outside = [f"3.{v.minor}" for v in minors[:top + 2] if spec.contains(v, prereleases=True)
                       and not allowed.contains(v, prereleases=True)]
            if not outside:
                continue
            out.append(Flag("requires-python", f"requires-python {text!r} admits Python {', '.join(outside)}, "
                            f"which executorch {target.executorch} does not support (its requires-python is "
                            f"{target.requires_python!r})", path=path, line=line, blocking=False))
            continue
        out.append(Flag("requires-python", f"{why} is outside executorch {target.executorch}'s requires-python "
                        f"{target.requires_python!r}", path=path, line=line, blocking=False))
    return out


def sort_flags(flags: list[Flag]) -> list[Flag]:
    """Flags in report order: those without a path first (as raised), then by (path, line)."""
    return sorted(flags, key=lambda f: (f.path is not None, f.path or "", f.line or 0))


def _dedupe(flags: list[Flag]) -> list[Flag]:
    seen = set()
    out = []
    for f in flags:
        if f in seen:
            continue
        seen.add(f)
        out.append(f)
    return out


def apply(plan: Plan) -> None:
    """Write ``plan.contents`` all-or-nothing.

    Raises :class:`TemplateError` when a file changed on disk since the plan
    was made, or when a file cannot be replaced (read-only, a link): in every
    case nothing is written.
    """
    for path, original in plan.originals.items():
        try:
            now = (Path(plan.repo) / path).read_bytes()
        except OSError as exc:
            raise TemplateError(f"cannot read: {exc.strerror}", path=path) from None
        if now != original:
            raise TemplateError("changed on disk since the plan was made; run again", path=path)
    write_all(Path(plan.repo), plan.contents)


@dataclass
class Audit:
    """The consistency audit of a template.

    Attributes:
        pins: every exact ExecuTorch pin found (pack entries, lock, requirements).
        versions: the distinct versions among them, as written, the most pinned first.
        agree: True when all pins name the same version (and there is at least one).
        stale_mentions: prose findings naming an ExecuTorch version other than the pinned one.
        flags: range pins and similar items; a blocking one fails the audit.
        groups: the pins grouped by version, the most pinned first.
    """

    pins: list[Finding]
    versions: list[str]
    agree: bool
    stale_mentions: list[Finding]
    flags: list[Flag]
    groups: list[PinGroup] = field(default_factory=list)
    #: folders of the template that were never scanned (``vendor``, ``build`` ...), POSIX paths
    not_scanned: list[str] = field(default_factory=list)

    def disagreement(self) -> str:
        """The pins grouped by version (:func:`describe_groups`), for the FAIL line."""
        return describe_groups(self.groups)

    @property
    def blocking_flags(self) -> list[Flag]:
        """The flagged items that fail the audit (a range pin, a pin file linked out of the repository)."""
        return [f for f in self.flags if f.blocking]

    @property
    def ok(self) -> bool:
        """True when the pins agree and no blocking item is flagged (``audit`` exits 0)."""
        return self.agree and not self.blocking_flags

    def to_json(self) -> dict:
        def f(x: Finding) -> dict:
            return {"path": x.path, "line": x.line, "kind": x.kind, "name": x.name,
                    "version": x.version, "text": x.text}
        return {"ok": self.ok, "agree": self.agree, "versions": self.versions,
                "pins": [f(p) for p in self.pins],
                "stale_mentions": [f(p) for p in self.stale_mentions],
                "flags": [x.to_json() for x in self.flags],
                "not_scanned": self.not_scanned}


def audit(repo: Path, exclude: tuple[str, ...] = ()) -> Audit:
    """Check that every ExecuTorch pin of the template agrees; list prose naming another version.

    Versions are compared as PEP 440 versions (pack ``1.0.0-rc1`` equals
    ``executorch==1.0.0rc1``).  ``exclude``: as for :func:`plan`.  Raises the
    errors of :func:`read_template`.
    """
    tpl = read_template(repo, exclude=exclude)
    pins = tpl.executorch_pins()
    groups = group_pins(pins)
    agree = len(groups) == 1 and isinstance(groups[0].key, Version)
    flags = list(tpl.flags) + nightly_flags(groups)
    for f in tpl.findings:
        if f.kind in PIN_KINDS and not f.exact and (f.name == PACK or norm(f.name) == "executorch"):
            if f.kind == "unmanaged-requirement":
                # A Poetry/uv/build constraint may be a range (the bot only reads it): it is an
                # item only when it does not admit the version the template pins (as in update).
                if agree and not _admits(f.version, groups[0].key):
                    flags.append(Flag("unmanaged-pin", f"{f.text or f.version} does not admit the pinned "
                                      f"ExecuTorch {groups[0].version}; edit it by hand",
                                      path=f.path, line=f.line))
                continue
            flags.append(Flag("range-pin", f"{f.text or f.version} is a range; the ExecuTorch pin must be exact",
                              path=f.path, line=f.line))
    stale: list[Finding] = []
    if agree:
        pinned = groups[0].key
        for f in tpl.findings:
            if f.kind != "prose" or not f.version:
                continue
            try:
                v = Version(f.version)
            except InvalidVersion:
                continue
            if len(v.release) == 2:  # "ExecuTorch 1.4", "release/1.4": compare major.minor
                if (v.major, v.minor) != (pinned.major, pinned.minor):
                    stale.append(f)
            elif v != pinned:
                stale.append(f)
    return Audit(pins=pins, versions=[g.version for g in groups], agree=agree, stale_mentions=stale,
                 flags=sort_flags(flags), groups=groups, not_scanned=list(tpl.skipped_dirs))


def _admits(spec: Optional[str], version: Version) -> bool:
    """True when the specifier text (``"<1.5,>=1.4"``) admits ``version``; an unreadable one admits nothing."""
    from packaging.specifiers import InvalidSpecifier, SpecifierSet
    try:
        return SpecifierSet(spec or "").contains(version, prereleases=True)
    except InvalidSpecifier:
        return False


def parse_sets(items: list[str]) -> dict[str, str]:
    """``["torchao=0.19.0"]`` -> ``{"torchao": "0.19.0"}`` (keys PEP 503 names).

    Raises :class:`UsageError` for an item that is not ``NAME=VERSION``, a value
    that is not a PEP 440 version, or one package given twice with different values.
    """
    out: dict[str, str] = {}
    for item in items or []:
        name, sep, version = item.partition("=")
        name, version = name.strip(), version.strip().lstrip("=")
        if not sep or not name or not version:
            raise UsageError(f"--set {item!r}: expected NAME=VERSION, e.g. --set torchao=0.19.0")
        try:
            Version(version)
        except InvalidVersion:
            raise UsageError(f"--set {item!r}: {version!r} is not a version") from None
        key = norm(name)
        if key in out and Version(out[key]) != Version(version):
            raise UsageError(f"--set {item!r}: {key} is given twice ({out[key]} and {version}); "
                             "give each package once")
        out[key] = version
    return out
