"""The ``### Runs on a simulated Cortex-M55`` section of the PR body, from ``run-model`` results.

Input: the new pack's results (one :class:`~bot.modelrun.result.ModelResult`
per model, read with :func:`~bot.modelrun.result.read_result`, which
already made every string one inert line) and optionally the same models'
``.pte`` files run on the *old* pack's runtime (the baseline pack): the
cross check that tells a reviewer whether models must be re-exported.

Per model: match or not, the largest difference, the instructions of one
inference on the old and the new pack, and the cross check ("loads and
matches", "refused at load: ERROR", "loads but differs", or another failed
stage).  :func:`blocking_items` lists what must block the pull request: a
new runtime that cannot load its own exporter's ``.pte``, or a mismatch.
A delegated program (status ``not-runnable``: an NPU QEMU lacks) is shown
as "not runnable in QEMU" and blocks nothing.
"""

from __future__ import annotations

from typing import Optional

from bot.inert import code

TITLE = "### Runs on a simulated Cortex-M55"
MAX_MODELS = 20


def _diff(r) -> str:
    d = r.max_abs_diff
    if d is None:
        return "–"
    return "0 (bit-exact)" if d == 0 and all(o.get("exact") for o in r.outputs) else f"{d:g}"


#: The name run-model --template gives the template's own model (bot.modelrun.template.TemplateModel.name).
TEMPLATE_PREFIX = "template "
NOT_RUNNABLE = "not-runnable"   # bot.modelrun.result.NOT_RUNNABLE (not imported: keeps this module light)


def _status(r) -> str:
    if r.status == "match":
        return "✅ match"
    if r.status == NOT_RUNNABLE:
        return f"⏭️ not runnable in QEMU: {code(r.error, cap=160, in_table=True)}"
    if r.status == "mismatch":
        return "❌ outputs differ"
    return f"❌ failed at {r.stage or 'an unknown stage'}: {code(r.error, cap=160, in_table=True)}"


def _instructions(old, new) -> str:
    n = new.instructions
    o = old.instructions if old is not None else None
    if n is None and o is None:
        return "–"
    if o is None:
        return f"{n:,} (new)"
    if n is None:
        return f"{o:,} (old) → –"
    change = f" ({(n - o) / o:+.1%})" if o else ""
    return f"{o:,} → {n:,}{change}"


def _pack_ids(r) -> list[str]:
    """``["ARM::CMSIS-NN@7.0.0"]``: the required packs of a result without where each came from (``packs``)."""
    return sorted(p.split(" (", 1)[0] for p in r.packs)


def same_runtime(old, new) -> bool:
    """Whether the old and the new pack's images of one model were built from byte-identical pack files
    (equal ``runtime_sha256``, :mod:`bot.modelrun.fingerprint`) with the same required packs (``packs``:
    ``runtime_sha256`` covers the pack run, not CMSIS-NN's sources); False when either is unknown."""
    return (old is not None and new is not None and old.runtime_sha256 is not None
            and old.runtime_sha256 == new.runtime_sha256 and _pack_ids(old) == _pack_ids(new))


def cross_check(old, new=None) -> str:
    """The cross-check cell for the new ``.pte`` on the old pack's runtime (``old``: its result or None;
    ``new``: the same model's result on the new pack, to say when both ran the same runtime sources)."""
    if old is None:
        return "not run"
    if old.status == NOT_RUNNABLE:
        return "not runnable in QEMU"
    if old.status == "match":
        return "loads and matches" + (" (the same runtime sources as the new pack)" if same_runtime(old, new) else "")
    if old.status == "mismatch":
        return f"loads but differs (max difference {_diff(old)})"
    if old.stage == "load":
        return f"refused at load: {code(old.error, cap=160, in_table=True)}"
    return f"fails at {old.stage or '?'}: {code(old.error, cap=160, in_table=True)}"


