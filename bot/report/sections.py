"""The plan's own sections of the PR body: intro, blocking items, reviewer notes, pins, files, footer.

Every string that came from the template, upstream or a pack is rendered
through :mod:`bot.inert` (``code()`` for values, ``markdown()`` for text in
a sentence).  Long lists are cut with a count (:func:`capped`); blocking
items are never cut.
"""

from __future__ import annotations

import os
from collections import Counter
from typing import Optional
from urllib.parse import quote

from bot.inert import code, markdown
from bot.plan import Plan
from bot.textreport import plural

MARKER = "executorch-pack-bot:fingerprint="
PACK = "PyTorch::ExecuTorch"
COMMANDS_HELP = "/executorch-pack-bot help"


def fingerprint_marker(fp: str) -> str:
    """The hidden HTML comment carrying the fingerprint (``<!-- executorch-pack-bot:fingerprint=HEX -->``)."""
    return f"<!-- {MARKER}{fp} -->"


def capped(items: list[str], limit: int, what: str = "more") -> list[str]:
    """The first ``limit`` list lines, then ``- … and N more`` counting the rest."""
    if len(items) <= limit:
        return list(items)
    return items[:limit] + [f"- … and {len(items) - limit} {what}"]


def server(env=os.environ) -> str:
    """``$GITHUB_SERVER_URL`` without a trailing slash (``https://github.com`` by default)."""
    return (env.get("GITHUB_SERVER_URL") or "https://github.com").rstrip("/")


def where(path: Optional[str], line: Optional[int] = None) -> str:
    """``path:line`` of a template or upstream file as an inert code span ("" without a path)."""
    if not path:
        return ""
    return code(f"{path}:{line}" if line else path)


def intro(plan: Plan, upstream: str, evidence=None) -> str:
    """The first lines: what is bumped, release notes and compare links, and why this version."""
    b = plan.bump
    if not b:
        return "No ExecuTorch version change."
    base = f"{server()}/{upstream}"
    old_t, new_t = quote(b.old_tag, safe=""), quote(b.new_tag, safe="")
    out = [f"Bumps the template from ExecuTorch {code(b.old_executorch)} to {code(b.new_executorch)} "
           f"(pack {code(f'{PACK}@{b.new_pack}')}).", "",
           f"Release notes: [{markdown(b.new_tag, cap=80)}]({base}/releases/tag/{new_t}) · "
           f"Changes: [{markdown(b.old_tag, cap=80)}...{markdown(b.new_tag, cap=80)}]"
           f"({base}/compare/{old_t}...{new_t})"]
    why = why_this_version(plan, evidence)
    if why:
        out += ["", why]
    return "\n".join(out)


def why_this_version(plan: Plan, evidence=None) -> str:
    """"Why this version": the newest stable tag, or which newer tags were skipped and why."""
    b = plan.bump
    if not b or evidence is None or not getattr(evidence, "upstream_ran", True):
        return ""   # the tags were not read by the stage that made the record: nothing to say why
    skipped = list(getattr(evidence, "skipped", None) or [])
    if not skipped:
        return f"Why {code(b.new_tag)}: it is the newest stable release tag upstream."
    # the reasons are the bot's words, but they come through the bump record another job wrote: inert all the same
    shown = "; ".join(f"{code(t, cap=60)} ({markdown(why, cap=200)})" for t, why in skipped[:8])
    more = f"; and {len(skipped) - 8} more" if len(skipped) > 8 else ""
    return (f"Why {code(b.new_tag)}: the newest stable release the bot may propose. Newer tags skipped: "
            f"{shown}{more}.")


def flag_line(f, *, box: bool) -> str:
    """One flagged item: ``- [ ] `code` (`path:line`): message`` (a task box only for blocking items)."""
    loc = where(f.path, f.line)
    return (f"- {'[ ] ' if box else ''}{code(f.code, cap=60)}{' (' + loc + ')' if loc else ''}: "
            f"{markdown(f.message, cap=400)}")


def blocking_section(plan: Plan, extra: list[str] = ()) -> str:
    """``### Blocking items``: unticked tasks for every blocking flag and each ``extra`` task line; never cut."""
    items = [flag_line(f, box=True) for f in plan.flags if f.blocking] + list(extra)
    if not items:
        return ""
    tasks = sum(1 for i in items if i.startswith("- [ ]"))   # a task's sub-lines are not tasks
    return "\n".join([f"### Blocking items ({tasks})", "",
                      "Each must be resolved (or consciously accepted) before merging.", ""] + items)


def answer(f, evidence=None) -> str:
    """The bot's answer to an informational item, where it can give one ("" otherwise)."""
    if f.code == "requires-python" and not f.path and evidence is not None:
        return python_answer(evidence)
    return _ANSWERS.get(f.code, "")


