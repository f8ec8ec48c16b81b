"""The dashboard issue (opt-in, ``dashboard: true``): one issue per repository showing where the bump stands.

Rules:

- The dashboard is the oldest issue the bot's own account opened (its
  author is the token's identity, GraphQL ``viewer``) that carries the
  hidden marker ``<!-- executorch-pack-bot:dashboard -->``: never an issue
  someone else wrote, whatever its label or text.  It is looked for by the
  label ``executorch-pack-bot`` first and, when none of those is the bot's,
  among every issue the bot opened (``creator``), so a removed label or an
  edited title loses nothing.  It is created once, when none is found, and
  edited in place only when the text the bot would write differs from the
  body: a run that changes nothing sends no write request.
- It shows the pinned ExecuTorch version, the newest release and when the
  bot first saw it, the open bump PR (link, state, pack verification result,
  blocking items), the for-review items of that PR, the ignored versions
  with how to unignore each, and the last run (link, time, outcome).  The
  last run is the run that last changed the outcome: a later run with the
  same outcome does not edit the issue (nobody watching it is notified).
- Everything shown, and the ignored versions (:mod:`bot.events.ignored`),
  is kept in a hidden state block (:mod:`bot.events.state`) in the *state
  comment*: the bot's own comment on the dashboard carrying
  :data:`STATE_MARKER`.  State written by anyone but the bot is never read:
  the state comment counts only when the bot's account wrote it
  (``viewerDidAuthor``) and nobody else edited it last (its ``editor`` is
  the bot's account or none), both read with the comment's body in one
  GraphQL query (:func:`load_state`), so there is no gap between reading
  and checking.  A state comment edited by someone else is not read (the
  bot starts from empty state and overwrites it on its next write).  The
  issue body carries a copy of the block for display only; it is read once,
  to move the state of a dashboard from before the state comment into one,
  and only when the body's last editor is the bot (or nobody edited it).
- A box ``- [ ] Check now``, ticked by someone with write permission
  (``issues`` ``edited`` event), starts a run (step output ``action=recheck``
  with no version: the scheduled job's run); the bot unticks it.  Every edit
  of the dashboard (body or title) by anyone without write permission is put
  back (``changes.body.from``, ``changes.title.from``).
- The last scheduled run's date is kept and shown (GitHub disables the
  scheduled workflows of a public repository after 60 days without activity
  in it, "Disabling and enabling a workflow"): from
  :data:`STALE_DAYS` days on, the dashboard says the schedule may have been
  disabled and how to turn it back on.  A scheduled run writes its date at
  most once a day.

Facts (GitHub REST docs): "List repository issues" (``GET
/repos/{o}/{r}/issues?labels=L&state=all``, or ``creator=LOGIN``) also
returns pull requests (they carry a ``pull_request`` key); "Create an issue" takes ``labels``;
"Update an issue" (``PATCH``) takes ``body``.  The ``issues`` ``edited``
payload has ``changes.body.from``, the body before the edit ("Webhook
events and payloads").

Facts (GitHub GraphQL reference, the ``Comment`` interface that ``Issue``
and ``IssueComment`` implement): ``viewerDidAuthor`` ("Did the viewer
author this comment"), ``editor`` ("The actor who edited the comment", null
when never edited), ``body``; ``Issue.comments`` is a connection (``first``
at most 100, ``pageInfo { hasNextPage endCursor }``).  A ``Bot`` actor's
``login`` in GraphQL has no ``[bot]`` suffix (``github-actions``, the app's
slug) while REST and ``viewer`` give ``NAME[bot]``: public reports
palantir/policy-bot release 1.4.1 ("The GraphQL API returns usernames for
bot users in a different format") and fullsend-ai/fullsend#6205 (``author
{ login __typename }`` answers ``fullsend-ai-review``, ``Bot``), so
:func:`account` adds the suffix before comparing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Optional

from bot import inert
from bot.errors import PlatformError, UsageError
from bot.events import ignored as ign
from bot.events import state as hidden
from bot.events.event import is_bot
from bot.events.registry import router
from bot.events.verbs import PREFIX

LABEL = "executorch-pack-bot"
MARKER = "<!-- executorch-pack-bot:dashboard -->"
TITLE = "executorch-pack-bot dashboard"
CHECK_NOW = "Check now"
STATE_MARKER = "<!-- executorch-pack-bot:dashboard-state -->"
STATE_NOTE = ("The dashboard's state, kept by executorch-pack-bot. Only the bot's own writes of this comment are "
              "read: an edit by anyone else is ignored and overwritten.")
_STATE_QUERY = """query DashboardState($owner: String!, $name: String!, $number: Int!, $after: String) {
  repository(owner: $owner, name: $name) {
    issue(number: $number) {
      viewerDidAuthor
      author { __typename login }
      editor { __typename login }
      body
      comments(first: 100, after: $after) {
        pageInfo { hasNextPage endCursor }
        nodes { databaseId viewerDidAuthor author { __typename login } editor { __typename login } body }
      }
    }
  }
}"""
_STATE_PAGES = 10
_TICKED = re.compile(r"^[ \t]*[-*] \[[xX]\] Check now\b", re.MULTILINE)   # [ \t]*: one line at most, linear
_RUN_URL = re.compile(r"https://[A-Za-z0-9.-]+(?::[0-9]+)?/[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+/actions/runs/[0-9]+",
                      re.ASCII)   # the bot's own link: a workflow run's page, nothing else
STALE_DAYS = 45
"""Days after the last scheduled run from which the dashboard warns (GitHub disables at 60 days)."""
SCHEDULE_HELP = ("GitHub disables the scheduled workflows of a public repository after 60 days without activity in "
                 "it: if no scheduled run shows up, enable the workflow again in the Actions tab (select it, then "
                 "*Enable workflow*) or run it with *Run workflow*.")
_BLOCKING = re.compile(r"^- \[[ xX]\] \*\*blocking\*\* `([^`]+)`(?: \(`([^`]+)`\))?", re.MULTILINE)
_REVIEW = re.compile(r"^- \[[ xX]\] `(mixed-mention)`(?: \(`([^`]+)`\))?", re.MULTILINE)


def now_text(now: Optional[datetime] = None) -> str:
    """``2026-11-30 06:17 UTC``."""
    return (now or datetime.now(timezone.utc)).astimezone(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")


# ------------------------------------------------------------------ render
def schedule_line(st: dict, now: Optional[datetime] = None) -> str:
    """When the last scheduled run happened (``2026-11-30``, with a warning from :data:`STALE_DAYS` days on),
    from state ``st``'s ``scheduled`` date."""
    day = st.get("scheduled")
    try:
        when = datetime.strptime(str(day), "%Y-%m-%d").replace(tzinfo=timezone.utc)
    except ValueError:
        return "none recorded yet"
    age = ((now or datetime.now(timezone.utc)) - when).days
    if age >= STALE_DAYS:
        return f"{when:%Y-%m-%d}, {age} days ago: the schedule may have been disabled (see below)"
    return f"{when:%Y-%m-%d}"


