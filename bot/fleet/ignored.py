"""The versions a template's reviewers ignored (``/executorch-pack-bot ignore``), as the fleet plan reads them.

Where the template keeps them (:mod:`bot.events.ignored`): with
``dashboard: true`` in the hidden state of its dashboard issue
(:mod:`bot.events.dashboard`), otherwise in the hidden state of the bot's
newest pull request that carries a list.  The plan reads them only for a
template that is behind its target (a no-op fleet run asks nothing more),
with the fleet's conditional requests (:class:`bot.fleet.remote.Remote`),
and reads only state the bot wrote:

* the dashboard is the oldest issue carrying
  :data:`bot.events.dashboard.MARKER` whose author is
  :data:`DASHBOARD_AUTHOR`, the account of the template workflow's
  ``GITHUB_TOKEN`` that writes it (docs/github-app.md: "Reviewers' commands,
  the approval job and the dashboard use the workflow's own
  ``GITHUB_TOKEN``"); looked for among the issues labelled
  :data:`bot.events.dashboard.LABEL` first, then among the issues that
  account opened, as :func:`bot.events.dashboard.find_issue` does.  An issue
  anyone else wrote is never read, whatever its label or text;
* a pull request counts when its body carries the bot's fingerprint, its
  head is in the template repository and on the bot's branch
  (:meth:`bot.events.ignored.PullStore.bot_pulls`' rule).

A dashboard's state is read from its state comment, by the rule the
template's own run reads it (:func:`bot.events.dashboard.load_state`).
The state block is parsed by :func:`bot.events.state.load` and the list
cleaned by :func:`bot.events.ignored.clean` (the template's own run reads
them so).  GitHub REST docs: "List repository issues" (``labels``,
``creator``, ``state=all``; pull requests appear there too, with a
``pull_request`` key), "List pull requests" (``head=OWNER:BRANCH``).
"""

from __future__ import annotations

from typing import Optional

from bot.errors import PlatformError
from bot.fleet.remote import MISSING, Remote

#: The login of the GitHub Actions ``GITHUB_TOKEN`` (docs/reviewers.md: the dashboard's author).
DASHBOARD_AUTHOR = "github-actions[bot]"

ISSUE_FIELDS = {"number": int, "author": str, "marked": bool, "ignored": list}


def _typed(value, fields: dict) -> bool:
    return isinstance(value, list) and all(
        isinstance(item, dict) and all(isinstance(item.get(k), t) and not (t is int and isinstance(item.get(k), bool))
                                       for k, t in fields.items())
        and all(isinstance(v, str) for v in item["ignored"]) for item in value)


def state_versions(body) -> Optional[list[str]]:
    """The ignored versions in a body's hidden state (``X.Y.Z``, sorted), or None when its state holds no
    ``ignored`` list (:func:`bot.events.state.load`, :func:`bot.events.ignored.versions`)."""
    from bot.events import ignored as ign
    from bot.events import state as hidden

    st = hidden.load(body if isinstance(body, str) else None)
    if not st or "ignored" not in st:
        return None
    return ign.versions(st.get("ignored"))


def _issues(items) -> list[dict]:
    """What the plan keeps of an issue listing: number, author, whether the body carries the dashboard's
    marker, and the ignored versions of its hidden state (the body itself is not kept)."""
    from bot.events.dashboard import MARKER

    out = []
    for i in items:
        if not isinstance(i, dict) or "pull_request" in i or not isinstance(i.get("number"), int) \
                or isinstance(i.get("number"), bool):
            continue
        user = i.get("user") if isinstance(i.get("user"), dict) else {}
        body = i.get("body") if isinstance(i.get("body"), str) else ""
        out.append({"number": i["number"], "author": user.get("login") if isinstance(user.get("login"), str) else "",
                    "marked": MARKER in body, "ignored": state_versions(body) or []})
    return out


def dashboard_ignored(remote: Remote, repository: str) -> tuple[list[str], str]:
    """(ignored versions, where they were read: ``the dashboard issue #N``) of ``repository``'s dashboard;
    ``([], "")`` when it has none.  One conditional request, two when no labelled issue is the dashboard.
    Raises :class:`~bot.errors.PlatformError` when GitHub refuses the listing (a token without Issues: read)."""
    def mine(issues):
        found = [i for i in issues if i["author"] == DASHBOARD_AUTHOR and i["marked"]]
        return min(found, key=lambda i: i["number"]) if found else None

    from bot.events.dashboard import LABEL

    for params, what in (({"labels": LABEL}, "list the dashboard issue"),
                         ({"creator": DASHBOARD_AUTHOR}, "list the issues the bot opened")):
        got = remote.get_pages(f"/repos/{repository}/issues", {**params, "state": "all", "per_page": 100},
                               what=f"{what} of {repository}", keep=_issues,
                               check=lambda v: _typed(v, ISSUE_FIELDS))
        if got is MISSING:
            raise PlatformError(f"cannot read the ignored versions of {repository}: GitHub answers 404 for its issues")
        issue = mine(got)
        if issue is not None:
            return _state_ignored(remote, repository, issue["number"]), f"the dashboard issue #{issue['number']}"
    return [], ""


def _state_ignored(remote: Remote, repository: str, number: int) -> list[str]:
    """The ignored versions in the state of ``repository``'s dashboard issue ``number``, read as the template's own
    run reads it (:func:`bot.events.dashboard.load_state`: the state comment :data:`DASHBOARD_AUTHOR` wrote and
    nobody else edited last, else the body of a dashboard from before the state comment, under the same rule),
    never the body's copy for people: a writer's edit of the body is undone only by the template's next run.
    One GraphQL query per 100 comments.  Raises :class:`~bot.errors.PlatformError` when GitHub refuses it."""
    from bot.events import ignored as ign
    from bot.events.context import Api
    from bot.events.dashboard import load_state

    stored = load_state(Api(remote.gh, repository), {"number": number}, author=DASHBOARD_AUTHOR)
    return ign.versions(stored.state.get("ignored")) if "ignored" in stored.state else []


def pulls_ignored(pulls: list[dict]) -> tuple[list[str], str]:
    """(ignored versions, ``#N``) from the newest of the bot's ``pulls`` (the plan's kept fields: ``number``,
    ``ours``, ``ignored`` a list or None) whose state holds a list; ``([], "")`` when none does."""
    for p in sorted(pulls, key=lambda p: -p["number"]):
        if p.get("ours") and isinstance(p.get("ignored"), list):
            return list(p["ignored"]), f"#{p['number']}"
    return [], ""
