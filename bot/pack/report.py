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
        baseline: the baseline pack's file name, or None.
    """

    pack: str
    version: str
    checks: list = field(default_factory=list)
    operators_added: list = field(default_factory=list)
    operators_removed: list = field(default_factory=list)
    baseline: str | None = None

    @property
    def failed(self) -> bool:
        """True when any check failed (the command then exits 1)."""
        return any(c.status == "fail" for c in self.checks)

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
        """``{"pack", "version", "failed", "checks": [...], "operators": {"added", "removed"}, "baseline"}``."""
        return {"pack": self.pack, "version": self.version, "failed": self.failed,
                "checks": [c.to_json() for c in self.checks], "baseline": self.baseline,
                "operators": {"added": list(self.operators_added), "removed": list(self.operators_removed)}}

    def to_text(self) -> str:
        """An aligned plain-text table, one check a line (control characters escaped), then a one-line summary."""
        width = max([len(c.name) for c in self.checks] + [5])
        lines = [f"{'check':<{width}}  status  detail"]
        for c in self.checks:
            lines.append(f"{c.name:<{width}}  {c.status:<6}  {inert.line(one_line(c.detail), cap=DETAIL_CAP)}")
        if self.baseline:
            for title, items in (("added", self.operators_added), ("removed", self.operators_removed)):
                shown = ", ".join(inert.line(one_line(i), cap=NAME_CAP) for i in items)
                lines.append(f"operators {title} ({len(items)}): {shown or '-'}")
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
        if self.baseline:
            out += ["", f"#### Operator components against {inert.code(self.baseline, cap=NAME_CAP)}", ""]
            for title, items in (("Added", self.operators_added), ("Removed", self.operators_removed)):
                shown = ", ".join(inert.code(one_line(i), cap=NAME_CAP) for i in items) if items else "none"
                out.append(f"- {title} ({len(items)}): {shown}")
        return "\n".join(out) + "\n"
