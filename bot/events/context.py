"""What an event handler may ask GitHub and do: who may command the bot, which PR is the bot's, reply, react.

Every request goes through PyGithub's requester (the token in one
``Authorization`` header, never in a URL) and :func:`bot.github.client.call`
(bounded retries of transient faults, the token masked from every message).

Facts (GitHub REST docs):

- "Get repository permissions for a user"
  (``GET /repos/{owner}/{repo}/collaborators/{username}/permission``):
  ``permission`` is ``admin``, ``write``, ``read`` or ``none`` (maintain
  reads as ``write``), ``role_name`` the role itself (``maintain``,
  ``triage``, ...).  ``author_association`` in a payload only says how the
  user relates to the repository (a ``CONTRIBUTOR`` may have no write access
  at all), so it is never trusted for a decision.
- "Create reaction for an issue comment"
  (``POST /repos/{owner}/{repo}/issues/comments/{id}/reactions``, content
  ``+1``, ``-1``, ``confused``, ...); "Create an issue comment"
  (``POST /repos/{owner}/{repo}/issues/{number}/comments``) also comments on a PR.
- "Get a pull request": ``head.ref``, ``head.repo.full_name`` (another
  repository for a fork), ``node_id`` (for GraphQL), ``auto_merge``.
- GraphQL ``viewer { login }``: the account the token acts as, the bot's
  identity, by which its dashboard and its replies are recognised.  It is
  allowed for a GitHub App installation token (unlike REST ``GET /user``,
  which answers "Resource not accessible by integration" to one:
  actions/create-github-app-token#258, neuralinkcorp/datarepo#62) and
  answers the app's bot account with the suffix, ``SLUG[bot]``
  (fullsend-ai/fullsend#1953: ``viewer`` gave ``fullsend-ai-coder[bot]``
  for an installation token); the workflow's ``GITHUB_TOKEN`` is the
  installation token of the GitHub Actions app ("Automatic token
  authentication"), so ``github-actions[bot]`` (PSModule/GitHub#154 logs
  "Logged in as github-actions[bot]" from ``viewer``).  That is the form
  REST gives in ``user.login``.  A ``Bot`` *actor* elsewhere in GraphQL
  (``author``, ``editor``) has no suffix (fullsend-ai/fullsend#6205,
  palantir/policy-bot 1.4.1), so :func:`viewer_login` asks ``__typename``
  too and adds the suffix to a ``Bot`` login without one, whichever form
  GitHub answers.
- "List issue comments" (``GET /repos/{o}/{r}/issues/{number}/comments``,
  ``per_page`` at most 100).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional
from urllib.parse import quote

from bot.limits import fit, fit_payload
from bot.config import Config
from bot.errors import PlatformError
from bot.events.state import proposed_version
from bot.github.client import call
from bot.report import parse_fingerprint

WRITERS = ("admin", "maintain", "write")


class Api:
    """REST and GraphQL calls for one repository through a ``github.Github``'s requester.

    ``writes`` lists ``"METHOD path"`` of every write request made (for the
    job log: what a handler did).
    """

    def __init__(self, gh, full_name: str):
        self.gh = gh
        self.full_name = full_name
        self.writes: list[str] = []
        self._viewer: Optional[str] = None

    def _req(self, method: str, path: str, what: str, *, params: Optional[dict] = None, body: Any = None):
        url = path if path.startswith("/") else f"/repos/{self.full_name}/{path}"
        if method != "GET":
            self.writes.append(f"{method} {url}")
        # every text key of a write (body, title, message) within GitHub's limit: the one writer, bot.limits
        sent = fit_payload(body)
        return call(lambda: self.gh.requester.requestJsonAndCheck(method, url, parameters=params, input=sent)[1],
                    what)

    def get(self, path: str, what: str, **params) -> Any:
        """GET ``/repos/OWNER/NAME/{path}`` (or an absolute API path) and return the JSON."""
        return self._req("GET", path, what, params=params or None)

    def list(self, path: str, what: str, *, max_pages: Optional[int] = None, **params):
        """Every item of the list ``GET /repos/OWNER/NAME/{path}?params`` (or an absolute API path), all pages
        (``per_page=100``), through the one reader :func:`bot.github.pages.rest`: a
        :class:`~bot.github.pages.Listing` (``complete`` False, and a warning, when ``max_pages`` cut it)."""
        from bot.github import pages

        url = path if path.startswith("/") else f"/repos/{self.full_name}/{path}"
        return pages.rest(self.gh.requester, url, params, what=what, call=call,
                          max_pages=max_pages or pages.MAX_PAGES)

    def post(self, path: str, body: Any, what: str) -> Any:
        return self._req("POST", path, what, body=body)

    def patch(self, path: str, body: Any, what: str) -> Any:
        return self._req("PATCH", path, what, body=body)

    def graphql(self, query: str, variables: dict, what: str) -> dict:
        """POST a GraphQL document (GitHub GraphQL API; ``/graphql`` beside the REST base) and return ``data``.

        A mutation is recorded in :attr:`writes`; a query is a read.  Raises
        :class:`~bot.errors.PlatformError` when the answer or its ``data`` is not a JSON object."""
        if query.lstrip().startswith("mutation"):
            self.writes.append("POST /graphql")
        out = call(lambda: self.gh.requester.graphql_query(query, fit_payload(variables))[1], what)
        data = out.get("data") if isinstance(out, dict) else out
        if data is not None and not isinstance(data, dict):   # an answer of another shape: not GitHub's GraphQL
            raise PlatformError(f"cannot {what}: GitHub's GraphQL answer is not the expected shape "
                                f"({'data' if isinstance(out, dict) else 'the answer'} is not an object)")
        return data or {}


def viewer_login(api: Api) -> str:
    """The REST login of the account ``api``'s token acts as (GraphQL ``{ viewer { login __typename } }``;
    ``NAME[bot]`` for an app's bot account, suffix added when GitHub leaves it out), asked once per
    :class:`Api`; ``""`` when GitHub names none."""
    if api._viewer is None:
        data = api.graphql("query { viewer { login __typename } }", {}, "read the bot's own login")
        viewer = data.get("viewer") or {}
        login = str(viewer.get("login") or "")
        api._viewer = login + "[bot]" if login and viewer.get("__typename") == "Bot" and not login.endswith(
            "[bot]") else login
    return api._viewer


@dataclass
class BotPull:
    """The bot's pull request: number, head branch, the version it proposes (from the bot's own record:
    :func:`bot.events.state.proposed_version`; None when the record names none), node id, JSON."""

    number: int
    head: str
    version: Optional[str]
    node_id: str
    data: dict


@dataclass
class Context:
    """What handlers share for one event: the API, the template's config, and the decision so far.

    ``outputs`` are the step outputs (``action``, ``version``, ``pr``);
    ``log`` one line per decision, printed by the ``command`` subcommand.
    """

    api: Api
    config: Config
    outputs: dict = field(default_factory=lambda: {"action": "none", "version": "", "pr": ""})
    log: list = field(default_factory=list)
    _perms: dict = field(default_factory=dict)

    @property
    def full_name(self) -> str:
        return self.api.full_name

    def say(self, text: str) -> None:
        """Record one line for the job log (the bot's own words; quote foreign text with :mod:`bot.inert`)."""
        self.log.append(text)

    def decide(self, action: str, *, version: str = "", pr: Optional[int] = None) -> None:
        """Set the step outputs: what the workflow's later jobs do."""
        self.outputs = {"action": action, "version": version or "", "pr": "" if pr is None else str(pr)}

    # --------------------------------------------------------------- people
    def permission(self, login: str) -> str:
        """The user's role on the repository (``admin``, ``maintain``, ``write``, ``triage``, ``read``, ``none``).

        One request per user per event.  A user GitHub does not know (404) is ``none``.
        """
        if login not in self._perms:
            try:
                data = self.api.get(f"collaborators/{quote(login, safe='')}/permission",
                                    f"read the permission of {login}")
            except PlatformError as exc:
                if "HTTP 404" not in str(exc):
                    raise
                data = {}
            if not isinstance(data, dict):   # not the object GitHub's docs give: no permission
                data = {}
            role = str(data.get("role_name") or "").lower()
            perm = str(data.get("permission") or "none").lower()
            # a custom role's name is its own; its base permission is in ``permission``; any other value is none
            known = WRITERS + ("triage", "read", "none")
            self._perms[login] = role if role in known and role != "none" else (perm if perm in known else "none")
        return self._perms[login]

    def is_writer(self, login: str) -> bool:
        """True when ``login`` has write, maintain or admin permission (asked from the API, never the payload)."""
        return bool(login) and self.permission(login) in WRITERS

    def bot_login(self) -> str:
        """The login of the account the bot's token acts as (GraphQL ``viewer``); one request per event."""
        return viewer_login(self.api)

    def bot_comments(self, number: int) -> list[str]:
        """Bodies of the comments on issue or PR ``number`` written by the bot's own account (oldest first; every
        page, through :meth:`Api.list`)."""
        me = self.bot_login()
        batch = self.api.list(f"issues/{number}/comments", f"list the comments on #{number}")
        return [str(c.get("body") or "") for c in batch
                if isinstance(c, dict) and me and (c.get("user") or {}).get("login") == me]

    # ---------------------------------------------------------------- pulls
    def bot_pull(self, number: int, *, data: Optional[dict] = None) -> Optional[BotPull]:
        """The PR ``number`` when it is the bot's: head branch on the bot's track, in this repository (not a
        fork), body carrying the bot's fingerprint; else None.  ``data``: the PR JSON when the event has it."""
        pr = data if data is not None else self.api.get(f"pulls/{number}", f"read pull request #{number}")
        head = pr.get("head") or {}
        head_repo = (head.get("repo") or {}).get("full_name") or ""
        ref = str(head.get("ref") or "")
        if (not self.config.branch_pattern().fullmatch(ref) or head_repo.lower() != self.full_name.lower()
                or parse_fingerprint(pr.get("body")) is None):
            return None
        # what the PR proposes comes from the bot's own record (branch, hidden state), never from the title
        return BotPull(int(pr["number"]), ref, proposed_version(self.config, pr), str(pr.get("node_id") or ""), pr)

    # ------------------------------------------------------------- writing
    def reply(self, number: int, text: str) -> None:
        """Comment ``text`` (the bot's Markdown; foreign parts already made inert) on issue or PR ``number``."""
        self.api.post(f"issues/{number}/comments", {"body": fit(text, "comment")}, f"comment on #{number}")

    def react(self, comment_id: int, content: str) -> None:
        """Add reaction ``content`` (``+1``, ``-1``, ``confused``) to issue comment ``comment_id``."""
        self.api.post(f"issues/comments/{comment_id}/reactions", {"content": content},
                      f"react to comment {comment_id}")
