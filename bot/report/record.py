"""The bump record: one serialised account of a bump that each stage extends and the next stage reads.

Every path that opens a pull request carries it: ``update --plan-file FILE``
writes it (it has upstream access: the plan with its edits, the mentions
accounting, the upstream changes between the tags, what the template holds
before the bump), ``publish --plan-file FILE`` reads it (no upstream access)
and adds the pack (provenance, verification, a refused release asset) and
the proofs; ``run`` does the same stages in one process and goes through the
same JSON.  The body is rendered once, from the record
(:func:`plan_from_record`, :func:`evidence_from_record`, then
:func:`bot.report.body.render`).  A part a stage did not produce is null in
the record and shown as "not run", never as "unchanged".

JSON shape (``schema`` 2; the keys of ``schema`` 1, :meth:`bot.plan.Plan.to_json`, are kept)::

    {"schema": 2, "repo", "current", "target", "nothing_to_do", "pins", "edits", "flags", "files",
     "fingerprint", "mentions", "written",
     "bump": {"changes": [{"name", "old", "new", "source"}], "restated": [[name, version]]},
     "stages": {"update": true, "publish": false},
     "upstream": null | {"name": "pytorch/executorch", "spec": "github:pytorch/executorch" | "a local repository",
                         "pdsc": bool, "changes": {"old_tag", "new_tag", "paths", "ancestor", "commits",
                         "schema": [{"path", "kind"}], "components": [{"ident", "paths", "changed",
                         "by_convention", "generated"?, "not_compared"?}], "backends": [{"folder", "files", "passes_added",
                         "passes_removed", "operators_added", "operators_removed", "unread", "renamed"?,
                         "operators_renamed"?, "tests"?}], "error", "renames"?: [[old, new]] | null,
                         "rename_method"?},
                         "version_txt", "pin_lines": {name: [path, line]}, "skipped": [[tag, why]],
                         "requires_python": [old, new] | null},
     "template": {"selected": [csub], "boards": [{"type", "board", "device", "path", "line"}],
                  "measurements": [{"path", "line", "text", "old"}], "stated_pythons": [[path, line, text]] | null,
                  "old_vela", "command"},
     "pack": null | {"how", "url", "sha256", "tag", "run_url", "on_index", "index_why", "job",
                     "verification": PackReport.to_json() | null, "refusal": refusal record | null},
     "proofs": {"verify-pack": "pass" | "fail" | "not-run", "compile": "pass" | "fail" | "warn" | "not-run",
                "model-run": "pass" | "fail" | "not-run"},
     "model_run": null | {"new": [ModelResult JSON], "old": [ModelResult JSON] | null, "job": null | RESULT},
     "npu"?: null | {"new": [NpuEstimate JSON], "old": [NpuEstimate JSON], "items": [str]}}

``npu`` (``publish --npu-estimates FILE``, :func:`add_npu`): ``npu-estimate --json``'s Ethos-U estimates
(:mod:`bot.modelrun.npu`), old against new, and their review items; absent or null: not run.

``model_run`` (``publish --model-results``, :func:`add_model_run`): the
``run-model`` results (:mod:`bot.modelrun.result`) of the bot's models on the
new pack and, for the cross check, on the old pack; ``job`` is the
``run-model`` job's result when it handed over none.

Keys marked ``?`` were added later within schema 2: a record without them
reads as "renames not detected", no generated component, no test count.
A plan file of ``schema`` 1 (an older ``update``) still reads: its upstream
and template parts are null (not run).
"""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path
from typing import Optional

SCHEMA = 2
SCHEMAS = (1, 2)


def _changes_json(ch) -> Optional[dict]:
    if ch is None:
        return None
    d = asdict(ch)
    return {k: (list(v) if isinstance(v, tuple) else v) for k, v in d.items()}


def _changes_from(d: Optional[dict]):
    from bot.upstream.changes import BackendChange, ComponentChange, SchemaChange, UpstreamChanges

    if d is None:
        return None
    t = tuple
    def pairs(v):
        return tuple(tuple(x) for x in (v or ()))

    return UpstreamChanges(
        old_tag=d["old_tag"], new_tag=d["new_tag"], paths=d.get("paths"), ancestor=d.get("ancestor"),
        commits=d.get("commits"), error=d.get("error"),
        renames=[tuple(x) for x in d["renames"]] if d.get("renames") is not None else None,
        rename_method=d.get("rename_method"),
        schema=[SchemaChange(s["path"], s["kind"]) for s in d.get("schema", [])],
        components=[ComponentChange(c["ident"], t(c["paths"]), t(c["changed"]), bool(c.get("by_convention")),
                                    c.get("generated") or "", t(c.get("not_compared") or ()))
                    for c in d.get("components", [])],
        backends=[BackendChange(b["folder"], *(t(b.get(k, ())) for k in (
            "files", "passes_added", "passes_removed", "operators_added", "operators_removed", "unread")),
            renamed=pairs(b.get("renamed")), operators_renamed=pairs(b.get("operators_renamed")),
            tests=int(b.get("tests") or 0))
            for b in d.get("backends", [])])


