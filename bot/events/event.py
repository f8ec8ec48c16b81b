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

MAX_PAYLOAD = 25 * 2**20
"""Bytes: GitHub caps a webhook payload at 25 MB ("Webhook events and payloads", "Payload cap"); a larger
file is not an event GitHub sent."""


@dataclass(frozen=True)
class Event:
    """One webhook event: ``name`` (``issue_comment``), ``action`` (``created``) and the ``payload`` dict."""

    name: str
    action: str
    payload: dict
    path: str = ""

    def _at(self, keys: tuple[str, ...]):
        node = self.payload
        for k in keys:
            if not isinstance(node, dict):
                return None
            node = node.get(k)
        return node

    def _bad(self, keys: tuple[str, ...], what: str) -> UsageError:
        return UsageError(f"the event payload's {'.'.join(keys)} is not {what}", path=self.path or None)

    def obj(self, *keys: str) -> dict:
        """The JSON object at ``keys`` (``event.obj("issue")``); ``{}`` when it is absent or null.

        Raises :class:`UsageError` (exit 2, naming the payload file and the
        field) when the value is there but is not an object.
        """
        v = self._at(keys)
        if v is None:
            return {}
        if not isinstance(v, dict):
            raise self._bad(keys, "an object")
        return v

    def text(self, *keys: str) -> str:
        """The string at ``keys``; ``""`` when absent or null.  Raises :class:`UsageError` for another type."""
        v = self._at(keys)
        if v is None:
            return ""
        if not isinstance(v, str):
            raise self._bad(keys, "a string")
        return v

    def number(self, *keys: str) -> Optional[int]:
        """The positive integer at ``keys`` (an issue, PR or comment number/id); None when absent or null.

        Raises :class:`UsageError` for anything else (a string, a float,
        ``true``, zero or a negative number): GitHub's numbers and ids are
        positive integers ("Webhook events and payloads").
        """
        v = self._at(keys)
        if v is None:
            return None
        if isinstance(v, bool) or not isinstance(v, int) or v < 1:
            raise self._bad(keys, "a positive integer")
        return v

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
    the name or path is missing, the file cannot be read, is larger than
    :data:`MAX_PAYLOAD`, is not JSON (or nested too deeply for the JSON
    reader), is not an object, or has no ``repository.full_name``.
    """
    name = (name or env.get("GITHUB_EVENT_NAME") or "").strip()
    path = (path or env.get("GITHUB_EVENT_PATH") or "").strip()
    if not name:
        raise UsageError("no event name: set GITHUB_EVENT_NAME or pass --event-name")
    if not path:
        raise UsageError("no event payload: set GITHUB_EVENT_PATH or pass --event-path")
    if os.path.exists(path) and not os.path.isfile(path):   # a FIFO or device would block or never end
        raise UsageError("the event payload is not a regular file", path=path)
    try:
        with open(path, "rb") as fh:
            raw = fh.read(MAX_PAYLOAD + 1)
    except OSError as exc:
        raise UsageError(f"cannot read the event payload: {exc.strerror or exc}", path=path) from None
    if len(raw) > MAX_PAYLOAD:
        raise UsageError(f"the event payload is larger than {MAX_PAYLOAD // 2**20} MiB, GitHub's cap on a webhook "
                         "payload", path=path)
    try:
        payload = json.loads(raw.decode("utf-8-sig"))
    except UnicodeDecodeError:
        raise UsageError("the event payload is not UTF-8 text", path=path) from None
    except json.JSONDecodeError as exc:
        raise UsageError(f"the event payload is not JSON: {exc.msg}", path=path, line=exc.lineno) from None
    except RecursionError:
        raise UsageError("the event payload is nested too deeply to be a webhook payload", path=path) from None
    if not isinstance(payload, dict):
        raise UsageError("the event payload is not a JSON object", path=path)
    repo = payload.get("repository")
    if not isinstance(repo, dict) or not isinstance(repo.get("full_name"), str) or "/" not in repo["full_name"]:
        raise UsageError("the event payload has no repository.full_name", path=path)
    action = payload.get("action")
    return Event(name, action if isinstance(action, str) else "", payload, path)