def blocking_items(new: list) -> list[str]:
    """Blocking items: each model whose new-pack run did not match (a load failure, a crash, a mismatch).

    One Markdown line each (no task box); the model's name and its error are inert code spans."""
    out = []
    for r in new:
        name = code(r.model, cap=60)
        if r.status == "mismatch":
            out.append(f"{name}: the new pack's runtime gives different outputs from the host runtime "
                       f"(max difference {_diff(r)})")
        elif r.status == "fail" and r.stage == "export":   # the template's venv could not export the bot's model
            out.append(f"{name}: the template's venv could not export it with the new executorch: "
                       f"{code(r.error, cap=160) or 'no error given'}")
        elif r.status not in ("match", NOT_RUNNABLE):
            what = ("cannot load its own exporter's .pte" if r.stage == "load"
                    else f"fails at {r.stage or 'an unknown stage'}")
            out.append(f"{name}: the new pack's runtime {what}: {code(r.error, cap=160) or 'no error given'}")
    return out


def proof(new: list, job: Optional[str] = None) -> str:
    """``proofs["model-run"]`` of the results: ``pass`` when every model matched on the new pack (a delegated
    model, not runnable in QEMU, counts as no failure), ``fail`` on any other result or when the ``run-model`` job (``job``: its result, ``needs.run-model.result``) did not
    succeed, ``not-run`` when there is nothing to judge."""
    if job is not None and job != "success" and not new:
        return "not-run" if job == "skipped" else "fail"
    if not new:
        return "not-run"
    return "pass" if all(r.status in ("match", NOT_RUNNABLE) for r in new) else "fail"


def job_note(job: str, run_url: Optional[str] = None) -> str:
    """Why there are no results: the ``run-model`` job ended with ``job`` (``failure``, ``cancelled``, ...)."""
    where = f"[this run]({run_url})" if run_url else "this workflow run"
    return (f"The `run-model` job of {where} ended with {code(job, cap=40)} and handed over no result: "
            "its log says why (the toolchain, QEMU, the model export or the pack's build).")


def _cross_check_note(new: list, olds: dict) -> list[str]:
    """The lines after the table naming the old pack and saying what the cross check can show.

    When every model that ran on both packs was built from byte-identical pack files, the old
    runtime is the new one's code: "loads and matches" then only repeats the new run (measured:
    the v1.4.0 and v1.4.1 packs differ only in the PDSC's version strings)."""
    both = [(olds[r.model], r) for r in new if r.model in olds]
    if not both:
        return []
    labels = sorted({o.pack for o, _ in both if o.pack and o.pack != "?"})
    out = ["", "Cross check: the same `.pte` files on the old pack's runtime"
           + (f" ({', '.join(code(x, cap=80) for x in labels[:2])})" if labels else "") + "."]
    same = [r for o, r in both if same_runtime(o, r)]
    if same and len(same) == len(both):
        out[-1] += (" The old and the new pack build these models from byte-identical runtime sources: "
                    "the cross check runs the same code twice and cannot show a difference between the "
                    "two runtimes.")
    elif same:
        out[-1] += (f" {len(same)} of {len(both)} model(s) are built from byte-identical runtime sources on "
                    "both packs: for those the cross check repeats the new run.")
    return out


def output_values(results: list) -> list[str]:
    """What each match or mismatch rests on: the first values of every output on the device (the new pack's
    runtime in QEMU) and on the host (ExecuTorch's host runtime), as ``run-model --json`` recorded them; a result
    that recorded none (an older ``run-model``) says so rather than showing only "bit-exact"."""
    rows = []
    for r in results:
        if r.status not in ("match", "mismatch"):
            continue
        for o in r.outputs[:4]:
            dev, host = list(o.get("device") or ()), list(o.get("host") or ())
            n = o.get("elements")
            more = ", …" if isinstance(n, int) and n > len(dev) else ""
            head = f"- {code(r.model, cap=60)} output {o.get('index')}"
            if not dev and not host:
                rows.append(f"{head}: values not recorded by this `run-model`")
                continue
            rows.append(head + (f" ({n} values)" if isinstance(n, int) else "") + ", "
                        + ("bit-exact" if o.get("exact") else f"max difference {o.get('max_abs_diff')}")
                        + f": device {code(', '.join(dev) + more, cap=300)}; host {code(', '.join(host) + more, cap=300)}")
    if not rows:
        return []
    return ["", "<details><summary>The output values each comparison rests on (first values of each output; device: "
                "the new pack's runtime in QEMU, host: ExecuTorch's host runtime)</summary>", "", *rows, "", "</details>"]