def blocked_by(record: dict) -> str:
    """What stops the merge, from the record's proofs, for the title marker: ``pack verification failed``,
    ``model run failed``, both joined, or "" (nothing a proof found)."""
    proofs = record.get("proofs") if isinstance(record.get("proofs"), dict) else {}
    why = [text for key, text in (("verify-pack", "pack verification failed"), ("compile", "compile failed"),
                                  ("model-run", "model run failed")) if proofs.get(key) == "fail"]
    return ", ".join(why)


def upstream_spec_label(spec: Optional[str]) -> Optional[str]:
    """The upstream as the record keeps it: ``github:OWNER/NAME`` as given, any local path as ``a local repository``
    (a mirror's path on the machine that ran ``update`` is nobody's business in a PR body)."""
    if spec is None:
        return None
    return spec if spec.startswith("github:") else "a local repository"


def record_of(plan, evidence=None, *, upstream_spec: Optional[str] = None, upstream_ran: bool = False,
              pdsc: bool = False) -> dict:
    """The record of ``plan`` (:class:`bot.plan.Plan`) and the ``evidence`` (:class:`bot.report.evidence.Evidence`)
    the ``update`` stage gathered; ``upstream_ran``: the upstream parts were asked (else null: not run)."""
    data = plan.to_json()
    data["schema"] = SCHEMA
    b = plan.bump
    data["bump"] = None if b is None else {
        "changes": [{"name": c.name, "old": c.old, "new": c.new, "source": c.source} for c in b.changes],
        "restated": [list(x) for x in b.restated]}
    data["stages"] = {"update": True, "publish": False}
    ev = evidence
    if ev is not None and upstream_ran and b is not None:
        rp = ev.requires_python
        changes = _changes_json(ev.changes)
        if changes and changes.get("error") and upstream_spec and not upstream_spec.startswith("github:"):
            for p in sorted({upstream_spec, str(Path(upstream_spec).resolve())}, key=len, reverse=True):
                changes["error"] = changes["error"].replace(p, "the local repository")
        data["upstream"] = {"name": ev.upstream, "spec": upstream_spec_label(upstream_spec), "pdsc": bool(pdsc),
                            "changes": changes, "version_txt": ev.version_txt,
                            "pin_lines": {k: list(v) for k, v in ev.pin_lines.items()},
                            "skipped": [list(x) for x in ev.skipped],
                            "requires_python": list(rp) if rp is not None else None}
    else:
        data["upstream"] = None
    data["template"] = None if ev is None else {
        "selected": list(ev.selected),
        "boards": [asdict(x) for x in ev.boards],
        "measurements": [asdict(x) for x in ev.measurements],
        "stated_pythons": None if ev.stated_pythons is None else [list(x) for x in ev.stated_pythons],
        "old_vela": ev.old_vela, "command": ev.command}
    data["pack"] = None
    data["proofs"] = {"verify-pack": "not-run", "compile": "not-run", "model-run": "not-run"}
    return data


def add_pack(record: dict, prov, report=None, refusal: Optional[dict] = None, note: Optional[str] = None) -> dict:
    """Extend ``record`` with the pack stage: provenance (:class:`~bot.report.evidence.PackProvenance`), the
    verification (a :class:`~bot.pack.report.PackReport`; a report known only as Markdown, ``publish
    --pack-report``, is kept as its text; None: not run), a refused release asset, the bot's ``note`` on why
    there is no pack; and the proofs."""
    record["pack"] = {"how": prov.how, "url": prov.url, "sha256": prov.sha256, "tag": prov.tag,
                      "run_url": prov.run_url, "on_index": prov.on_index, "index_why": prov.index_why,
                      "job": getattr(prov, "job", None),
                      "verification": report.to_json() if hasattr(report, "checks") else None,
                      "report_markdown": None if report is None or hasattr(report, "checks") else report.to_markdown(),
                      "refusal": refusal, "note": note}
    # the pack stage is the only one that proves anything: what the record said before it is not evidence
    record["proofs"] = proofs = {"verify-pack": "not-run", "compile": "not-run", "model-run": "not-run"}
    if report is not None:
        from bot.report.pack import verdict
        failed = verdict(report)[1] if hasattr(report, "checks") else bool(getattr(report, "failed", False))
        proofs["verify-pack"] = "fail" if failed else "pass"
        comp = report.check("compile") if hasattr(report, "check") else None
        proofs["compile"] = comp.status if comp is not None else "not-run"
    stages = record.get("stages") if isinstance(record.get("stages"), dict) else {"update": True}
    record["stages"] = {**stages, "publish": True}
    return record


