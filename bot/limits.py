"""The one writer of every text the bot sends to GitHub or to the Actions runner: each field within its documented limit.

Every body, title, comment, commit message, job summary, annotation and step
output the bot sends passes through :func:`fit` (or :func:`fit_payload` for a
REST request's JSON, :func:`fit_output` for a step output) right at the call
that sends it; ``tests/core/test_every_text_sent_goes_through_the_writer.py`` finds
every such call in ``bot/`` and fails on one that does not.

The limits (:data:`FIELDS`), each from what GitHub documents or answers:

- issue body, pull request body, issue/PR comment, review body: 65,536
  characters.  GitHub answers 422 ``body is too long (maximum is 65536
  characters)`` past it (REST "Create an issue", "Create an issue comment",
  "Create a pull request"; the error names the field and the limit).
- issue and pull request title: 256 characters (422 ``title is too long
  (maximum is 256 characters)``, REST "Create a pull request").
- commit message: GitHub documents no limit (REST "Create a commit"); the
  bot holds it to 65,536 characters, the limit of the PR body that shows the
  same text.
- job summary: 1 MiB (1,048,576 bytes) per step, all appends to one step's
  ``$GITHUB_STEP_SUMMARY`` together (GitHub docs, "Workflow commands for
  GitHub Actions", "Adding a job summary"; past it the runner drops the whole
  summary: "$GITHUB_STEP_SUMMARY upload aborted, supports content up to a
  size of 1024k").
- annotation message: 64 KB (REST "Create a check run", the ``annotations``
  object's ``message``: "The maximum size is 64 KB"; a workflow command's
  annotation becomes one); GitHub shows at most 10 warning and 10 error
  annotations per step.  The bot's own cap (:data:`bot.actions.ANNOTATION_CAP`)
  is far below it.
- step output: 1 MB per job, "approximated based on UTF-16 encoding"
  (GitHub docs, "Defining outputs for jobs").  An output is read by a
  machine (a JSON matrix): it is never cut, :func:`fit_output` refuses it.

Cutting (:func:`fit`) keeps the head, which holds what matters most (the bot
puts the verdict, the blocking items and the table's head first), cuts at a
line end, closes a code fence or ``<details>`` the cut left open, keeps the
bot's hidden records (``<!-- executorch-pack-bot:... -->``, which later runs
read back), and says in the text how much was cut and where the whole text
is.  The whole text goes to the job summary of the run (appended by
:func:`fit` itself unless the caller says it is already there, ``whole_at``).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Any, Mapping, Optional

CUT_MARK = "✂"


@dataclass(frozen=True)
class Field:
    """One kind of text GitHub or the runner takes.

    Attributes:
        name: the field's key in :data:`FIELDS` (``"issue-body"``).
        what: the field in words, for the note (``"an issue body"``).
        limit: the most GitHub takes, in ``unit``.
        unit: ``"characters"`` (Unicode code points, as GitHub counts a body),
            ``"bytes"`` (UTF-8) or ``"utf-16 bytes"``.
        source: where the limit is documented.
    """

    name: str
    what: str
    limit: int
    unit: str
    source: str


_BODY_SRC = ('GitHub REST "Create an issue" / "Create an issue comment" / "Create a pull request": '
             '422 "body is too long (maximum is 65536 characters)"')
FIELDS: dict[str, Field] = {f.name: f for f in (
    Field("issue-body", "an issue body", 65_536, "characters", _BODY_SRC),
    Field("pull-body", "a pull request body", 65_536, "characters", _BODY_SRC),
    Field("comment", "a comment", 65_536, "characters", _BODY_SRC),
    Field("title", "an issue or pull request title", 256, "characters",
          'GitHub REST "Create a pull request": 422 "title is too long (maximum is 256 characters)"'),
    Field("commit-message", "a commit message", 65_536, "characters",
          'GitHub REST "Create a commit" documents no limit; held to the PR body\'s 65,536'),
    Field("job-summary", "the job summary of a step", 1_048_576, "bytes",
          'GitHub docs, "Adding a job summary": 1 MiB per step'),
    Field("annotation", "an annotation", 64 * 1024, "bytes",
          'GitHub REST "Create a check run", annotations[].message: "The maximum size is 64 KB"'),
    Field("step-output", "the step outputs of a job", 1_000_000, "utf-16 bytes",
          'GitHub docs, "Defining outputs for jobs": 1 MB per job, approximated based on UTF-16'),
)}
#: REST JSON keys holding text, and the field each is held to (issue, PR, comment and review bodies share a limit).
PAYLOAD_FIELDS = {"body": "comment", "title": "title", "message": "commit-message"}
_HIDDEN = re.compile(r"^<!--[ \t]*executorch-pack-bot:[^\n]*?-->[ \t]*$", re.MULTILINE)
_FENCE = re.compile(r"^ {0,3}(`{3,})(.*)$")


class TooLong(ValueError):
    """A text that must not be cut (a step output) is past its limit; ``str()`` names it, its size and the limit."""


def size(text: str, field: str) -> int:
    """``text``'s size in the unit of ``field`` (characters, UTF-8 bytes or UTF-16 bytes)."""
    unit = FIELDS[field].unit
    if unit == "bytes":
        return len(text.encode("utf-8", "surrogatepass"))
    if unit == "utf-16 bytes":
        return len(text.encode("utf-16-le", "surrogatepass"))
    return len(text)


