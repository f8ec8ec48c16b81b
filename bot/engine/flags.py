"""Flag list helpers shared by the planner and the audit: report order and duplicates."""

from __future__ import annotations

from bot.model import Flag


def sort_flags(flags: list[Flag]) -> list[Flag]:
    """Flags in report order: those without a path first (as raised), then by (path, line)."""
    return sorted(flags, key=lambda f: (f.path is not None, f.path or "", f.line or 0))


def dedupe(flags: list[Flag]) -> list[Flag]:
    """``flags`` without exact repeats (two managers flagging the same item), first occurrence kept."""
    seen = set()
    out = []
    for f in flags:
        if f in seen:
            continue
        seen.add(f)
        out.append(f)
    return out
