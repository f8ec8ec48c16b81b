"""The upgrade engine's result: a :class:`Plan` (what a bump changes), made by :mod:`bot.engine`.

The engine's entry points (:mod:`bot.engine`, re-exported from its modules):

    bot.engine.plan(repo: Path, source: UpstreamSource, *, to: str | None = None,
                    sets: dict[str, str] | None = None, allow_prerelease: bool = False,
                    progress=None, exclude: tuple[str, ...] = ()) -> Plan
        Scans the template at ``repo`` (minus the ``exclude`` globs and the
        config file's ``exclude:`` list), resolves the target and current pin
        sets from ``source``, asks every manager for edits, validates the
        resulting contents in memory, then flags leftovers of the old
        version.  Writes nothing.  Raises BotError subclasses for bad input (exit 2).

    bot.engine.apply(plan: Plan) -> None
        Writes ``plan.contents`` all-or-nothing (bot.textfile.write_all).

    bot.engine.audit(repo: Path, exclude: tuple[str, ...] = ()) -> Audit   (see bot/engine/audit.py;
        ``Audit.ok`` is False when pins disagree or a blocking item is flagged)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from bot.model import Bump, Edit, Finding, Flag


@dataclass(frozen=True)
class PinRow:
    """One row of the pin table a reviewer reads: name, old, new, where the new value came from.

    ``name`` is ``"PyTorch::ExecuTorch"`` for the pack or a PEP 503 package name;
    ``old`` is the value the template has now (None if it does not pin it).
    """

    name: str
    old: Optional[str]
    new: Optional[str]
    source: str


@dataclass
class Plan:
    """Everything one bump changes, computed without writing.

    Attributes:
        repo: the template checkout.
        bump: the version change (None when the template already is on the target).
        rows: the pin table.
        edits: every span edit, sorted by (path, start).
        flags: items for the reviewer; ``blocking_flags`` stop ``update`` unless allowed.
        findings: what the scan found (pins and mentions), for the report.
        contents: path -> new bytes for every file that changes.
        originals: path -> original bytes of the same files.
    """

    repo: Path
    bump: Optional[Bump]
    rows: list[PinRow] = field(default_factory=list)
    edits: list[Edit] = field(default_factory=list)
    flags: list[Flag] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    contents: dict[str, bytes] = field(default_factory=dict)
    originals: dict[str, bytes] = field(default_factory=dict)
    #: the closed-world accounting of the versions the bump moves (bot.engine.mentions.Accounting), or None
    mentions: Optional[object] = None

    @property
    def nothing_to_do(self) -> bool:
        """True when no file would change."""
        return not self.contents

    @property
    def blocking_flags(self) -> list[Flag]:
        return [f for f in self.flags if f.blocking]

    def diff(self) -> str:
        """A unified diff (``a/PATH`` / ``b/PATH``) of every changed file, in path order."""
        import difflib

        out: list[str] = []
        for path in sorted(self.contents):
            old = self.originals[path].decode("utf-8", "replace").splitlines(keepends=True)
            new = self.contents[path].decode("utf-8", "replace").splitlines(keepends=True)
            for line in difflib.unified_diff(old, new, f"a/{path}", f"b/{path}"):
                out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
        return "".join(out)

    def fingerprint(self) -> str:
        """sha256 hex of the target pin set (``name=new`` lines of the pin table, sorted).

        Two plans proposing the same pins have the same fingerprint; the PR body
        carries it hidden so a later run can tell "already proposed" (or
        "closed unmerged") from "new".
        """
        import hashlib

        lines = sorted(f"{r.name}={r.new}" for r in self.rows if r.new is not None)
        return hashlib.sha256("\n".join(lines).encode()).hexdigest()

    def to_json(self) -> dict:
        """The plan as JSON-ready data.  Stable keys (documented in README.md):

        ``schema`` (1), ``repo``, ``current`` and ``target`` (each
        ``{"executorch", "pack", "tag"}`` or null), ``nothing_to_do``,
        ``pins`` (``[{"name", "old", "new", "source"}]``), ``edits``
        (``[{"path", "line", "kind", "old", "new", "why"}]``), ``flags``
        (``[{"code", "message", "path", "line", "blocking"}]``), ``files``
        (changed paths), ``fingerprint``, ``mentions`` (the accounting of every
        occurrence of a version the bump moves: ``{"version", "tracked", "counts":
        {"moved", "history", "other", "review"}, "review": [item], "items": [item]}``,
        see docs/mentions.md; null when there is no bump).
        """
        b = self.bump
        return {
            "schema": 1,
            "repo": str(self.repo),
            "current": None if b is None else {"executorch": b.old_executorch, "pack": b.old_pack, "tag": b.old_tag},
            "target": None if b is None else {"executorch": b.new_executorch, "pack": b.new_pack, "tag": b.new_tag},
            "nothing_to_do": self.nothing_to_do,
            "pins": [{"name": r.name, "old": r.old, "new": r.new, "source": r.source} for r in self.rows],
            "edits": [e.to_json() for e in self.edits],
            "flags": [f.to_json() for f in self.flags],
            "files": sorted(self.contents),
            "fingerprint": self.fingerprint(),
            "mentions": None if self.mentions is None else self.mentions.to_json(),
        }
