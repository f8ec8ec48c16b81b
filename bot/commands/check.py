"""``check``: is the template behind upstream's newest stable ExecuTorch release?"""

from __future__ import annotations

import argparse
from pathlib import Path

# the shared options, defined in bot/commands/_options.py; still importable from here
from bot.commands._options import (add_github_arguments, add_ignored_argument,  # noqa: F401
                                  add_pack_index_argument, github_repo)

NAME = "check"
ORDER = 30
HELP = "compare the template's ExecuTorch pin with upstream's releases (GitHub Actions outputs)"
DESCRIPTION = ("Print current, target, update-needed, pack-source, pack-url, pack-version (X.Y.Z, or X.Y.Z-local "
               "when the template pins a locally built pack, which is always built) and index-ready, and write them "
               "to $GITHUB_OUTPUT when set. When an update is needed, the target's pins are resolved "
               "(contents API) and the package index is asked whether it serves executorch==V with wheels "
               "that the resolved torch/torchao satisfy (index-ready), and the public CMSIS pack index whether "
               "PyTorch::ExecuTorch@V is on it (pack-on-index: yes, no, unknown). With --respect-ignored (the watch job) "
               "the release of the bot's open pull request is checked again (open-pr, open-pr-holds, open-pr-note): "
               "deleted, a draft, a prerelease, gone from or yanked on the package index. A no-op check costs one "
               "API request, and one more with --respect-ignored (the bot's open pull requests). "
               ".github/executorch-pack-bot.yml is validated first (a bad setting: exit 2, FILE:LINE).")


def report_pack_index(answer) -> None:
    """Print the pack-index answer to stderr; a "could not tell" is also an Actions warning (the run goes on)."""
    import sys

    from bot import actions
    from bot.inert import line

    if answer is None or not answer.asked:
        return
    if answer.state == "unknown":
        actions.warning(line(answer.summary()))
    else:
        print(f"# {line(answer.summary())}", file=sys.stderr)


def template_repository(args) -> str:
    """``OWNER/NAME`` of the template for ``--respect-ignored``: ``--github-repo``, else ``$GITHUB_REPOSITORY``.

    Raises :class:`~bot.errors.UsageError` when neither names one.
    """
    import os

    from bot.errors import UsageError

    full = getattr(args, "github_repo", None) or os.environ.get("GITHUB_REPOSITORY") or ""
    if "/" not in full:
        raise UsageError("--respect-ignored needs the template repository: pass --github-repo OWNER/NAME "
                         "or set GITHUB_REPOSITORY")
    return full


def ignored_versions(args, config, token) -> tuple[str, ...]:
    """The ignored versions when ``--respect-ignored`` is given (else ``()``); one or two API requests.

    Raises :class:`~bot.errors.UsageError` when the template repository is
    unknown (no ``--github-repo``, no ``GITHUB_REPOSITORY``).
    """
    import sys

    if not getattr(args, "respect_ignored", False):
        return ()
    full = template_repository(args)
    from bot.events.store import read_ignored
    from bot.github.client import make_github

    found = tuple(read_ignored(make_github(token), full, config))
    if found:
        print(f"# ignored by reviewers: {', '.join(found)}", file=sys.stderr)
    return found


def register(p: argparse.ArgumentParser) -> None:
    from bot.commands._options import add_source_arguments
    p.add_argument("--repo", default=".", type=Path, help="the template checkout (default: .)")
    add_source_arguments(p)
    add_github_arguments(p)
    add_ignored_argument(p)
    p.add_argument("--github-repo", metavar="OWNER/NAME", type=github_repo,
                   help="the template repository, for --respect-ignored (default: $GITHUB_REPOSITORY)")
    add_pack_index_argument(p)
    p.add_argument("--close-withdrawn", action="store_true",
                   help="close the bot's open pull request when the release it proposes no longer holds (deleted, "
                        "a draft, a prerelease, gone from or yanked on the package index), with a comment giving "
                        "the reason (needs a token that can write pull requests; with --respect-ignored)")


