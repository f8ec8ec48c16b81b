"""``run``: the scheduled job: check, update, verify the release asset, publish one pull request."""

from __future__ import annotations

import argparse
from pathlib import Path

NAME = "run"
ORDER = 45
HELP = "check, update, verify the pack asset and publish (the scheduled job)"
DESCRIPTION = ("Check upstream releases; when the template is behind, plan and apply the bump, wait for "
               "executorch on the package index, verify the release's pack asset, push the bot branch and "
               "open or update one pull request. --dry-run prints the pull request it would open.")


def register(p: argparse.ArgumentParser) -> None:
    from bot.commands._options import github_repo
    from bot.commands._options import add_github_arguments
    from bot.commands._options import add_exclude_argument, add_set_argument, add_source_arguments
    p.add_argument("--repo", default=".", type=Path, help="the template checkout (default: .)")
    add_source_arguments(p)
    add_set_argument(p)
    from bot.commands._options import add_flagged_arguments
    add_flagged_arguments(p, default=True,
                          allowed="propose the bump as a draft pull request that lists the blocking items",
                          stopped="propose nothing when a blocking item is flagged (exit 1)")
    add_exclude_argument(p)
    add_github_arguments(p, write=True)
    from bot.commands._options import add_ignored_argument
    add_ignored_argument(p)
    p.add_argument("--github-repo", metavar="OWNER/NAME", type=github_repo, help="the template repository (default: $GITHUB_REPOSITORY)")
    p.add_argument("--remote", default="origin", help="git remote to push to (default: origin)")
    p.add_argument("--commit", choices=("git", "api"), default=None,
                   help="how the commit is made: git (pushed from here) or api (GitHub creates and signs it, for "
                        "branch rules that require verified signatures); default: the config's commit: (git)")
    p.add_argument("--dry-run", action="store_true", help="print the pull request it would open; change nothing")
    from bot.commands._options import add_pack_index_argument
    add_pack_index_argument(p)
    from bot.commands.publish import add_model_results_arguments
    add_model_results_arguments(p)


def run(args: argparse.Namespace) -> int:
    import sys

    from bot import actions, engine, inert
    from bot.config import load_config, with_commit_mode
    from bot.sources import offline_hint, open_source
    from bot.errors import BotError
    from bot.github import flow
    from bot.github.client import make_github, token_from
    from bot.github.decorations import report_refusals
    from bot.github.publish import Publisher, refusal_notice, repo_full_name
    from bot.report import job_summary

    if args.to:   # a bad --version is bad usage (exit 2) before any request, not a network fault after them
        from bot.versions import parse_user_version
        parse_user_version(args.to, what="--version")
    from bot.commands.publish import model_results
    models = model_results(args)   # a malformed result file: exit 2 naming it, before any request
    from bot.commands.publish import npu_estimates
    npu = npu_estimates(args)
    token = token_from(args.token)
    actions.add_mask(token)
    if not token and not args.dry_run:   # bad usage, before any request (as publish)
        from bot.errors import UsageError
        raise UsageError("run pushes a branch and opens a pull request, which needs a token: pass --token TOKEN "
                         "or set GITHUB_TOKEN (in the workflow: the GitHub App's token or the "
                         "EXECUTORCH_PACK_BOT_TOKEN secret; docs/github-app.md); --dry-run needs none")
    if not token:
        print("# no GitHub token: anonymous requests (lower rate limit)", file=sys.stderr)
    from bot import inert
    say = lambda m: print(f"# {inert.line(m, cap=1000)}", file=sys.stderr)  # noqa: E731
    try:
        with actions.group("executorch-pack-bot run"):
            config = with_commit_mode(load_config(args.repo), args.commit)
            from bot.pack.public_index import pack_index_url
            index_url = pack_index_url(args.pack_index_url)
            sets = engine.parse_sets(args.sets)
            from bot.commands.check import ignored_versions
            ignored = ignored_versions(args, config, token)
            source = open_source(args.upstream, token)
            full = (repo_full_name(args.repo, args.github_repo, remote=args.remote) if not args.dry_run
                    else (args.github_repo or ""))
            pub = None
            if not args.dry_run:
                pub = Publisher(make_github(token), full, args.repo, config, token=token,
                                remote=args.remote, progress=say)
            with offline_hint(args.upstream):
                out = flow.run(args.repo, source, pub or _NoPublisher(config), to=args.to,
                               allow_prerelease=args.allow_prerelease, dry_run=args.dry_run, progress=say,
                               sets=sets, exclude=tuple(args.exclude), allow_flagged=args.allow_flagged,
                               ignored=ignored, pack_index_url=index_url, model_results=models,
                               npu_estimates=npu)
    except BotError as exc:
        try:
            actions.append_summary(job_summary(current=None, target=None, outcome=f"failed: {inert.markdown(exc, cap=1000)}"))
        except BotError as summary_exc:   # the run's own error matters more than a lost summary
            print(f"# {summary_exc}", file=sys.stderr)
        if not actions.in_actions():
            raise   # the CLI prints it, once: "executorch-pack-bot: error: FILE:LINE: ..."
        advice = getattr(exc, "advice", "")   # a transient failure (exit 3) says whether anything changed
        actions.error(exc.message + (f"; {advice}" if advice else ""), file=exc.path,
                      line=exc.line)   # in Actions: the annotation is the one line
        return exc.exit_code
    from bot.commands.check import report_pack_index
    report_pack_index(out.pack_index)
    st = out.state
    outs = st.outputs() if st else {}
    if out.result is not None and getattr(out.result, "number", None):
        outs["pull-request"] = outs["pr-number"] = out.result.number     # pr-number/pr-url: action.yml's names
        outs["pr-url"] = getattr(out.result, "url", "") or ""
    actions.set_outputs(outs)
    notice = refusal_notice(out.result) if out.result is not None else None
    if notice:
        actions.warning(notice)
    actions.append_summary(job_summary(current=st.current if st else None, target=st.target if st else None,
                                       outcome=inert.markdown(out.outcome, cap=2000), plan=out.plan,
                                       upstream=getattr(source, "full_name", ""), pack_report=out.pack_report,
                                       pack_note=out.pack_note, index_line=out.index_line,
                                       evidence=out.evidence)
                           + (f"\n- **not pushed**: {inert.markdown(notice, cap=1000)}\n" if notice else ""))
    if out.result is not None:
        report_refusals(out.result)
    if args.dry_run and out.title:
        print(f"Would open pull request: {out.title}\n")
        print(out.body)
    print("\n".join(inert.lines(out.outcome, cap=2000)))   # may quote git authors, GitHub answers
    return out.exit_code


class _NoPublisher:
    """Stands in for the publisher in a dry run (never called for writes)."""

    def __init__(self, config):
        self.config = config

    def close_obsolete(self, version, **kw):
        return []
