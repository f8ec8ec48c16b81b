"""Version strings: stable release tags, PEP 440 versions and pack (SemVer) versions.

Facts (the tags of pytorch/executorch; the Open-CMSIS-Pack spec): stable ExecuTorch releases are tagged
exactly ``vX.Y.Z``; the tag list also holds ``vX.Y.Z-rcN`` and odd tags such
as ``v1.2.0-rc1-test-android`` that never count as releases.  Pack versions
must be SemVer (packchk rejects others), so PEP 440 ``1.0.0rc1`` is written
``1.0.0-rc1`` in a pack.  Versions are always compared with
``packaging.version.Version``, never as text (``v1.10.0`` is newer than
``v1.9.0``).
"""

from __future__ import annotations

import re

from packaging.version import InvalidVersion, Version

from bot.errors import UsageError

STABLE_TAG = re.compile(r"^v(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)$")
# A release candidate tag: vX.Y.Z-rcN (nothing after the number).
RC_TAG = re.compile(r"^v(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)-rc(0|[1-9]\d*)$")
# What a user may type for --version / a workflow_dispatch input: X.Y.Z, optionally vX.Y.Z, optionally -rcN / rcN.
_USER_VERSION = re.compile(r"^v?(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-?rc(0|[1-9]\d*))?$")


def stable_version(tag: str) -> Version | None:
    """Return the version of a stable release tag ``vX.Y.Z``, or None for any other tag.

    ``"v1.10.0"`` -> ``Version("1.10.0")``; ``"v1.2.0-rc1"``,
    ``"v1.2.0-rc1-test-android"``, ``"1.2.0"`` and ``"release/1.2"`` -> None.
    """
    return Version(tag[1:]) if STABLE_TAG.match(tag) else None


def tag_version(tag: str) -> Version | None:
    """Version of a stable tag or of a release candidate tag ``vX.Y.Z-rcN``; None otherwise."""
    if STABLE_TAG.match(tag):
        return Version(tag[1:])
    m = RC_TAG.match(tag)
    if m:
        return Version(f"{m.group(1)}.{m.group(2)}.{m.group(3)}rc{m.group(4)}")
    return None


def version_to_tag(version: str | Version) -> str:
    """``"1.5.1"`` -> ``"v1.5.1"``; ``"1.0.0rc1"`` -> ``"v1.0.0-rc1"`` (upstream's tag form)."""
    v = Version(str(version))
    base = f"v{v.major}.{v.minor}.{v.micro}"
    if v.pre:
        base += f"-{v.pre[0]}{v.pre[1]}"
    return base


def parse_user_version(text: str, *, what: str = "--version") -> Version:
    """Validate a version typed by a user (``--version``, a workflow_dispatch input).

    Accepts ``X.Y.Z``, ``vX.Y.Z``, ``X.Y.ZrcN`` and ``X.Y.Z-rcN`` only; anything
    else (shell metacharacters, ranges, ``latest``) raises :class:`UsageError`
    (exit 2).  Returns the PEP 440 version.
    """
    text = text.strip()
    m = _USER_VERSION.match(text)
    if not m:
        raise UsageError(f"{what}: {text!r} is not a release version (expected X.Y.Z, vX.Y.Z or X.Y.Z-rcN)")
    s = f"{m.group(1)}.{m.group(2)}.{m.group(3)}"
    if m.group(4) is not None:
        s += f"rc{m.group(4)}"
    return Version(s)


def to_semver(version: str | Version) -> str:
    """PEP 440 -> SemVer as a pack needs it: ``1.5.1`` -> ``1.5.1``, ``1.0.0rc1`` -> ``1.0.0-rc1``.

    Raises :class:`UsageError` for a version with no SemVer form (epochs,
    post or dev releases, local labels).
    """
    try:
        v = Version(str(version))
    except InvalidVersion as exc:
        raise UsageError(f"{version!r} is not a PEP 440 version") from exc
    if v.epoch or v.post is not None or v.dev is not None or v.local or len(v.release) > 3:
        raise UsageError(f"{version} has no SemVer form for a pack version")
    rel = list(v.release) + [0] * (3 - len(v.release))
    s = f"{rel[0]}.{rel[1]}.{rel[2]}"
    if v.pre:
        s += f"-{v.pre[0]}{v.pre[1]}"
    return s


def nightly_base(text: str) -> str | None:
    """The base version of a nightly pin (``1.4.0.dev20260728`` -> ``1.4.0``); None for any other text.

    Public CMSIS ExecuTorch templates such as Arm-Examples/CMSIS-Executorch pin nightlies such as
    ``executorch==1.4.0.dev20260728`` next to a pack pin of the release.
    """
    try:
        v = Version(text)
    except InvalidVersion:
        return None
    return v.base_version if v.is_devrelease else None


def major_minor(version: str | Version) -> str:
    """``"1.5.1"`` -> ``"1.5"``."""
    v = Version(str(version))
    return f"{v.major}.{v.minor}"