def add_model_run(record: dict, new: list, old: Optional[list] = None, *, job: Optional[str] = None) -> dict:
    """Extend ``record`` with the ``run-model`` results (after :func:`add_pack`, which resets the proofs).

    ``new``/``old``: :class:`~bot.modelrun.result.ModelResult` lists (the new pack; the old pack's cross check,
    None when it was not run); ``job``: the ``run-model`` job's result when no result was handed over (then
    ``new`` is empty).  Sets ``proofs["model-run"]`` (:func:`bot.report.modelrun.proof`)."""
    from bot.report.modelrun import proof

    record["model_run"] = {"new": [r.to_json() for r in new],
                           "old": None if old is None else [r.to_json() for r in old],
                           "job": None if new else job}
    proofs = record.get("proofs") if isinstance(record.get("proofs"), dict) else {}
    record["proofs"] = {**proofs, "model-run": proof(new, None if new else job)}
    return record


def add_npu(record: dict, data: dict) -> dict:
    """Extend ``record`` with ``npu-estimate --json``'s ``data`` (read back through :func:`npu_from` first, so a
    file of another shape raises ValueError/TypeError before anything is kept)."""
    new, old, items = npu_from({"npu": data})
    record["npu"] = {"new": [e.to_json() for e in new], "old": [e.to_json() for e in old], "items": items}
    return record


def npu_from(record: dict) -> Optional[tuple[list, list, list]]:
    """``(new, old, items)`` of the record's ``npu`` part (None: not run): :class:`~bot.modelrun.npu.NpuEstimate`
    lists rebuilt inert by :func:`bot.modelrun.npu.from_json`, and the review items, each one inert line.
    Raises TypeError/ValueError for a part of the wrong shape."""
    from bot import inert
    from bot.modelrun.npu import from_json

    part = record.get("npu")
    if part is None:
        return None
    if not isinstance(part, dict):
        raise TypeError("npu: not an object")
    lists = []
    for key in ("new", "old", "items"):
        v = part.get(key) or []
        if not isinstance(v, list) or len(v) > 64:
            raise TypeError(f"npu.{key}: not a list of at most 64 items")
        lists.append(v)
    new, old = [from_json(d) for d in lists[0]], [from_json(d) for d in lists[1]]
    return new, old, [inert.line(str(x), cap=600) for x in lists[2]]


def model_run_from(record: dict) -> Optional[tuple[list, Optional[list], Optional[str]]]:
    """``(new, old, job)`` of the record's ``model_run`` part (None: not run), each result rebuilt inert by
    :func:`bot.modelrun.result.result_from_data`.  Raises TypeError/ValueError for a part of the wrong shape."""
    from bot.modelrun.result import SCHEMA as RESULT_SCHEMA, STATUSES, result_from_data

    mr = record.get("model_run")
    if mr is None:
        return None
    if not isinstance(mr, dict):
        raise TypeError("model_run: not an object")

    def results(key):
        items = mr.get(key)
        if items is None and key == "old":
            return None
        if not isinstance(items, list):
            raise TypeError(f"model_run.{key}: not a list")
        out = []
        for i, d in enumerate(items):
            if not isinstance(d, dict) or d.get("schema") != RESULT_SCHEMA or d.get("status") not in STATUSES:
                raise ValueError(f"model_run.{key}[{i}]: not a run-model result")
            out.append(result_from_data(d))
        return out

    job = mr.get("job")
    if job is not None and (not isinstance(job, str) or not job.isalpha() or len(job) > 20):
        raise ValueError("model_run.job: not a job result")
    return results("new"), results("old"), job


