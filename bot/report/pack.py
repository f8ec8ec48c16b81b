"""The ``### Pack verification`` section, rendered from the verification result with every pack string inert.

A :class:`bot.pack.report.PackReport` (``checks``, ``operators_added`` /
``operators_removed`` against a baseline, and whatever else it carries:
``operators_changed``, ``selected_gone``/``selected_missing`` are read when
present) is rendered here, not through its own ``to_markdown()``: a pack's
component names and details are foreign text.  A report that only exists
as Markdown written by another job (``publish --pack-report``) is shown
verbatim inside a fenced code block, where GitHub renders nothing.

Headline: a failure that is only a label artefact (the PDSC ``<url>``
naming the download folder without the tag's ``v``, which upstream's own
pack workflow writes: ExecuTorch's .github/workflows/build-cmsis-pack.yml at v1.4.1) does not make the headline
"Failed".
"""

from __future__ import annotations

import re
from typing import Optional

from bot.inert import code, markdown

_ICON = {"pass": "✅ pass", "warn": "⚠️ warn", "fail": "❌ fail"}
MAX_CHECKS = 60
MAX_OPERATORS = 40


def label_artefact(check) -> bool:
    """True for a failed ``url`` check whose declared URL differs from the expected one only by the tag's ``v``."""
    if getattr(check, "name", None) != "url" or getattr(check, "status", None) != "fail":
        return False
    data = getattr(check, "data", None) or {}
    declared, expected = data.get("declared"), data.get("expected")
    if not isinstance(declared, str) or not isinstance(expected, str):
        return False
    strip = re.compile(r"/download/v(?=\d)")
    return declared != expected and strip.sub("/download/", declared) == strip.sub("/download/", expected)


#: The checks that compare the pack's version strings with the one the template pins (``<release>``, the file
#: name, ``<url>``, each ``Cversion``): with a version label (``1.5.1-local``) they fail for a pack of the plain
#: release (``1.5.1``) whatever its contents.
VERSION_CHECKS = ("release-version", "pack-file-name", "url", "component-versions")


def label_of(version: str) -> str:
    """The build label of a pack version: ``local`` of ``1.5.1-local`` or ``1.5.1-local.2``; "" for a release or an
    ``rcN`` (bot.pack.verify: a local build is ``X.Y.Z-local``)."""
    m = re.fullmatch(r"v?\d+\.\d+\.\d+-(local)(?:\.\d+)?", version or "")
    return m.group(1) if m else ""


def failure_causes(report) -> tuple[list, list]:
    """``(root causes, failures that follow from the version label)`` among the real failures of ``report``.

    With a labelled expected version (``1.5.1-local``), a failed :data:`VERSION_CHECKS` check whose detail does not
    name the label is the label's doing (the pack is the plain release); every other real failure is a root cause.
    Without a label every real failure is a root cause.
    """
    fails = [c for c in getattr(report, "checks", []) or [] if c.status == "fail" and not label_artefact(c)]
    label = label_of(getattr(report, "version", "") or "")
    if not label:
        return fails, []
    by_label = [c for c in fails if c.name in VERSION_CHECKS]
    roots = [c for c in fails if c not in by_label]
    return (roots or by_label), (by_label if roots else [])


def failure_task(report) -> list[str]:
    """The blocking task of a pack that failed verification: the root cause first and alone, then the failures
    that only follow from the version label, and what to do; empty for a pack that passed."""
    if report is None or not hasattr(report, "checks") or not verdict(report)[1]:
        return []
    roots, by_label = failure_causes(report)
    out = ["- [ ] `pack-verification`: the pack failed verification; root cause: "
           + "; ".join(f"{code(c.name, cap=60)} ({markdown(c.detail, cap=300)})" for c in roots)
           + ". Build or fetch a pack that passes `verify-pack`, then run the bot again (`/executorch-pack-bot "
             "recheck`)."]
    if by_label:
        out.append(f"  - not a separate cause: {', '.join(code(c.name) for c in by_label)} failed only because the "
                   f"template pins the {code(label_of(report.version))} label and this pack is the plain release; "
                   "they pass for a pack built with that label.")
    return out


def verdict(report) -> tuple[str, bool]:
    """(headline, failed for real) of a report with ``checks``."""
    checks = list(getattr(report, "checks", []) or [])
    fails = [c for c in checks if c.status == "fail"]
    real = [c for c in fails if not label_artefact(c)]
    n_pass = sum(c.status == "pass" for c in checks)
    n_warn = sum(c.status == "warn" for c in checks)
    counts = f"{n_pass} passed, {n_warn} warning{'s' * (n_warn != 1)}, {len(fails)} failed"
    if real:
        return f"**Failed**: {counts}.", True
    if fails:
        return (f"**Passed** apart from {len(fails)} label artefact{'s' * (len(fails) != 1)} ({counts}): the "
                "PDSC `<url>` names the download folder without the tag's `v`, as upstream's pack workflow "
                "writes it; nothing in the pack is wrong."), False
    return f"**Passed**: {counts}.", False


def _names(items, used: tuple[str, ...] = ()) -> str:
    items = list(items or ())
    if not items:
        return "none"
    shown = [code(i, cap=80) + (" **(used by the template)**" if i in used else "") for i in items[:MAX_OPERATORS]]
    more = f", … and {len(items) - MAX_OPERATORS} more" if len(items) > MAX_OPERATORS else ""
    return ", ".join(shown) + more


