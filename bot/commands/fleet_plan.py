"""``fleet-plan``: read the fleet list, check every template against upstream, and emit the fleet's matrices."""

from __future__ import annotations

import argparse
from pathlib import Path

NAME = "fleet-plan"
ORDER = 80
HELP = "check every template of a fleet list against upstream and emit the pack and pull-request matrices"
DESCRIPTION = ("Read the fleet list (--list, docs/fleet.md), read each template's ExecuTorch pins through the API "
               "(one conditional request per template when nothing changed, ETags kept in --cache), choose each "
               "one's target (its track's newest stable release), and write: packs, a strategy.matrix with one "
               "pack job per target pack version (X.Y.Z, or X.Y.Z-local: built); pull-requests, one job per "
               "template that needs the bump; pack-count, pull-request-count and requests, to $GITHUB_OUTPUT; "
               "the whole plan to --out for fleet-summary. A template that cannot be read, a repository the "
               "token cannot see, a duplicate or malformed entry is a row with its reason, never a failed run. "
               "Exit 2 for a list that is not a fleet list, 3 when upstream's releases cannot be listed.")


def register(p: argparse.ArgumentParser) -> None:
    p.add_argument("--list", required=True, type=Path, metavar="FILE", help="the fleet list (YAML, docs/fleet.md)")
    p.add_argument("--upstream", default="github:pytorch/executorch",
                   help="upstream ExecuTorch, github:OWNER/NAME (default: github:pytorch/executorch); not a local "
                        "path: the plan needs GitHub's releases listing (docs/fleet.md)")
    p.add_argument("--token", help="GitHub token that reads every template (default: $GITHUB_TOKEN): Contents, "
                                   "Pull requests and Metadata read; Metadata read on the organizations of discover:")
    p.add_argument("--cache", type=Path, metavar="FILE",
                   help="the ETag cache kept between runs (default: $EXECUTORCH_PACK_BOT_CACHE/fleet.json; none "
                        "when unset); with $EXECUTORCH_PACK_BOT_CACHE_KEY set, the file carries an HMAC made with "
                        "it and a file whose HMAC does not verify is not used")
    p.add_argument("--out", type=Path, metavar="FILE", help="write the plan (JSON) for fleet-summary")
    p.add_argument("--max-jobs", type=int, default=256, metavar="N",
                   help="pull-request jobs at most (GitHub runs 256 matrix jobs per workflow run at most; the rest "
                        "are deferred to the next run; default: 256)")
    p.add_argument("--pause", type=float, default=60.0, metavar="SECONDS",
                   help="pause before trying again the templates GitHub kept refusing for a rate limit, when "
                        "its answer gave no Retry-After or x-ratelimit-reset (doubles each time, 3 passes; "
                        "default: 60)")
    p.add_argument("--time-budget", type=float, default=1200.0, metavar="SECONDS",
                   help="the most the plan takes, every wait included: a request or a pass waits only for the time "
                        "left, and the templates not planned when it is used up are rows 'rate limited' (default: "
                        "1200, within the plan job's timeout-minutes of 30 and the App token's hour; at most 3600)")
    p.add_argument("--max-pause", type=float, default=900.0, metavar="SECONDS",
                   help="the longest pause between passes: when GitHub asks for a longer wait, the templates it "
                        "refused are rows 'rate limited' at once, planned by the next run (default: 900)")


#: Why the fleet plan takes upstream from GitHub only, where ``update`` and ``doctor`` also take a local path.
LOCAL_UPSTREAM_WHY = (
    "the fleet plan needs GitHub's releases listing, not a local repository's tags: each target release's pack "
    "asset decides whether its pack job fetches the pack or builds it, and the fleet workflow's pack and "
    "pull-request jobs run on other runners, where a local path does not exist; nor would a local upstream make "
    "the plan work offline, since every template's pins are read through GitHub's API (docs/fleet.md, "
    "The commands). For one template offline, run `update --upstream PATH` or `doctor --upstream PATH`")


def upstream_refusal(spec: str) -> str:
    """The usage error for an ``--upstream`` that is not ``github:OWNER/NAME``: a GitHub URL is pointed to its
    ``github:`` spelling (:func:`bot.sources.github_spec_hint`, as ``update`` does); an existing local path
    (a clone, a bare repository or a folder of tags, which ``update`` and ``doctor`` accept) is refused with
    :data:`LOCAL_UPSTREAM_WHY`."""
    from bot.sources import github_spec_hint

    hint = github_spec_hint(spec)
    if hint:
        return f"--upstream {spec}: a GitHub repository is named as {hint}; use --upstream {hint}"
    if spec.strip() and Path(spec).expanduser().exists():
        return f"--upstream {spec}: expected github:OWNER/NAME, not a local path: {LOCAL_UPSTREAM_WHY}"
    return f"--upstream {spec}: expected github:OWNER/NAME"


