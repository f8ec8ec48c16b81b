"""``### Maintenance procedure``: the four steps of bumping a template, each ticked when the bot did it.

1. the pack: obtained how (release asset URL and sha256, or built on a
   runner with the run link), verified how, and whether
   ``PyTorch::ExecuTorch@V`` is on the public CMSIS pack index that
   ``cbuild setup --packs`` reads;
2. the csolution/cproject/clayer pins and the ``cbuild-pack.yml`` lock;
3. the Python requirements (which upstream sources, TOSA carried over or not);
4. rebuild the virtual environment, the AI layer and the project: done by a
   workflow (with its run link) or left to the reviewer with the exact
   commands (CMSIS-Toolbox docs/build-operation.md).

A step the bot did is ``- [x]``; one it could not do is an unticked task.
"""

from __future__ import annotations

from pathlib import Path

import shlex

from bot.inert import code, line, markdown
from bot.textreport import plural

TOSA_FILE = "requirements-arm-tosa.txt"


def q(text: str) -> str:
    """A shell word (``shlex.quote``)."""
    return shlex.quote(text)


def _tick(done: bool) -> str:
    return "- [x]" if done else "- [ ]"


def pack_step(plan, evidence, pack_report, pack_note) -> list[str]:
    b = plan.bump
    prov = getattr(evidence, "pack", None)
    how = getattr(prov, "how", None)
    failed = bool(getattr(pack_report, "failed", False))
    if hasattr(pack_report, "checks"):
        from bot.report.pack import verdict
        failed = verdict(pack_report)[1]
    verified = pack_report is not None and not failed
    if how == "asset":
        got = f"the release asset {code(prov.url or '', cap=300)}" + \
              (f" (sha256 {code(prov.sha256, cap=80)})" if prov.sha256 else " (no sha256 published with the asset)")
    elif how == "verified-here":
        got = ("obtained by an earlier job of this workflow" +
               (f" ([run]({prov.run_url}))" if prov.run_url else "") +
               " and verified again by the job that opened this pull request, whose report is below")
    elif how == "reported":
        got = ("obtained and verified by an earlier job of this workflow" +
               (f" ([run]({prov.run_url}))" if prov.run_url else "") + ", whose report is below")
    elif how == "built":
        got = (f"built on the Arm runner from tag {code(prov.tag or b.new_tag)} with `build-pack`"
               + (f" by this run's job {code(prov.job, cap=80)}" if getattr(prov, "job", None) else "")
               + (f" ([run]({prov.run_url}))" if prov.run_url else "")
               + (f" (sha256 {code(prov.sha256, cap=80)})" if prov.sha256 else ""))
    else:
        got = "not obtained by this run" + (f" ({pack_note.rstrip('.')})" if pack_note else "")
    lines = [f"{_tick(verified and how is not None)} **1. The pack** {code(f'PyTorch::ExecuTorch@{b.new_pack}')}: "
             f"{got}; verification: "
             + ("passed (`verify-pack`, section below)" if verified else "**failed** (section below)" if pack_report
                is not None else "not run")]
    return lines + index_lines(b.new_pack, getattr(prov, "on_index", None), getattr(prov, "index_why", None))


def index_lines(version: str, on_index, why) -> list[str]:
    """The sub-item of step 1: is ``PyTorch::ExecuTorch@version`` on the public pack index (bot/pack/public_index.py)?

    ``on_index`` True/False/None and ``why`` (None: the index was not asked).
    Not on it: ``cbuild setup --packs`` cannot download the pack, so the
    template needs a local pack until it is published.
    """
    why_text = f" ({markdown(why.rstrip('.'), cap=300)})" if why else ""
    if on_index is True:
        return ["  - [x] on the public pack index (`cbuild setup --packs` finds it)"]
    head = "  - [ ] on the public pack index that `cbuild setup --packs` reads: "
    if on_index is False:
        pack = f"PyTorch.ExecuTorch.{version}.pack"
        return [head + f"**not on it**{why_text}: `cbuild setup --packs` cannot download the pack, so until it is "
                f"published there the template must use a local pack (`cpackget add PATH/{pack}`, the pack of this "
                "run) or wait"]
    state = f"could not tell{why_text}" if why else "not checked by this run"
    return [head + f"{state}; `cpackget add PyTorch::ExecuTorch@{version}` tells"]


def pins_step(plan) -> list[str]:
    pack_files = sorted({e.path for e in plan.edits if e.kind == "pack-pin"})
    lock_files = sorted({e.path for e in plan.edits if e.kind == "lock"})
    done = bool(pack_files)
    files = ", ".join(code(p) for p in pack_files[:6]) + (" …" if len(pack_files) > 6 else "")
    line = (f"{_tick(done)} **2. csolution/cproject pins**: "
            + (f"{plural(len(pack_files), 'file')} ({files})" if done else "no pack pin was rewritten"))
    line += (f"; lock {', '.join(code(p) for p in lock_files[:3])} updated" if lock_files
             else "; no `cbuild-pack.yml` lock entry to update")
    return [line]


