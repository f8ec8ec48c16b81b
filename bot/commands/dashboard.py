"""``dashboard``: bring the dashboard issue up to date after a run (``dashboard: true``; otherwise nothing)."""

from __future__ import annotations

import argparse
from pathlib import Path

NAME = "dashboard"
ORDER = 65
HELP = "create or update the dashboard issue (dashboard: true in .github/executorch-pack-bot.yml)"
DESCRIPTION = ("Read the template's pinned ExecuTorch version, upstream's newest release and the bot's open pull "
               "request, and create the dashboard issue or edit it when its content changed (an unchanged run "
               "sends no write request). Does nothing unless the config file says dashboard: true.")


def register(p: argparse.ArgumentParser) -> None:
    from bot.commands._options import github_repo
    from bot.commands._options import add_github_arguments
    p.add_argument("--repo", default=".", type=Path, help="the template checkout (default: .)")
    p.add_argument("--upstream", default="github:pytorch/executorch", help="upstream ExecuTorch source")
    p.add_argument("--outcome", default=None,
                   help="the run's outcome in a few words, for the 'Last run' line (default: "
                        "$EXECUTORCH_PACK_BOT_OUTCOME)")
    p.add_argument("--github-repo", metavar="OWNER/NAME", type=github_repo, help="the template repository (default: $GITHUB_REPOSITORY)")
    add_github_arguments(p)


def run(args: argparse.Namespace) -> int:
    import os

    from bot import actions, engine
    from bot.sources import open_source
    from bot.config import load_config
    from bot.errors import BotError, UsageError
    from bot.events.context import Api
    from bot.events.dashboard import refresh
    from bot.github.client import make_github, token_from
    from bot.upstream.releases import select_target
    from bot.versions import tag_version

    config = load_config(args.repo)
    outcome = args.outcome if args.outcome is not None else os.environ.get("EXECUTORCH_PACK_BOT_OUTCOME", "")
    scheduled = os.environ.get("GITHUB_EVENT_NAME") == "schedule"
    if not config.dashboard:
        print("dashboard: off (set dashboard: true in .github/executorch-pack-bot.yml)")
        _summary(actions, "this run" if scheduled else
                 "unknown here (the dashboard keeps it: dashboard: true in .github/executorch-pack-bot.yml)")
        return 0
    full = args.github_repo or os.environ.get("GITHUB_REPOSITORY") or ""
    if "/" not in full:
        raise UsageError("cannot tell the template's GitHub repository; pass --github-repo OWNER/NAME "
                         "or set GITHUB_REPOSITORY")
    token = token_from(args.token)
    actions.add_mask(token)
    try:
        pinned = str(engine.current_version(engine.read_template(args.repo, exclude=config.exclude)))
    except BotError as exc:
        print(f"# pinned version unknown: {exc}")
        pinned = None
    source = open_source(args.upstream, token)
    newest = tag_version(select_target(source, to=None, current=None))
    server = os.environ.get("GITHUB_SERVER_URL") or "https://github.com"
    run_id = os.environ.get("GITHUB_RUN_ID") or ""
    url = f"{server}/{os.environ.get('GITHUB_REPOSITORY', full)}/actions/runs/{run_id}" if run_id else ""
    api = Api(make_github(token), full)
    issue = refresh(api, config, pinned=pinned, newest=str(newest) if newest else None,
                    outcome=outcome.strip() or None, run_url=url, scheduled=scheduled)
    changed = ("created" if any(x.startswith("POST ") for x in api.writes)
               else "updated" if api.writes else "unchanged")
    print(f"dashboard #{issue['number']}: {changed}" if issue else "dashboard: none")
    from bot.events import state as hidden
    from bot.events.dashboard import schedule_line
    _summary(actions, schedule_line((hidden.load((issue or {}).get("body")) or {})))
    return 0


def _summary(actions, when: str) -> None:
    """Print and add to the job summary when the last scheduled run happened (GitHub disables the schedule of a
    public repository after 60 days without activity; docs/reviewers.md says what to do)."""
    from bot.events.dashboard import SCHEDULE_HELP

    line = f"Last scheduled run: {when}"   # the bot's words and a date it parsed: nothing foreign
    print(line)
    actions.append_summary(f"{line}\n\n{SCHEDULE_HELP}\n" if "disabled" in when else f"{line}\n")
