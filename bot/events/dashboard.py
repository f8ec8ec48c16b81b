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
- Everything shown is kept in the hidden state block
  (:mod:`bot.events.state`), so the issue can be rendered again from its own
  body; the ignored versions live there too (:mod:`bot.events.ignored`).
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
"""

from __future__ import annotations

import re
from datetime import datetime, timezone
from typing import Optional

from bot import inert
from bot.errors import UsageError
from bot.events import ignored as ign
from bot.events import state as hidden
from bot.events.event import is_bot
from bot.events.router import router
from bot.events.verbs import PREFIX

LABEL = "executorch-pack-bot"
MARKER = "<!-- executorch-pack-bot:dashboard -->"
TITLE = "executorch-pack-bot dashboard"
CHECK_NOW = "Check now"
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
    """
    from bot.events.context import viewer_login

    me = viewer_login(api)
    if not me:
        return None

    def mine(issues):
        found = [i for i in issues or () if isinstance(i, dict) and "pull_request" not in i
                 and (i.get("user") or {}).get("login") == me and MARKER in (i.get("body") or "")]
        return min(found, key=lambda i: int(i["number"])) if found else None

    return (mine(api.get("issues", "list the dashboard issue", labels=LABEL, state="all", per_page=100))
            or mine(api.get("issues", "list the issues the bot opened", creator=me, state="all", per_page=100)))


def save(api, issue: Optional[dict], st: dict, now: Optional[datetime] = None) -> Optional[dict]:
    """Create the issue (none yet) or edit it when its body differs from :func:`render` of ``st``.

    Returns the issue JSON (None only when nothing existed and nothing was made).
    """
    body = render(st, now)
    if issue is None:
        return api.post("issues", {"title": TITLE, "body": body, "labels": [LABEL]}, "create the dashboard issue")
    if (issue.get("body") or "") != body:
        api.patch(f"issues/{issue['number']}", {"body": body}, f"update the dashboard issue #{issue['number']}")
        issue["body"] = body
    return issue


class DashboardStore:
    """Ignored versions kept in the dashboard's hidden state (``dashboard: true``)."""

    def __init__(self, api, config):
        self.api = api
        self.config = config
        self._issue = None
        self._looked = False

    def issue(self) -> Optional[dict]:
        if not self._looked:
            self._issue, self._looked = find_issue(self.api), True
        return self._issue

    def read(self) -> list[dict]:
        i = self.issue()
        return ign.clean((hidden.load(i.get("body")) or {}).get("ignored")) if i else []

    def write(self, entries: list[dict], pr: dict, *, close: bool = False) -> None:
        """Keep ``entries`` in the dashboard (created when missing); with ``close``, close PR ``pr`` as ignored."""
        i = self.issue()
        st = (hidden.load(i.get("body")) if i else None) or {}
        st["ignored"] = ign.clean(entries)
        self._issue = save(self.api, i, st)
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
    st = dict((hidden.load(issue.get("body")) if issue else None) or {})
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
    return save(api, issue, st, now)


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
    st = (hidden.load(before) if before is not None else None) or hidden.load(body) or {}
    save(ctx.api, issue, st)
    ctx.decide("recheck")
    ctx.say(f"dashboard: Check now ticked by {inert.line(login)}: starting a run")