#: What the results are: the report of a job that ran upstream code (docs/security.md, "Trust zones").
EVIDENCE = ("Evidence, not a check of this job: reported by the workflow's `run-model` job, where upstream and "
            "template code ran (the exporter, the host runtime, the template's requirements), with no token.")


def modelrun_section(new: list, old: Optional[list] = None, *, note: Optional[str] = None) -> str:
    """The Markdown section: a table per model, then each failure's own error lines in a code block.

    ``new``/``old``: ModelResult lists (old matched to new by model name).
    ``note``: shown instead of the table when no model ran (why not).
    """
    if not new:
        return "\n".join([TITLE, "", note or "No model was run in QEMU in this run."]) + "\n"
    olds = {r.model: r for r in (old or [])}
    ok = sum(r.status == "match" for r in new)
    skipped = [r for r in new if r.status == NOT_RUNNABLE]
    intro = (f"{ok} of {len(new) - len(skipped)} model(s) exported by the new ExecuTorch run on the new pack's "
             "runtime in QEMU (`mps3-an547`, Cortex-M55) with outputs matching the host runtime.")
    if skipped:
        intro += (f" {len(skipped)} delegated model(s) need an NPU that QEMU does not have: not a failure; run "
                  "them on an Arm Corstone FVP with the template's own build (docs/model-run.md of "
                  "executorch-pack-bot).")
    out = [TITLE, "", intro, "", EVIDENCE, "",
           "| Model | New pack | Max difference | Instructions per inference (old → new pack) | "
           "New `.pte` on the old pack |",
           "| --- | --- | --- | --- | --- |"]
    for r in new[:MAX_MODELS]:
        o = olds.get(r.model)
        out.append(f"| {code(r.model, cap=60, in_table=True)} | {_status(r)} | {_diff(r)} | "
                   f"{_instructions(o, r)} | {cross_check(o, r) if old is not None else 'not run'} |")
    if len(new) > MAX_MODELS:
        out.append(f"\n…and {len(new) - MAX_MODELS} more model(s).")
    own = [r for r in new[:MAX_MODELS] if r.model.startswith(TEMPLATE_PREFIX)]
    if own:
        out += ["", f"{code(own[0].model, cap=60)} is the program the template ships (`model:` in its settings), "
                "exported by the template's current ExecuTorch: its row is that older export on the new pack's "
                "runtime, which says whether the template's model must be re-exported."]
    out += output_values(new[:MAX_MODELS])
    packs = list(dict.fromkeys(p for r in new[:MAX_MODELS] for p in r.packs))
    if packs:   # packs a selected component required besides the new pack (CMSIS-NN for the Cortex-M operators)
        out += ["", "Built with, besides the new pack: " + ", ".join(code(p, cap=160) for p in packs[:4]) + "."]
    out += _cross_check_note(new[:MAX_MODELS], olds) if old is not None else []
    failed = [(i, r) for i, r in enumerate(new[:MAX_MODELS], 1) if r.status == "fail" and r.error_lines]
    for i, r in failed:
        # the <summary> line is raw HTML (an HTML block: GFM spec, "HTML blocks", start condition 6), where a code
        # span is none and a mention or "<!--" is live: it holds the bot's words only, the model's name follows
        # the blank line as Markdown
        out += ["", f"<details><summary>Row {i}: the {r.stage or '?'} stage's own error</summary>", "",
                f"{code(r.model, cap=60)}:", "", "```text", *[ln.replace("```", "'''") for ln in r.error_lines[:8]],
                "```", "", "</details>"]
    return "\n".join(out) + "\n"
