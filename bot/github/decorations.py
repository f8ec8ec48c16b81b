"""Decorations of the bot's pull request (labels, reviewers, teams, assignees, milestone, draft): never fatal.

The pull request is the bot's result; what the config asks to hang on it is
a decoration, and GitHub may refuse any of them while the pull request
stands (GitHub REST docs):

* ``POST /repos/{owner}/{repo}/pulls/{n}/requested_reviewers`` answers 422
  "Reviews may only be requested from collaborators" for a user who is not
  a collaborator, and for a team without access to the repository; one
  refused name refuses the whole request, so the names are then asked for
  one by one to tell which were refused;
* ``POST /repos/{owner}/{repo}/issues/{n}/labels`` creates a missing label,
  or answers 403/422 when the token may not create it or the name is
  invalid;
* ``POST /repos/{owner}/{repo}/issues/{n}/assignees`` answers 201 but
  silently leaves out users who cannot be assigned (the answer's
  ``assignees`` tells);
* ``PATCH /repos/{owner}/{repo}/issues/{n}`` with ``milestone`` answers 422
  for a milestone number that does not exist;
* ``POST /repos/{owner}/{repo}/pulls`` with ``draft: true`` answers 422
  "Draft pull requests are not supported in this repository" (private
  repositories on plans without drafts): the pull request is opened as a
  regular one whose body says it would be a draft, and why.

Each refusal (and each decoration that kept failing transiently) becomes a
:class:`Refusal`: a ``::warning`` annotation and a job-summary line, and a
note in the PR body.  What was asked and refused is recorded in a hidden
marker at the end of the PR body (:class:`Record`), so a later run repeats
the warning, without asking GitHub again, for as long as the config still
asks for the decoration, asks only for decorations the config added since,
and asks again for refused ones when the bot's proposal changes.

Names and reasons are foreign text (the config is the template's, the
reason is GitHub's): they pass through :mod:`bot.inert`.
"""

from __future__ import annotations

import base64
import json
import re
from dataclasses import dataclass, field
from typing import Callable, Iterable, Optional

from bot import inert
from bot.errors import PlatformError

CONFIG = ".github/executorch-pack-bot.yml"
DRAFT = "draft"
_RECORD = re.compile(r"<!--\s*executorch-pack-bot:decorations=([A-Za-z0-9_=-]*)\s*-->")
NOTES_START = "<!-- executorch-pack-bot:decorations-notes -->"
_KINDS = {"label": "label", "reviewer": "reviewer", "team": "team reviewer", "assignee": "assignee",
          "milestone": "milestone", DRAFT: "draft"}
_SETTING = {"label": "labels", "reviewer": "reviewers", "team": "reviewers", "assignee": "assignees",
            "milestone": "milestone", DRAFT: "draft"}


@dataclass(frozen=True)
class Refusal:
    """One decoration GitHub did not apply.

    ``key`` is ``KIND:NAME`` (``reviewer:alice``, ``team:firmware``,
    ``label:executorch``, ``assignee:bob``, ``milestone:4``) or ``draft``;
    ``reason`` is GitHub's answer (``HTTP 422: Reviews may only be requested
    from collaborators ...``); ``number`` the pull request.
    """

    key: str
    reason: str
    number: Optional[int] = None

    @property
    def kind(self) -> str:
        return self.key.split(":", 1)[0]

    @property
    def name(self) -> str:
        return self.key.split(":", 1)[1] if ":" in self.key else ""

    @property
    def setting(self) -> str:
        """The config key that asked for it (``reviewers`` for a team too)."""
        return _SETTING.get(self.kind, self.kind)

    def text(self) -> str:
        """One plain line for a ``::warning`` annotation or stderr (foreign parts through :func:`inert.line`)."""
        on = f" on #{self.number}" if self.number else ""
        if self.kind == DRAFT:
            return inert.line(f"pull request{on} opened as a regular pull request, not a draft ({self.reason}); "
                              f"this repository does not support draft pull requests: set `draft: never` in "
                              f"{CONFIG} to stop this warning")
        return inert.line(f"{_KINDS.get(self.kind, self.kind)} {self.name!r} not applied{on}: {self.reason} "
                          f"(asked for by `{self.setting}:` in {CONFIG}; the pull request stands)")

    def markdown(self) -> str:
        """One Markdown list item for the job summary or the PR body (names in code spans, reasons inert)."""
        if self.kind == DRAFT:
            return (f"- **not a draft**: this pull request would be a draft ({inert.markdown(self.reason)}), but "
                    f"this repository does not support draft pull requests; set `draft: never` in `{CONFIG}` to "
                    "open regular pull requests without this note")
        return (f"- **{_KINDS.get(self.kind, self.kind)} not applied**: {inert.code(self.name)}: "
                f"{inert.markdown(self.reason)} (`{self.setting}:` in `{CONFIG}`)")


@dataclass
class Record:
    """What earlier runs asked GitHub for on this pull request, and what it refused (``{key: reason}``)."""

    asked: set = field(default_factory=set)
    refused: dict = field(default_factory=dict)

    def marker(self) -> str:
        """The hidden marker (base64url JSON: no ``--`` can end the HTML comment early)."""
        data = json.dumps({"asked": sorted(self.asked), "refused": dict(sorted(self.refused.items()))},
                          separators=(",", ":"))
        return f"<!-- executorch-pack-bot:decorations={base64.urlsafe_b64encode(data.encode()).decode()} -->"

    @classmethod
    def parse(cls, body: Optional[str]) -> "Record":
        """The last record in a PR body; an empty one when there is none or it does not decode."""
        found = _RECORD.findall(body or "")
        if not found:
            return cls()
        try:
            data = json.loads(base64.urlsafe_b64decode(found[-1].encode()).decode())
            return cls(set(map(str, data.get("asked", []))),
                       {str(k): str(v) for k, v in dict(data.get("refused", {})).items()})
        except (ValueError, TypeError, AttributeError, RecursionError):   # RecursionError: nested too deeply
            return cls()


