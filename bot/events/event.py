"""The webhook event a workflow run was started by: ``$GITHUB_EVENT_NAME`` and the JSON at ``$GITHUB_EVENT_PATH``.

Facts (GitHub docs, "Variables": ``GITHUB_EVENT_NAME`` names the event,
``GITHUB_EVENT_PATH`` is the file holding the full webhook payload; "Webhook
events and payloads": every payload has ``action`` for the events read here,
``repository.full_name`` and ``sender``).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Mapping, Optional

from bot.errors import UsageError


@dataclass(frozen=True)
class Event:
    """One webhook event: ``name`` (``issue_comment``), ``action`` (``created``) and the ``payload`` dict."""

    name: str
    action: str
    payload: dict

    @property
    def repository(self) -> str:
        """``OWNER/NAME`` of the repository the event happened in."""
        return str((self.payload.get("repository") or {}).get("full_name") or "")

    @property
    def sender(self) -> dict:
        """The ``sender`` object (``{"login", "type"}``; ``{}`` when absent)."""
        s = self.payload.get("sender")
        return s if isinstance(s, dict) else {}


def is_bot(user: Optional[Mapping]) -> bool:
    """True for a bot account: ``type`` ``Bot`` or a login ending ``[bot]`` (GitHub Apps' accounts)."""
    if not isinstance(user, Mapping):
        return False
    return user.get("type") == "Bot" or str(user.get("login") or "").endswith("[bot]")


def load_event(name: Optional[str] = None, path: Optional[str] = None,
               env: Mapping[str, str] = os.environ) -> Event:
    """The event named by ``name``/``path`` (default ``$GITHUB_EVENT_NAME``/``$GITHUB_EVENT_PATH``).

    Raises :class:`UsageError` (exit 2) naming the variable or the file when
    the name or path is missing, the file cannot be read, is not JSON, is
    not an object, or has no ``repository.full_name``.
    """
    name = (name or env.get("GITHUB_EVENT_NAME") or "").strip()
    path = (path or env.get("GITHUB_EVENT_PATH") or "").strip()
    if not name:
        raise UsageError("no event name: set GITHUB_EVENT_NAME or pass --event-name")
    if not path:
        raise UsageError("no event payload: set GITHUB_EVENT_PATH or pass --event-path")
    try:
        raw = open(path, "rb").read()
    except OSError as exc:
        raise UsageError(f"cannot read the event payload: {exc.strerror or exc}", path=path) from None
    try:
        payload = json.loads(raw.decode("utf-8-sig"))
    except UnicodeDecodeError:
        raise UsageError("the event payload is not UTF-8 text", path=path) from None
    except json.JSONDecodeError as exc:
        raise UsageError(f"the event payload is not JSON: {exc.msg}", path=path, line=exc.lineno) from None
    if not isinstance(payload, dict):
        raise UsageError("the event payload is not a JSON object", path=path)
    repo = payload.get("repository")
    if not isinstance(repo, dict) or not isinstance(repo.get("full_name"), str) or "/" not in repo["full_name"]:
        raise UsageError("the event payload has no repository.full_name", path=path)
    action = payload.get("action")
    return Event(name, action if isinstance(action, str) else "", payload)