def render(st: dict, now: Optional[datetime] = None) -> str:
    """The issue body for state ``st`` (the dashboard's hidden state) at time ``now`` (the schedule warning
    depends on it), ending with that state's block."""
    out = [MARKER,
           "This issue is kept up to date by executorch-pack-bot; edits to it are overwritten.", "",
           f"- [ ] {CHECK_NOW} (tick to start a run; the bot unticks it)", "",
           "| | |", "|---|---|",
           f"| Pinned ExecuTorch | {inert.code(st.get('pinned'), in_table=True) or 'unknown'} |"]
    newest = st.get("newest")
    seen = f", first seen {inert.markdown(st.get('newest_seen'))}" if st.get("newest_seen") else ""
    out.append(f"| Newest release | {inert.code(newest, in_table=True) + seen if newest else 'unknown'} |")
    pr = st.get("pr")
    if isinstance(pr, dict) and pr.get("number"):
        state = "draft" if pr.get("draft") else "open"
        blocking = pr.get("blocking") or []
        items = f"{len(blocking)} blocking item{'s' if len(blocking) != 1 else ''}"
        out.append(f"| Bump pull request | #{int(pr['number'])}: {state}; pack verification: "
                   f"{inert.markdown(pr.get('pack') or 'not verified')}; {items} |")
    else:
        out.append("| Bump pull request | none open |")
    run = st.get("run")
    if isinstance(run, dict) and run.get("outcome"):
        when = inert.markdown(run.get("time") or "")
        link = f"[{when}]({run['url']})" if _RUN_URL.fullmatch(str(run.get("url") or "")) else when
        out.append(f"| Last run | {link}: {inert.markdown(run['outcome'], cap=300)} |")
    else:
        out.append("| Last run | none yet |")
    sched = schedule_line(st, now)
    out.append(f"| Last scheduled run | {sched} |")
    if isinstance(pr, dict) and pr.get("number"):
        for title, key in (("Blocking items", "blocking"), ("For review", "review")):
            rows = pr.get(key) or []
            if rows:
                out += ["", f"### {title} in #{int(pr['number'])}", ""]
                out += [f"- {inert.code(r[0])}" + (f" ({inert.code(r[1])})" if len(r) > 1 and r[1] else "")
                        for r in rows if isinstance(r, list) and r]
    if sched.endswith("(see below)"):
        out += ["", "### Schedule", "", SCHEDULE_HELP]
    out += ["", "### Ignored versions", ""]
    entries = ign.clean(st.get("ignored"))
    if not entries:
        out.append("None.")
    for e in entries:
        where = f" on #{e['pr']}" if e.get("pr") else " on an executorch-pack-bot pull request"
        out.append(f"- `{e['version']}`: to propose it again, comment `{PREFIX} unignore {e['version']}`{where}")
    return "\n".join(out) + "\n\n" + hidden.dump(st) + "\n"


