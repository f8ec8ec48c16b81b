"""Which upstream ExecuTorch release a bump targets.

Facts (the tags of pytorch/executorch): stable releases are tagged exactly ``vX.Y.Z``;
the tag list also holds ``vX.Y.Z-rcN`` and odd tags such as
``v1.2.0-rc1-test-android``, which never count.  A GitHub release may also be
flagged "prerelease" (:meth:`UpstreamSource.prereleases`); such a tag never
counts as stable either.  Tags are always compared as
``packaging.version.Version``, never as text and never by date (devcontainers/features#1646:
``v1.10.0`` is newer than ``v1.9.0``; a later-dated backport ``v1.4.2`` is
not newer), and the bot never proposes a downgrade.
"""

from __future__ import annotations

from typing import Iterable

from packaging.version import InvalidVersion, Version

from bot.errors import UpstreamError, UsageError
from bot.upstream.source import UpstreamSource
from bot.versions import parse_user_version, stable_version, version_to_tag


def stable_tags(tags: Iterable[str], prereleases: Iterable[str] = ()) -> list[str]:
    """The stable release tags among ``tags``, oldest first.

    Args:
        tags: tag names in any order (``"v1.10.0"``, ``"v1.5.1-rc1"``, ``"release/1.5"`` ...).
        prereleases: tags flagged as prereleases (GitHub release flag); excluded.

    Returns:
        the ``vX.Y.Z`` tags, sorted by ``packaging.version.Version`` ascending,
        without duplicates: ``["v1.4.2", "v1.9.0", "v1.10.0"]``.
    """
    skip = set(prereleases)
    found = {t: stable_version(t) for t in set(tags) if t not in skip}
    return sorted((t for t, v in found.items() if v is not None), key=lambda t: found[t])


def _parse_current(current: str | None) -> Version | None:
    if current is None:
        return None
    try:
        return Version(current)
    except InvalidVersion as exc:
        raise UsageError(f"the template's ExecuTorch version {current!r} is not a PEP 440 version") from exc


def select_target(source: UpstreamSource, *, to: str | None, current: str | None,
                  allow_prerelease: bool = False, ignored: Iterable[str] = (), allow_downgrade: bool = False) -> str:
    """The upstream tag a bump moves to.

    Args:
        source: where tags come from (``source.tags()``, ``source.prereleases()``).
        to: the version the user asked for (``"1.5.1"``, ``"v1.5.1"``,
            ``"1.5.1-rc1"``, ``"1.5.1rc1"``; see :func:`bot.versions.parse_user_version`),
            or None for the newest stable release.
        current: the template's current ExecuTorch version (PEP 440, e.g.
            ``"1.4.0"``), or None when unknown.
        allow_prerelease: accept an rc ``to`` (``--allow-prerelease``).
        ignored: ``X.Y.Z`` versions reviewers asked to skip (``/executorch-pack-bot
            ignore``); without ``to`` the newest stable tag that is not ignored is chosen.
        allow_downgrade: accept a ``to`` older than ``current`` (``doctor`` moves a scratch copy of an
            up-to-date template back to the previous release, to rehearse the bump to the current one).

    Returns:
        the tag, e.g. ``"v1.5.1"``.  Without ``to``, the newest stable tag; but
        when that is *older* than ``current`` the bot never proposes a downgrade
        and returns ``version_to_tag(current)`` instead, meaning "nothing to do"
        (this tag need not exist upstream, e.g. for a template on a nightly;
        callers compare versions rather than reading files at it).

    Raises:
        UsageError: ``to`` is malformed, is a release candidate (or a tag GitHub
            flags as prerelease) without ``allow_prerelease``, or is older than
            ``current`` ("would downgrade").
        UpstreamError: no stable tag exists, or ``to`` has no tag upstream (the
            message lists the newest few stable tags).
    """
    cur = _parse_current(current)
    tags = source.tags()
    pre = set(source.prereleases())
    stable = stable_tags(tags, pre)

    if to is None:
        if not stable:
            raise UpstreamError(f"no stable release tag (vX.Y.Z) in {source.describe()}")
        skip = {str(v).lstrip("v") for v in ignored}
        wanted = [t for t in stable if str(stable_version(t)) not in skip]
        if not wanted:   # every release is ignored: stay where the template is
            return version_to_tag(cur) if cur is not None else stable[0]
        newest = wanted[-1]
        if cur is not None and stable_version(newest) < cur:
            return version_to_tag(cur)
        return newest

    wanted = parse_user_version(to)
    tag = version_to_tag(wanted)
    if tag not in set(tags):   # first: --allow-prerelease would not help a tag that does not exist
        newest = ", ".join(reversed(stable[-5:])) or "none"
        raise UpstreamError(f"--version {to}: there is no tag {tag} in {source.describe()} "
                            f"(newest stable tags: {newest})")
    if (wanted.is_prerelease or tag in pre) and not allow_prerelease:
        raise UsageError(f"--version {to}: {tag} is a prerelease; pass --allow-prerelease to target it")
    if cur is not None and wanted < cur and not allow_downgrade:
        raise UsageError(f"--version {to} would downgrade the template from ExecuTorch {current} to {wanted}")
    return tag
