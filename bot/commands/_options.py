"""The options several commands share, defined once: each command's ``register`` adds them from here.

A command module imports this one and never another command's module for an option, so the commands
import only downwards (the import-linter contract in pyproject.toml, run by .ci/run).
"""

from __future__ import annotations

import argparse


def github_repo(value: str) -> str:
    """``--github-repo``: ``OWNER/NAME`` as GitHub spells a repository (owner: letters, digits and single hyphens;
    name: letters, digits, ``.``, ``_``, ``-``), checked before any request.  Raises
    :class:`argparse.ArgumentTypeError` (argparse exits 2 with the command's usage) for anything else, such as an
    owner alone or a URL."""
    import re

    if not re.fullmatch(r"[A-Za-z0-9](?:-?[A-Za-z0-9]){0,38}/[A-Za-z0-9._-]{1,100}", value) or \
            value.split("/")[1] in (".", ".."):
        hint = ""
        m = re.fullmatch(r"(?:https?://)?github\.com/([^/]+/[^/]+?)(?:\.git)?/?", value.strip())
        if m:
            hint = f" (for this URL: {m.group(1)})"
        raise argparse.ArgumentTypeError(f"{value!r} is not a repository: expected OWNER/NAME, such as "
                                         f"octocat/cmsis-template{hint}")
    return value


def add_github_arguments(p: argparse.ArgumentParser, *, write: bool = False) -> None:
    """``--token`` (default $GITHUB_TOKEN; API base URL from $GITHUB_API_URL).

    ``write``: the command pushes and opens pull requests (``publish``,
    ``run``), so the help names the permissions the token needs (README.md,
    "GitHub Action": Contents and Pull requests read and write, plus
    Workflows when the bump edits ``.github/workflows/``) instead of
    offering anonymous reads.
    """
    if write:
        p.add_argument("--token", help="GitHub token that pushes the bot branch and opens the pull request "
                                       "(default: $GITHUB_TOKEN): Contents and Pull requests read and write on "
                                       "the template repository, plus Workflows read and write when the bump "
                                       "edits .github/workflows/ files; it also reads upstream's releases")
    else:
        p.add_argument("--token", help="GitHub token (default: $GITHUB_TOKEN; anonymous public reads without one)")


def add_pack_index_argument(p: argparse.ArgumentParser) -> None:
    """``--pack-index-url``: the public CMSIS pack index asked about ``PyTorch::ExecuTorch@V`` (bot/pack/public_index.py)."""
    p.add_argument("--pack-index-url", metavar="URL|off",
                   help="the CMSIS pack index (index.pidx) asked whether PyTorch::ExecuTorch@V is on it; 'off' asks "
                        "nothing (default: $EXECUTORCH_PACK_BOT_PACK_INDEX_URL, else cpackget's public index "
                        "https://www.keil.com/pack/index.pidx)")


def add_ignored_argument(p: argparse.ArgumentParser) -> None:
    """``--respect-ignored`` (and ``--github-repo`` for ``check``): skip versions reviewers ignored."""
    p.add_argument("--respect-ignored", action="store_true",
                   help="skip the versions reviewers ignored (/executorch-pack-bot ignore), read from the dashboard "
                        "issue or the bot's pull requests of --github-repo; the next newer release is chosen")


def add_source_arguments(p: argparse.ArgumentParser) -> None:
    """``--upstream``, ``--version`` (old spelling ``--to``), ``--allow-prerelease``: shared by the commands that
    pick a target.  ``--version`` names an ExecuTorch release in every command (``fetch-pack``, ``build-pack``,
    ``verify-pack`` too) and is the action's and the workflow's ``version`` input."""
    from bot.cli import deprecated_alias
    p.add_argument("--upstream", default="github:pytorch/executorch", metavar="SOURCE",
                   help="a local ExecuTorch git repository (clone or bare), a folder with one "
                        "sub-folder per tag, or github:OWNER/NAME (default: %(default)s)")
    p.add_argument("--version", dest="to", metavar="X.Y.Z",
                   help="the target release (X.Y.Z or vX.Y.Z; default: the newest stable vX.Y.Z tag)")
    deprecated_alias(p, "--to", "--version", dest="to")
    p.add_argument("--allow-prerelease", action="store_true",
                   help="accept a release candidate (X.Y.Z-rcN) as --version")


def add_flagged_arguments(p: argparse.ArgumentParser, *, default: bool, allowed: str, stopped: str) -> None:
    """``--allow-flagged`` / ``--stop-on-flagged``, the same two words in ``update`` and ``run`` (``dest``
    ``allow_flagged``): what a command does when a blocking item is flagged.  ``default``: this command's
    choice when neither is given; ``allowed`` and ``stopped`` say what each does here."""
    g = p.add_mutually_exclusive_group()
    g.add_argument("--allow-flagged", dest="allow_flagged", action="store_true", default=default,
                   help=allowed + (" (the default)" if default else ""))
    g.add_argument("--stop-on-flagged", dest="allow_flagged", action="store_false",
                   help=stopped + ("" if default else " (the default)"))


def add_exclude_argument(p: argparse.ArgumentParser) -> None:
    """``--exclude GLOB`` (repeatable): shared by ``update`` and ``audit``."""
    p.add_argument("--exclude", action="append", default=[], metavar="GLOB",
                   help="a path glob of the template never read (repeatable; * also matches /; a folder "
                        "excludes what it holds); used together with the exclude: list read from "
                        ".github/executorch-pack-bot.yml, which is not changed")


def add_set_argument(p: argparse.ArgumentParser) -> None:
    """``--set NAME=VERSION`` (repeatable): shared by ``update`` and ``run``."""
    p.add_argument("--set", dest="sets", action="append", default=[], metavar="NAME=VERSION",
                   help="supply a pin upstream does not resolve (repeatable), e.g. --set torchao=0.19.0")