# ------------------------------------------------------------------- issue
def find_issue(api) -> Optional[dict]:
    """The dashboard issue: the oldest the bot's own account opened carrying :data:`MARKER`, or None.

    Two or three requests: the bot's login, the issues with :data:`LABEL`, and
    (only when none of those is the dashboard) the issues the bot opened.

    ``creator`` is the bot's login as REST gives it, ``NAME[bot]`` (OpenAPI
    description: "The user that created the issue", a login): workflows
    filter with ``creator: 'github-actions[bot]'`` (github/gh-aw-mcpg's
    integrity test counts the issues it returns); ``app/NAME`` is the search
    syntax (``author:app/NAME``), not a login.  A server-side author filter
    has failed to match an app's bot login on GitHub Enterprise Cloud
    (renovatebot/renovate#44730, GraphQL ``filterBy.createdBy``), so the
    author is checked again here on every issue returned and the labelled
    listing comes first.
    """
    from bot.events.context import viewer_login

    me = viewer_login(api)
    if not me:
        return None

    def mine(issues):
        found = [i for i in issues or () if isinstance(i, dict) and "pull_request" not in i
                 and (i.get("user") or {}).get("login") == me and MARKER in (i.get("body") or "")]
        return min(found, key=lambda i: int(i["number"])) if found else None

    return (mine(api.list("issues", "list the dashboard issue", labels=LABEL, state="all"))
            or mine(api.list("issues", "list the issues the bot opened", creator=me, state="all")))


def account(actor) -> str:
    """The REST login of a GraphQL actor (``{"__typename": "Bot", "login": "github-actions"}`` ->
    ``github-actions[bot]``); ``""`` for no actor."""
    if not isinstance(actor, dict) or not actor.get("login"):
        return ""
    login = str(actor["login"])
    return login + "[bot]" if actor.get("__typename") == "Bot" and not login.endswith("[bot]") else login


def _wrote(node, me: str, author: Optional[str]) -> bool:
    """True when GraphQL comment ``node`` was written by the bot: by the token's own account (``viewerDidAuthor``)
    when ``author`` is None, else by the account whose REST login is ``author``."""
    if not isinstance(node, dict):
        return False
    return node.get("viewerDidAuthor") is True if author is None else (bool(me) and account(node.get("author")) == me)


def _by_bot(node, me: str, author: Optional[str] = None) -> bool:
    """True when GraphQL comment ``node`` (an issue or a comment) was written by the bot and last edited by
    nobody else."""
    return (_wrote(node, me, author) and bool(me)
            and (node.get("editor") is None or account(node.get("editor")) == me))


def _is_state_comment(node, me: str = "", author: Optional[str] = None) -> bool:
    return _wrote(node, me, author) and str(node.get("body") or "").startswith(STATE_MARKER)


@dataclass
class Stored:
    """The dashboard's state as read: ``state`` (the dict, empty when none could be trusted), ``comment`` (the
    state comment's id, None when there is none yet) and ``text`` (that comment's body as read)."""

    state: dict = field(default_factory=dict)
    comment: Optional[int] = None
    text: str = ""