def run(args: argparse.Namespace) -> int:
    import sys

    from bot import actions, inert
    from bot.config import load_config
    from bot.github import flow
    from bot.github.client import token_from
    from bot.sources import offline_hint, open_source

    if args.to:   # a bad --version is bad usage (exit 2) before any request, not a network fault after them
        from bot.versions import parse_user_version
        parse_user_version(args.to, what="--version")
    if args.close_withdrawn and not (args.respect_ignored and args.upstream.startswith("github:")):
        from bot.errors import UsageError
        raise UsageError("--close-withdrawn needs --respect-ignored and a github: upstream (the watch job's check)")
    # The watch job is the first to run: a typo in the config file fails it here (FILE:LINE, exit 2),
    # not the pull-request job at the end of the run.
    config = load_config(args.repo)
    from bot.pack.public_index import pack_index_url
    index_url = pack_index_url(args.pack_index_url)
    token = token_from(args.token)
    actions.add_mask(token)
    if getattr(args, "respect_ignored", False):
        template_repository(args)   # a missing repository is bad usage before any request
    if not token and args.upstream.startswith("github:"):
        print("# no GitHub token: anonymous requests (lower rate limit)", file=sys.stderr)
    source = open_source(args.upstream, token)
    with offline_hint(args.upstream):
        # Ignored versions only take candidates away: when no release is newer than the pin they cannot change
        # the answer, so a run with nothing to do costs one request (the releases listing); they are read only
        # when there is an update, and the target chosen again only when some version is ignored.
        state = flow.check(args.repo, source, to=args.to, allow_prerelease=args.allow_prerelease)
        if state.update_needed and args.to is None:
            ignored = ignored_versions(args, config, token)
            if ignored:
                state = flow.check(args.repo, source, to=None, allow_prerelease=args.allow_prerelease, ignored=ignored)
    if state.update_needed:
        from bot.github.standing import template_pythons
        flow.index_status(source, state, pythons=template_pythons(args.repo))
        report_pack_index(flow.pack_index_status(state, url=index_url))
    if getattr(args, "respect_ignored", False) and hasattr(source, "full_name"):
        # The release the bot's open pull request proposes is checked again on every run (the watch job):
        # deleted, a draft, a prerelease, gone from or yanked on the package index -> open-pr-holds=false.
        from bot.github.client import make_github
        from bot.github.publish import Publisher
        pub = Publisher(make_github(token), template_repository(args), args.repo, config)
        with offline_hint(args.upstream):
            rechecked = flow.recheck_state(pub, source, state, keep_pulls=True)
        if args.close_withdrawn:
            from bot.github.standing import withdrawn_note
            for pr, st in rechecked:
                if not st.holds:
                    target = state.target if state.update_needed and state.target != st.version else None
                    pub.close_withdrawn(pr, withdrawn_note(st, state.current, target))
                    print(f"closed #{pr.number}: {inert.line(st.reason, cap=500)}")
    outs = state.outputs()
    # the template's dashboard: setting, so the workflow starts its dashboard job only when it is on
    outs["dashboard"] = bool(config.dashboard)
    for k, v in outs.items():
        print(f"{k}={('true' if v else 'false') if isinstance(v, bool) else inert.line(v, cap=1000)}")
    actions.set_outputs(outs)
    if outs.get("open-pr-holds") is False:
        actions.warning(inert.line(f"#{outs['open-pr']}: {outs['open-pr-note']}", cap=1000))
        actions.append_summary(f"executorch-pack-bot check: #{outs['open-pr']}: "
                               f"{inert.markdown(outs['open-pr-note'], cap=1000)}\n")
    if state.index is not None and not state.index.ready:
        # update-needed stays true: the next scheduled run asks again.
        print(inert.line(state.index.summary(), cap=1000))
        actions.append_summary(f"executorch-pack-bot check: {inert.markdown(state.index.summary(), cap=1000)}; "
                               "no pull request yet\n")
    return 0
