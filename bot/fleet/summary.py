"""The fleet summary: one row per template, from the plan and the results the pull-request jobs recorded.

Each pull-request job of the fleet workflow records one small JSON result
(:func:`record`: the job's status, what ``publish`` did, the PR link,
the flagged items of ``update``'s plan file) and uploads it; the summary
job downloads them all next to the plan and renders :func:`render`: a
Markdown table for the job summary (and, optionally, the body of a fleet
dashboard issue).  A template whose job recorded nothing (the job failed
before its last step, or was cancelled) is shown so, with the plan's row.
Every text that came from a template or from GitHub is made inert
(:mod:`bot.inert`): no live @mention or #reference.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Optional

from bot import inert
from bot.errors import PlatformError, UsageError
from bot.limits import fit

RESULT_FORMAT = 1
MAX_RESULT_BYTES = 1_000_000
MARKER = "<!-- executorch-pack-bot:fleet-dashboard -->"
LABEL = "executorch-pack-bot-fleet"
TITLE = "executorch-pack-bot fleet dashboard"
#: A pull request's page and a workflow run's page on a GitHub host: the only links a row carries (GitHub docs,
#: "About pull requests", "Viewing workflow run history"); any other text of a result is shown inert, unlinked.
_PR_URL = re.compile(r"https?://[A-Za-z0-9.-]+(?::[0-9]{1,5})?/[A-Za-z0-9-]+/[A-Za-z0-9._-]+/pull/([0-9]{1,9})")
_RUN_URL = re.compile(r"https?://[A-Za-z0-9.-]+(?::[0-9]{1,5})?/[A-Za-z0-9-]+/[A-Za-z0-9._-]+/actions/runs/[0-9]{1,20}"
                      r"(?:/attempts/[0-9]{1,5})?")


def _on_server(url: str) -> bool:
    """Whether ``url`` is on the GitHub host the workflow runs on (``$GITHUB_SERVER_URL``, default
    ``https://github.com``; GitHub docs, "Variables": the server's URL): a result file (foreign input) must not
    make a live link to another host, however much it looks like a pull request's page."""
    import os

    server = (os.environ.get("GITHUB_SERVER_URL") or "https://github.com").rstrip("/").lower()
    return url.lower().startswith(server + "/")

RESULT_TEXT = ("key", "status", "action", "pr_url", "run_url", "when", "error")
PLAN_TEXT = ("template", "repository", "branch", "current", "target", "state", "reason", "pr_url", "pr_state", "key")
MAX_FLAGS = 50
#: The action the fleet workflow records for a pull-request job of a dry run (publish --dry-run sets no action).
DRY_RUN, DRY_RUN_STATE = "dry-run", "dry run"
MAX_FLAG_CHARS = 600


def flagged_items(plan_file: Optional[Path]) -> list[str]:
    """``"code: message"`` of each flag in ``update --plan-file``'s JSON (:meth:`bot.plan.Plan.to_json`), [] when
    the file is absent; a file that is not that JSON is :class:`UsageError`."""
    if plan_file is None or not Path(plan_file).is_file():
        return []
    try:
        data = json.loads(Path(plan_file).read_text(encoding="utf-8"))
        flags = data.get("flags") or []
        items = [f"{'blocking ' if f.get('blocking') else ''}{f.get('code')}: {f.get('message')}" for f in flags]
    except RecursionError:
        raise UsageError("not the plan file of update --plan-file (JSON nested too deeply)", path=str(plan_file)) from None
    except (OSError, ValueError, AttributeError, TypeError):
        raise UsageError("not the plan file of update --plan-file", path=str(plan_file)) from None
    # the result file stays small (load_results skips one over MAX_RESULT_BYTES): the first flags, each cut
    return [i[:MAX_FLAG_CHARS] for i in items[:MAX_FLAGS]] + (
        [f"... and {len(items) - MAX_FLAGS} more"] if len(items) > MAX_FLAGS else [])


def last_error(path: Optional[Path]) -> str:
    """The last line of ``$EXECUTORCH_PACK_BOT_ERROR_FILE`` (``COMMAND: message``, :func:`bot.cli._keep_error`), or
    "" when the file is absent or empty.  Only the file's last 64 KiB are read (it is appended to by every
    command of a job)."""
    try:
        with open(path, "rb") as fh:
            fh.seek(0, 2)
            fh.seek(max(0, fh.tell() - 65536))
            tail = fh.read().decode("utf-8", errors="replace")
        lines = [ln for ln in tail.splitlines() if ln.strip()]
    except (OSError, TypeError, ValueError):
        return ""
    return lines[-1][:2000] if lines else ""


def record(key: str, *, status: str, action: str = "", pr_url: str = "", plan_file: Optional[Path] = None,
           run_url: str = "", when: str = "", error: str = "") -> dict:
    """The result of one pull-request job: ``key`` (the matrix entry's ``key``), the job ``status``
    (``success``/``failure``/``cancelled``), ``publish``'s ``action`` (``created``, ``updated``, ``unchanged``,
    ``closed-before``, ``foreign-commits``, ``foreign-pr``; :data:`DRY_RUN` in a dry run; "" when it did not
    run), the PR link, the flagged
    items, the run link and time, and ``error``: the failed command's message (:func:`last_error`)."""
    return {"format": RESULT_FORMAT, "key": key, "status": status, "action": action, "pr_url": pr_url,
            "flags": flagged_items(plan_file), "run_url": run_url, "when": when, "error": error}


def load_results(folder: Optional[Path]) -> dict[str, dict]:
    """``{key: result}`` of every ``KEY.json`` (or ``KEY/*.json``) under ``folder`` (downloaded artifacts); a file
    that is not a result, or whose ``key`` is neither its file's name nor its folder's, is skipped (a job uploads
    only its own)."""
    found: dict[str, dict] = {}
    if folder is None or not Path(folder).is_dir():
        return found
    for p in sorted(Path(folder).rglob("*.json")):
        try:
            if p.stat().st_size > MAX_RESULT_BYTES:
                continue
            if not p.is_file():   # a FIFO named *.json would block the read for ever
                continue
            d = json.loads(p.read_text(encoding="utf-8"))
        except (OSError, ValueError, RecursionError):   # RecursionError: JSON nested too deeply for the parser
            continue
        # a result counts only under its own name, its file's (the workflow uploads KEY.json for its job's KEY) or
        # its folder's: a job cannot write another template's result by naming that template's key in its own file
        if isinstance(d, dict) and d.get("format") == RESULT_FORMAT and d.get("key") in (p.stem, p.parent.name):
            found[d["key"]] = _result_fields(d)
    return found


def _result_fields(d: dict) -> dict:
    """A recorded result with each field of the expected type: text fields that are not text are "" and the
    flags a list of at most :data:`MAX_FLAGS` texts (a result file is foreign input: any job could write one)."""
    out = {k: d[k] if isinstance(d.get(k), str) else "" for k in RESULT_TEXT}
    flags = d.get("flags")
    out["flags"] = [f for f in flags if isinstance(f, str)][:MAX_FLAGS + 1] if isinstance(flags, list) else []
    return out


def load_plan(path: Path) -> dict:
    """The plan file of ``fleet-plan --out``; :class:`UsageError` naming it when it is not one."""
    try:
        d = json.loads(Path(path).read_text(encoding="utf-8"))
    except RecursionError:
        raise UsageError("not a fleet plan (fleet-plan --out): JSON nested too deeply", path=str(path)) from None
    except (OSError, ValueError) as exc:
        raise UsageError(f"cannot read the fleet plan: {getattr(exc, 'strerror', None) or exc}", path=str(path)) from None
    if not isinstance(d, dict) or d.get("format") != 1 or not isinstance(d.get("rows"), list):
        raise UsageError("not a fleet plan (fleet-plan --out)", path=str(path))
    for i, r in enumerate(d["rows"]):
        bad = ("is not an object" if not isinstance(r, dict) else
               next((f"{k} is not text" for k in PLAN_TEXT if r.get(k) is not None and not isinstance(r[k], str)),
                    None))
        if bad:
            raise UsageError(f"not a fleet plan (fleet-plan --out): rows[{i}] {bad}", path=str(path))
    packs = d.get("packs")
    if packs is not None and not (isinstance(packs, list) and all(
            isinstance(p, dict) and isinstance(p.get("pack-version"), str) for p in packs)):
        raise UsageError("not a fleet plan (fleet-plan --out): packs is not a list of packs", path=str(path))
    if d.get("requests") is not None and not isinstance(d["requests"], dict):
        raise UsageError("not a fleet plan (fleet-plan --out): requests is not an object", path=str(path))
    return d


def rows(plan: dict, results: dict[str, dict], *, run_url: str = "", when: str = "") -> list[dict]:
    """One row per template: ``template``, ``current``, ``target``, ``pr`` (link and state), ``flagged``,
    ``last_run``, ``note``; the plan's row completed by its job's result.  ``pr`` and ``last_run`` are Markdown
    already (a link only to a pull request's or a run's page, every text inert); the others are plain text."""
    from bot.fleet.plan import job_key

    out = []
    for r in plan["rows"]:
        # the plan's key (unique among its jobs: bot.fleet.plan.unique_key); a plan from before keys were kept: job_key
        key = r.get("key") or job_key(r.get("repository", ""), r.get("branch") or None)
        res = results.get(key) if r.get("job") else None
        pr, note, flagged = _pr_text(r.get("pr_url"), r.get("pr_state")), r.get("reason", ""), []
        last = f"{_link('planned', run_url)} {inert.markdown(when, cap=40)}".strip()
        state = r.get("state", "")
        if r.get("job"):
            if res is None:
                state, note = "failed", "the pull-request job recorded no result (failed or cancelled early: see the run)"
            else:
                flagged = list(res.get("flags") or [])
                if res.get("pr_url"):
                    pr = _pr_text(res["pr_url"], res.get("action") or "")
                state = "proposed" if res.get("status") == "success" and res.get("action") in (
                    "created", "updated", "unchanged") else ("failed" if res.get("status") != "success"
                                                           else DRY_RUN_STATE if res.get("action") == DRY_RUN
                                                           else res.get("action") or "not published")
                note = _action_note(res)
                last = f"{_link(res['status'] or '?', res['run_url'] or run_url)} {inert.markdown(res['when'], cap=40)}"
                last = last.strip()
        out.append({"template": r.get("template", ""), "current": r.get("current", ""), "target": r.get("target", ""),
                    "state": state, "pr": pr, "flagged": flagged, "last_run": last, "note": note})
    return out


def _link(text: str, url: str) -> str:
    """``[text](url)`` (text inert) when ``url`` is a workflow run's page, else the inert text alone."""
    label = inert.markdown(text, cap=40)
    return f"[{label}]({url})" if isinstance(url, str) and _RUN_URL.fullmatch(url) and _on_server(url) else label


def _pr_text(url: Optional[str], state: Optional[str]) -> str:
    """``[#N](url) state`` (Markdown, state inert) for a pull request's page; any other ``url`` is shown as inert
    text without a link."""
    if not url:
        return ""
    m = _PR_URL.fullmatch(url) if isinstance(url, str) and _on_server(url) else None
    shown = f"[#{m.group(1)}]({url})" if m else inert.markdown(url, cap=100)
    return f"{shown} {inert.markdown(state or '', cap=40)}".strip()


def _action_note(res: dict) -> str:
    if res.get("status") != "success" and res.get("error"):
        return str(res["error"])
    return {"created": "pull request opened", "updated": "pull request updated", "unchanged": "pull request up to date",
            "closed-before": "same pins closed unmerged before: not proposed again",
            "foreign-commits": "someone else committed on the bot's branch: not pushed",
            "foreign-pr": "another pull request uses the bot's branch: not pushed",
            DRY_RUN: "dry run: the pull request was printed in the job log, nothing pushed"}.get(
        res.get("action") or "", "the job failed: see the run" if res.get("status") != "success" else "")


def _source(value) -> str:
    """A pack's source as the plan names it (``build`` or ``release-asset``); anything else is ``?``."""
    return value if value in ("build", "release-asset") else "?"


def _count(req: dict, key: str) -> int:
    """A request count of the plan, 0 when it is not a whole number."""
    v = req.get(key, 0)
    return v if isinstance(v, int) and not isinstance(v, bool) else 0


def render(plan: dict, table: list[dict], *, requests: bool = True) -> str:
    """The Markdown summary: counts, then the table (text inert, cells without ``|`` or line breaks).

    ``requests=False`` leaves out the request counts (the dashboard issue's body: it then changes only when a
    template's row does, so a run with nothing new edits nothing and notifies nobody)."""
    def cell(text: str) -> str:
        return inert.markdown(str(text), cap=300)   # one line, Markdown (and |) escaped, mentions broken

    counts: dict[str, int] = {}
    for r in table:
        counts[r["state"]] = counts.get(r["state"], 0) + 1
    req = plan.get("requests") or {}
    head = [f"## ExecuTorch fleet: {len(table)} rows", "",
            ", ".join(f"{n} {cell(s)}" for s, n in sorted(counts.items())) + ".",   # a state may be a result's action
            f"Upstream {inert.code(plan.get('upstream', ''))}; {len(plan.get('packs') or [])} pack(s): "
            + (", ".join(f"{inert.code(p['pack-version'])} ({_source(p.get('source'))})" for p in plan.get("packs") or [])
               or "none")
            + (f"; {_count(req, 'sent')} API requests for {_count(req, 'templates')} templates "
               f"({_count(req, 'not-modified')} answered 304 Not Modified)." if requests else "."), "",
            "| Template | Current | Target | State | Pull request | Flagged | Last run | Note |",
            "|---|---|---|---|---|---|---|---|"]
    for r in table:
        flagged = "<br>".join(cell(f) for f in r["flagged"][:10]) + (" ..." if len(r["flagged"]) > 10 else "")
        pr_cell = r["pr"]          # Markdown made by rows(): a checked link, inert text
        last = r["last_run"]
        head.append(f"| {cell(r['template'])} | {cell(r['current'])} | {cell(r['target'])} | {cell(r['state'])} | "
                    f"{pr_cell} | {flagged} | {last} | {cell(r['note'])} |")
    return "\n".join(head) + "\n"


def save_dashboard(gh, full_name: str, body: str, *, whole_at: Optional[str] = None) -> tuple[str, int]:
    """Create or edit the fleet dashboard issue of ``full_name``: ``(what was done, issue number)``.

    The body stays within GitHub's 65,536 characters for an issue body (:func:`bot.limits.fit`: the head and the
    first rows kept, a note saying how much was cut and that the whole table is ``whole_at``, by default the
    job summary of this run, where ``fleet-summary`` writes it uncut).

    Found by the label :data:`LABEL`, the :data:`MARKER` and its author being the token's own account (GraphQL
    ``viewer``, :func:`bot.events.context.viewer_login`; trust from identity: another bot's issue, an App or a
    workflow that copies people's text into issues, is never edited); edited only when the body differs.  GitHub
    REST docs, "List repository issues", "Create an issue", "Update an issue".
    """
    from bot.events.context import Api, viewer_login

    api = Api(gh, full_name)
    body = fit(f"{MARKER}\n{body}", "issue-body",
               whole_at=whole_at or "in the job summary of the fleet workflow run that wrote it")
    me = viewer_login(api)
    if not me:   # no issue could be recognised as ours: a new one each run would pile up
        raise PlatformError(f"cannot find the fleet dashboard issue of {full_name}: GitHub names no account for the "
                            "token (GraphQL viewer)")
    issues = api.list("issues", "list the fleet dashboard issue", labels=LABEL, state="open")
    mine = [i for i in issues or () if isinstance(i, dict) and "pull_request" not in i
            and MARKER in str(i.get("body") or "") and bool(me)
            and isinstance(i.get("user"), dict) and i["user"].get("login") == me
            and isinstance(i.get("number"), int) and not isinstance(i.get("number"), bool)]
    if not mine:
        made = api.post("issues", {"title": TITLE, "body": body, "labels": [LABEL]}, "create the fleet dashboard issue")
        return "created", int(made["number"])
    issue = min(mine, key=lambda i: int(i["number"]))
    if (issue.get("body") or "") == body:
        return "unchanged", int(issue["number"])
    api.patch(f"issues/{issue['number']}", {"body": body}, f"update the fleet dashboard issue #{issue['number']}")
    return "updated", int(issue["number"])