def load_state(api, issue: Optional[dict], *, author: Optional[str] = None) -> Stored:
    """The dashboard's state, read from the state comment of ``issue`` (the issue JSON; None: no dashboard).

    ``author`` is the REST login of the account that keeps the dashboard when it is not the token's own (the
    fleet plan reads a template's dashboard, kept by ``github-actions[bot]``, with the fleet App's token);
    None: the token's account (GraphQL ``viewer``).

    One GraphQL query per 100 comments (at most :data:`_STATE_PAGES`).  The
    oldest comment of the bot's account starting with :data:`STATE_MARKER`
    is the state comment; its state is read only when nobody but the bot
    edited it last, else the state is empty.  With no state comment, the
    state block of the issue body is read when the bot wrote the body and
    nobody else edited it last (a dashboard from before the state comment),
    else the state is empty.  Raises :class:`~bot.errors.PlatformError` for an answer of another shape (an object
    that is a list or text, comments that are not a list).
    """
    if issue is None:
        return Stored()
    from bot.events.context import viewer_login

    me = author if author is not None else viewer_login(api)
    owner, name = api.full_name.split("/", 1)
    what = f"read the state of the dashboard #{issue['number']}"
    top: dict = {}

    def page(after):
        data = api.graphql(_STATE_QUERY, {"owner": owner, "name": name, "number": int(issue["number"]),
                                          "after": after}, what)
        node = _object(_object(data.get("repository"), "repository", what).get("issue"), "repository.issue", what)
        if not top:
            top.update(node)
        conn = _object(node.get("comments"), "issue.comments", what)
        if not isinstance(conn.get("nodes") or [], list):
            raise PlatformError(f"cannot {what}: GitHub's GraphQL answer is not the expected shape "
                                "(issue.comments.nodes is not a list)")
        conn["pageInfo"] = _object(conn.get("pageInfo"), "issue.comments.pageInfo", what)
        return conn

    def state_comment(nodes):
        return next((c for c in nodes if _is_state_comment(c, me, author) and isinstance(c.get("databaseId"), int)),
                    None)

    from bot.github import pages
    comments = pages.connection(page, what=what, max_pages=_STATE_PAGES,
                                until=lambda nodes: state_comment(nodes) is not None)
    c = state_comment(comments)
    if c is not None:
        st = hidden.load(c.get("body")) if _by_bot(c, me, author) else None
        return Stored(dict(st or {}), c["databaseId"], str(c.get("body") or ""))
    body = str((top or {}).get("body") or "")
    st = hidden.load(body) if _by_bot(top, me, author) and MARKER in body else None
    return Stored(dict(st or {}))


def _object(value, where: str, what: str) -> dict:
    """``value`` when it is a JSON object, ``{}`` for null (GitHub's GraphQL answers null for what the token
    cannot see); raises :class:`~bot.errors.PlatformError` naming ``where`` for anything else (a foreign answer
    must not stop a fleet plan with an internal error)."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise PlatformError(f"cannot {what}: GitHub's GraphQL answer is not the expected shape ({where} is not an "
                            "object)")
    return value


def state_comment(st: dict) -> str:
    """The body of the state comment for state ``st``."""
    return f"{STATE_MARKER}\n{STATE_NOTE}\n\n{hidden.dump(st)}\n"


def save(api, issue: Optional[dict], st: dict, now: Optional[datetime], stored: Stored) -> Optional[dict]:
    """Create the issue (none yet) or edit it when its body differs from :func:`render` of ``st``; write ``st``
    into the state comment of ``stored`` (created when it has none, edited when its text differs).

    Returns the issue JSON; ``stored`` (what :func:`load_state` read) is updated to what was written.
    """
    body = render(st, now)
    if issue is None:
        issue = api.post("issues", {"title": TITLE, "body": body, "labels": [LABEL]}, "create the dashboard issue")
    elif (issue.get("body") or "") != body:
        api.patch(f"issues/{issue['number']}", {"body": body}, f"update the dashboard issue #{issue['number']}")
        issue["body"] = body
    text = state_comment(st)
    what = f"write the state of the dashboard #{issue['number']}"
    if stored.comment is None:
        made = api.post(f"issues/{issue['number']}/comments", {"body": text}, what)
        stored.comment = (made or {}).get("id") if isinstance((made or {}).get("id"), int) else None
    elif stored.text != text:
        api.patch(f"issues/comments/{stored.comment}", {"body": text}, what)
    stored.state, stored.text = dict(st), text
    return issue


class DashboardStore:
    """Ignored versions kept in the dashboard's state comment (``dashboard: true``)."""

    def __init__(self, api, config):
        self.api = api
        self.config = config
        self._issue = None
        self._looked = False
        self._stored = Stored()

    def issue(self) -> Optional[dict]:
        if not self._looked:
            self._issue, self._looked = find_issue(self.api), True
            self._stored = load_state(self.api, self._issue)
        return self._issue

    def read(self) -> list[dict]:
        self.issue()
        return ign.clean(self._stored.state.get("ignored"))

    def write(self, entries: list[dict], pr: dict, *, close: bool = False) -> None:
        """Keep ``entries`` in the dashboard (created when missing); with ``close``, close PR ``pr`` as ignored."""
        i = self.issue()
        st = dict(self._stored.state)
        st["ignored"] = ign.clean(entries)
        self._issue = save(self.api, i, st, None, self._stored)
        if close:
            ign.close_ignored(self.api, pr)


