"""GitHub Actions I/O: step outputs, the job summary, log groups, annotations, masking.

Facts (GitHub docs, "Workflow commands for GitHub Actions"): outputs are
appended to the file named by ``$GITHUB_OUTPUT`` as ``name<<DELIM`` /
value / ``DELIM`` (safe for multi-line values when DELIM never occurs in
the value); the job summary is Markdown appended to ``$GITHUB_STEP_SUMMARY``;
``::group::TITLE`` / ``::endgroup::`` fold log lines;
``::error file=F,line=L::MESSAGE`` annotates a file (``::warning`` likewise) (data escapes ``%``,
CR, LF; property values also ``:`` and ``,``); ``::add-mask::VALUE`` hides
a value in all later log lines.  Outside Actions, groups and annotations
print nothing special and outputs are skipped.

Every text written here passes through the one writer, :mod:`bot.limits`:
the job summary stays within 1 MiB per step (all appends of the step
together; a cut summary is printed whole to the step's log), an annotation
within 64 KB, and step outputs within the job's 1 MB (a value past it is
refused, never cut).
"""

from __future__ import annotations

import contextlib
import os
import re
import sys
import uuid
from typing import Mapping, Optional, TextIO

from bot import inert, limits
from bot.logstream import write_command

#: Longest annotation message the bot writes (characters of the message; an ellipsis marks a cut).
ANNOTATION_CAP = 2000


def in_actions(env: Mapping[str, str] = os.environ) -> bool:
    """True inside a GitHub Actions job (``GITHUB_ACTIONS=true``)."""
    return env.get("GITHUB_ACTIONS") == "true"


def _escape_data(s: str) -> str:
    return s.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_prop(s: str) -> str:
    return _escape_data(s).replace(":", "%3A").replace(",", "%2C")


def set_outputs(values: Mapping[str, object], env: Mapping[str, str] = os.environ) -> bool:
    """Append ``values`` to ``$GITHUB_OUTPUT`` (booleans as ``true``/``false``); False when it is unset.

    Raises :class:`~bot.errors.UsageError` when the file cannot be written.
    """
    path = env.get("GITHUB_OUTPUT")
    if not path:
        return False
    chunks = []
    for name, value in values.items():
        text = ("true" if value else "false") if isinstance(value, bool) else ("" if value is None else str(value))
        delim = f"ghadelimiter_{uuid.uuid4().hex}"
        while delim in text:
            delim = f"ghadelimiter_{uuid.uuid4().hex}"
        chunks.append(f"{name}<<{delim}\n{text}\n{delim}\n")
    try:
        data = limits.fit_output(", ".join(values), "".join(chunks), used=_used(path, "step-output"))
    except limits.TooLong as exc:
        from bot.errors import UsageError
        raise UsageError(f"cannot write the step output: {exc}", path=path) from None
    _append("GITHUB_OUTPUT", path, data)
    return True


def _used(path: str, field: str) -> int:
    """How much of ``field``'s limit the file at ``path`` already holds (0 when it is missing or unreadable)."""
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            return limits.size(fh.read(), field)
    except OSError:
        return 0


def _append(var: str, path: str, text: str) -> None:
    """Append ``text`` to the file named by ``$var`` in one write.

    Raises :class:`~bot.errors.UsageError` naming the variable and the file
    when it cannot be written (missing folder, no permission, disk full).
    """
    from bot.errors import UsageError

    try:
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(text)
    except OSError as exc:
        raise UsageError(f"cannot append to ${var}: {exc.strerror or exc}", path=path) from None