# Only for items whose own text carries no instruction: a flag whose message already says what to do (python-lock,
# compiled-requirements, conda-pin, companion-pin, leftover, mixed-mention, restatement-partial, review-mention: "regenerate
# it ...", "edit it by hand ...") gets no second instruction.  history-mention heads a group of items with one
# sentence for all.
_ANSWERS = {
    "downgrade": "upstream pins the lower version at the new tag; keep it unless the template needs the newer one.",
    "history-mention": "left as written: it records history.",
}


def python_answer(evidence) -> str:
    """Compare a changed upstream ``requires-python`` with the Pythons the template states."""
    from packaging.specifiers import InvalidSpecifier, SpecifierSet
    from packaging.version import InvalidVersion, Version

    rp = getattr(evidence, "requires_python", None)
    stated = getattr(evidence, "stated_pythons", None)
    if not rp or not rp[1] or stated is None:
        return ""
    try:
        allowed = SpecifierSet(rp[1])
    except InvalidSpecifier:
        return ""
    if not stated:
        return (f"the template states no Python version (no `.python-version`, workflow `python-version:` or "
                f"`requires-python`): make sure the venv's Python is in {code(rp[1])}.")
    inside, outside = [], []
    for path, line, text in stated:
        try:
            ok = allowed.contains(Version(text), prereleases=True)
        except InvalidVersion:
            try:
                ok = all(allowed.contains(Version(f"3.{m}"), prereleases=True)
                         for m in range(0, 40) if SpecifierSet(text).contains(Version(f"3.{m}"), prereleases=True))
            except InvalidSpecifier:
                continue
        (inside if ok else outside).append(f"{code(text, cap=40)} ({where(path, line)})")
    if outside:
        return f"outside {code(rp[1])}: {', '.join(outside[:5])}: change them (listed as items too)."
    return (f"every Python the template states ({', '.join(inside[:5])}{' …' if len(inside) > 5 else ''}) is "
            f"inside {code(rp[1])}: nothing to change.")


def reviewer_section(plan: Plan, evidence=None, limit: int = 40, blocked: bool = False) -> str:
    """``### For the reviewer``: informational items, grouped by code, each group's answer said once.

    ``blocked``: the pull request has blocking items (then no "nothing here blocks the merge" sentence).

    A code with one item is one line (``- `code` (`path:line`): message — answer``); a code with more is a
    line with the count and the answer, then one sub-item per occurrence.  At most ``limit`` items are listed.
    """
    groups: dict[str, list] = {}
    for f in plan.flags:
        if not f.blocking:
            groups.setdefault(f.code, []).append(f)
    if not groups:
        return ""
    total = sum(len(v) for v in groups.values())
    items: list[str] = []
    shown = 0
    for code_, flags in groups.items():
        a = answer(flags[0], evidence)
        if len(flags) == 1:
            items.append(flag_line(flags[0], box=False) + (f" — {a}" if a else ""))
            shown += 1
            continue
        items.append(f"- {code(code_, cap=60)} ({len(flags)})" + (f" — {a}" if a else ""))
        for f in flags[:max(limit - shown, 1)]:
            loc = where(f.path, f.line)
            items.append(f"  - {loc + ': ' if loc else ''}{markdown(f.message, cap=400)}")
        if len(flags) > max(limit - shown, 1):
            items.append(f"  - … and {len(flags) - max(limit - shown, 1)} more (all in the job summary)")
        shown += len(flags)
    # "nothing here blocks" is said only of a pull request nothing blocks: a blocked one leads with its blocking
    # items, and a sentence about the merge here would read as if it were free to go
    note = [] if blocked else ["Informational; nothing here blocks the merge.", ""]
    return "\n".join([f"### For the reviewer ({total})", ""] + note + items)


def pin_source(r, evidence=None, new_tag: str = "") -> str:
    """The source of a pin row: for the release version, the tag, and upstream's ``version.txt`` at it when
    the tag has one (an absent file is no source, so it is not named)."""
    src = r.source or ""
    vt = getattr(evidence, "version_txt", None) if evidence is not None else None
    if src.startswith("release tag") and new_tag:
        ran = evidence is not None and getattr(evidence, "upstream_ran", True)
        if vt:
            return (code(src, in_table=True) + f" and `version.txt` @ {code(new_tag, in_table=True)} "
                    f"({code(vt, cap=40, in_table=True)})")
        if not ran:
            return code(src, in_table=True) + f" (`version.txt` @ {code(new_tag, in_table=True)} not read)"
    return code(src, in_table=True) if src else "—"