def close_open(text: str) -> str:
    """``text`` with a code fence or ``<details>`` a cut left open closed (GFM: a fence is closed by a line of at
    least as many backticks and nothing else)."""
    closers = []
    fence = ""
    for line in text.splitlines():
        m = _FENCE.match(line)
        if not m:
            continue
        if not fence:
            fence = m.group(1)
        elif len(m.group(1)) >= len(fence) and not m.group(2).strip():
            fence = ""
    if fence:
        closers.append(fence)
    opened = text.count("<details>") - text.count("</details>")
    closers += ["</details>"] * max(opened, 0)
    return text + ("\n" + "\n".join(closers) if closers else "")


def run_url(env: Mapping[str, str] = os.environ) -> str:
    """This workflow run's page (``$GITHUB_SERVER_URL/$GITHUB_REPOSITORY/actions/runs/$GITHUB_RUN_ID``), "" outside
    Actions."""
    server, repo, run = (env.get(k, "") for k in ("GITHUB_SERVER_URL", "GITHUB_REPOSITORY", "GITHUB_RUN_ID"))
    return f"{server.rstrip('/')}/{repo}/actions/runs/{run}" if server and repo and run else ""


def _where(env: Mapping[str, str]) -> str:
    url = run_url(env)
    return f"in the [job summary of this run]({url})" if url else "in the job summary of the run that wrote it"


def _head_within(text: str, field: str, room: int) -> str:
    """The longest head of ``text`` ending at a line end (or, for one long line, anywhere) within ``room``."""
    if room <= 0:
        return ""
    lo, hi = 0, len(text)
    while lo < hi:              # the longest prefix within room (size grows with the prefix)
        mid = (lo + hi + 1) // 2
        if size(text[:mid], field) <= room:
            lo = mid
        else:
            hi = mid - 1
    head = text[:lo]
    nl = head.rfind("\n")
    return head[:nl] if nl > 0 else head


