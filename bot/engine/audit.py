"""The consistency audit (``audit``): do the template's ExecuTorch pins agree, which prose names another version."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from packaging.version import InvalidVersion, Version

from bot.engine.current import PinGroup, describe_groups, group_pins, local_build_line, nightly_flags
from bot.engine.flags import dedupe, sort_flags
from bot.engine.ignore import drop_ignored, ignore_entries
from bot.engine.mentions import accounting_flags, audit_accounting
from bot.engine.read import PACK, PIN_KINDS, read_template
from bot.model import Finding, Flag, norm
from bot.template.publicversion import same_release


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
    #: one line when the pins agree on a locally built pack (``@1.4.0-local`` beside ``executorch==1.4.0``)
    local_build: Optional[str] = None
    #: the accounting of the pinned versions (bot.engine.mentions.Accounting), None when the pins disagree
    mentions: Optional[object] = None

    def disagreement(self) -> str:
        """The pins grouped by version (:func:`describe_groups`), for the FAIL line."""
        return describe_groups(self.groups)

    @property
    def blocking_flags(self) -> list[Flag]:
        """The flagged items that fail the audit (a range pin, a pin file linked out of the repository)."""
        return [f for f in self.flags if f.blocking]

    @property
    def left_behind(self) -> list[Flag]:
        """The blocking items of a pin left on another release: ``commit-pin`` (ExecuTorch pinned by a commit that
        is not the release the other pins name, or that the bot cannot move: bot.template.commitpins) and
        ``python-lock`` (a lock file recording another executorch: bot.template.locks)."""
        return [f for f in self.blocking_flags if f.code in ("commit-pin", "python-lock")]

    def headline(self) -> str:
        """One sentence on the pins: ``"every ExecuTorch pin is 1.5.1"`` only when the pins agree and no pin
        is left behind (a commit pin on another release, or one the bot cannot move, is a pin too);
        ``"the pack, lock and requirement pins are 1.5.1, but N ExecuTorch pins are not"``; ``"the pins do not
        agree"``; ``"no exact ExecuTorch pin found"``."""
        if self.agree and not self.left_behind:
            return f"every ExecuTorch pin is {self.versions[0]}"
        if self.agree:
            n = len(self.left_behind)
            return (f"the pack, lock and requirement pins are {self.versions[0]}, but {n} ExecuTorch "
                    f"pin{'s are' if n != 1 else ' is'} not (a commit or a Python lock file)")
        return "the pins do not agree" if self.pins else "no exact ExecuTorch pin found"

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
                "not_scanned": self.not_scanned, "local_build": self.local_build,
                "mentions": None if self.mentions is None else self.mentions.to_json()}


def audit(repo: Path, exclude: tuple[str, ...] = ()) -> Audit:
    """Check that every ExecuTorch pin of the template agrees; list prose naming another version.

    Versions are compared as PEP 440 versions (pack ``1.0.0-rc1`` equals
    ``executorch==1.0.0rc1``); a locally built pack ``1.4.0-local`` is
    ExecuTorch 1.4.0 and agrees with ``executorch==1.4.0``
    (:attr:`Audit.local_build` says so in one line).  ``exclude``: as for :func:`plan`.  Raises the
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
            if f.kind != "prose" or not f.version or (f.name == "@version" and not f.exact):
                continue  # a bare @~X range is another pack's range
            try:
                v = Version(f.version)
            except InvalidVersion:
                continue
            if len(v.release) == 2:  # "ExecuTorch 1.4", "release/1.4": compare major.minor
                if (v.major, v.minor) != (pinned.major, pinned.minor):
                    stale.append(f)
            elif v != pinned:
                stale.append(f)
    flags.extend(_commit_pin_flags(tpl, groups[0].key if agree else None))
    if agree:
        from bot.template.locks import audit_lock_flags
        flags.extend(audit_lock_flags(tpl.repo, tpl.python_locks, str(groups[0].key)))
    accounting = None
    ignore = ignore_entries(repo)
    flags.extend(_conda_flags(tpl, groups[0].version if agree else None))
    flags = drop_ignored(flags, ignore)
    if agree:
        accounting = audit_accounting(tpl, str(groups[0].key), ignore, tuple(flags))
        flags.extend(accounting_flags(accounting, tuple(flags)))
    return Audit(pins=pins, versions=[g.version for g in groups], agree=agree, stale_mentions=stale,
                 flags=sort_flags(dedupe(flags)), groups=groups, not_scanned=list(tpl.skipped_dirs),
                 local_build=local_build_line(groups[0]) if agree else None, mentions=accounting)


def _commit_pin_flags(tpl, pinned: Optional[Version]) -> list[Flag]:
    """Items for ExecuTorch pinned by commit (bot.template.commitpins), against the version the pins agree on.

    A commit whose comment names another release than the pins (``GIT_TAG <sha>  # v1.3.0`` beside
    ``executorch==1.4.0``) is blocking: the template builds another ExecuTorch than it pins.  A commit with
    no release in a comment is listed (non-blocking): the bot cannot tell which release it is.
    """
    out = []
    for f in tpl.findings:
        if f.kind != "commit-pin":
            continue
        if f.version is None:
            out.append(Flag("commit-pin", f"ExecuTorch is pinned by commit with no release in a comment; the bot "
                            f"cannot tell which release it is: add a `# vX` comment naming it: {f.text}",
                            path=f.path, line=f.line, blocking=False))
            continue
        if pinned is None:
            continue
        try:
            v = Version(f.version)
        except InvalidVersion:
            continue
        if v != pinned:
            out.append(Flag("commit-pin", f"ExecuTorch is pinned by a commit whose comment names {f.version}, but "
                            f"the template pins {pinned}: the build fetches another release than the pins say; pin "
                            f"the commit of v{pinned}, with its comment: {f.text}", path=f.path, line=f.line))
    return out


def _admits(spec: Optional[str], version: Version) -> bool:
    """True when the specifier text (``"<1.5,>=1.4"``) admits ``version``; an unreadable one admits nothing."""
    from packaging.specifiers import InvalidSpecifier, SpecifierSet
    try:
        return SpecifierSet(spec or "").contains(version, prereleases=True)
    except InvalidSpecifier:
        return False


def _conda_flags(tpl, pinned: Optional[str]) -> list[Flag]:
    """A non-blocking ``conda-pin`` per conda-level spec of a Python pin (bot.template.conda): the bot
    never rewrites conda specs, so each is listed, run after run, until it is listed under
    ``ignore-mentions:``; the message says whether it agrees with the template's pin of the package."""
    from bot.engine.current import template_values
    out = []
    for f in tpl.findings:
        if f.kind != "conda-pin":
            continue
        have = [pinned] if f.name == "executorch" and pinned else template_values(tpl, f.name)
        if not have:
            state = f"the template has no pip pin of {f.name} to compare it with"
        elif f.exact and any(same_release(f.version, h) for h in have):
            state = f"it agrees with the template's {f.name} {', '.join(have)} today"
        else:
            state = f"the template pins {f.name} {', '.join(have)}"
        out.append(Flag("conda-pin", f"the conda-level spec {f.text!r} is never rewritten by the bot and {state}; "
                        "a bump leaves it behind: edit it by hand, or list it under ignore-mentions:",
                        path=f.path, line=f.line, blocking=False))
    return out

