"""Does the release an open bot pull request proposes still hold?  Rechecked on every run while the PR is open.

The bot proposes a release only when it is fully published and installable, as pip and ``cbuild setup --packs``
see it; a release can be taken back after the pull request opened.  Each way it can be half there or taken back,
and where the fact comes from:

* GitHub (REST docs, "Releases"): the release is deleted (the tag's release is gone from "List releases");
  it is a draft again (``draft: true``: not published); it is flagged ``prerelease: true`` (the bot proposes
  stable releases only, :func:`bot.upstream.releases.select_target`); its tag is gone (a git source has no
  tag ``vX.Y.Z`` any more).
* The release asset the PR's pack came from (GitHub REST "Release assets": ``name``, ``digest``
  ``sha256:HEX``): deleted from the release, or replaced by a file of another sha256 than the one the PR
  verified (read from the PR body's pack step, ``the release asset `URL` (sha256 `HEX`)``).
* The package index (warehouse docs, "JSON API"; PEP 592 "Adding a mechanism to yank releases"):
  ``executorch==V`` answers 404 (deleted); it has no wheel (only an sdist: pip would build ExecuTorch from
  source); every file of V is ``yanked`` (PEP 592: an installer ignores a yanked release unless pinned
  exactly; the maintainers took it back).  The index check itself is :func:`bot.github.index.check_index`.

A :class:`Standing` says whether V holds and, when not, the true reason in one sentence, which goes to the
pull request's closing comment, the ``check`` outputs and the dashboard.  The pull request's version is read
from its head branch (a per-version track), else its title, else its pin table's pack row.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional

from bot.versions import version_to_tag

#: ``Bump ExecuTorch to 1.5.1`` (the title pr_title writes) and the pack row of the body's pin table.
_TITLE = re.compile(r"\bExecuTorch (?:to )?v?(\d+\.\d+\.\d+)\b")
_PACK_ROW = re.compile(r"^\| `?PyTorch::ExecuTorch`? \| `?[^|`]*`? \| `?v?(\d+\.\d+\.\d+)(?:-[\w.]+)?`? \|", re.M)


@dataclass(frozen=True)
class Standing:
    """Whether release ``version`` (PEP 440, ``"1.5.1"``) still holds; ``reason``: why not ("" when it holds)."""

    version: str
    holds: bool
    reason: str = ""


#: The PR body's pack step when the pack is the release asset (bot.report.procedure): its URL and sha256.
_ASSET = re.compile(r"the release asset `(?P<url>[^`\s]+)` \(sha256 `(?P<sha>[0-9a-f]{64})`\)")


def verified_asset(body: Optional[str]) -> Optional[tuple[str, str]]:
    """``(file name, sha256 hex)`` of the release asset a bot PR body says its pack was, or None."""
    m = _ASSET.search(body or "")
    if not m:
        return None
    name = m.group("url").split("?", 1)[0].rsplit("/", 1)[-1]
    return name, m.group("sha")


def release_standing(source, version: str, *, index: bool = True, policy=None,
                     asset: Optional[tuple[str, str]] = None, pythons: tuple[str, ...] = ()) -> Standing:
    """The :class:`Standing` of ExecuTorch ``version`` at ``source`` (any :class:`bot.upstream.source.UpstreamSource`;
    a :class:`bot.github.source.GitHubSource` also gives the release flags) and, with ``index``, on the package index.

    The first failing fact is the reason, in this order: the GitHub release deleted, a draft, a prerelease; the
    release asset ``asset`` (``(name, sha256)`` the PR verified) deleted or replaced; the tag gone; the package
    index without the version, without a wheel, or with every file yanked.  Raises what
    the listing and :func:`bot.github.index.check_index` raise (a transient fault is no withdrawal).
    """
    tag = version_to_tag(version)
    where = getattr(source, "full_name", None) or (source.describe() if hasattr(source, "describe") else "upstream")
    if hasattr(source, "release") and hasattr(source, "releases"):
        rel = source.release(tag)
        if rel is None:
            return Standing(version, False, f"the GitHub release {tag} of {where} was deleted (it is no longer in "
                                            "its releases)")
        if rel.draft:
            return Standing(version, False, f"the GitHub release {tag} of {where} is a draft again (not published)")
        if rel.prerelease:
            return Standing(version, False, f"the GitHub release {tag} of {where} is now flagged prerelease")
        if asset is not None:
            name, sha = asset
            now = rel.asset(name)
            if now is None:
                return Standing(version, False, f"the release asset {name} of {tag}, the pack this pull request "
                                                "verified, was deleted")
            if now.digest and now.digest.lower() != f"sha256:{sha}":
                from bot.inert import code
                return Standing(version, False, f"the release asset {name} of {tag} was replaced (its digest is now "
                                                f"{code(now.digest, cap=80)}; the pack this pull request verified had "
                                                f"sha256 {sha})")
    elif tag not in set(source.tags()):
        return Standing(version, False, f"the tag {tag} is gone from {where}")
    if index:
        from bot.github.index import check_index
        status = check_index(version, {}, policy=policy, pythons=pythons)
        if not status.published:
            return Standing(version, False, f"executorch {version} is no longer on the package index")
        if status.yanked:
            from bot.inert import code
            why = f" (reason given: {code(status.yanked_reason, cap=200)})" if status.yanked_reason else ""
            return Standing(version, False, f"executorch {version} was yanked from the package index (PEP 592){why}")
        if not status.wheels:
            return Standing(version, False, f"executorch {version} has no wheel on the package index (only a "
                                            "source distribution)")
        if status.no_wheel_for:
            return Standing(version, False, f"executorch {version} has no wheel on the package index for Python "
                                            f"{', '.join(status.no_wheel_for)}, which the template states")
    return Standing(version, True)


def proposed_version(pr, branch_pattern: Optional[str] = None) -> Optional[str]:
    """The ExecuTorch version (``"1.5.1"``) a bot pull request proposes: from its head branch when the track is per
    version (``branch_pattern`` holding ``{version}``), else from its title, else from its body's pin table; None
    when none of them names one.  ``pr``: a PyGithub ``PullRequest``."""
    if branch_pattern and "{version}" in branch_pattern:
        before, after = branch_pattern.split("{version}", 1)
        ref = pr.head.ref or ""
        if ref.startswith(before) and ref.endswith(after):
            m = re.fullmatch(r"v?(\d+\.\d+\.\d+)", ref[len(before):len(ref) - len(after) or None])
            if m:
                return m.group(1)
    m = _TITLE.search(pr.title or "")
    if m:
        return m.group(1)
    m = _PACK_ROW.search(pr.body or "")
    return m.group(1) if m else None


def withdrawn_note(standing: Standing, current: str, target: Optional[str] = None) -> str:
    """The comment on a pull request whose release no longer holds: the true reason, where the base is, what next.

    ``current``: the ExecuTorch version the base pins; ``target``: the release the bot proposes instead (None: none).
    """
    head = f"ExecuTorch {standing.version} no longer holds: {standing.reason}."
    if target:
        return f"{head} The base is on ExecuTorch {current}; the bot proposes {target} instead."
    return (f"{head} The base is still on ExecuTorch {current}, and no newer stable release holds; closing. The bot "
            f"proposes a release again once one newer than {current} is published and installable.")


#: The hidden-state value (bot.events.state) a pull request closed because its release was withdrawn carries:
#: such a close is no rejection of its pins, so the same release is proposed again once it holds again.
CLOSED_BY = "withdrawn"


def closed_by_withdrawal(body: Optional[str]) -> bool:
    """True when a pull request body's hidden state says the bot closed it because its release no longer held."""
    from bot.events import state as hidden
    st = hidden.load(body)
    return bool(st) and st.get("closed_by") == CLOSED_BY