# A pack version: SemVer 2.0 without build metadata (packchk and cpackget compare pack versions
# as SemVer; the Open-CMSIS-Pack spec).  The pre-release label is any dot-separated list of
# identifiers [0-9A-Za-z-], numeric ones without leading zeros.
_SEMVER_PACK = re.compile(
    r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)"
    r"(?:-((?:0|[1-9]\d*|\d*[A-Za-z-][0-9A-Za-z-]*)(?:\.(?:0|[1-9]\d*|\d*[A-Za-z-][0-9A-Za-z-]*))*))?$")
# upstream's release candidate label: rcN (tag vX.Y.Z-rcN)
_RC_LABEL = re.compile(r"^rc(0|[1-9]\d*)$")
# PEP 440 spelling of a release candidate a user may type: 1.4.1rc2
_PEP440_RC = re.compile(r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)rc(0|[1-9]\d*)$")


class PackVersion:
    """A pack version as written: ``1.4.1``, ``1.4.1-rc2``, ``1.4.1-local``, ``1.4.1-local.2``.

    A pack version is SemVer (the Open-CMSIS-Pack spec: packchk rejects others);
    upstream's ``build_pack.sh --version`` accepts any label and writes it into
    the file name, ``<release version>``, every ``Cversion`` and the ``<url>``
    (ExecuTorch's backends/arm/cmsis_pack/scripts/build_pack.sh at v1.4.1).  Upstream's own labels are the release (none) and
    release candidates (``rcN``, tag ``vX.Y.Z-rcN``); any other label marks a
    locally built pack of ExecuTorch ``X.Y.Z`` (``build-pack --version
    1.5.1-local``).

    Attributes:
        text: the version exactly as written (``"1.4.1-local.2"``).
        base: ``"1.4.1"``.
        label: the pre-release label (``"local.2"``, ``"rc2"``) or None.
    """

    __slots__ = ("text", "base", "label")

    def __init__(self, text: str, base: str, label: str | None):
        self.text, self.base, self.label = text, base, label

    def __repr__(self) -> str:
        return f"PackVersion({self.text!r})"

    def __str__(self) -> str:
        return self.text

    def __eq__(self, other) -> bool:
        return isinstance(other, PackVersion) and other.text == self.text

    def __hash__(self) -> int:
        return hash(self.text)

    @property
    def is_local(self) -> bool:
        """True for a label upstream never releases (``local``, ``local.2``, ``mybuild``): a local build."""
        return self.label is not None and not _RC_LABEL.match(self.label)

    @property
    def executorch(self) -> Version:
        """The ExecuTorch (PEP 440) version the pack is built from: ``1.4.1-local`` -> 1.4.1, ``1.4.1-rc2`` -> 1.4.1rc2."""
        if self.label is not None and not self.is_local:
            return Version(f"{self.base}{self.label}")
        return Version(self.base)

    @property
    def tag(self) -> str:
        """Upstream's tag of the sources: ``v1.4.1`` (also for ``1.4.1-local``), ``v1.4.1-rc2``."""
        return version_to_tag(self.executorch)

    @property
    def url_segment(self) -> str:
        """The last segment of the pack's ``<url>``: the release tag, or the label itself for a local build.

        ``1.4.1`` -> ``v1.4.1`` (the GitHub release download location);
        ``1.4.1-local`` -> ``1.4.1-local`` (what ``build_pack.sh --version
        1.4.1-local`` writes; a local build has no release to point at).
        """
        return self.text if self.is_local else self.tag

    def with_base(self, base: str | Version) -> "PackVersion":
        """The same local label on another release: ``1.4.0-local`` -> ``1.5.1-local`` for base ``1.5.1``.

        Only for a local build (:attr:`is_local`); a release or rc pack version has no label to keep.
        """
        b = to_semver(base)
        return PackVersion(f"{b}-{self.label}" if self.is_local else b, b.split("-", 1)[0],
                           self.label if self.is_local else None)


def parse_pack_version(text: str, *, what: str = "--version", user: bool = True) -> PackVersion:
    """Validate a pack version: SemVer ``X.Y.Z`` with an optional pre-release label.

    ``user=True`` (a command-line value) also accepts a leading ``v`` and the
    PEP 440 ``X.Y.ZrcN``; a pin in a template must be plain SemVer.  Build
    metadata (``+...``), ranges and anything else raise :class:`UsageError`
    (exit 2) naming ``what``.
    """
    raw = text.strip()
    s = raw
    if user:
        if s[:1] == "v":
            s = s[1:]
        m = _PEP440_RC.match(s)
        if m:
            s = f"{m.group(1)}.{m.group(2)}.{m.group(3)}-rc{m.group(4)}"
    m = _SEMVER_PACK.match(s)
    if not m:
        raise UsageError(f"{what}: {raw!r} is not a pack version (expected SemVer X.Y.Z or X.Y.Z-LABEL, "
                         "e.g. 1.4.1, 1.4.1-rc2, 1.4.1-local)")
    base = f"{m.group(1)}.{m.group(2)}.{m.group(3)}"
    return PackVersion(s, base, m.group(4))


def pin_pack_version(text: str | None) -> PackVersion | None:
    """The :class:`PackVersion` of a pin's version text (plain SemVer), or None when it is not one."""
    if not text:
        return None
    try:
        return parse_pack_version(text, user=False)
    except UsageError:
        return None
