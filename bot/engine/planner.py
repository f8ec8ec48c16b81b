"""The orchestration of a bump: :func:`plan` reads the template, resolves the target, asks every
manager for edits, validates them in memory and runs the cross-file checks (:mod:`bot.engine.checks`).

It writes nothing; :func:`bot.engine.apply.apply` does.  Where the facts come
from: public CMSIS ExecuTorch templates such as Arm-Examples/CMSIS-Executorch (which template files pin what) and ExecuTorch's pin files at tags v1.0.0 to v1.4.1
(which upstream file pins what at a tag), through the managers in
:mod:`bot.template` and the datasources in :mod:`bot.upstream`.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Optional

from bot.engine.checks.companions import companions
from bot.engine.checks.downgrades import downgrades
from bot.engine.checks.leftovers import leftovers
from bot.engine.checks.python_range import python_flags, python_range_change
from bot.engine.current import current_pins, template_values
from bot.engine.flags import dedupe, sort_flags
from bot.engine.ignore import drop_ignored, ignore_entries
from bot.engine.mentions import account
from bot.engine.read import PACK, REQUIREMENT_KINDS, Progress, Template, read_template
from bot.errors import UpstreamError
from bot.model import Bump, Edit, Finding, Flag, PinSet, norm
from bot.plan import PinRow, Plan
from bot.template.locks import python_lock_flags
from bot.template.publicversion import same_release
from bot.textfile import TextDocument
from bot.upstream.source import UpstreamSource
from bot.versions import to_semver, version_to_tag


def plan(repo: Path, source: UpstreamSource, *, to: Optional[str] = None,
         sets: Optional[dict[str, str]] = None, allow_prerelease: bool = False,
         progress: Optional[Progress] = None, exclude: tuple[str, ...] = (), allow_downgrade: bool = False) -> Plan:
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
        allow_downgrade: accept a ``to`` older than the template's pin (``doctor``'s scratch copy only).

    Returns a :class:`~bot.plan.Plan` (nothing written).  Raises
    :class:`~bot.errors.BotError` subclasses (exit 2) for bad input: an
    unreadable or unparsable template file, disagreeing pins, an unknown or
    refused target, an upstream without the pin files, a file that cannot be
    rewritten safely.
    """
    from bot.upstream.pins import plan_changes, resolve_pinset
    from bot.upstream.releases import select_target

    tpl = read_template(repo, progress, exclude)
    current, label = current_pins(tpl)
    target_tag = select_target(source, to=to, current=str(current), allow_prerelease=allow_prerelease,
                               allow_downgrade=allow_downgrade)
    if progress:
        progress(f"template pins ExecuTorch {current}; target tag {target_tag} ({source.describe()})")
    current_tag = version_to_tag(current)
    upstream_tags = set(source.tags())
    flags: list[Flag] = list(tpl.flags)
    if target_tag == current_tag and target_tag not in upstream_tags:
        # The template is ahead of every stable release upstream (a nightly or a
        # local build): there is nothing newer to move to.
        return Plan(repo=Path(repo), bump=None, findings=tpl.findings, flags=sort_flags(dedupe(flags + [Flag(
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
    # A locally built pack (``@1.4.0-local``) keeps its label: ``@1.5.1-local`` (ExecuTorch's backends/arm/cmsis_pack/scripts/build_pack.sh at v1.4.1).
    old_pack, new_pack = to_semver(current), target.pack
    if label:
        old_pack, new_pack = f"{old_pack}-{label}", f"{new_pack}-{label}"
        flags.append(local_build_flag(new_pack, target_tag))
    old_commit, new_commit, commit_note = _tag_commits(tpl, source, current_tag, target_tag, upstream_tags)
    bump = Bump(
        old_executorch=str(current), new_executorch=target.executorch,
        old_pack=old_pack, new_pack=new_pack,
        old_tag=current_tag, new_tag=target_tag, changes=tuple(changes),
        old_commit=old_commit, new_commit=new_commit, commit_note=commit_note)
    bump = replace(bump, restated=tuple((norm(c.name), v) for c in changes
                                        for v in template_values(tpl, c.name) if not same_release(v, c.new)))
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
        flags.extend(python_lock_flags(tpl.repo, tpl.python_locks, bump,
                                       frozenset((e.path, e.line) for e in result.edits)))
    flags.extend(downgrades(tpl, bump))
    flags.extend(companions(tpl, bump))
    flags.extend(leftovers(tpl, bump, result.edits, flags))
    flags.extend(python_range_change(current_set, target))
    flags.extend(python_flags(tpl, target))
    result.rows = _rows(tpl, bump, _written_findings(tpl, result.contents))
    ignore = ignore_entries(tpl.repo)
    flags = drop_ignored(dedupe(flags), ignore)
    result.mentions = account(tpl, bump, result.edits, flags, ignore)
    result.flags = sort_flags(flags + result.mentions.flags)
    result.findings = tpl.findings
    return result


#: The build-pack command line of the reviewer item for a locally built pack (README: build-pack).
BUILD_PACK_COMMAND = ("executorch-pack-bot build-pack --executorch-root executorch --build-dir cmake-out-arm "
                      "--version {version} --output-dir packs")


def local_build_flag(new_pack: str, new_tag: str) -> Flag:
    """The one reviewer item of a bump of a locally built pack: the command that builds the new one.

    Non-blocking ``local-pack-build``: the template's pins, ``path:`` and lock
    file name ``new_pack`` (``1.5.1-local``), which exists only once it is
    built from the ExecuTorch sources at ``new_tag`` (the workflow's build job
    builds exactly that version).
    """
    return Flag("local-pack-build", f"{PACK} is a locally built pack: build {new_pack} from the ExecuTorch "
                f"{new_tag} sources (a checkout in a folder named executorch, with submodules) with `"
                + BUILD_PACK_COMMAND.format(version=new_pack)
                + "` and unpack it where the template's path: points", blocking=False)


def _tag_commits(tpl: Template, source: UpstreamSource, current_tag: str, target_tag: str,
                 upstream_tags: set[str]) -> tuple[Optional[str], Optional[str], str]:
    """``(commit of current_tag, commit of target_tag, why one is missing)`` when the template pins ExecuTorch
    by commit (a ``commit-pin`` finding, bot.template.commitpins); ``(None, None, "")`` otherwise: no request
    is made for a template that pins no commit.  A tag the source cannot resolve is a note, not an error: the
    commit pin becomes a blocking item naming its line."""
    if not any(f.kind == "commit-pin" for f in tpl.findings):
        return None, None, ""
    out: list[Optional[str]] = []
    notes: list[str] = []
    for tag in (current_tag, target_tag):
        if tag == current_tag and out and tag == target_tag:
            out.append(out[0])
            continue
        if tag not in upstream_tags:
            out.append(None)
            notes.append(f"{tag} is not a tag of {source.describe()}")
            continue
        try:
            sha = source.tag_commit(tag)
        except UpstreamError as exc:
            sha = None
            notes.append(str(exc))
        else:
            if sha is None:
                notes.append(f"{source.describe()} cannot tell which commit {tag} names")
        out.append(sha)
    return out[0], out[1], "; ".join(notes)


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


def _written_findings(tpl: Template, contents: dict[str, bytes]) -> list[Finding]:
    """The template's findings as the plan leaves it: each file the plan rewrites read again by its managers
    (``contents``: path -> new bytes), every other file's findings as scanned."""
    out: list[Finding] = []
    for loaded in tpl.files:
        path = loaded.doc.path
        if path in contents:
            after = TextDocument.from_bytes(path, contents[path])
            for m in loaded.managers:
                out.extend(m.extract(after))
        else:
            out.extend(f for f in tpl.findings if f.path == path)
    return out


def _rows(tpl: Template, bump: Bump, written: list[Finding]) -> list[PinRow]:
    """The pin table: the pack first, then every Python pin the bump writes.

    ``old`` is what the template's requirement files pin now and ``new`` what they pin once the plan is
    written (``written``: the findings of the files as rewritten), so a pin written with its local label
    (``torch==2.13.0+cpu`` -> ``2.14.0+cpu``, bot.template.requirements.new_version_text) shows that label
    on both sides; a package the template does not pin shows upstream's value."""
    local = bump.new_pack != to_semver(bump.new_executorch)
    rows = [PinRow(PACK, bump.old_pack, bump.new_pack,
                   f"built locally from release tag {bump.new_tag}" if local else f"release tag {bump.new_tag}")]
    for c in bump.changes:
        have = template_values(tpl, c.name)
        old = ", ".join(have) if have else None
        now = [v for v in _values(written, c.name) if same_release(v, c.new)]
        rows.append(PinRow(c.name, old, ", ".join(now) if now else c.new, c.source))
    return rows


def _values(findings: list[Finding], name: str) -> list[str]:
    """Distinct exact versions the requirement findings pin for ``name``, in order."""
    out: list[str] = []
    for f in findings:
        if f.kind in REQUIREMENT_KINDS and norm(f.name) == norm(name) and f.exact and f.version and f.version not in out:
            out.append(f.version)
    return out
