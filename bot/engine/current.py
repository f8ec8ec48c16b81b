"""What the template pins now: its exact ExecuTorch pins grouped by version, and the current version.

:func:`current_version` is the version ``update`` bumps from; it refuses
pins that disagree or are not versions.  :func:`group_pins` and
:func:`describe_groups` are shared with the audit (:mod:`bot.engine.audit`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from packaging.version import InvalidVersion, Version

from bot.engine.read import PACK, REQUIREMENT_KINDS, Template
from bot.errors import TemplateError, UsageError
from bot.model import Finding, Flag, norm
from bot.template.locks import CBUILD_SETUP
from bot.versions import pin_pack_version, to_semver

PACK_KINDS = ("pack-pin", "lock")


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
    #: the local-build label of the group's pack pins (``"local"`` for ``@1.4.0-local``), or None
    label: Optional[str] = None


def _group_key(f: Finding) -> object:
    """``(Version, local label or None)`` of a pin, or its text when it is not a version.

    A pack pin or lock entry is a SemVer pack version (:func:`bot.versions.pin_pack_version`):
    ``1.4.0-local`` is ExecuTorch 1.4.0 with the label ``local``, ``1.0.0-rc1`` is 1.0.0rc1.
    """
    if f.kind in PACK_KINDS:
        pv = pin_pack_version(f.version)
        if pv is not None:
            return (pv.executorch, pv.label if pv.is_local else None)
    try:
        key = Version(f.version)
    except InvalidVersion:
        return f.version
    if f.kind in REQUIREMENT_KINDS and key.local:
        key = Version(key.public)
    return (key, None)


def group_pins(pins: list[Finding]) -> list[PinGroup]:
    """Group exact ExecuTorch pins by version, the most pinned version first (ties: first seen first).

    A locally built pack (``PyTorch::ExecuTorch@1.4.0-local``, ExecuTorch's backends/arm/cmsis_pack/scripts/build_pack.sh at v1.4.1) is built from ExecuTorch 1.4.0: ``executorch==1.4.0`` joins its
    group (``label`` ``"local"``) unless a pack pin ``1.4.0`` without the label
    also exists (then the two packs disagree).  Pack pins with different
    labels never share a group.
    """
    order: dict[object, list[Finding]] = {}
    for f in pins:
        order.setdefault(_group_key(f), []).append(f)

    def pack_group(version: Version) -> Optional[tuple]:
        """The key of the group holding pack pins of ``version`` (with or without a label), when exactly one does."""
        keys = [k for k in order if isinstance(k, tuple) and k[0] == version
                and any(f.kind in PACK_KINDS for f in order[k])]
        return keys[0] if len(keys) == 1 else None

    for key in list(order):
        if not isinstance(key, tuple) or key[1] is not None or any(f.kind in PACK_KINDS for f in order[key]):
            continue
        version = key[0]
        # A nightly requirement (``executorch==1.4.0.dev20260728``) next to a pack pin 1.4.0
        # (public CMSIS ExecuTorch templates such as Arm-Examples/CMSIS-Executorch, "wild variants") agrees with the pack: it joins its group.
        into = pack_group(Version(version.base_version)) if version.is_devrelease else pack_group(version)
        if into is not None and into != key:
            order[into].extend(order.pop(key))
    groups = []
    for k, v in order.items():
        label = k[1] if isinstance(k, tuple) else None
        first = next((f for f in v if f.kind in PACK_KINDS), v[0]) if label else v[0]
        groups.append(PinGroup(k[0] if isinstance(k, tuple) else k, first.version, tuple(v), label))
    return sorted(groups, key=lambda g: -len(g.pins))  # stable: ties keep file order


def nightly_pins(groups: list[PinGroup]) -> list[Finding]:
    """The nightly requirements (``.devN``) that :func:`group_pins` counted with their pack's version."""
    return [f for g in groups if isinstance(g.key, Version) for f in g.pins
            if f.kind in REQUIREMENT_KINDS and _is_dev(f.version) and Version(f.version) != g.key]


def local_build_line(group: PinGroup) -> Optional[str]:
    """One line saying a locally built pack agrees with its ExecuTorch release, or None for a release pack.

    ``"PyTorch::ExecuTorch@1.4.0-local is a locally built pack of ExecuTorch
    1.4.0: it agrees with executorch==1.4.0"`` (the requirement part only when
    the group has requirement pins).
    """
    if not group.label:
        return None
    reqs = sorted({f.version for f in group.pins if f.kind in REQUIREMENT_KINDS and f.version})
    agrees = f": it agrees with {', '.join('executorch==' + r for r in reqs)}" if reqs else ""
    return f"{PACK}@{group.version} is a locally built pack of ExecuTorch {group.key}{agrees}"


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
    """The ExecuTorch version the template pins now (:func:`current_pins` without the label)."""
    return current_pins(tpl)[0]


def current_pins(tpl: Template) -> tuple[Version, Optional[str]]:
    """The ExecuTorch version the template pins now, and the local-build label of its pack pins.

    ``PyTorch::ExecuTorch@1.4.0-local`` beside ``executorch==1.4.0`` gives
    ``(Version("1.4.0"), "local")``; a release pack gives ``(version, None)``.

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
            what = ("not a pack version (expected SemVer X.Y.Z or X.Y.Z-LABEL, e.g. 1.4.0 or 1.4.0-local)"
                    if f.kind in PACK_KINDS else "not a version")
            raise TemplateError(f"{f.text or f.version!r} is {what}", path=f.path, line=f.line)
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
    key, first, label = groups[0].key, groups[0].pins[0], groups[0].label
    if key.is_devrelease and all(f.kind in REQUIREMENT_KINDS for f in groups[0].pins):
        # Only nightly requirements (no pack pin): a nightly counts as its release, as beside a pack.
        key = Version(key.base_version)
    try:
        to_semver(key)
    except UsageError:
        raise TemplateError(f"{first.text or first.version!r}: ExecuTorch {key} has no pack version (a "
                            "post-release or an epoch); pin a release X.Y.Z before bumping",
                            path=first.path, line=first.line) from None
    return key, label


def template_values(tpl: Template, name: str) -> list[str]:
    """Distinct exact versions the template's requirement files pin for a package, in file order."""
    out: list[str] = []
    for f in tpl.findings:
        if f.kind in REQUIREMENT_KINDS and norm(f.name) == norm(name) and f.exact and f.version:
            if f.version not in out:
                out.append(f.version)
    return out