def python_step(plan) -> list[str]:
    b = plan.bump
    req = sorted({e.path for e in plan.edits if e.kind == "requirement"})
    sources = sorted({c.source.split(" @ ")[0] for c in b.changes if c.source})
    tosa = [c for c in b.changes if TOSA_FILE in (c.source or "")]
    line = (f"{_tick(bool(req))} **3. Python requirements**: "
            + (f"{plural(len(req), 'file')} ({', '.join(code(p) for p in req[:6])})" if req else "no requirement rewritten")
            + (f"; upstream sources: {', '.join(code(s, cap=120) for s in sources[:6])}" if sources else ""))
    if tosa:
        line += f"; TOSA pins carried over: {', '.join(code(f'{c.name}=={c.new}') for c in tosa[:8])}"
    else:
        line += "; TOSA: upstream's `requirements-arm-tosa.txt` pins did not change between the tags (nothing to carry)"
    return [line]


AI_LAYER_SCRIPT = "create_ai_layer.py"   # at the template's root (docs/action.md, the ai-layer input)


def has_ai_layer_script(plan) -> bool:
    """True when the template has ``create_ai_layer.py`` at its root: only then do the rebuild commands name it."""
    from pathlib import Path
    return (Path(plan.repo) / AI_LAYER_SCRIPT).is_file()


#: The template's own venv scripts, at its root, in the order they are preferred.
VENV_SCRIPTS = ("setup_venv.sh", "setup_venv.py")


def venv_script(plan):
    """The template's own venv script at its root (``setup_venv.sh``, ``setup_venv.py``), or None."""
    return next((n for n in VENV_SCRIPTS if (Path(plan.repo) / n).is_file()), None)


def rebuild_commands(plan, evidence) -> list[str]:
    """The commands that rebuild the venv, the AI layer (when the template has ``create_ai_layer.py`` at its
    root) and the project (CMSIS-Toolbox docs/build-operation.md).  The venv comes from the template's own
    script when it has one (:func:`venv_script`: ``./setup_venv.sh``), else from ``python3 -m venv`` and the
    requirements files the bump rewrote; a rewritten requirements file the script does not name is installed after
    it (the script's text is read for the file's name)."""
    b = plan.bump
    reqs = sorted({e.path for e in plan.edits if e.kind == "requirement" and e.path.endswith(".txt")})
    boards = list(getattr(evidence, "boards", None) or [])
    sol = boards[0].path if boards else "SOLUTION.csolution.yml"
    target = q(boards[0].type) if boards else "TARGET"
    stem = sol[:-len(".csolution.yml")] if sol.endswith(".csolution.yml") else sol
    script = venv_script(plan)
    if script:      # the template's own venv step: a reviewer following it runs what the template's users run
        cmds = [f"./{script}" if script.endswith(".sh") else f"python3 {script}", ". .venv/bin/activate"]
        try:
            said = (Path(plan.repo) / script).read_text(encoding="utf-8", errors="replace")
        except OSError:
            said = ""
        for r in reqs:      # a rewritten requirements file the script does not name is installed after it
            if r.rsplit("/", 1)[-1] not in said:
                cmds.append(f"pip install {'--no-deps ' if TOSA_FILE in r else ''}-r {q(r)}")
    else:
        cmds = ["python3 -m venv .venv && . .venv/bin/activate"]
        for r in reqs:
            cmds.append(f"pip install {'--no-deps ' if TOSA_FILE in r else ''}-r {q(r)}")
    cmds += [f"cpackget add {q(f'PyTorch::ExecuTorch@{b.new_pack}')}",
             f"cbuild setup {q(sol)} --active {target} --packs"]
    if has_ai_layer_script(plan):
        cmds.append(f"python3 {AI_LAYER_SCRIPT} {q(stem + '.cbuild-mlops.yml')}")
    cmds.append(f"cbuild {q(sol)} --active {target}")
    return [line(c, cap=400) for c in cmds]


def rebuild_step(plan, evidence, included=()) -> list[str]:
    url = getattr(evidence, "rebuild_run_url", None)
    if url:
        return [f"- [x] **4. Rebuild** the venv, the AI layer and the project: done by the workflow ([run]({url}))"
                + (f"; {plural(len(included), 'regenerated file')} committed" if included else "")]
    cmds = rebuild_commands(plan, evidence)
    what = "the venv, the AI layer and the project" if has_ai_layer_script(plan) else "the venv and the project"
    text = "\n".join(cmds)
    fence = "```"
    if "`" in text or "\n" + fence in text:
        return [f"- [ ] **4. Rebuild** {what}: not done by this run "
                "(the template's paths hold backticks: see the README)."]
    return [f"- [ ] **4. Rebuild** {what}: not done by this run; on a checkout of "
            "this branch:", "", "  " + fence + "sh"] + [f"  {c}" for c in cmds] + ["  " + fence]


def procedure_section(plan, evidence=None, pack_report=None, pack_note=None, included=()) -> str:
    """The four steps as a checklist; empty text without a bump."""
    if plan.bump is None:
        return ""
    return "\n".join(["### Maintenance procedure", ""]
                     + pack_step(plan, evidence, pack_report, pack_note) + pins_step(plan)
                     + python_step(plan) + rebuild_step(plan, evidence, included))
