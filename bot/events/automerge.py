"""Approval that merges (opt-in, ``automerge: on-approval``): an approval enables GitHub's auto-merge.

Rules:

- An approving review (``pull_request_review`` ``submitted``, state
  ``approved``) by someone with write, maintain or admin permission, on the
  bot's open pull request, enables auto-merge with the configured
  ``merge-method`` (GraphQL ``enablePullRequestAutoMerge``): GitHub merges
  the PR once the required checks pass.  The bot never merges directly.
- When the repository does not allow auto-merge, or neither branch
  protection nor a ruleset requires status checks on the base branch
  (GitHub would then merge at once, tests failing or not), the bot replies
  with the reason and does nothing else.
- A new push by the bot to a PR with auto-merge on turns it off
  (:func:`disable_after_push`, called by the publisher) until a writer
  approves again: an approval covers what the approver saw.

Facts (GitHub docs): "Automatically merging a pull request" (auto-merge
must be allowed in the repository settings; ``allow_auto_merge`` in "Get a
repository"); GraphQL mutations ``enablePullRequestAutoMerge`` (input
``pullRequestId``, ``mergeMethod``: ``MERGE``, ``SQUASH``, ``REBASE``) and
``disablePullRequestAutoMerge``; "Get a branch" answers
``protection.required_status_checks`` (``contexts``, ``checks``); "Get
rules for a branch" (``GET /repos/{o}/{r}/rules/branches/{branch}``) lists
active ruleset rules, type ``required_status_checks``.
"""

from __future__ import annotations

from typing import Optional

from bot import inert
from bot.errors import PlatformError
from bot.events.event import is_bot
from bot.events.router import router

ENABLE = ("mutation($id: ID!, $method: PullRequestMergeMethod!) { enablePullRequestAutoMerge(input: "
          "{pullRequestId: $id, mergeMethod: $method}) { pullRequest { number } } }")
DISABLE = "mutation($id: ID!) { disablePullRequestAutoMerge(input: {pullRequestId: $id}) { pullRequest { number } } }"


def required_checks(api, branch: str) -> list[str]:
    """Names of the status checks required on ``branch`` by branch protection or a ruleset (``[]``: none).

    Two requests: "Get a branch" and "Get rules for a branch" (a 404 of the
    latter, as on GitHub Enterprise without rulesets, counts as no rules).
    """
    from urllib.parse import quote

    b = quote(branch, safe="")
    data = api.get(f"branches/{b}", f"read branch {branch}") or {}
    names: list[str] = []
    rsc = ((data.get("protection") or {}).get("required_status_checks") or {})
    names += [str(c) for c in rsc.get("contexts") or ()]
    names += [str(c.get("context")) for c in rsc.get("checks") or () if isinstance(c, dict)]
    try:
        rules = api.get(f"rules/branches/{b}", f"read the rules of branch {branch}") or []
    except PlatformError as exc:
        if "HTTP 404" not in str(exc):
            raise
        rules = []
    for r in rules:
        if isinstance(r, dict) and r.get("type") == "required_status_checks":
            params = r.get("parameters") or {}
            names += [str(c.get("context")) for c in params.get("required_status_checks") or () if isinstance(c, dict)]
    return list(dict.fromkeys(n for n in names if n and n != "None"))


def refusal(api, base: str) -> Optional[str]:
    """Why auto-merge must not be enabled for a PR into ``base``, or None when it may be."""
    repo = api.get(f"/repos/{api.full_name}", "read the repository settings") or {}
    if repo.get("allow_auto_merge") is False:
        return ("auto-merge is not allowed in this repository (Settings > General > Pull Requests > "
                "Allow auto-merge)")
    if not required_checks(api, base):
        return (f"no status check is required on {inert.code(base)} (branch protection or a ruleset), so GitHub "
                "would merge at once whether the checks pass or not")
    return None


@router.register("pull_request_review", action="submitted")
def approval_enables_automerge(event, ctx) -> None:
    """With ``automerge: on-approval``, an approving review by a writer on the bot's open PR enables auto-merge;
    never a direct merge.  When auto-merge is not allowed or no check is required, the bot replies why and
    does nothing.  Other reviews, reviews by bots or by people without write permission, and reviews of other
    PRs are ignored without a write request."""
    event.obj("review")                        # an object or absent, else exit 2
    pull = event.obj("pull_request")
    if event.text("review", "state").lower() != "approved" or ctx.config.automerge != "on-approval":
        return
    number = event.number("pull_request", "number")
    if is_bot(event.obj("review", "user")) or is_bot(event.sender) or number is None:
        return
    pr = ctx.bot_pull(number, data=pull)
    if pr is None or pull.get("state", "open") != "open":
        return
    login = event.text("review", "user", "login")
    if not ctx.is_writer(login):
        ctx.say(f"approval of #{pr.number} by a user without write permission: auto-merge not enabled")
        return
    base = event.text("pull_request", "base", "ref")
    why = refusal(ctx.api, base)
    if why is None:
        try:
            ctx.api.graphql(ENABLE, {"id": pr.node_id, "method": ctx.config.merge_method.upper()},
                            f"enable auto-merge on #{pr.number}")
        except PlatformError as exc:
            why = inert.markdown(exc.message, cap=300)   # GitHub's words: made inert
    if why is not None:
        ctx.reply(pr.number, f"Auto-merge was not enabled: {why}. Merge this pull request by hand when it is ready.")
        ctx.say(f"auto-merge not enabled on #{pr.number}: {why}")
        return
    ctx.reply(pr.number, f"Approved: auto-merge is on ({ctx.config.merge_method}); GitHub merges this pull request "
                         "when the required checks pass. A new push by the bot turns it off until a new approval.")
    ctx.say(f"auto-merge enabled on #{pr.number}")


def disable_after_push(gh, full_name: str, pr_number: int, pr_data: dict) -> bool:
    """After the bot pushed to PR ``pr_number``: turn auto-merge off when it is on, and say so on the PR.

    ``pr_data`` is the PR's JSON (``auto_merge``, ``node_id``).  Returns
    True when auto-merge was turned off.  Raises :class:`PlatformError`
    when GitHub refuses.
    """
    from bot.events.context import Api

    if not pr_data.get("auto_merge"):
        return False
    api = Api(gh, full_name)
    api.graphql(DISABLE, {"id": pr_data.get("node_id")}, f"disable auto-merge on #{pr_number}")
    api.post(f"issues/{pr_number}/comments",
             {"body": "The bot pushed a new commit, so auto-merge is off until this pull request is approved again."},
             f"comment on #{pr_number}")
    return True
