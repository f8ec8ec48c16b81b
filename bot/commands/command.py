"""``command``: read the webhook event a workflow run was started by and decide what the bot does.

Comment commands on the bot's PR, an approval that enables auto-merge, a
ticked "Check now" on the dashboard (:mod:`bot.events`).  The decision goes
to ``$GITHUB_OUTPUT`` as ``action`` (``none``, ``recheck``, ``rebuild``,
``recreate``, ``ignore``, ``unignore``), ``version`` and ``pr``; the
workflow's later jobs act on it.  Exit 0 whatever was decided (also when
the event is not for the bot); 2 for a missing or malformed event or config.
"""

from __future__ import annotations

import argparse
from pathlib import Path

NAME = "command"
ORDER = 60
HELP = "answer a comment command, an approval or a dashboard tick from $GITHUB_EVENT_PATH (GitHub Actions outputs)"
DESCRIPTION = ("Read the event ($GITHUB_EVENT_NAME, $GITHUB_EVENT_PATH) and act on it: a comment "
               "'/executorch-pack-bot VERB' on the bot's pull request by someone with write permission, an "
               "approval (automerge: on-approval), a ticked 'Check now' on the dashboard (dashboard: true). "
               "Writes action, version and pr to $GITHUB_OUTPUT. Never reads the pull request's branch: "
               "--repo is a checkout of the default branch, for .github/executorch-pack-bot.yml.")


def register(p: argparse.ArgumentParser) -> None:
    p.add_argument("--event-name", help="the event's name (default: $GITHUB_EVENT_NAME)")
    p.add_argument("--event-path", help="the JSON payload file (default: $GITHUB_EVENT_PATH)")
    p.add_argument("--repo", default=".", type=Path,
                   help="a checkout of the default branch, for its .github/executorch-pack-bot.yml (default: .)")
    p.add_argument("--token", help="GitHub token (default: $GITHUB_TOKEN): Issues and Pull requests read and write; "
                                   "Contents write for auto-merge")


def run(args: argparse.Namespace) -> int:
    from bot import actions, inert
    from bot.config import load_config
    from bot.events.context import Api, Context
    from bot.events.event import load_event
    from bot.events.router import load_behaviours
    from bot.github.client import make_github, token_from

    event = load_event(args.event_name, args.event_path)
    if not Path(args.repo).is_dir():   # a wrong path would otherwise read as "no config file": defaults
        from bot.errors import UsageError
        raise UsageError(f"--repo {args.repo}: not a directory")
    config = load_config(args.repo)
    token = token_from(args.token)
    actions.add_mask(token)
    router = load_behaviours()
    ctx = Context(Api(make_github(token), event.repository), config)
    ran = router.dispatch(event, ctx)
    label = inert.line(f"{event.name}.{event.action}" if event.action else event.name)
    if not ran:
        print(f"# {label}: no handler; nothing to do")
    for line in ctx.log:
        print(f"# {inert.line(line)}")
    for k, v in ctx.outputs.items():
        print(f"{k}={v}")
    actions.set_outputs(ctx.outputs)
    return 0
