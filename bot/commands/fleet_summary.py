"""``fleet-summary``: one row per template of a fleet run, or the record of one pull-request job's result."""

from __future__ import annotations

import argparse
from pathlib import Path

NAME = "fleet-summary"
ORDER = 81
HELP = ("one row per template of a fleet run (job summary, optional dashboard issue), or record one pull-request "
        "job's result")
DESCRIPTION = ("With --plan (fleet-plan --out) and --results (a folder of recorded results): print the fleet's "
               "table (current version, target, state, pull request, flagged items, last run) and append it to "
               "the job summary; with --dashboard OWNER/NAME also create or edit the fleet dashboard issue there. "
               "With --record FILE: write one pull-request job's result (--key, --status, --action, --pr-url, "
               "--plan-file) for the summary job.")


def register(p: argparse.ArgumentParser) -> None:
    p.add_argument("--plan", type=Path, metavar="FILE", help="the fleet plan written by fleet-plan --out")
    p.add_argument("--results", type=Path, metavar="DIR", help="folder holding the recorded results (any depth)")
    p.add_argument("--dashboard", metavar="OWNER/NAME",
                   help="create or edit the fleet dashboard issue in this repository (token: Issues write)")
    p.add_argument("--token", help="GitHub token for --dashboard (default: $GITHUB_TOKEN)")
    p.add_argument("--record", type=Path, metavar="FILE", help="write one pull-request job's result to FILE")
    p.add_argument("--key", help="--record: the matrix entry's key")
    p.add_argument("--status", default="", help="--record: the job's status (success, failure, cancelled)")
    p.add_argument("--action", default="", help="--record: what publish did (its action output)")
    p.add_argument("--pr-url", default="", help="--record: the pull request's link (publish's pr-url output)")
    p.add_argument("--plan-file", type=Path, help="--record: update's --plan-file, for the flagged items")
    p.add_argument("--error-file", type=Path,
                   help="--record: the job's $EXECUTORCH_PACK_BOT_ERROR_FILE; its last line says why the job failed")


def _run_url() -> str:
    import os
    server, repo, run = (os.environ.get(k, "") for k in ("GITHUB_SERVER_URL", "GITHUB_REPOSITORY", "GITHUB_RUN_ID"))
    return f"{server}/{repo}/actions/runs/{run}" if server and repo and run else ""


def run(args: argparse.Namespace) -> int:
    import json
    import re

    from bot import actions
    from bot.errors import UsageError
    from bot.events.dashboard import now_text
    from bot.fleet import summary

    if args.record is not None:
        if not args.key or not re.fullmatch(r"[A-Za-z0-9._-]{1,200}", args.key):
            raise UsageError("--record needs --key, the matrix entry's key (letters, digits, '.', '-', '_')")
        res = summary.record(args.key, status=args.status, action=args.action, pr_url=args.pr_url,
                             plan_file=args.plan_file, run_url=_run_url(), when=now_text(),
                             error=summary.last_error(args.error_file) if args.status != "success" else "")
        try:
            args.record.parent.mkdir(parents=True, exist_ok=True)
            args.record.write_text(json.dumps(res, indent=1) + "\n", encoding="utf-8")
        except OSError as exc:
            raise UsageError(f"cannot write the result: {exc.strerror or exc}", path=str(args.record)) from None
        print(f"recorded {args.key}: {args.status or '?'} {args.action}".rstrip())
        return 0
    if args.plan is None:
        raise UsageError("give --plan FILE (with --results DIR), or --record FILE")
    if args.dashboard and not re.fullmatch(r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+", args.dashboard):
        raise UsageError(f"--dashboard {args.dashboard}: expected OWNER/NAME")
    plan = summary.load_plan(args.plan)
    table = summary.rows(plan, summary.load_results(args.results), run_url=_run_url(), when=now_text())
    text = summary.render(plan, table)
    print(text, end="")
    actions.append_summary(text)
    if args.dashboard:
        from bot.github.client import make_github, token_from
        token = token_from(args.token)
        actions.add_mask(token)
        # the planned-only rows without this run's link and time: the body changes only when a row does
        quiet = summary.render(plan, summary.rows(plan, summary.load_results(args.results)), requests=False)
        run = _run_url()
        done, number = summary.save_dashboard(make_github(token), args.dashboard, quiet,
                                              whole_at=f"in the [job summary of this run]({run})" if run else None)
        print(f"# fleet dashboard issue #{number}: {done}")
    return 0