def wanted(config) -> list[str]:
    """The decoration keys ``config`` asks for, in the order they are applied."""
    keys = [f"label:{x}" for x in config.labels]
    keys += [f"reviewer:{x}" for x in config.user_reviewers]
    keys += [f"team:{x}" for x in config.team_reviewers]
    keys += [f"assignee:{x}" for x in getattr(config, "assignees", ())]
    if getattr(config, "milestone", None):
        keys.append(f"milestone:{config.milestone}")
    return keys


def _reason(exc: PlatformError) -> str:
    return getattr(exc, "reason", None) or exc.message


def apply(pr, gh_repo, keys: Iterable[str], call: Callable, requester) -> dict[str, str]:
    """Ask GitHub for each decoration in ``keys`` on ``pr``; return ``{key: reason}`` of those refused.

    ``call(fn, what)`` is :func:`bot.github.client.call` (retries; raises
    :class:`~bot.errors.PlatformError`); ``requester`` is the ``github.Github``'s
    ``requester`` (PyGithub's documented way to send a request as documented).  Never raises PlatformError: a
    refusal, or a transient failure that outlasted the retries, is returned.
    """
    keys = list(keys)
    refused: dict[str, str] = {}
    n = pr.number

    def group(kind: str, send: Callable[[list[str]], None], what: str) -> None:
        names = [k.split(":", 1)[1] for k in keys if k.startswith(kind + ":")]
        if not names:
            return
        try:
            call(lambda: send(names), f"{what} on #{n}")
            return
        except PlatformError as exc:
            if len(names) == 1:
                refused[f"{kind}:{names[0]}"] = _reason(exc)
                return
        for name in names:            # one refused name refuses them all: ask one by one to tell which
            try:
                call(lambda: send([name]), f"{what} on #{n}")
            except PlatformError as exc:
                refused[f"{kind}:{name}"] = _reason(exc)

    # PyGithub's add_to_labels sends a bare JSON array, which GitHub accepts but its REST description does not
    # document (api.github.com.json, issues/add-labels: {"labels": [...]}); the documented form goes through
    # PyGithub's requester (tests/github/test_github_contract.py holds every request to the description).
    group("label", lambda names: requester.requestJsonAndCheck("POST", f"{pr.issue_url}/labels",
                                                                input={"labels": names}), "add labels")
    group("reviewer", lambda names: pr.create_review_request(reviewers=names), "request reviewers")
    group("team", lambda names: pr.create_review_request(team_reviewers=names), "request team reviewers")

    assignees = [k.split(":", 1)[1] for k in keys if k.startswith("assignee:")]
    if assignees:
        try:
            call(lambda: pr.add_to_assignees(*assignees), f"add assignees on #{n}")
            got = {a.login.lower() for a in (pr.assignees or [])}
            for name in assignees:
                if name.lower() not in got:
                    refused[f"assignee:{name}"] = ("GitHub left it out: not a user who can be assigned in this "
                                                   "repository")
        except PlatformError as exc:
            for name in assignees:
                refused[f"assignee:{name}"] = _reason(exc)

    for key in (k for k in keys if k.startswith("milestone:")):
        number = int(key.split(":", 1)[1])
        try:
            call(lambda: pr.as_issue().edit(milestone=gh_repo.get_milestone(number)), f"set the milestone of #{n}")
        except PlatformError as exc:
            refused[key] = _reason(exc)
    return refused


def is_draft_refusal(exc: PlatformError) -> bool:
    """True when creating a draft pull request failed because the repository has no draft pull requests."""
    return "draft pull requests are not supported" in (_reason(exc) + " " + exc.message).lower()


def tail(refusals: list[Refusal], record: Record) -> str:
    """What follows the bot's body stamp: the visible notes (when something was refused) and the record."""
    notes = ""
    if refusals:
        notes = (f"{NOTES_START}\n**Not applied by GitHub** (the pull request stands; each run repeats this while "
                 f"`{CONFIG}` asks for it):\n\n" + "\n".join(r.markdown() for r in refusals) + "\n")
    return notes + record.marker() + "\n"


def replace_tail(body: Optional[str], stamp_marker_re: re.Pattern, new_tail: str) -> str:
    """``body`` up to and including its last body stamp, then ``new_tail`` (a reviewer's edits above stay)."""
    body = body or ""
    last = None
    for last in stamp_marker_re.finditer(body):
        pass
    head = body[:last.end()] if last else body.rstrip("\n")
    return head.rstrip("\n") + "\n" + new_tail


def report_refusals(result) -> None:
    """One ``::warning`` annotation per refusal in ``result.refusals`` (a PublishResult) and one job-summary
    list of them (the draft refusal, when there is one, first: it is said once per run)."""
    from bot import actions

    refusals = list(getattr(result, "refusals", None) or ())
    if not refusals:
        return
    for r in refusals:
        actions.warning(r.text())
    actions.append_summary("\n**Not applied by GitHub** (the pull request stands):\n\n"
                           + "\n".join(r.markdown() for r in refusals) + "\n")
