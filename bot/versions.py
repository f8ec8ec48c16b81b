"""Version strings: stable release tags, PEP 440 versions and pack (SemVer) versions.

Facts (FORMATS.md, section 2 and 3): stable ExecuTorch releases are tagged
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
# What a user may type for --to / a workflow_dispatch input: X.Y.Z, optionally vX.Y.Z, optionally -rcN / rcN.
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


def parse_user_version(text: str, *, what: str = "--to") -> Version:
    """Validate a version typed by a user (``--to``, a workflow_dispatch input).

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

    FORMATS.md section 1: templates in the wild pin nightlies such as
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