def plan_from_record(record: dict, repo: Path, contents: dict[str, bytes]):
    """The :class:`~bot.plan.Plan` the record describes: pins, edits with their kinds, flags, mentions counts;
    ``contents``: the files as the checkout holds them (``path -> bytes``).  Raises KeyError/TypeError for a
    malformed record (the caller names the file)."""
    from bot.model import Bump, Edit, Flag, PinChange
    from bot.plan import PinRow, Plan

    cur, tgt = record["current"], record["target"]
    bump = None
    if tgt:
        extra = record.get("bump") or {}
        changes = tuple(PinChange(c["name"], c.get("old"), c["new"], c.get("source", ""))
                        for c in extra.get("changes", []))
        if not extra:   # schema 1: the Python pins of the pin table stand for the bump's changes
            changes = tuple(PinChange(r["name"], r.get("old"), r["new"], r.get("source", ""))
                            for r in record["pins"] if r.get("new") and "::" not in r["name"])
        bump = Bump(cur["executorch"], tgt["executorch"], cur["pack"], tgt["pack"], cur["tag"], tgt["tag"],
                    changes=changes, restated=tuple(tuple(x) for x in extra.get("restated", [])))
    plan = Plan(repo=repo, bump=bump,
                rows=[PinRow(r["name"], r.get("old"), r.get("new"), r.get("source", "")) for r in record["pins"]],
                flags=[Flag(f["code"], f["message"], f.get("path"), f.get("line"), f.get("blocking", True))
                       for f in record.get("flags", [])],
                edits=[Edit(e["path"], 0, 0, e.get("old") or "", e.get("new") or "", e.get("line") or 0,
                            e.get("kind") or "", e.get("why") or "") for e in record.get("edits", [])])
    plan.contents = dict(contents)
    plan.originals = dict(contents)
    m = record.get("mentions")
    plan.mentions = RecordedMentions(m) if isinstance(m, dict) else None
    return plan


class RecordedMentions:
    """The mentions accounting as the record holds it (``to_json()`` gives it back as it was written)."""

    def __init__(self, data: dict):
        self.data = data

    def to_json(self) -> dict:
        return self.data

    def counts(self) -> dict:
        return dict(self.data.get("counts") or {})


def evidence_from_record(record: dict, *, repo: Path, base: Optional[str], branch: str, upstream: str,
                         default_token=None, env=None):
    """The :class:`~bot.report.evidence.Evidence` the record holds, plus what the rendering stage reads itself:
    the template's CI (for ``base`` and ``branch``) and this run's link.  A part the record lacks stays None
    (the renderer says "not run")."""
    import os

    from bot.report.evidence import DEFAULT_TOKEN_ENV, Evidence, run_url
    from bot.template import ci as ci_mod

    env = os.environ if env is None else env
    ev = Evidence(upstream=upstream, run_url=run_url(env))
    read_parts(record, ev)
    if default_token is None:
        default_token = {"true": True, "false": False}.get(env.get(DEFAULT_TOKEN_ENV, ""))
    ev.ci = ci_mod.template_ci(Path(repo), base=base, branch=branch, default_token=default_token)
    return ev


def read_parts(record: dict, ev=None):
    """Fill ``ev`` (an :class:`~bot.report.evidence.Evidence`; a fresh one when None) with the record's upstream,
    template and pack parts and its proofs, and return it.  Raises KeyError, TypeError, ValueError or
    AttributeError for a part of the wrong shape (``publish`` calls it on the file before anything else and
    names the file)."""
    from bot.report.evidence import Evidence, PackProvenance
    from bot.template.hardware import Board, Measurement

    ev = Evidence(upstream="") if ev is None else ev
    for part in ("upstream", "template", "pack", "proofs"):
        if record.get(part) is not None and not isinstance(record[part], dict):
            raise TypeError(f"{part}: not an object")
    up = record.get("upstream")
    if up:
        ev.changes = _changes_from(up.get("changes"))
        ev.version_txt = up.get("version_txt")
        ev.pin_lines = {k: _pin_line(k, v) for k, v in (up.get("pin_lines") or {}).items()}
        ev.skipped = [tuple(x) for x in up.get("skipped") or []]
        rp = up.get("requires_python")
        ev.requires_python = tuple(rp) if rp is not None else None
    ev.upstream_ran = bool(up)
    tpl = record.get("template")
    if tpl:
        ev.selected = tuple(tpl.get("selected") or ())
        ev.boards = [Board(**b) for b in tpl.get("boards") or []]
        ev.measurements = [Measurement(**m) for m in tpl.get("measurements") or []]
        sp = tpl.get("stated_pythons")
        ev.stated_pythons = None if sp is None else [tuple(x) for x in sp]
        ev.old_vela = tpl.get("old_vela")
        ev.command = tpl.get("command")
    pk = record.get("pack")
    if pk:
        ev.pack = PackProvenance(how=pk.get("how"), url=pk.get("url"), sha256=pk.get("sha256"),
                                 run_url=pk.get("run_url"), on_index=pk.get("on_index"), tag=pk.get("tag"),
                                 index_why=pk.get("index_why"),
                                 job=pk.get("job") if isinstance(pk.get("job"), str) else None)
        ev.refusal = pk.get("refusal")
    ev.proofs = dict(record.get("proofs") or {})
    ev.model_run = model_run_from(record)
    ev.npu = npu_from(record)
    return ev