def run(args: argparse.Namespace) -> int:
    import os
    import re
    import sys

    from bot import actions, inert
    from bot.errors import UsageError
    from bot.fleet.cache import FleetCache
    from bot.fleet.listfile import load_fleet_list
    from bot.fleet.plan import Budget, discover, installation_repositories, make_plan
    from bot.fleet.remote import Remote
    from bot.github.client import make_github, token_from

    m = re.fullmatch(r"github:([A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+)", args.upstream.strip())
    if not m:
        raise UsageError(upstream_refusal(args.upstream))
    if not 1 <= args.max_jobs <= 256:
        raise UsageError(f"--max-jobs {args.max_jobs}: expected 1 to 256")
    for opt, value in (("--pause", args.pause), ("--max-pause", args.max_pause), ("--time-budget", args.time_budget)):
        if not value >= 0 or value == float("inf"):
            raise UsageError(f"{opt} {value:g}: expected a number of seconds, 0 or more")
    if args.time_budget > 3600:   # an App installation token lives one hour (bot.fleet.plan.TOKEN_LIFE)
        raise UsageError(f"--time-budget {args.time_budget:g}: at most 3600 seconds, the App token's life")
    if args.out is not None and (args.out.is_dir() or not args.out.parent.is_dir()):
        raise UsageError("cannot write the plan: " + ("is a directory" if args.out.is_dir()
                                                      else f"the folder {args.out.parent} does not exist"),
                         path=str(args.out))
    fleet = load_fleet_list(args.list)
    cache_path = args.cache
    if cache_path is None and os.environ.get("EXECUTORCH_PACK_BOT_CACHE"):
        cache_path = Path(os.environ["EXECUTORCH_PACK_BOT_CACHE"]) / "fleet.json"
    token = token_from(args.token)
    actions.add_mask(token)
    cache = FleetCache(cache_path, key=os.environ.get("EXECUTORCH_PACK_BOT_CACHE_KEY") or None)
    if cache.refused:
        print(f"# the cache file {cache_path}: {cache.refused}; every template is asked without an ETag",
              file=sys.stderr)
    budget = Budget(args.time_budget)
    remote = Remote(make_github(token), cache, policy=budget.policy)
    found = discover(remote, fleet) if fleet.discover else []
    installed = None
    if found:
        installed, why = installation_repositories(remote)
        if installed is None:
            print(inert.line(f"# cannot tell which repositories the App installation covers ({why}); the discovered "
                             "repositories are planned as the token sees them", cap=1000), file=sys.stderr)
    plan = make_plan(fleet, remote, m.group(1), discovered=found, pause=args.pause, limit=args.max_jobs,
                     max_pause=args.max_pause, budget=budget, installed=installed)
    cache.save()
    if args.out:
        import json
        try:
            args.out.write_text(json.dumps(plan.to_json(), indent=1) + "\n", encoding="utf-8")
        except OSError as exc:
            raise UsageError(f"cannot write the plan: {exc.strerror or exc}", path=str(args.out)) from None
    for row in plan.rows:
        what = f"{row.current or '?'} -> {row.target}" if row.target else (row.current or "")
        print(inert.line(f"{row.template}: {row.state}{' (' + what + ')' if what else ''}"
                         f"{': ' + row.reason if row.reason else ''}", cap=1000))
    templates = sum(1 for r in plan.rows if r.state != "refused entry")
    per = f" ({plan.requests / templates:.2f} per template)" if templates else ""
    print(f"# {plan.requests} requests{per}: {plan.conditional} conditional, {plan.not_modified} not modified",
          file=sys.stderr)
    import json
    actions.set_outputs({"packs": json.dumps(plan.matrix(plan.packs), separators=(",", ":")),
                         "builds": json.dumps(plan.matrix(plan.builds), separators=(",", ":")),
                         "pull-requests": json.dumps(plan.matrix(plan.pulls), separators=(",", ":")),
                         "pack-count": str(len(plan.packs)), "build-count": str(len(plan.builds)), "pull-request-count": str(len(plan.pulls)),
                         "requests": str(plan.requests)})
    return 0
