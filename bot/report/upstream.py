"""``### Upstream changes that matter``: the .pte schema, the selected components, the Arm backends, history.

Rendered from :class:`bot.upstream.changes.UpstreamChanges`; every upstream
path and name goes through :mod:`bot.inert`.  A changed schema also yields a
blocking task (:func:`schema_blocking`), listed with the other blocking items.
"""

from __future__ import annotations

from urllib.parse import quote

from bot.inert import code, markdown
from bot.textreport import plural

FIRST_PATHS = 3
MAX_COMPONENTS = 40


def _paths(paths, n: int = FIRST_PATHS) -> str:
    shown = ", ".join(code(p, cap=120) for p in list(paths)[:n])
    return shown + (f", … and {len(paths) - n} more" if len(paths) > n else "")


def schema_blocking(changes) -> list[str]:
    """The blocking task for a ``.pte`` schema change ("re-export the models"), or nothing."""
    if changes is None or not getattr(changes, "schema_changed", False):
        return []
    real = [s for s in changes.schema if s.real]
    return [f"- [ ] `pte-schema`: re-export the models: the `.pte` schema changed between "
            f"{code(changes.old_tag)} and {code(changes.new_tag)} "
            f"({', '.join(code(s.path) + ' ' + s.kind for s in real[:5])}); a `.pte` written by the old "
            "exporter may not load in the new runtime."]


def history_line(changes, upstream: str, server: str) -> str:
    """The compare link with the commit count, and a note when the old tag is not an ancestor of the new one."""
    o, n = quote(changes.old_tag, safe=""), quote(changes.new_tag, safe="")
    link = f"[compare {markdown(changes.old_tag, cap=80)}...{markdown(changes.new_tag, cap=80)}]" \
           f"({server}/{upstream}/compare/{o}...{n})"
    count = f"{plural(changes.commits, 'commit')} in {code(changes.new_tag)} not in {code(changes.old_tag)}" \
        if changes.commits is not None else "commit count not known from this source"
    out = f"History: {link}, {count}."
    if changes.ancestor is False:
        out += (f" {code(changes.old_tag)} is **not an ancestor** of {code(changes.new_tag)} (a release branch): "
                "the compare view also shows commits that are not new to this release.")
    return out


def _more(items, n: int = 10) -> str:
    return f" … and {len(items) - n} more" if len(items) > n else ""


def rename_note(changes) -> str:
    """How renamed files were counted: the source's detection, or that it has none."""
    if changes.renames is None:
        return ("renames not detected by this upstream source: a renamed file counts as one removed and one "
                "added file")
    n = len(changes.renames)
    return f"{plural(n, 'renamed file')} counted once; renames found with {changes.rename_method or 'the source'}"


def backends_block(backends, changes=None) -> list[str]:
    """The Arm backends' changes: one line of counts, each saying what it counts, and the details in one collapsed
    block (a release changes hundreds of backend files, tests included; the components the template selects are
    listed above).  Pass classes and operators come from non-test sources; renames are the source's own."""
    if not backends:
        return ["`backends/arm/` and `backends/cortex_m/`: unchanged."]
    files = sum(len(b.files) for b in backends)
    tests = sum(b.tests for b in backends)
    ren = sum(len(b.renamed) for b in backends)
    pa = sum(len(b.passes_added) for b in backends)
    pr = sum(len(b.passes_removed) for b in backends)
    oa = sum(len(b.operators_added) for b in backends)
    orm = sum(len(b.operators_removed) for b in backends)
    on = sum(len(b.operators_renamed) for b in backends)
    per = ", ".join(f"{code(b.folder)} {len(b.files)}" for b in backends)
    detected = changes is None or changes.renames is not None
    head = (f"{plural(files, 'file')} changed under the Arm backend folders ({per}; {tests} of them test files; "
            + (f"{ren} renamed, counted once)" if detected else "renames not detected: a rename counts twice)")
            + f". In non-test Python sources, pass classes (`class …Pass`): {pa} added, {pr} removed. "
            f"Operator source files (`op_*.py`, `op_*.cpp`, non-test): {oa} added, {orm} removed"
            + (f", {on} renamed." if detected else "."))
    out = [head, "", "<details><summary>Arm backend changes in detail</summary>", ""]
    for b in backends:
        line = (f"- {code(b.folder)}: {plural(len(b.files), 'file')} changed ({b.tests} test files): "
                f"{_paths(b.files)}")
        extras = []
        for label, items in (("pass classes added", b.passes_added), ("pass classes removed", b.passes_removed),
                             ("operator sources added", [f"op_{x}" for x in b.operators_added]),
                             ("operator sources removed", [f"op_{x}" for x in b.operators_removed])):
            if items:
                extras.append(f"{label}: {', '.join(code(x, cap=80) for x in items[:10])}{_more(items)}")
        if b.operators_renamed:
            extras.append("operator sources renamed: "
                          + ", ".join(code(f"op_{o}") + " → " + code(f"op_{n}") for o, n in b.operators_renamed[:10])
                          + _more(b.operators_renamed))
        other = [(o, n) for o, n in b.renamed if not (_is_op(o) and _is_op(n))]
        if other:
            extras.append("files renamed: " + ", ".join(code(o, cap=120) + " → " + code(n, cap=120)
                                                       for o, n in other[:5]) + _more(other, 5))
        if b.unread:
            extras.append(f"{plural(len(b.unread), 'Python file')} not parsed")
        out.append(line + ("; " + "; ".join(extras) if extras else ""))
    return out + ["", "</details>"]


