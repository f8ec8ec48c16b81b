"""The pull-request body and the job summary of a run, as Markdown.

The PR title is ``Bump ExecuTorch to V``.  The body has: the pin table
(name, old, new, source), links to the release notes and the compare view
on GitHub, the package-index state, the pack verification section (from
:mod:`bot.pack.verify`'s ``PackReport.to_markdown()``), operator components
added/removed against the previous pack, the flagged items, and a hidden
fingerprint of the target pin set (``Plan.fingerprint()``) that later runs
read to tell "already proposed" or "closed unmerged" from "new".
"""

from __future__ import annotations

import os
import re
from typing import Optional

from bot import inert
from bot.plan import Plan

MARKER = "executorch-pack-bot:fingerprint="
MAX_BODY = 60_000   # GitHub refuses a PR body over 65,536 characters (HTTP 422); room is left for the body stamp
_FP = re.compile(r"<!--\s*executorch-pack-bot:fingerprint=([0-9a-f]{64})\s*-->")


def fingerprint_marker(fp: str) -> str:
    """The hidden HTML comment carrying the fingerprint (``<!-- executorch-pack-bot:fingerprint=HEX -->``)."""
    return f"<!-- {MARKER}{fp} -->"


def parse_fingerprint(body: Optional[str]) -> Optional[str]:
    """The fingerprint hidden in a PR body, or None when the body has none (not a bot PR).

    The last marker counts: the bot writes it at the end, after every text
    quoted from the template (a flagged line could contain a look-alike).
    """
    found = _FP.findall(body or "")
    return found[-1] if found else None


def pr_title(plan: Plan) -> str:
    """``Bump ExecuTorch to 1.5.1``."""
    return f"Bump ExecuTorch to {plan.bump.new_executorch}" if plan.bump else "Bump ExecuTorch"


def _cell(v: Optional[str]) -> str:
    return "—" if v in (None, "") else str(v).replace("|", "\\|")


def pin_table(plan: Plan) -> str:
    """The Markdown pin table: ``| name | old | new | source |``."""
    lines = ["| pin | old | new | source |", "|---|---|---|---|"]
    for r in plan.rows:
        lines.append(f"| `{_cell(r.name)}` | {_cell(r.old)} | {_cell(r.new)} | {_cell(r.source)} |")
    return "\n".join(lines)


def _server(env=os.environ) -> str:
    return (env.get("GITHUB_SERVER_URL") or "https://github.com").rstrip("/")


def links(plan: Plan, upstream: str) -> str:
    """Release-notes and compare links for ``upstream`` (``"pytorch/executorch"``)."""
    b = plan.bump
    if not b:
        return ""
    base = f"{_server()}/{upstream}"
    return (f"Release notes: [{b.new_tag}]({base}/releases/tag/{b.new_tag}) · "
            f"Changes: [{b.old_tag}...{b.new_tag}]({base}/compare/{b.old_tag}...{b.new_tag})")


def flags_section(plan: Plan) -> str:
    """The items for the reviewer, blocking ones first; empty text when there are none."""
    if not plan.flags:
        return ""
    out = ["### Items for the reviewer", ""]
    for f in sorted(plan.flags, key=lambda f: (not f.blocking, f.path or "", f.line or 0)):
        where = f" (`{f.path}:{f.line}`)" if f.path and f.line else (f" (`{f.path}`)" if f.path else "")
        mark = "**blocking** " if f.blocking else ""
        out.append(f"- [ ] {mark}`{f.code}`{where}: {inert.markdown(f.message)}")
    return "\n".join(out)