def fit(text: Optional[str], field: str, *, whole_at: Optional[str] = None, room: Optional[int] = None,
        env: Mapping[str, str] = os.environ) -> str:
    """``text`` within the limit of ``field`` (a key of :data:`FIELDS`): unchanged when it fits, else cut.

    Args:
        text: the bot's text (None is ``""``).
        field: ``"issue-body"``, ``"pull-body"``, ``"comment"``, ``"title"``, ``"commit-message"``,
            ``"job-summary"``, ``"annotation"``.
        whole_at: where the whole text already is, in words for the note (``"in the job summary of ..."``);
            None: :func:`fit` appends the whole text to ``$GITHUB_STEP_SUMMARY`` itself and the note links
            this run's page.
        room: the room left, in the field's unit, when less than its limit (a job summary already partly
            written).

    A cut text keeps its head up to a line end, closes what the cut left open, keeps the bot's hidden
    ``<!-- executorch-pack-bot:... -->`` records that were in the cut part, and ends with ``✂`` and a note
    of how many characters were cut and where the whole text is; a title is cut to its limit with ``…``;
    ``""`` when not even the note fits in ``room``.  Raises ``KeyError`` for an unknown field, nothing else.
    """
    text = "" if text is None else str(text)
    spec = FIELDS[field]
    limit = spec.limit if room is None else max(0, min(room, spec.limit))
    if size(text, field) <= limit:
        return text
    if field == "title":
        head = text[:max(limit - 1, 0)]
        while head and size(head + "…", field) > limit:
            head = head[:-1]
        return head + "…" if limit else ""
    where = whole_at
    if where is None:
        where = _where(env)
        if field != "job-summary":
            from bot import actions
            actions.append_summary(f"\n<details><summary>The whole text of {spec.what} (cut on GitHub to "
                                   f"{spec.limit:,} {spec.unit})</summary>\n\n{text}\n\n</details>\n", env=env)
        else:
            where = "in this step's log"
    def note_for(raw: str) -> str:
        return (f"\n\n_{CUT_MARK} {len(text) - len(raw):,} more characters were cut here to stay within GitHub's "
                f"limit of {spec.limit:,} {spec.unit} for {spec.what}; the whole text is {where}._\n")

    kept_hidden: list[str] = []
    raw = text
    for _ in range(3):   # the note's numbers and the kept records depend on the cut; settle in a few rounds
        tail = "\n" + "\n".join(kept_hidden) + "\n" if kept_hidden else ""
        if size(tail, field) > limit // 2:   # records too large to keep whole: not kept (never past the limit)
            kept_hidden, tail = [], ""
        raw = _head_within(text, field, limit - size(note_for(raw) + tail, field) - 40)
        kept_hidden = [h for h in _HIDDEN.findall(text[len(raw):]) if h not in raw]
    tail = "\n" + "\n".join(kept_hidden) + "\n" if kept_hidden else ""
    if size(tail, field) > limit // 2:
        tail = ""
    out = close_open(raw) + note_for(raw) + tail
    while size(out, field) > limit and raw:   # a last guard: never past the limit
        raw = raw[:-max(1, len(raw) // 50)]
        out = close_open(raw) + note_for(raw) + tail
    if size(out, field) > limit:   # not even the note fits (a step's job summary already full): send nothing
        return ""
    return out


def fit_payload(payload: Any, *, whole_at: Optional[str] = None, env: Mapping[str, str] = os.environ) -> Any:
    """A REST request's JSON with each text key (:data:`PAYLOAD_FIELDS`: ``body``, ``title``, ``message``) through
    :func:`fit`; other keys and a payload that is not a dict are returned as they are."""
    if not isinstance(payload, dict):
        return payload
    out = dict(payload)
    for key, field in PAYLOAD_FIELDS.items():
        if isinstance(out.get(key), str):
            out[key] = fit(out[key], field, whole_at=whole_at, env=env)
    return out


def fit_output(name: str, value: str, *, used: int = 0) -> str:
    """``value`` (the text written to ``$GITHUB_OUTPUT`` for the outputs ``name``) unchanged when it fits in the
    job's 1 MB of outputs (``used``: UTF-16 bytes already written); raises :class:`TooLong` naming the output
    otherwise (an output is read by a machine: a cut one would be wrong, not short)."""
    need = size(value, "step-output")
    limit = FIELDS["step-output"].limit
    if used + need > limit:
        raise TooLong(f"the step output {name} is {need:,} UTF-16 bytes; with the {used:,} already written it is past "
                      f"GitHub's limit of {limit:,} for {FIELDS['step-output'].what}")
    return value
