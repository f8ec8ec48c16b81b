"""Where ignored ExecuTorch versions are kept, and how the scheduled run reads them.

Rule: with ``dashboard: true`` the list lives in the dashboard issue's
hidden state (:mod:`bot.events.dashboard`); without a dashboard it lives in
the hidden state of the bot's pull requests: ``ignore`` and ``unignore``
write the whole new list into the body of the PR they were given on, and
the newest bot PR (open or closed) carrying a list holds the current one.
A PR closed by ``ignore`` is marked so (``"closed_by": "ignore"``): the
publisher's "closed unmerged, not proposed again" rule skips it, so after
``unignore`` the version can be proposed again.

Each entry is ``{"version": "X.Y.Z", "pr": N}`` (the PR the command was
given on, for the dashboard's "how to undo" line).
"""

from __future__ import annotations

from typing import Optional

from bot.events import state as hidden
from bot.events.verbs import VERSION


def clean(entries) -> list[dict]:
    """Valid entries only (``X.Y.Z`` versions, one entry per version), sorted by version."""
    from packaging.version import Version

    out: dict[str, dict] = {}
    for e in entries or ():
        if isinstance(e, str):
            e = {"version": e}
        if not isinstance(e, dict) or not VERSION.match(str(e.get("version", ""))):
            continue
        v = str(e["version"]).lstrip("v")
        pr = e.get("pr")
        out[v] = {"version": v, "pr": pr if isinstance(pr, int) else None}
    return [out[v] for v in sorted(out, key=Version)]


def versions(entries) -> list[str]:
    """The versions of ``entries``."""
    return [e["version"] for e in clean(entries)]


def closed_by_ignore(body: Optional[str]) -> bool:
    """True when the PR body's hidden state says ``ignore`` closed it."""
    st = hidden.load(body)
    return bool(st) and st.get("closed_by") == "ignore"


class PullStore:
    """Ignored versions kept in the bot's PR bodies (no dashboard).  ``api``: :class:`bot.events.context.Api`."""

    def __init__(self, api, config):
        self.api = api
        self.config = config

    def bot_pulls(self) -> list[dict]:
        """The bot's PRs (open and closed; head on the track, in this repository, with the fingerprint), newest first;
        every page of "List pull requests" is read (a warning says when the reader's bound cut the list)."""
        owner = self.api.full_name.split("/")[0]
        # every page (bot.github.pages): on a busy repository the PR holding the list is past the first 100
        if "{version}" in self.config.branch:
            pulls = self.api.list("pulls", f"list the pull requests of {self.api.full_name}", state="all")
        else:
            pulls = self.api.list("pulls", f"list the pull requests of {self.api.full_name}", state="all",
                                  head=f"{owner}:{self.config.branch}")
        pat = self.config.branch_pattern()
        from bot.report import parse_fingerprint
        mine = [p for p in pulls or () if pat.fullmatch(str((p.get("head") or {}).get("ref") or ""))
                and str(((p.get("head") or {}).get("repo") or {}).get("full_name") or "").lower()
                == self.api.full_name.lower() and parse_fingerprint(p.get("body")) is not None]
        return sorted(mine, key=lambda p: -int(p.get("number") or 0))

    def read(self) -> list[dict]:
        """The list held by the newest bot PR that carries one (``[]`` when none does)."""
        for p in self.bot_pulls():
            st = hidden.load(p.get("body"))
            if st is not None and "ignored" in st:
                return clean(st["ignored"])
        return []

    def write(self, entries: list[dict], pr: dict, *, close: bool = False) -> None:
        """Write ``entries`` into the hidden state of PR ``pr`` (its JSON); with ``close``, close the PR and
        mark it closed by ``ignore`` in the same request."""
        body = with_state(pr.get("body"), ignored=clean(entries), closed_by="ignore" if close else None)
        patch = {"body": body} if body != (pr.get("body") or "") else {}
        if close:
            patch["state"] = "closed"
        if patch:
            self.api.patch(f"pulls/{pr['number']}", patch, f"record ignored versions on #{pr['number']}")
            pr.update(patch)


def with_state(body: Optional[str], **values) -> str:
    """``body`` with ``values`` merged into its hidden state (a None value leaves that key as it is)."""
    st = hidden.load(body) or {}
    st.update({k: v for k, v in values.items() if v is not None})
    return hidden.replace(body, st)


def close_ignored(api, pr: dict) -> None:
    """Close PR ``pr`` and mark it closed by ``ignore`` (one request)."""
    patch = {"state": "closed", "body": with_state(pr.get("body"), closed_by="ignore")}
    api.patch(f"pulls/{pr['number']}", patch, f"close #{pr['number']}")
    pr.update(patch)