def pin_table(plan: Plan, evidence=None, limit: int = 200) -> str:
    """The Markdown pin table: ``| pin | old | new | source |``."""
    tag = plan.bump.new_tag if plan.bump else ""
    rows = [f"| {code(r.name, in_table=True, cap=80)} | {code(r.old, in_table=True, cap=80)} | "
            f"{code(r.new, in_table=True, cap=80) or '—'} | {pin_source(r, evidence, tag)} |"
            for r in plan.rows if r.old]
    out = ["| pin | old | new | source |", "|---|---|---|---|"] + rows[:limit]
    if len(rows) > limit:
        out.append(f"\n… and {len(rows) - limit} more pins (all in the job summary)")
    absent = [r for r in plan.rows if not r.old]   # upstream pins it, the template does not: nothing is added
    if absent:
        out.append("\nUpstream also pins " + ", ".join(f"{code(r.name, cap=80)} {code(r.new, cap=80) or '—'}"
                                                      for r in absent[:limit])
                   + "; the template does not pin " + ("it" if len(absent) == 1 else "them") + ", so nothing is added.")
    return "\n".join(out)


def pins_section(plan: Plan, evidence=None) -> str:
    return "### Pins\n\n" + pin_table(plan, evidence)


_KIND = {"pack-pin": "pin", "pack-id-case": "pin", "requirement": "pin", "script": "pin", "prose": "prose", "lock": "lock"}


def files_section(plan: Plan, limit: int = 100) -> str:
    """``### Files changed``: "N pin edits, M prose edits, K lock entries", per-file counts in a ``<details>``."""
    if not plan.edits and not plan.contents:
        return ""
    totals = Counter(_KIND.get(e.kind, "other") for e in plan.edits)
    per_file: dict[str, Counter] = {}
    for e in plan.edits:
        per_file.setdefault(e.path, Counter())[_KIND.get(e.kind, "other")] += 1
    for p in plan.contents:
        per_file.setdefault(p, Counter())
    locks = f"{totals['lock']} lock {'entry' if totals['lock'] == 1 else 'entries'}"
    head = (f"{plural(totals['pin'], 'pin edit')}, {plural(totals['prose'], 'prose edit')}, {locks}"
            + (f", {plural(totals['other'], 'other edit')}" if totals["other"] else "")
            + f" in {plural(len(per_file), 'file')}.")
    rows = []
    for path in sorted(per_file):
        c = per_file[path]
        rows.append(f"| {code(path, in_table=True)} | {c['pin']} | {c['prose']} | {c['lock']} |")
    table = ["| file | pin | prose | lock |", "|---|---|---|---|"] + rows[:limit]
    if len(rows) > limit:
        table.append(f"\n… and {len(rows) - limit} more files (the Files tab lists them all)")
    return "\n".join(["### Files changed", "", head, "", "<details><summary>Edits per file</summary>", ""]
                     + table + ["", "</details>"])


MAX_LISTED = 50   # included files named one by one in the PR body; the rest are counted


#: How each state of an included file is shown, in the order of the lists.
_INCLUDED_STATES = (("added", "Added"), ("changed", "Changed"), ("removed", "Removed"))


def included_kept(included) -> tuple[str, ...]:
    """The paths ``publish --include`` commits (every state but ``"removed"``), from a list of paths or a
    ``{path: state}`` mapping (:func:`included_section`)."""
    if isinstance(included, dict):
        return tuple(p for p, st in included.items() if st != "removed")
    return tuple(included or ())


def included_section(included) -> str:
    """The files of the ``publish --include`` folders (the ai-layer job's output); empty text when none.

    ``included``: ``{path: "added" | "changed" | "removed" | "unchanged"}`` (bot.commands.publish.included_changes:
    the folder as the regeneration left it, against the base) lists what was added, changed and removed (a
    removed file is deleted in the commit) and counts the unchanged ones; a plain list of paths lists them all.
    """
    if not included:
        return ""
    if not isinstance(included, dict):
        paths = list(included)
        out = ["### Regenerated files", "", f"{plural(len(paths), 'file')} regenerated by the ai-layer job "
               "(`publish --include`), committed as the job left them:", ""]
        out += capped([f"- {code(p)}" for p in paths], MAX_LISTED)
        return "\n".join(out)
    groups = {st: sorted(p for p, v in included.items() if v == st) for st in ("added", "changed", "removed", "unchanged")}
    counts = ", ".join(f"{len(groups[st])} {st}" for st in ("added", "changed", "removed", "unchanged"))
    out = ["### Regenerated files", "", "The ai-layer job regenerated the included folders (`publish --include`); they "
           f"are committed as the job left them, deletions included ({counts}):"]
    for st, title in _INCLUDED_STATES:
        if groups[st]:
            out += ["", f"{title}:", ""] + capped([f"- {code(p)}" for p in groups[st]], MAX_LISTED)
    return "\n".join(out)


def footer(plan: Plan) -> str:
    """How a reviewer gets a fix in, then the hidden fingerprint (always last)."""
    return ("---\n_Opened by executorch-pack-bot._ To change this pull request, push to its branch (the bot then "
            "leaves the branch alone) or comment a command: " + f"`{COMMANDS_HELP}` lists them.\n\n"
            + fingerprint_marker(plan.fingerprint()) + "\n")