def _pin_line(name: str, value) -> tuple:
    """``(upstream path, line)`` of ``upstream.pin_lines``; ValueError unless the path is a plain relative path
    (it becomes a link into upstream's repository at the tag) and the line a positive whole number."""
    from pathlib import PurePosixPath

    ok = (isinstance(value, list) and len(value) == 2 and isinstance(value[0], str) and isinstance(value[1], int)
          and not isinstance(value[1], bool) and value[1] > 0 and value[0] and not value[0].startswith("/")
          and ":" not in value[0] and all(p not in ("", ".", "..") for p in value[0].split("/"))
          and PurePosixPath(value[0]).as_posix() == value[0])
    if not ok:
        raise ValueError(f"upstream.pin_lines.{name}: expected [upstream path, line]")
    return tuple(value)


def pack_report_from(record: dict):
    """The pack verification the record holds: a :class:`~bot.pack.report.PackReport` rebuilt from its JSON, a
    Markdown-only report (:class:`bot.github.flow.MarkdownReport`), or None (not run)."""
    from bot.model import CheckResult
    from bot.pack.report import PackReport

    pk = record.get("pack") or {}
    v = pk.get("verification")
    if v:
        ops = v.get("operators") or {}
        return PackReport(pack=v["pack"], version=v["version"],
                          checks=[CheckResult(c["name"], c["status"], c.get("detail", ""), c.get("data") or {})
                                  for c in v.get("checks", [])],
                          operators_added=list(ops.get("added", [])), operators_removed=list(ops.get("removed", [])),
                          baseline=v.get("baseline"), operators_changed=list(ops.get("changed", [])),
                          template_missing=list(ops.get("template_missing", [])),
                          baseline_note=v.get("baseline_note"), baseline_source=v.get("baseline_source"))
    if pk.get("report_markdown") is not None:
        from bot.report.markdown import MarkdownReport
        return MarkdownReport(pk["report_markdown"])
    return None


def render_record(record: dict, *, repo: Path, contents: dict[str, bytes], upstream: str, base: Optional[str],
                  branch: str, included=(), default_token=None, env=None):
    """The :class:`bot.report.body.Report` (PR body and job-summary text) of ``record``: the one renderer every
    path uses.  ``contents``: the changed files (``path -> bytes``); ``upstream``: ``OWNER/NAME`` for links;
    ``base``/``branch``: for the template's CI; ``included``: paths committed by ``publish --include``, or
    ``{path: "added" | "changed" | "removed" | "unchanged"}`` (bot.commands.publish.included_changes)."""
    from bot.report.body import render

    plan = plan_from_record(record, Path(repo), contents)
    ev = evidence_from_record(record, repo=Path(repo), base=base, branch=branch, upstream=upstream,
                              default_token=default_token, env=env)
    if record.get("template") is None and plan.bump is not None:
        # an older record: what the template holds is read from the checkout here (it needs no upstream)
        from bot.report.evidence import gather
        here = gather(plan, None, upstream=upstream, env={})
        ev.selected, ev.boards, ev.measurements = here.selected, here.boards, here.measurements
        ev.stated_pythons, ev.command = here.stated_pythons, here.command
    if included:   # the ai-layer job of this workflow run regenerated them: the rebuild was done by the workflow
        ev.rebuild_run_url = ev.run_url
    report = pack_report_from(record)
    note = (record.get("pack") or {}).get("note")
    return render(plan, upstream=upstream, pack_report=report, pack_note=note,
                  included=included if isinstance(included, dict) else sorted(included or ()), evidence=ev)