# ------------------------------------------------------------------ refresh
def pr_summary(pr: dict) -> dict:
    """What the dashboard shows of an open bot PR, read from its JSON and body (bot/report.py's layout)."""
    body = pr.get("body") or ""
    if re.search(r"^\*\*Failed\*\*|Verification \*\*failed\*\*", body, re.MULTILINE):
        pack = "failed"
    elif re.search(r"^\*\*Passed\*\*|Verification passed", body, re.MULTILINE):
        pack = "passed"
    else:
        pack = "not verified"
    return {"number": int(pr["number"]), "url": pr.get("html_url") or "", "draft": bool(pr.get("draft")),
            "pack": pack,
            "blocking": [[c, w or ""] for c, w in _BLOCKING.findall(body)][:30],
            "review": [[c, w or ""] for c, w in _REVIEW.findall(body)][:30]}


def refresh(api, config, *, pinned: Optional[str], newest: Optional[str], outcome: Optional[str],
            run_url: str = "", now: Optional[datetime] = None, scheduled: bool = False) -> Optional[dict]:
    """Bring the dashboard up to date after a run; returns the issue JSON (None when ``dashboard`` is off).

    Reads the dashboard and the bot's open PR, then writes only when the
    rendered body differs.  ``outcome`` (the run's result in a few words)
    replaces the last run only when it differs from the one shown;
    ``scheduled`` (the run was started by the schedule) records today's date
    as the last scheduled run.
    """
    if not config.dashboard:
        return None
    issue = find_issue(api)
    stored = load_state(api, issue)
    st = dict(stored.state)
    when = now_text(now)
    if pinned:
        st["pinned"] = pinned
    if newest and newest != st.get("newest"):
        st["newest"], st["newest_seen"] = newest, when
    store = ign.PullStore(api, config)
    open_prs = [p for p in store.bot_pulls() if p.get("state") == "open"]
    st["pr"] = pr_summary(open_prs[0]) if open_prs else None
    run = st.get("run") if isinstance(st.get("run"), dict) else {}
    if outcome and outcome != run.get("outcome"):
        st["run"] = {"outcome": outcome, "time": when, "url": run_url}
    if scheduled:
        st["scheduled"] = f"{(now or datetime.now(timezone.utc)).astimezone(timezone.utc):%Y-%m-%d}"
    return save(api, issue, st, now, stored)


# ------------------------------------------------------------------ events
@router.register("issues", action="edited")
def check_now(event, ctx) -> None:
    """Ticking "Check now" on the dashboard, by someone with write permission, starts a run; the bot unticks it.

    The dashboard is recognised by its author, the bot's own account, and
    its marker (before or after the edit), never by its label.  Every edit
    of it by anyone else (body or title) is undone; edits by bots and edits
    of other issues are ignored; an issue not written by a bot costs no
    request at all.
    """
    issue = event.obj("issue")
    body = event.text("issue", "body")
    before = event.obj("changes", "body").get("from")
    before = before if isinstance(before, str) else None
    author = event.obj("issue", "user")
    if not ctx.config.dashboard or "pull_request" in issue or not is_bot(author) or is_bot(event.sender):
        return
    if MARKER not in body and MARKER not in (before or "") or author.get("login") != ctx.bot_login():
        return
    login = event.text("sender", "login")
    number = event.number("issue", "number")
    if number is None:
        raise UsageError("the event payload has no issue.number", path=event.path or None)
    if not ctx.is_writer(login):
        undo = {}
        if before is not None and before != body:
            undo["body"] = before
        title = event.obj("changes", "title").get("from")
        if isinstance(title, str) and title != event.text("issue", "title"):
            undo["title"] = title
        if undo:
            ctx.api.patch(f"issues/{number}", undo, "undo an edit of the dashboard")
            ctx.say(f"dashboard edited by {inert.line(login)} (no write permission): edit undone")
        return
    if not _TICKED.search(body):
        return
    stored = load_state(ctx.api, issue)
    save(ctx.api, issue, stored.state, None, stored)
    ctx.decide("recheck")
    ctx.say(f"dashboard: Check now ticked by {inert.line(login)}: starting a run")
