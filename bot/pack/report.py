"""The result of a pack verification and its text, JSON and Markdown renderings.

:class:`PackReport` is what :func:`bot.pack.verify.verify_pack` returns.  The
Markdown form is the section the GitHub layer puts into the PR body (a
heading, the check table, the operator components added and removed); the
text form is the table the ``verify-pack`` command prints; the JSON form is
the same data for ``--json`` and the job summary.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from bot import inert
from bot.model import CheckResult
from bot.textreport import plural

#: Longest detail / component name shown (characters of pack text; an ellipsis marks a cut).
DETAIL_CAP = 1000
NAME_CAP = 120

_ICON = {"pass": "✅ pass", "warn": "⚠️ warn", "fail": "❌ fail"}


_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def one_line(text: str) -> str:
    """``text`` with every control character escaped (``\\n``, ``\\r``, ``\\x1b``, ``\\u2028``).

    Details quote pack contents (a PDSC ``<url>``, a ``Cversion``) verbatim;
    a newline there would start a line of its own, and in GitHub Actions a
    line starting with ``::`` is a workflow command (``::error``,
    ``::add-mask::``).  So a detail always renders as one line.
    """
    return _CONTROL.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), text)


def _md(text: str) -> str:
    """Pack text for a Markdown table cell: one line (:func:`one_line`), then inert (:func:`bot.inert.markdown`)."""
    return inert.markdown(one_line(text), cap=DETAIL_CAP)


@dataclass
class PackReport:
    """Every check run on one pack.

    Attributes:
        pack: the pack's file name (``PyTorch.ExecuTorch.1.5.1.pack``).
        version: the pack (SemVer) version verified against.
        checks: the results in the order they ran.
        operators_added / operators_removed: operator Csubs (``"Portable add"``)
            against ``--baseline``; empty without a baseline.
        operators_changed: operator Csubs in both packs whose files,
            ``#define`` or condition changed (``Cversion`` aside).
        template_missing: ``"FILE:LINE: component id"`` of each component the
            ``--template`` selects that the pack no longer has (the
            ``template-components`` check fails: blocking).
        baseline: the baseline pack's file name, or None.
        baseline_note: why there is no baseline (``previous-pack`` found none), or None.
        baseline_source: where the baseline came from (the template's ``path:``, a release asset), or None.
    """

    pack: str
    version: str
    checks: list = field(default_factory=list)
    operators_added: list = field(default_factory=list)
    operators_removed: list = field(default_factory=list)
    baseline: str | None = None
    operators_changed: list = field(default_factory=list)
    template_missing: list = field(default_factory=list)
    baseline_note: str | None = None
    baseline_source: str | None = None

    @property
    def failed(self) -> bool:
        """True when any check failed (the command then exits 1)."""
        return any(c.status == "fail" for c in self.checks)

    @property
    def pack_failed(self) -> bool:
        """True when a check of the pack itself failed: ``template-components`` is the template's item.

        A component the template selects that the pack no longer has is a
        blocking item of the pull request (a draft that lists it), not a bad pack.
        """
        return any(c.status == "fail" and c.name != "template-components" for c in self.checks)

    def count(self, status: str) -> int:
        return sum(1 for c in self.checks if c.status == status)

    def check(self, name: str) -> CheckResult | None:
        """The result of the check called ``name``, or None when it did not run."""
        return next((c for c in self.checks if c.name == name), None)

    @property
    def summary(self) -> str:
        verdict = "FAILED" if self.failed else "passed"
        return (f"{self.pack} {verdict}: {self.count('pass')} passed, {plural(self.count('warn'), 'warning')}, "
                f"{self.count('fail')} failed")

    def to_json(self) -> dict:
        """``{"pack", "version", "failed", "checks": [...], "baseline", "baseline_note", "baseline_source",
        "operators": {"added", "removed", "changed", "template_missing"}}``."""
        return {"pack": self.pack, "version": self.version, "failed": self.failed,
                "checks": [c.to_json() for c in self.checks], "baseline": self.baseline,
                "baseline_note": self.baseline_note, "baseline_source": self.baseline_source,
                "operators": {"added": list(self.operators_added), "removed": list(self.operators_removed),
                              "changed": list(self.operators_changed),
                              "template_missing": list(self.template_missing)}}

    @property
    def selected_gone(self) -> list[str]:
        """Operator Csubs among :attr:`template_missing` (``"Cortex-M quantize_per_tensor"``), for the PR body."""
        out = []
        for item in self.template_missing:
            comp = item.rpartition(": ")[2]
            if ":ExecuTorch Operators:" in comp:
                out.append(comp.split(":ExecuTorch Operators:", 1)[1].split("@", 1)[0].split("&", 1)[0].strip())
        return out

    def operator_rows(self) -> list[tuple[str, list, bool]]:
        """The Operators data of a PR body: ``(title, items, blocking)`` rows, empty when there is nothing to say.

        With a baseline: Added, Removed, Changed; always (when ``--template``
        found some): "Selected by the template but gone" (blocking).
        """
        rows = []
        if self.baseline:
            rows += [("Added", list(self.operators_added), False), ("Removed", list(self.operators_removed), False),
                     ("Changed", list(self.operators_changed), False)]
        if self.template_missing:
            rows.append(("Selected by the template but gone", list(self.template_missing), True))
        return rows

    def to_text(self) -> str:
        """An aligned plain-text table, one check a line (control characters escaped), then a one-line summary."""
        width = max([len(c.name) for c in self.checks] + [5])
        lines = [f"{'check':<{width}}  status  detail"]
        for c in self.checks:
            lines.append(f"{c.name:<{width}}  {c.status:<6}  {inert.line(one_line(c.detail), cap=DETAIL_CAP)}")
        for title, items, _blocking in self.operator_rows():
            shown = ", ".join(inert.line(one_line(i), cap=NAME_CAP) for i in items)
            lines.append(f"operators {title.lower()} ({len(items)}): {shown or '-'}")
        if self.baseline_note:
            lines.append(inert.line(one_line(self.baseline_note), cap=DETAIL_CAP))
        lines.append(self.summary)
        return "\n".join(lines) + "\n"

    def to_markdown(self) -> str:
        """The PR-body section: heading, verdict, check table, operator components added/removed."""
        out = [f"### Pack verification: {inert.code(self.pack, cap=NAME_CAP)}", "",
               f"**{'Failed' if self.failed else 'Passed'}** for version {inert.code(self.version, cap=NAME_CAP)}: "
               f"{self.count('pass')} passed, {plural(self.count('warn'), 'warning')}, {self.count('fail')} failed.",
               "",
               "| Check | Result | Detail |", "|---|---|---|"]
        for c in self.checks:
            out.append(f"| `{c.name}` | {_ICON.get(c.status, c.status)} | {_md(c.detail)} |")
        rows = self.operator_rows()
        if rows or self.baseline_note:
            against = f" against {inert.code(self.baseline, cap=NAME_CAP)}" if self.baseline else ""
            out += ["", f"#### Operator components{against}", ""]
            if self.baseline_source:
                out += [f"Previous pack: {inert.markdown(self.baseline_source)}.", ""]
            if self.baseline_note:
                out += [inert.markdown(self.baseline_note[:1].upper() + self.baseline_note[1:]) + ".", ""]
            for title, items, blocking in rows:
                shown = ", ".join(inert.code(one_line(i), cap=NAME_CAP) for i in items) if items else "none"
                mark = " (blocking)" if blocking else ""
                out.append(f"- {title}{mark} ({len(items)}): {shown}")
        return "\n".join(out) + "\n"
