"""The PR body and the job summary, assembled from the section renderers in a fixed order, within GitHub's limit.

Order: what is bumped and why this version; the verdict; the CI warning
(when nothing runs); items for the reviewer; the
maintenance procedure; upstream changes; package index; pins; files
changed; regenerated files; pack verification; template CI; hardware test
plan; reproduce locally; the footer with the hidden fingerprint.

A blocked pull request (any blocking item: a pack that failed verification,
a failed model run, a changed ``.pte`` schema, a blocking flag) starts with
a "Blocked" caution and its blocking items, before the intro's details and
the verdict.

GitHub refuses a PR body over 65,536 characters (HTTP 422).  The body stays
under :data:`MAX_BODY`: the head (intro, CI warning, blocking items) and the
footer are never cut; every other section is capped on its own
(:data:`CAPS`) and then to what room is left, cut at a line with any open
code fence or ``<details>`` closed and a ``✂`` note.  When anything is cut,
a note under the intro says where the whole report is: the job summary of
the run, which :func:`job_summary` fills with the uncut sections (GitHub
allows 1 MiB of summary per step: "Adding a job summary").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from bot.plan import Plan
from bot.report import sections as s
from bot.report.pack import pack_section, used_and_gone
from bot.report.procedure import procedure_section
from bot.report.refusal import refusal_section
from bot.report.verdict import verdict_section
from bot.report.review import ci_notice, ci_section, reproduce_section, test_plan_section
from bot.report.upstream import schema_blocking, upstream_section
from bot.textreport import plural

MAX_BODY = 60_000       # below GitHub's 65,536 (HTTP 422 above); room is left for the body stamp
MAX_SUMMARY = 900_000   # below the 1 MiB a step's job summary may hold
HEAD_SHARE = 40_000     # the most the never-cut head may take before the blocking list itself is counted
CAPS = {"reviewer": 10_000, "procedure": 6_000, "upstream": 10_000, "index": 600, "pins": 8_000,
        "files": 8_000, "included": 5_000, "pack": 14_000, "ci": 4_000, "testplan": 5_000, "reproduce": 1_500}
CUT_MARK = "✂"
NOT_GATHERED = ("### Upstream changes that matter\n\nNot gathered: upstream ExecuTorch was not read when this "
                "bump was planned, so the `.pte` schema, the components the template selects and the Arm backends "
                "were not compared; a new run of the workflow reads it.")


@dataclass
class Report:
    """A rendered report: ``body`` (for the PR, within :data:`MAX_BODY`), ``full`` (uncut, for the job
    summary), ``cut`` (names of the sections shortened in ``body``)."""

    body: str
    full: str
    cut: tuple[str, ...] = ()


def cut_section(text: str, limit: int) -> tuple[str, bool]:
    """``text`` within ``limit`` characters, cut at a line end with a ``✂`` note; (text, whether it was cut)."""
    if len(text) <= limit:
        return text, False
    note_room = 160
    at = text.rfind("\n", 0, max(limit - note_room, 0))
    from bot.limits import close_open

    kept = close_open(text[:max(at, 0)])
    return (kept + f"\n\n_{CUT_MARK} {len(text) - at:,} more characters of this section are in the job summary._",
            True)


def _sections(plan: Plan, *, upstream: str, pack_report, pack_note, index_line, included, evidence,
              full: bool) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """(head sections never cut, capped sections) as ``(name, Markdown)`` pairs, in body order."""
    big = 10 ** 6
    changes = getattr(evidence, "changes", None)
    selected = tuple(getattr(evidence, "selected", ()) or ())
    from bot.report.pack import failure_task

    extra = failure_task(pack_report) + schema_blocking(changes)
    if pack_report is not None:
        gone = used_and_gone(pack_report, selected)
        if gone:
            extra.append(f"- [ ] `operator-gone`: the new pack has no {', '.join(s.code(x) for x in gone[:10])}, "
                         "which the template selects: choose a replacement before merging.")
    mr = getattr(evidence, "model_run", None)
    modelrun = ""
    if mr is not None:
        from bot.report.modelrun import blocking_items, job_note, modelrun_section
        new, old, job = mr
        if new:
            modelrun = modelrun_section(new, old).rstrip("\n")
            extra += [f"- [ ] `model-run`: {item}" for item in blocking_items(new)]
        elif job and job != "skipped":
            note = job_note(job, getattr(evidence, "run_url", None))
            modelrun = modelrun_section([], note=note).rstrip("\n")
            extra.append(f"- [ ] `model-run`: the model run failed: {note}")
    refusal = getattr(evidence, "refusal", None)
    built = getattr(getattr(evidence, "pack", None), "how", None) == "built"
    blocking = s.blocking_section(plan, extra)
    verdict = ("verdict", verdict_section(plan, evidence, pack_report, upstream, s.server())
               if evidence is not None else "")
    if blocking:   # a blocked pull request says so on its first line, and its blocking tasks come first
        n = blocking.count("\n- [ ] ")
        head = [("blocked", f"> [!CAUTION]\n> **Blocked**: do not merge until the {plural(n, 'blocking item')} below "
                            f"{'is' if n == 1 else 'are'} resolved."),
                ("intro", s.intro(plan, upstream, evidence)), ("blocking", blocking), verdict,
                ("ci-notice", ci_notice(getattr(evidence, "ci", None))),
                ("refusal", refusal_section(refusal, built=built) if refusal else "")]
    else:
        head = [("intro", s.intro(plan, upstream, evidence)), verdict,
                ("ci-notice", ci_notice(getattr(evidence, "ci", None))),
                ("refusal", refusal_section(refusal, built=built) if refusal else "")]
    rest = [("reviewer", s.reviewer_section(plan, evidence, limit=big if full else 40, blocked=bool(blocking))),
            ("procedure", procedure_section(plan, evidence, pack_report, pack_note, s.included_kept(included)))
            if evidence is not None else ("procedure", ""),
            ("upstream", upstream_section(changes, upstream, s.server(), selected, pack_report)
             if evidence is None or getattr(evidence, "upstream_ran", True) or plan.bump is None
             else NOT_GATHERED),
            ("index", f"Package index: {s.markdown(index_line)}." if index_line else ""),
            ("pins", s.pins_section(plan, evidence) if full is False else
             "### Pins\n\n" + s.pin_table(plan, evidence, limit=big)),
            ("files", s.files_section(plan, limit=big if full else 100)),
            ("included", s.included_section(included)),
            ("pack", pack_section(pack_report, pack_note, selected, full=full)),
            ("modelrun", modelrun),
            ("npu", npu_section(getattr(evidence, "npu", None))),
            ("ci", ci_section(getattr(evidence, "ci", None))),
            ("testplan", test_plan_section(plan, evidence)),
            ("reproduce", reproduce_section(plan, evidence))]
    return [(n, t) for n, t in head if t], [(n, t) for n, t in rest if t]


def render(plan: Plan, *, upstream: str, pack_report=None, pack_note: Optional[str] = None,
           index_line: Optional[str] = None, included: Optional[list[str]] = None, evidence=None) -> Report:
    """The :class:`Report` of ``plan``: the capped PR body and the uncut job-summary text.

    ``evidence``: a :class:`bot.report.evidence.Evidence` (None: the
    sections that need it are left out).  ``pack_note`` is the bot's own
    sentence; everything else foreign is neutralised by the section renderers.
    """
    tail = s.footer(plan)
    head, rest = _sections(plan, upstream=upstream, pack_report=pack_report, pack_note=pack_note,
                           index_line=index_line, included=included, evidence=evidence, full=False)
    fhead, frest = _sections(plan, upstream=upstream, pack_report=pack_report, pack_note=pack_note,
                             index_line=index_line, included=included, evidence=evidence, full=True)
    full = "\n\n".join(t for _n, t in fhead + frest) + "\n"
    if len(full) > MAX_SUMMARY:
        full, _ = cut_section(full, MAX_SUMMARY)

    run = getattr(evidence, "run_url", None)
    where = f"the job summary of [this run]({run})" if run else "the job summary of the run that opened it"
    note = (f"> [!NOTE]\n> {CUT_MARK} Some sections below were shortened to fit GitHub's limit on a pull request "
            f"body; the full report is in {where}.")
    budget = MAX_BODY - len(tail) - len(note) - 8
    head_text = [t for _n, t in head]
    used = sum(len(t) + 2 for t in head_text)
    cut: list[str] = []
    if used > budget:   # a pathological number of blocking items: keep as many whole items as fit, count the rest
        blocking = dict(head).get("blocking", "")
        others = used - len(blocking) - 2
        kept, _ = cut_section(blocking, max(budget - others - 200, 1000))
        head_text = [kept if t == blocking else t for t in head_text]
        used = sum(len(t) + 2 for t in head_text)
        cut.append("blocking")
    parts = list(head_text)
    for name, text in rest:
        room = min(CAPS.get(name, 5_000), budget - used - 2)
        if room < 200:
            cut.append(name)
            continue
        text, was_cut = cut_section(text, room)
        if was_cut:
            cut.append(name)
        parts.append(text)
        used += len(text) + 2
    if cut:
        parts.insert(1, note)
    body = "\n\n".join(parts) + "\n\n" + tail
    return Report(body=body, full=full, cut=tuple(cut))


def npu_section(npu) -> str:
    """The "Estimated on the Ethos-U" section: one table per model, old against new, rendered from the record's
    ``npu`` part (:func:`bot.report.record.npu_from`), then its review items; "" when it is not there.
    The numbers are Vela's estimates (:mod:`bot.modelrun.npu`): the section says no NPU was run."""
    if not npu:
        return ""
    from bot.report.npu import table

    new, old, items = npu
    olds = {(e.model, e.target): e for e in old}
    parts = ["### Estimated on the Ethos-U (Vela, no NPU run)", ""]
    for e in new:
        parts += [table(olds.get((e.model, e.target)), e), ""]
    if items:
        parts += ["To review:", ""] + [f"- {s.markdown(x.replace('`', ''))}" for x in items]
    return "\n".join(parts).rstrip("\n")
