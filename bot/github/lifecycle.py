"""How a bot pull request ended, read from GitHub: merged, rejected by a person, or closed by deleting its branch.

GitHub closes an open pull request when its head branch is deleted (GitHub
docs, "Deleting and restoring branches in a pull request"), and records a
``head_ref_deleted`` issue event before the ``closed`` one (GitHub REST
docs, "Issue event types").  The bot tells a reviewer who pushed to its
branch to delete the branch to hand it back; a pull request closed that way
is not a rejection of the pins it proposed, so a later run proposes them
again.  A pull request a person closed (the ``closed`` event comes first,
with the branch still there) is a rejection: the same pins are not proposed
again, newer ones are.
"""

from __future__ import annotations

from bot.github import pages
from bot.github.client import call


def merged(pr) -> bool:
    """True when ``pr`` was merged (``merged_at`` of the listing; ``merged`` asked only when that is absent)."""
    if getattr(pr, "merged_at", None) is not None:
        return True
    return bool(call(lambda: pr.merged, f"read #{pr.number}"))


def closed_by_branch_deletion(pr) -> bool:
    """True when ``pr`` was closed because its head branch was deleted.

    Read from its issue events (every page, through :func:`bot.github.pages.every`): the first ``head_ref_deleted``
    comes no later than the first ``closed`` (GitHub stamps both in the same
    second when the deletion closes the pull request; a person who closes it
    and deletes the branch afterwards leaves them in the other order), or
    there is no ``closed`` event at all.
    """
    events = [(e.event, e.created_at) for e in pages.every(pr.get_issue_events(), what=f"list the events of #{pr.number}",
                                                            call=call)]
    deleted = next((when for ev, when in events if ev == "head_ref_deleted"), None)
    closed = next((when for ev, when in events if ev == "closed"), None)
    if deleted is None:
        return False
    if closed is None or deleted <= closed:
        return True
    return False


def rejected(pr) -> bool:
    """True when ``pr`` (a closed bot pull request) was closed unmerged by a person: its pins are not proposed again."""
    return not merged(pr) and not closed_by_branch_deletion(pr)


def last_pull_merged(pulls) -> bool:
    """True when the newest of ``pulls`` (closed bot pull requests of one branch) was merged.

    Then whatever is on the branch, a person's commits included, already
    reached the base (merged, rebased or squashed): the bot may reuse the branch.
    """
    pulls = sorted(pulls, key=lambda p: p.number)
    return bool(pulls) and merged(pulls[-1])
