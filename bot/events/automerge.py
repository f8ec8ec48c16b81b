"""Approval that merges (opt-in, ``automerge: on-approval``): an approval enables GitHub's auto-merge for the approved commit.

Rules:

- An approving review (``pull_request_review`` ``submitted``, state
  ``approved``) by someone with write, maintain or admin permission, on the
  bot's open pull request, enables auto-merge with the configured
  ``merge-method`` (GraphQL ``enablePullRequestAutoMerge``) for exactly the
  commit the review approved: the review's ``commit_id`` must be the PR's
  head (in the event and in a fresh read of the PR), and the mutation carries
  it as ``expectedHeadOid``, so GitHub refuses when the head moved between
  the read and the request.  A review of another commit gets a reply and
  nothing else.  The bot never merges directly.
- The repository's own rules decide the merge: GitHub's auto-merge waits for
  the required approvals and checks.  The bot refuses, replying why, when
  auto-merge is not allowed, when no status check is required on the base
  branch (GitHub would then merge at once, tests failing or not), when the
  base branch merges through a merge queue, and when it cannot read the
  branch's protection or rules (it cannot tell what GitHub would do): the
  merge is then left to people.
- Whenever the PR's head changes (``pull_request_target`` ``synchronize``,
  whoever pushed, or the bot's own push: :func:`disable_after_push`) while
  auto-merge is on, auto-merge is turned off until a writer approves the new
  head: an approval covers the commit the approver saw, nothing pushed after.
- The approval that turned auto-merge on is the bot's responsibility for as
  long as it stands.  Every event that withdraws consent turns auto-merge off
  (GraphQL ``disablePullRequestAutoMerge``) and the bot says so on the PR: a
  writer's "changes requested" review (``pull_request_review``
  ``submitted``, state ``changes_requested``), the dismissal of a review
  (``pull_request_review`` ``dismissed``: the approval may be the one
  dismissed), a hold label (:data:`HOLD_LABELS`, ``pull_request_target``
  ``labeled``) and converting the PR to a draft (``pull_request_target``
  ``converted_to_draft``).  A later approval does not turn auto-merge on
  again while a writer's latest review still asks for changes, the PR is a
  draft or it carries a hold label (:func:`standing_objection`, read from
  the API: "List reviews for a pull request", "Get a pull request").
- With the workflow's ``GITHUB_TOKEN`` (no App token or PAT), the merge
  GitHub makes starts no workflow (GitHub does not start runs from that
  token's events): the reply says so, because the template's CI then never
  runs on the merged bump.

Facts (GitHub docs): "Automatically merging a pull request" (auto-merge
must be allowed in the repository settings; ``allow_auto_merge`` in "Get a
repository"; auto-merge waits for required reviews and checks); GraphQL
``EnablePullRequestAutoMergeInput`` (``pullRequestId``, ``mergeMethod``:
``MERGE``, ``SQUASH``, ``REBASE``; ``expectedHeadOid``: "the expected head
OID of the pull request", a ``GitObjectID``) and
``disablePullRequestAutoMerge``; "Get a branch" answers
``protection.required_status_checks`` (``contexts``, ``checks``) and
``protection.required_pull_request_reviews``; "Get rules for a branch"
(``GET /repos/{o}/{r}/rules/branches/{branch}``) lists active ruleset rules
(types ``required_status_checks``, ``pull_request``, ``merge_queue``);
"Triggering a workflow from a workflow" (events made with ``GITHUB_TOKEN``
start no new run); the ``pull_request_review`` payload's
``review.commit_id`` is the commit the review is of.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Optional
from urllib.parse import quote

from bot import inert
from bot.errors import PlatformError
from bot.events.event import is_bot
from bot.events.registry import router

ENABLE = ("mutation($id: ID!, $method: PullRequestMergeMethod!, $head: GitObjectID!) { enablePullRequestAutoMerge("
          "input: {pullRequestId: $id, mergeMethod: $method, expectedHeadOid: $head}) { pullRequest { number } } }")
DISABLE = "mutation($id: ID!) { disablePullRequestAutoMerge(input: {pullRequestId: $id}) { pullRequest { number } } }"
LEFT_TO_PEOPLE = "Merge this pull request by hand when it is ready."
HOLD_LABELS = ("do-not-merge", "do not merge", "do-not-merge/hold", "hold", "on hold", "wip", "work in progress")
"""Labels (compared without regard to case) with which a writer holds a PR: adding one turns auto-merge off, and
no approval turns it on while one is there (Prow's ``do-not-merge/hold``, the common ``do not merge``/``WIP``)."""


def is_hold_label(name: str) -> bool:
    """True when label ``name`` is one of :data:`HOLD_LABELS` (case and surrounding blanks ignored)."""
    return str(name or "").strip().lower() in HOLD_LABELS


def standing_objection(ctx, number: int, pull: dict) -> Optional[str]:
    """Why no approval may turn auto-merge on for PR ``number`` now (its fresh JSON ``pull``), or None.

    A writer's latest review of the PR asks for changes (each reviewer's newest
    ``APPROVED``/``CHANGES_REQUESTED``/``DISMISSED`` review counts, as GitHub
    counts a reviewer's state; every page of "List reviews for a pull request"),
    the PR is a draft, or it carries a hold label."""
    if pull.get("draft"):
        return "this pull request is a draft"
    held = [str(lab.get("name")) for lab in pull.get("labels") or () if isinstance(lab, dict)
            and is_hold_label(str(lab.get("name") or ""))]
    if held:
        return f"the label {inert.code(held[0])} holds this pull request"
    latest: dict[str, str] = {}
    for r in ctx.api.list(f"pulls/{number}/reviews", f"list the reviews of #{number}"):
        login = str(((r or {}).get("user") or {}).get("login") or "")
        state = str((r or {}).get("state") or "").upper()
        if login and state in ("APPROVED", "CHANGES_REQUESTED", "DISMISSED"):
            latest[login] = state
    for login, state in latest.items():
        if state == "CHANGES_REQUESTED" and ctx.is_writer(login):
            return f"{inert.line(login)} asked for changes and has not approved since"
    return None


def _withdraw(event, ctx, why: str) -> None:
    """Turn auto-merge off on the bot's open PR of ``event`` when it is on, and say ``why`` on the PR."""
    number = event.number("pull_request", "number")
    if number is None or ctx.config.automerge != "on-approval":
        return
    pr = ctx.bot_pull(number, data=event.obj("pull_request"))
    if pr is None:
        return
    now = ctx.api.get(f"pulls/{pr.number}", f"read pull request #{pr.number}") or {}
    if now.get("state", "open") != "open":
        return
    if not now.get("auto_merge"):
        ctx.say(f"auto-merge was not on for #{pr.number}; nothing to turn off ({why})")
        return
    ctx.api.graphql(DISABLE, {"id": now.get("node_id") or pr.node_id}, f"disable auto-merge on #{pr.number}")
    ctx.reply(pr.number, f"Auto-merge is off: {why}. A writer's approval of the head commit turns it on again "
                         "once nothing holds the pull request.")
    ctx.say(f"auto-merge turned off on #{pr.number}: {why}")


@dataclass(frozen=True)
class BranchRules:
    """What the base branch requires before a merge: ``checks`` (status check names, in the order read),
    ``approvals`` (the most approving reviews any rule asks for, 0 for none) and ``merge_queue`` (True when
    a ruleset sends merges through a merge queue)."""

    checks: tuple = field(default=())
    approvals: int = 0
    merge_queue: bool = False


def branch_rules(api, branch: str) -> BranchRules:
    """The rules of ``branch`` from branch protection ("Get a branch") and rulesets ("Get rules for a branch").

    Two requests.  A 404 of the rules request (GitHub Enterprise without
    rulesets) counts as no ruleset.  Raises :class:`PlatformError` when either
    cannot be read otherwise (the caller then cannot tell what GitHub would do).
    """
    b = quote(branch, safe="")
    data = api.get(f"branches/{b}", f"read branch {branch}") or {}
    prot = data.get("protection") or {}
    rsc = prot.get("required_status_checks") or {}
    names = [str(c) for c in rsc.get("contexts") or ()]
    names += [str(c.get("context")) for c in rsc.get("checks") or () if isinstance(c, dict)]
    approvals = _count((prot.get("required_pull_request_reviews") or {}).get("required_approving_review_count"))
    try:
        # a paginated list (OpenAPI "repos/get-branch-rules": per_page, page; 30 by default): every page
        rules = api.list(f"rules/branches/{b}", f"read the rules of branch {branch}")
    except PlatformError as exc:
        if "HTTP 404" not in str(exc):
            raise
        rules = []
    queue = False
    for r in rules:
        if not isinstance(r, dict):
            continue
        params = r.get("parameters") or {}
        if r.get("type") == "required_status_checks":
            names += [str(c.get("context")) for c in params.get("required_status_checks") or () if isinstance(c, dict)]
        elif r.get("type") == "pull_request":
            approvals = max(approvals, _count(params.get("required_approving_review_count")))
        elif r.get("type") == "merge_queue":
            queue = True
    checks = tuple(dict.fromkeys(n for n in names if n and n != "None"))
    return BranchRules(checks, approvals, queue)


def _count(v) -> int:
    return v if isinstance(v, int) and not isinstance(v, bool) and v > 0 else 0


def refusal(api, base: str) -> tuple[Optional[str], BranchRules]:
    """Why auto-merge must not be enabled for a PR into ``base`` (None when it may be), and the branch's rules."""
    try:
        repo = api.get(f"/repos/{api.full_name}", "read the repository settings") or {}
        rules = branch_rules(api, base)
    except PlatformError as exc:
        return (f"the bot could not read the rules of {inert.code(base)} ({inert.line(exc.message, cap=200)}), so it "
                "cannot tell what GitHub would merge"), BranchRules()
    if repo.get("allow_auto_merge") is False:
        return ("auto-merge is not allowed in this repository (Settings > General > Pull Requests > "
                "Allow auto-merge)"), rules
    if rules.merge_queue:
        return f"{inert.code(base)} merges through a merge queue, which the bot leaves to people", rules
    if not rules.checks:
        return (f"no status check is required on {inert.code(base)} (branch protection or a ruleset), so GitHub "
                "would merge at once whether the checks pass or not"), rules
    return None, rules


def _refuse(ctx, number: int, why: str) -> None:
    ctx.reply(number, f"Auto-merge was not enabled: {why}. {LEFT_TO_PEOPLE}")
    ctx.say(f"auto-merge not enabled on #{number}: {why}")


@router.register("pull_request_review", action="submitted")
def approval_enables_automerge(event, ctx) -> None:
    """With ``automerge: on-approval``, an approving review by a writer of the bot's open PR's head commit
    enables auto-merge for that commit (``expectedHeadOid``); never a direct merge.  An approval of an older
    commit, a repository that does not allow auto-merge, a base branch without a required check or with a
    merge queue, and rules the bot cannot read get a reply and nothing else.  Other reviews, reviews by bots
    or by people without write permission, and reviews of other PRs are ignored without a write request."""
    event.obj("review")                        # an object or absent, else exit 2
    pull = event.obj("pull_request")
    if event.text("review", "state").lower() == "changes_requested":
        changes_requested_turns_automerge_off(event, ctx)
        return
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
    approved = event.text("review", "commit_id")
    now = ctx.api.get(f"pulls/{pr.number}", f"read pull request #{pr.number}") or {}
    head = str((now.get("head") or {}).get("sha") or "")
    if now.get("state", "open") != "open":
        return
    if not approved or approved != event.text("pull_request", "head", "sha") or approved != head:
        _refuse(ctx, pr.number, f"the approval is of commit {inert.code(approved[:12] or 'unknown')}, but the head "
                                f"of this pull request is now {inert.code(head[:12] or 'unknown')}; approve the head "
                                "commit to turn auto-merge on")
        return
    base = event.text("pull_request", "base", "ref")
    held = standing_objection(ctx, pr.number, now)
    if held is not None:
        _refuse(ctx, pr.number, held)
        return
    why, rules = refusal(ctx.api, base)
    if why is None:
        try:
            ctx.api.graphql(ENABLE, {"id": pr.node_id, "method": ctx.config.merge_method.upper(), "head": head},
                            f"enable auto-merge on #{pr.number}")
        except PlatformError as exc:
            why = inert.markdown(exc.message, cap=300)   # GitHub's words: made inert
    if why is not None:
        _refuse(ctx, pr.number, why)
        return
    needs = f"{len(rules.checks)} required check{'s' if len(rules.checks) != 1 else ''} pass"
    if rules.approvals:
        needs += f" and it has the {rules.approvals} required approving review{'s' if rules.approvals != 1 else ''}"
    text = (f"Approved: auto-merge is on ({ctx.config.merge_method}) for commit {inert.code(head[:12])}; GitHub "
            f"merges this pull request when its {needs}. Any new push turns it off until a new approval.")
    if os.environ.get("EXECUTORCH_PACK_BOT_DEFAULT_TOKEN") == "true":
        text += (" Note: auto-merge was enabled with the workflow's GITHUB_TOKEN, so the merge starts no workflow "
                 "(the base branch's CI does not run on it); give the workflow a GitHub App (app-id) to avoid that.")
    ctx.reply(pr.number, text)
    ctx.say(f"auto-merge enabled on #{pr.number} for {head[:12]}")


def changes_requested_turns_automerge_off(event, ctx) -> None:
    """A "changes requested" review by a writer of the bot's open PR turns auto-merge off (when it is on) and the
    bot says so: the reviewer's word outweighs an earlier approval.  Reviews by bots or by people without write
    permission change nothing."""
    if ctx.config.automerge != "on-approval":
        return
    login = event.text("review", "user", "login")
    if is_bot(event.obj("review", "user")) or is_bot(event.sender) or not login:
        return
    if not ctx.is_writer(login):
        ctx.say(f"changes requested by {inert.line(login)}, who has no write permission: auto-merge left as it is")
        return
    _withdraw(event, ctx, f"{inert.line(login)} asked for changes")


@router.register("pull_request_review", action="dismissed")
def dismissal_turns_automerge_off(event, ctx) -> None:
    """The dismissal of a review of the bot's open PR turns auto-merge off (when it is on) and the bot says so:
    the dismissed review may be the approval that turned it on, and only a standing approval keeps it on."""
    event.obj("review")
    if is_bot(event.sender):
        return
    who = inert.line(event.text("sender", "login") or "someone")
    _withdraw(event, ctx, f"{who} dismissed a review of {inert.line(event.text('review', 'user', 'login') or 'someone')}")


@router.register("pull_request_target", action="labeled")
def hold_label_turns_automerge_off(event, ctx) -> None:
    """A hold label (:data:`HOLD_LABELS`) added to the bot's open PR turns auto-merge off (when it is on) and the
    bot says so.  Other labels, and labels a bot adds, change nothing."""
    name = event.text("label", "name")
    if not is_hold_label(name) or is_bot(event.sender):
        return
    _withdraw(event, ctx, f"the label {inert.code(name)} holds this pull request")


@router.register("pull_request_target", action="converted_to_draft")
def draft_turns_automerge_off(event, ctx) -> None:
    """Converting the bot's open PR to a draft turns auto-merge off (when it is on) and the bot says so."""
    if is_bot(event.sender):
        return
    _withdraw(event, ctx, f"{inert.line(event.text('sender', 'login') or 'someone')} converted it to a draft")


@router.register("pull_request_target", action="synchronize")
def push_turns_automerge_off(event, ctx) -> None:
    """When the head of the bot's open PR changes, by whoever pushed, and auto-merge is on, auto-merge is turned
    off and the bot says so: the approval covered the old head, not the new commit.  Other PRs, and PRs
    without auto-merge (read fresh from the API: the bot's own push already turned it off), cost no write."""
    event.obj("pull_request")
    number = event.number("pull_request", "number")
    if number is None or ctx.config.automerge != "on-approval":
        return
    pr = ctx.bot_pull(number, data=event.obj("pull_request"))
    if pr is None:
        return
    now = ctx.api.get(f"pulls/{pr.number}", f"read pull request #{pr.number}") or {}
    if not now.get("auto_merge") or now.get("state", "open") != "open":
        return
    head = str((now.get("head") or {}).get("sha") or event.text("after"))
    ctx.api.graphql(DISABLE, {"id": now.get("node_id") or pr.node_id}, f"disable auto-merge on #{pr.number}")
    ctx.reply(pr.number, f"The head of this pull request moved to {inert.code(head[:12] or 'a new commit')}, which "
                         "no approval covers, so auto-merge is off until the new head is approved.")
    ctx.say(f"auto-merge turned off on #{pr.number}: the head moved")


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
