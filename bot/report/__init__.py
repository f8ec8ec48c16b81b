"""The pull-request body and the job summary of a run, as Markdown.

The PR title is ``Bump ExecuTorch to V``.  Every path that opens a PR
renders the body from one bump record (:mod:`bot.report.record`:
``render_record``), which calls :func:`render` here.  The body (laid
out by :mod:`bot.report.body`) puts what decides an approval first: what is
bumped and why this version, five verdict lines (:mod:`bot.report.verdict`),
a warning when the template's CI will not run, a refused release asset
(:mod:`bot.report.refusal`),
the blocking items as unticked tasks, the items for the reviewer (answered
where the bot can); then the maintenance procedure's four steps
(:mod:`bot.report.procedure`), the upstream changes that matter
(:mod:`bot.report.upstream`), the pins, the files changed, the pack
verification (:mod:`bot.report.pack`), the template's CI, a hardware test
plan and how to reproduce the plan (:mod:`bot.report.review`), and a footer
with a hidden fingerprint of the target pin set (``Plan.fingerprint()``)
that later runs read to tell "already proposed" or "closed unmerged" from
"new".  Every string from a template, upstream or a pack goes through
:mod:`bot.inert`.  The facts beyond the plan come from
:func:`bot.report.evidence.gather`.
"""

from __future__ import annotations

import re
from typing import Optional

from bot.plan import Plan
from bot.report.body import MAX_BODY, Report, render
from bot.report.pack import pack_section as _pack_section
from bot.report.sections import (MARKER, MAX_LISTED, fingerprint_marker, included_section, pin_table,
                                 blocking_section, reviewer_section)

__all__ = ["MARKER", "MAX_BODY", "MAX_LISTED", "Report", "fingerprint_marker", "parse_fingerprint", "pr_title",
           "pin_table", "links", "flags_section", "pack_section", "included_section", "pr_body", "render",
           "job_summary"]

_FP = re.compile(r"<!--\s*executorch-pack-bot:fingerprint=([0-9a-f]{64})\s*-->")


def parse_fingerprint(body: Optional[str]) -> Optional[str]:
    """The fingerprint hidden in a PR body, or None when the body has none (not a bot PR).

    The last marker counts: the bot writes it at the end, after every text
    quoted from the template (a flagged line could contain a look-alike).
    """
    found = _FP.findall(body or "")
    return found[-1] if found else None


def pr_title(plan: Plan, blocked: str = "") -> str:
    """``Bump ExecuTorch to 1.5.1``; ``Bump ExecuTorch to 1.5.1 (blocked: BLOCKED)`` when ``blocked`` names what
    stops the merge (:func:`bot.report.record.blocked_by`), so the list of pull requests shows it."""
    if not plan.bump:
        return "Bump ExecuTorch"
    return f"Bump ExecuTorch to {plan.bump.new_executorch}" + (f" (blocked: {blocked})" if blocked else "")


def links(plan: Plan, upstream: str) -> str:
    """Release-notes and compare links for ``upstream`` (``"pytorch/executorch"``); the intro's second line."""
    from bot.report.sections import intro
    text = intro(plan, upstream)
    return text.split("\n")[2] if plan.bump else ""


def flags_section(plan: Plan, evidence=None) -> str:
    """The blocking items (tasks) then the informational items (a plain list); empty text when there are none."""
    return "\n\n".join(t for t in (blocking_section(plan), reviewer_section(plan, evidence)) if t)


def pack_section(pack_report=None, pack_note: Optional[str] = None) -> str:
    """The pack verification section (see :func:`bot.report.pack.pack_section`)."""
    return _pack_section(pack_report, pack_note)


def pr_body(plan: Plan, *, upstream: str, pack_report=None, pack_note: Optional[str] = None,
            index_line: Optional[str] = None, included: Optional[list[str]] = None, evidence=None) -> str:
    """The whole PR body (Markdown, at most :data:`MAX_BODY` characters), ending with the fingerprint marker.

    ``included``: repository-relative paths committed by ``publish --include``
    besides the plan's files (listed under "Regenerated files");
    ``evidence``: a :class:`bot.report.evidence.Evidence`.
    """
    return render(plan, upstream=upstream, pack_report=pack_report, pack_note=pack_note, index_line=index_line,
                  included=included, evidence=evidence).body


def job_summary(*, current: Optional[str], target: Optional[str], outcome: str, plan: Optional[Plan] = None,
                upstream: str = "", pack_report=None, pack_note: Optional[str] = None,
                index_line: Optional[str] = None, evidence=None, included: Optional[list[str]] = None) -> str:
    """The Markdown written to ``$GITHUB_STEP_SUMMARY``: versions, what happened, and the whole report uncut.

    The PR body points here when it had to be shortened, so every section is
    here in full (:attr:`Report.full`).  ``outcome`` is the bot's own sentence
    but may quote upstream text, so it is made inert.
    """
    from bot.inert import code, markdown

    out = ["## executorch-pack-bot", "",
           f"- current: {code(current or 'unknown')}", f"- target: {code(target or 'unknown')}",
           f"- outcome: {markdown(outcome, cap=2000)}"]
    if plan is not None and plan.bump:
        rep = render(plan, upstream=upstream or "pytorch/executorch", pack_report=pack_report, pack_note=pack_note,
                     index_line=index_line, included=included, evidence=evidence)
        out += ["", rep.full]
    else:
        if index_line:
            out.append(f"- package index: {markdown(index_line)}")
        if pack_report is not None or pack_note:
            out += ["", _pack_section(pack_report, pack_note, full=True)]
    return "\n".join(out) + "\n"