def append_summary(markdown: str, env: Mapping[str, str] = os.environ) -> bool:
    """Append Markdown to ``$GITHUB_STEP_SUMMARY``; False when it is unset.

    Raises :class:`~bot.errors.UsageError` when the file cannot be written.
    """
    path = env.get("GITHUB_STEP_SUMMARY")
    if not path:
        return False
    markdown = markdown if markdown.endswith("\n") else markdown + "\n"
    fitted = limits.fit(markdown, "job-summary", room=limits.FIELDS["job-summary"].limit - _used(path, "job-summary"),
                        whole_at="in this step's log", env=env)
    if fitted != markdown:   # the whole text where the reader can get it: the step's log
        print(inert.log_safe(markdown), end="", file=sys.stdout)
    _append("GITHUB_STEP_SUMMARY", path, fitted)
    return True


@contextlib.contextmanager
def group(title: str, out: Optional[TextIO] = None, env: Mapping[str, str] = os.environ):
    """Fold the log lines printed inside the block under ``title`` (Actions only)."""
    out = out or sys.stdout
    active = in_actions(env)
    if active:
        write_command(out, f"::group::{_escape_data(inert.line(title, cap=200))}")
    try:
        yield
    finally:
        if active:
            write_command(out, "::endgroup::")


def _inert(message: str) -> str:
    """``message`` with each line through :func:`bot.inert.line` (no line can be read as a workflow command)."""
    from bot import inert

    return "\n".join(inert.lines(message, cap=2000, max_lines=40)) or ""


def _annotation(message: str, env: Mapping[str, str] = os.environ) -> str:
    """``message`` inert (:func:`bot.inert.lines`: :data:`ANNOTATION_CAP` characters a line, 40 lines) and within an
    annotation's 64 KB (:mod:`bot.limits`; 40 lines of 2,000 characters would be past it)."""
    text = "\n".join(inert.lines(message, cap=ANNOTATION_CAP, max_lines=40))
    fitted = limits.fit(text, "annotation", whole_at="in the job summary of this run")
    if fitted != text:   # the whole message, shown as text (a fence longer than any run of backticks in it)
        fence = "`" * max(3, 1 + max((len(r) for r in re.findall(r"`+", text)), default=0))
        append_summary(f"\nThe whole annotation message:\n\n{fence}text\n{text}\n{fence}\n", env=env)
    return fitted


def error(message: str, *, file: Optional[str] = None, line: Optional[int] = None,
          out: Optional[TextIO] = None, env: Mapping[str, str] = os.environ) -> None:
    """An ``::error`` annotation naming the file and line (plain ``error: ...`` outside Actions).

    ``message`` and ``file`` may quote foreign text: every line of the message
    goes through :func:`bot.inert.lines` (capped at :data:`ANNOTATION_CAP`
    characters, 40 lines), ``file`` is one line.
    """
    out = out or sys.stderr
    message = _annotation(message, env)
    file = inert.line(file, cap=300) if file else None
    if not in_actions(env):
        where = f"{file}:{line}: " if file and line else (f"{file}: " if file else "")
        print(f"error: {where}{message}", file=out)
        return
    props = []
    if file:
        props.append(f"file={_escape_prop(file)}")
        if line:
            props.append(f"line={int(line)}")
    head = "::error" + (" " + ",".join(props) if props else "")
    write_command(out, f"{head}::{_escape_data(message)}")


def warning(message: str, *, out: Optional[TextIO] = None, env: Mapping[str, str] = os.environ) -> None:
    """A ``::warning`` annotation (plain ``warning: ...`` outside Actions), for a run that succeeds with a caveat.

    Every line of ``message`` goes through :func:`bot.inert.lines` (capped at :data:`ANNOTATION_CAP`, 40 lines).
    """
    out = out or sys.stderr
    message = _annotation(message, env)
    if in_actions(env):
        write_command(out, f"::warning title=executorch-pack-bot::{_escape_data(message)}")
    else:
        print(f"warning: {message}", file=out)


def add_mask(secret: Optional[str], out: Optional[TextIO] = None, env: Mapping[str, str] = os.environ) -> None:
    """Ask the runner to hide ``secret`` in every later log line (Actions only; nothing for an empty value)."""
    if secret and in_actions(env):
        write_command(out or sys.stdout, f"::add-mask::{_escape_data(secret)}")
