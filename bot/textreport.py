"""Plain-text renderings for the terminal: the summary of a plan and of an audit.

The Markdown renderings for pull requests and job summaries live in
:mod:`bot.report`; this module only formats for a person at a terminal.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot import inert
from bot.model import Flag

if TYPE_CHECKING:  # annotations only: bot.plan (difflib, hashlib) is not loaded by commands that print no plan
    from bot.plan import Plan

#: Longest foreign value shown in a table cell / a flag message (characters; an ellipsis marks a cut).
CELL_CAP = 120
MESSAGE_CAP = 600


def plural(n: int, noun: str) -> str:
    """``plural(1, "file")`` -> ``"1 file"``, ``plural(3, "file")`` -> ``"3 files"``."""
    return f"{n} {noun}{'' if n == 1 else 's'}"


def table(headers: list[str], rows: list[list[str]]) -> str:
    """A fixed-width text table with a header rule; cells are ``str``.

    Cells may hold foreign text (a pin, its source): each is one line through
    :func:`bot.inert.line`, capped at :data:`CELL_CAP` characters.
    """
    rows = [[inert.line(c, cap=CELL_CAP) for c in r] for r in rows]
    widths = [len(h) for h in headers]
    for r in rows:
        widths = [max(w, len(c)) for w, c in zip(widths, r)]
    fmt = "  ".join("{:<%d}" % w for w in widths)
    lines = [fmt.format(*headers).rstrip(), fmt.format(*["-" * w for w in widths]).rstrip()]
    lines += [fmt.format(*r).rstrip() for r in rows]
    return "\n".join(lines)


def flag_lines(flags: list[Flag]) -> list[str]:
    """``["  ! path:line: message [code]", ...]``; ``!`` blocking, ``-`` informational.

    A message quotes upstream and template text (a pin expression, a
    requirement, ``requires-python``): it is one line through
    :func:`bot.inert.line`, capped at :data:`MESSAGE_CAP` characters.
    """
    out = []
    for f in flags:
        where = ""
        if f.path:
            where = inert.line(f.path, cap=CELL_CAP) + (f":{f.line}" if f.line else "") + ": "
        out.append(f"  {'!' if f.blocking else '-'} {where}{inert.line(f.message, cap=MESSAGE_CAP)} [{f.code}]")
    return out


#: What to do about each blocking flag code, for the closing line of ``update``.
_HINTS = {
    "unresolved-pin": "supply the missing values with --set NAME=VERSION",
    "tosa-unknown": "supply the TOSA pins with --set NAME=VERSION",
    "range-pin": "make the range pins exact (==X, @X)",
    "pack-id-case": "fix the letter case of the pack ID (PyTorch::ExecuTorch)",
    "symlink-outside-repo": "replace the link with a regular file, or leave it out with --exclude",
    "unmanaged-pin": "edit the listed pyproject.toml constraint in the same PR",
    "direct-reference": "pin the direct reference to a release tag (@vX.Y.Z) or with ==",
    "python-lock": "regenerate the listed Python lock files with the commands given",
    "compiled-requirements": "regenerate the compiled requirement files with the commands given",
    "hashed-pin": "regenerate the hash-pinned requirement files (pip-compile --generate-hashes)",
    "python-pin": "edit the listed Pipfile, setup.cfg or setup.py pins",
    "url-requirement": "move the listed URL lines to the new version by hand",
}


def blocking_hints(flags: list[Flag]) -> list[str]:
    """One hint per distinct blocking flag code, in first-seen order (``--set`` only for unresolved pins).

    A code without a specific hint gives "fix the items marked !".
    """
    out: list[str] = []
    for f in flags:
        if not f.blocking:
            continue
        hint = _HINTS.get(f.code, "fix the items marked !")
        if hint not in out:
            out.append(hint)
    return out


def blocked_line(flags: list[Flag]) -> str:
    """The closing line of a blocked ``update``: the count and what to do (:func:`blocking_hints`)."""
    n = sum(1 for f in flags if f.blocking)
    return f"Nothing written: {plural(n, 'blocking item')} above (marked !); {'; '.join(blocking_hints(flags))}; or pass --allow-flagged."


def audit_mentions_line(mentions) -> str:
    """The buckets of the mentions of the current version as ``audit`` (and ``doctor``) count them on a template
    nobody bumped: ``mentions of 1.4.0: 30 a bump moves, 4 history, 2 other versions, 0 for review``
    (``update`` says "moved" of the edits it planned; here nothing moved)."""
    c = mentions.counts()
    return (f"mentions of {mentions.version}: {c['moved']} a bump moves, {c['history']} history, "
            f"{c['other']} other version{'' if c['other'] == 1 else 's'}, {c['review']} for review")


def not_pinned_lines(rows) -> list[str]:
    """The pins upstream sets and the template does not pin (a row without ``old``): named apart from the pin
    table, which lists only what the bump changes, since nothing is added for them."""
    absent = [r for r in rows if not r.old]
    if not absent:
        return []
    names = ", ".join(f"{r.name} {r.new or '(unresolved)'}" for r in absent)
    return ["", f"Upstream also pins {names}; the template does not pin {'it' if len(absent) == 1 else 'them'}, "
                "so nothing is added."]


def plan_summary(plan: Plan) -> str:
    """The summary printed after a plan: the pin table, changed files, flagged items."""
    b = plan.bump
    lines = []
    if b is not None:
        if b.old_executorch == b.new_executorch:
            lines.append(f"ExecuTorch {b.new_executorch} ({b.new_tag}): the template is already on this release.")
        else:
            lines.append(f"ExecuTorch {b.old_executorch} -> {b.new_executorch} ({b.old_tag} -> {b.new_tag})")
    lines.append("")
    pinned = [r for r in plan.rows if r.old]
    lines.append(table(["pin", "old", "new", "source"],
                       [[r.name, r.old, r.new or "(unresolved)", r.source] for r in pinned]))
    lines += not_pinned_lines(plan.rows)
    lines.append("")
    if plan.nothing_to_do:
        lines.append("Nothing to change.")
    else:
        by_file: dict[str, int] = {}
        for e in plan.edits:
            by_file[e.path] = by_file.get(e.path, 0) + 1
        lines.append(f"{plural(len(plan.edits), 'edit')} in {plural(len(by_file), 'file')}:")
        lines += [f"  {inert.line(p, cap=300)} ({n})" for p, n in sorted(by_file.items())]
    if plan.mentions is not None:
        lines.append("")
        lines.append(plan.mentions.summary())
    if plan.flags:
        blocking = len(plan.blocking_flags)
        lines.append("")
        lines.append(f"Flagged items ({blocking} blocking, {len(plan.flags) - blocking} informational):")
        lines += flag_lines(plan.flags)
    return "\n".join(lines) + "\n"