def _is_op(path: str) -> bool:
    base = path.rsplit("/", 1)[-1]
    return base.startswith("op_") and base.endswith((".py", ".cpp"))


def upstream_section(changes, upstream: str, server: str, selected: tuple[str, ...] = (),
                     pack_report=None) -> str:
    """The whole section; empty text when ``changes`` is None (no bump)."""
    if changes is None:
        return ""
    out = ["### Upstream changes that matter", "", history_line(changes, upstream, server), ""]
    if changes.error:
        return "\n".join(out + [f"Could not read the changes: {markdown(changes.error, cap=300)}"])
    if changes.paths is None:
        return "\n".join(out + ["This upstream source cannot list the files changed between tags: the schema, "
                                "component and backend checks were not made."])
    out.append(f"{plural(changes.files_changed, 'file')} changed between the tags ({rename_note(changes)}).")
    out += ["", "#### The `.pte` format (`schema/*.fbs`)", ""]
    if not changes.schema:
        out.append("No `schema/*.fbs` file changed between the tags.")
    elif changes.schema_changed:
        out.append("**Changed**: re-export the models (listed as a blocking item).")
        out += [f"- {code(s.path)}: {s.kind}" for s in changes.schema]
    else:
        out.append("Only comments or white space changed (no table, field or type of the `.pte` format).")
        out += [f"- {code(s.path)}: comments only" for s in changes.schema]
    out += ["", "#### Components the template selects", ""]
    if not changes.components:
        out.append("The template selects no ExecuTorch component (no `*.clayer.yml`/`*.cproject.yml` names one).")
    else:
        touched = [c for c in changes.components if c.changed]
        conv = sum(1 for c in changes.components if c.by_convention)
        if conv == len(changes.components):
            how = " (paths by the naming convention of the pack's sources: no pack PDSC was read)"
        elif conv:
            how = f" (paths from the pack's `<file>` lists; {conv} by the naming convention)"
        else:
            how = " (paths from the pack's `<file>` lists)"
        out.append(f"{len(touched)} of the {len(changes.components)} ExecuTorch components the template selects "
                   f"{'has' if len(touched) == 1 else 'have'} upstream source files that changed{how}.")
        for c in sorted(changes.components, key=lambda c: (not c.changed, c.ident))[:MAX_COMPONENTS]:
            by = " (paths by the naming convention)" if c.by_convention and conv != len(changes.components) else ""
            if c.changed:
                out.append(f"- {code(c.ident)}{by}: {plural(len(c.changed), 'source file')} of its own "
                           f"changed: {_paths(c.changed)}")
            elif c.generated:
                out.append(f"- {code(c.ident)}: no upstream source file: the pack build generates "
                           f"{code(c.generated)}")
            elif c.paths and c.not_compared:
                out.append(f"- {code(c.ident)}{by}: its {plural(len(c.paths), 'source file')} unchanged; "
                           f"{', '.join(code(n, cap=80) for n in c.not_compared[:3])} (pack files no single upstream "
                           "path stands for) not compared")
            elif c.paths:
                out.append(f"- {code(c.ident)}{by}: unchanged")
            else:
                out.append(f"- {code(c.ident)}: no upstream paths known")
        if len(changes.components) > MAX_COMPONENTS:
            out.append(f"- … and {len(changes.components) - MAX_COMPONENTS} more components")
    out += ["", "#### Arm backends", ""] + backends_block(changes.backends, changes)
    out += ["", "#### Operators in the pack", ""]
    if pack_report is None or not hasattr(pack_report, "checks"):
        out.append("Not known: no pack was verified against a baseline in this run.")
    else:
        added = list(getattr(pack_report, "operators_added", None) or ())
        removed = list(getattr(pack_report, "operators_removed", None) or ())
        used_gone = [x for x in removed if x in selected]
        if not getattr(pack_report, "baseline", None) and not added and not removed:
            out.append("Not compared: the pack was verified without a baseline pack.")
        else:
            out.append(f"{len(added)} added, {len(removed)} removed"
                       + (f"; **{len(used_gone)} the template uses are gone**: "
                          + ", ".join(code(x) for x in used_gone[:10]) if used_gone else "; none the template uses is gone")
                       + " (names in the pack section).")
    return "\n".join(out)