def recheck_open(publisher, source, current: str, *, index: bool = True, pulls=None,
                 pythons: tuple[str, ...] = ()) -> list:
    """``[(pr, Standing)]`` for every open bot pull request (``publisher.bot_pulls("open")``) proposing a release newer
    than ``current`` (the version the base pins): each release checked again (:func:`release_standing`).  A pull
    request whose version cannot be read, or that the base already reached, is not listed (``close_obsolete``'s).
    ``pulls``: the open bot pull requests when the caller listed them already; ``pythons``: the CPython versions
    the template states (:func:`template_pythons`)."""
    from packaging.version import InvalidVersion, Version

    out = []
    for pr in publisher.bot_pulls("open") if pulls is None else pulls:
        v = proposed_version(pr, publisher.config.branch)
        try:
            if v is None or Version(v) <= Version(current):
                continue
        except InvalidVersion:
            continue
        out.append((pr, release_standing(source, v, index=index, asset=verified_asset(pr.body), pythons=pythons)))
    return out


def template_pythons(repo) -> tuple[str, ...]:
    """The exact CPython versions ``X.Y`` the template states (``.python-version``, workflow ``python-version:``;
    bot.engine.pythons.stated_pythons), in order; a range (``requires-python``) is not a version pip must serve.
    ``()`` when the template cannot be read."""
    import re as _re

    from bot.engine.pythons import stated_pythons
    from bot.engine.read import read_template
    from bot.errors import BotError
    try:
        stated = stated_pythons(read_template(repo))
    except BotError:
        return ()
    out: list[str] = []
    for _path, _line, text in stated:
        m = _re.fullmatch(r"(\d+)\.(\d+)(?:\.\d+)?", text.strip().strip("'\""))
        if m and f"{m.group(1)}.{m.group(2)}" not in out:
            out.append(f"{m.group(1)}.{m.group(2)}")
    return tuple(out)