def pack_section(pack_report=None, pack_note: Optional[str] = None) -> str:
    """The pack verification section: one ``### Pack verification`` heading, the report, the operator components.

    ``pack_report`` is a ``bot.pack.verify.PackReport`` (``failed``,
    ``to_markdown()``, ``operators_added``, ``operators_removed``) or a
    :class:`bot.github.flow.MarkdownReport`, or None with ``pack_note``
    saying why there is none ("no release asset; build the pack with
    build-pack").  ``PackReport.to_markdown()`` (bot/pack/report.py) already
    opens with ``### Pack verification: `FILE``` and its verdict, and lists
    the operator components against its baseline; those are not repeated.
    """
    if pack_report is None:
        return "\n".join(["### Pack verification", "", pack_note or "No pack was verified in this run."])
    md = pack_report.to_markdown().strip()
    out = []
    if not md.startswith("### Pack verification"):
        verdict = "**failed**" if getattr(pack_report, "failed", False) else "passed"
        out += ["### Pack verification", "", f"Verification {verdict}.", ""]
    out.append(md)
    added = list(getattr(pack_report, "operators_added", None) or ())
    removed = list(getattr(pack_report, "operators_removed", None) or ())
    if (added or removed) and "#### Operator components" not in md:
        out += ["", "#### Operator components", ""]
        out += [f"- added: `{x}`" for x in added]
        out += [f"- removed: `{x}`" for x in removed]
    return "\n".join(out)


MAX_LISTED = 50   # included files named one by one in the PR body; the rest are counted


def included_section(paths: list[str]) -> str:
    """The files committed by ``publish --include`` (the ai-layer job's output); empty text when none."""
    if not paths:
        return ""
    out = ["### Regenerated files", "", f"{len(paths)} files regenerated by the ai-layer job "
           "(`publish --include`), committed as the job left them:", ""]
    out += [f"- `{_cell(p)}`" for p in paths[:MAX_LISTED]]
    if len(paths) > MAX_LISTED:
        out.append(f"- … and {len(paths) - MAX_LISTED} more")
    return "\n".join(out)


def pr_body(plan: Plan, *, upstream: str, pack_report=None, pack_note: Optional[str] = None,
            index_line: Optional[str] = None, included: Optional[list[str]] = None) -> str:
    """The whole PR body (Markdown), ending with the hidden fingerprint marker.

    ``included``: repository-relative paths committed by ``publish --include``
    besides the plan's files (listed under "Regenerated files").
    """
    b = plan.bump
    parts = []
    if b:
        parts.append(f"Bumps the template from ExecuTorch **{b.old_executorch}** to **{b.new_executorch}** "
                     f"(pack `PyTorch::ExecuTorch@{b.new_pack}`).")
    parts.append(links(plan, upstream))
    if index_line:
        parts.append(f"Package index: {index_line}.")
    parts.append("### Pins\n\n" + pin_table(plan))
    files = sorted(plan.contents) or sorted({e.path for e in plan.edits})
    if files:
        parts.append("### Files changed\n\n" + "\n".join(f"- `{p}`" for p in files))
    parts.append(included_section(list(included or ())))
    parts.append(pack_section(pack_report, pack_note))
    fl = flags_section(plan)
    if fl:
        parts.append(fl)
    tail = ("---\n_Opened by executorch-pack-bot. Commits pushed to this branch by anyone else stop the bot "
            "from updating it._\n\n" + fingerprint_marker(plan.fingerprint()) + "\n")
    head = "\n\n".join(p for p in parts if p) + "\n\n"
    budget = MAX_BODY - len(tail)
    if len(head) > budget:
        note = ("\n\n_The report was cut here to fit GitHub's limit on a pull request body; "
                "the job summary has it in full._\n\n")
        cut = head.rfind("\n", 0, budget - len(note))
        head = head[:max(cut, 0)] + note
    return head + tail


def job_summary(*, current: Optional[str], target: Optional[str], outcome: str, plan: Optional[Plan] = None,
                upstream: str = "", pack_report=None, pack_note: Optional[str] = None,
                index_line: Optional[str] = None) -> str:
    """The Markdown written to ``$GITHUB_STEP_SUMMARY``: versions, what happened, and the PR body's sections."""
    out = ["## executorch-pack-bot", "",
           f"- current: `{current or 'unknown'}`", f"- target: `{target or 'unknown'}`", f"- outcome: {outcome}"]
    if index_line:
        out.append(f"- package index: {index_line}")
    if plan is not None and plan.bump:
        out += ["", links(plan, upstream), "", pin_table(plan)]
        fl = flags_section(plan)
        if fl:
            out += ["", fl]
    if pack_report is not None or pack_note:
        out += ["", pack_section(pack_report, pack_note)]
    return "\n".join(out) + "\n"