def used_and_gone(report, selected: tuple[str, ...]) -> list[str]:
    """Operator Csubs the template selects that the new pack no longer has (removed or reported gone)."""
    gone = set(getattr(report, "operators_removed", None) or ())
    for attr in ("selected_gone", "selected_missing"):
        gone |= {getattr(x, "csub", x) for x in (getattr(report, attr, None) or ())}
    return sorted(x for x in gone if isinstance(x, str) and x in selected)


def pack_section(pack_report=None, pack_note: Optional[str] = None, selected: tuple[str, ...] = (),
                 full: bool = False) -> str:
    """``### Pack verification``: verdict, check table, operator components (the template's marked).

    ``pack_report``: a ``PackReport`` (has ``checks``), a Markdown-only
    report (``to_markdown()`` and ``failed``), or None with ``pack_note``
    (the bot's own sentence) saying why there is none.
    """
    if pack_report is None:
        return "\n".join(["### Pack verification", "", pack_note or "No pack was verified in this run."])
    if not hasattr(pack_report, "checks"):
        return markdown_report(pack_report, selected, full)
    headline, _failed = verdict(pack_report)
    name = getattr(pack_report, "pack", None)
    out = [f"### Pack verification: {code(name, cap=120)}" if name else "### Pack verification", "",
           f"{headline.split(':', 1)[0]} for version {code(getattr(pack_report, 'version', ''), cap=60)}:"
           f"{headline.split(':', 1)[1]}", "", "| Check | Result | Detail |", "|---|---|---|"]
    checks = list(pack_report.checks)
    limit = len(checks) if full else MAX_CHECKS
    for c in checks[:limit]:
        icon = _ICON.get(c.status, markdown(c.status, cap=20))
        if label_artefact(c):
            icon += " (label artefact)"
        out.append(f"| {code(c.name, cap=60, in_table=True)} | {icon} | {markdown(c.detail, cap=300)} |")
    if len(checks) > limit:
        out.append(f"\n… and {len(checks) - limit} more checks (all in the job summary)")
    return "\n".join(out + operators(pack_report, selected))


_ESCAPED = re.compile(r"\\([!-/:-@\[-`{-~])")


def plain(text: str) -> str:
    """Markdown made inert by :func:`bot.inert.markdown` as the text it stands for, for a fenced code block.

    Inside a fence GitHub renders nothing, so the escapes would show as written (``607751&#8203;6 bytes``,
    ``1\\.5\\.1``): the backslash escapes, the entities and the zero-width spaces are undone.  Only for text that
    goes into a fence longer than any backtick run it holds (:func:`markdown_report`).
    """
    import html

    return html.unescape(_ESCAPED.sub(r"\1", text)).replace("\u200b", "")


_HEADING = re.compile(r"^### Pack verification(?:: (.*))?$")


def markdown_report(pack_report, selected: tuple[str, ...] = (), full: bool = False) -> str:
    """A report known only as Markdown written by another job: its text verbatim inside a fenced code block.

    Its first line, when it is ``verify-pack --markdown``'s heading, gives the
    pack file name (shown inert); the operator lists of the object are added
    only when the text has none.
    """
    text = plain(str(pack_report.to_markdown() or "").strip())
    first, _, rest = text.partition("\n")
    m = _HEADING.match(first)
    name = None
    if m:
        name, text = (m.group(1) or "").strip().strip("`") or None, rest.strip()
    fence = "`" * max(3, 1 + max((len(r) for r in re.findall(r"`+", text)), default=0))
    head = "**Failed**" if getattr(pack_report, "failed", False) else "Passed (as reported)"
    cap = 900_000 if full else 20_000
    if len(text) > cap:
        text = text[:cap] + f"\n… cut: {len(text) - cap} more characters (the job summary has them)"
    out = [f"### Pack verification: {code(name, cap=120)}" if name else "### Pack verification", "",
           f"{head}. The report was written by the verification job; shown as written:", "",
           fence + "text", text, fence]
    if "#### Operator components" not in text:
        out += operators(pack_report, selected)
    return "\n".join(out)


def operators(pack_report, selected: tuple[str, ...] = ()) -> list[str]:
    """``#### Operator components``: added, removed (and changed, when the report has them), the template's marked."""
    added = list(getattr(pack_report, "operators_added", None) or ())
    removed = list(getattr(pack_report, "operators_removed", None) or ())
    changed = list(getattr(pack_report, "operators_changed", None) or ())
    baseline = getattr(pack_report, "baseline", None)
    note = getattr(pack_report, "baseline_note", None)   # why there is no previous pack (bot/pack/previous.py)
    if not (baseline or added or removed or changed):
        return ["", "#### Operator components", "", markdown(note[:1].upper() + note[1:], cap=400) + "."] \
            if isinstance(note, str) and note else []
    title = f"#### Operator components against {code(baseline)}" if baseline else "#### Operator components"
    source = getattr(pack_report, "baseline_source", None)   # where the previous pack came from
    out = ["", title, ""] + ([f"Previous pack: {markdown(source, cap=300)}.", ""] if isinstance(source, str) and source
                             else []) + [f"- Added ({len(added)}): {_names(added, selected)}",
           f"- Removed ({len(removed)}): {_names(removed, selected)}"]
    if changed:
        out.append(f"- Changed ({len(changed)}): {_names(changed, selected)}")
    return out
