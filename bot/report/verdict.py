"""``### Verdict``: the six lines a reviewer checks first, each backed by what the run saw.

1. exporter version equals runtime version: the template's ``executorch==X`` (the Python package that
   exports the ``.pte``) and its ``PyTorch::ExecuTorch@X`` pack (the runtime that loads it) are one release;
2. the pins equal upstream's at the tag, each linked to the upstream file it was read from
   (``blob/TAG/PATH`` on the upstream repository);
3. the pack: where it came from, its sha256, its verification, and whether ``cbuild setup --packs`` downloads
   that very file (the PDSC ``<url>`` names the release asset that was verified) or the bot cannot tell;
4. the ``.pte`` schema between the tags (``schema/*.fbs``), or that it was not compared;
5. the proofs that ran: ``verify-pack``, the compile check, a model run (the bot runs none: "not run");
6. what this pull request did not prove, each with how to prove it: the template's own build (the compile
   check builds only the pack's Runtime sources), a model run (unless ``run-model`` passed), the template's
   CI (it has not run when the body is written; whether it will, from :mod:`bot.template.ci`) and the model
   on the NPU (``run-model`` runs a simulated Cortex-M55 in QEMU, which has no Ethos-U).

A fact the record lacks is said as not known or not run, never as a pass: a line is ✅ only when everything it
names passed; when part of it passed and the rest did not run or was not asked, it is ➖ and names what did not
run; ❔ when nothing it names is known.
"""

from __future__ import annotations

import re
from urllib.parse import quote

from bot.inert import code
from bot.textreport import plural

OK, NO, WARN, UNKNOWN, PARTIAL = "✅", "❌", "⚠️", "❔", "➖"
PACK = "PyTorch::ExecuTorch"
NOT_READ = "upstream ExecuTorch was not read when this bump was planned"
_SAFE_URL = re.compile(r"https://[A-Za-z0-9._~:/?#@!$&'*+,;=%-]+")
_FILE = re.compile(r"^(?P<path>[\w./-]+?\.(?:py|txt|toml|cfg))(?: [\w.]+)? @ (?P<tag>\S+)$")


def _base(v: str) -> str:
    """``1.5.1`` of ``1.5.1``, ``v1.5.1``, ``1.5.1-local`` or ``1.5.1+cpu`` (a label is not another release)."""
    return re.split(r"[-+]", (v or "").lstrip("v"), maxsplit=1)[0]


def exporter_line(plan) -> str:
    b = plan.bump
    et = next((r for r in plan.rows if r.name == "executorch"), None)
    pack = next((r for r in plan.rows if r.name == PACK), None)
    pack_v = pack.new if pack and pack.new else b.new_pack
    if et is None or not et.new:
        return (f"- {UNKNOWN} **Exporter = runtime**: the template pins no `executorch==` (the exporter); the runtime "
                f"is {code(f'{PACK}@{pack_v}')}")
    same = _base(et.new) == _base(pack_v)
    return (f"- {OK if same else NO} **Exporter = runtime**: {code(f'executorch=={et.new}')} and "
            f"{code(f'{PACK}@{pack_v}')}" + (" are the same release" if same else " are **different releases**"))


def upstream_link(server: str, upstream: str, source: str):
    """``(path, url)`` of an upstream file a pin was read from (``torch_pin.py TORCH_VERSION @ v1.5.1``), or None."""
    m = _FILE.match(source or "")
    if not m:
        return None
    return m["path"], f"{server}/{upstream}/blob/{quote(m['tag'], safe='')}/{quote(m['path'])}"


def pins_line(plan, server: str, upstream: str, evidence=None) -> str:
    b = plan.bump
    python = [r for r in plan.rows if "::" not in r.name and r.new]
    if not getattr(evidence, "upstream_ran", True):
        return f"- {UNKNOWN} **Pins = upstream's**: not compared ({NOT_READ})"
    linked, by_hand, other = [], [], []
    lines = dict(getattr(evidence, "pin_lines", None) or {})
    for r in python:
        link = upstream_link(server, upstream, r.source)
        if link:
            at = lines.get(r.name)
            if at and at[0] == link[0]:
                link = (f"{link[0]}:{at[1]}", f"{link[1]}#L{at[1]}")
            linked.append(f"{code(f'{r.name}=={r.new}')} ([{link[0]}]({link[1]}))")
        elif r.source == "--set":
            by_hand.append(code(f"{r.name}=={r.new}"))
        elif (r.source or "").startswith("release tag"):
            linked.append(f"{code(f'{r.name}=={r.new}')} (the tag)")
        else:
            other.append(code(f"{r.name}=={r.new}"))
    shown = ", ".join(linked[:8]) + (f", … and {len(linked) - 8} more" if len(linked) > 8 else "")
    if by_hand or other:
        extra = (f"; set by hand (`--set`): {', '.join(by_hand)}" if by_hand else "") + \
                (f"; from elsewhere: {', '.join(other)}" if other else "")
        return f"- {WARN} **Pins = upstream's** at {code(b.new_tag)} except some: {shown}{extra}"
    return f"- {OK} **Pins = upstream's** at {code(b.new_tag)}: {shown}"


def _declared_url(report):
    """The PDSC ``<url>`` of the verified pack, as the ``url`` check saw it (None: not known)."""
    c = report.check("url") if hasattr(report, "check") else None
    if c is None:
        return None
    declared = (c.data or {}).get("declared")
    if declared:
        return declared
    if c.status == "pass":
        m = re.search(r"https?://\S+", c.detail or "")
        return m.group(0) if m else None
    return None


def download_sentence(plan, prov, report) -> str:
    """Whether ``cbuild setup --packs`` downloads the very pack verified, or that the bot cannot tell."""
    return download_state(plan, prov, report)[0]


def download_state(plan, prov, report) -> tuple[str, str]:
    """``(sentence, icon)``: :func:`download_sentence` and its mark: OK when ``cbuild setup --packs`` downloads
    the verified release asset and the public index lists it, PARTIAL when the bot could not tell or the index was
    not asked, WARN when it downloads another file (a built pack, another ``<url>``) or the index does not list
    the pack yet."""
    name = f"PyTorch.ExecuTorch.{plan.bump.new_pack}.pack"
    how = getattr(prov, "how", None)
    declared = _declared_url(report)
    if how == "built":
        return ("`cbuild setup --packs` downloads the published pack, **not this built one**: install this run's pack "
                f"with `cpackget add {name}` to build what was verified", WARN)
    if how != "asset" or not declared or not getattr(prov, "url", None):
        return "whether `cbuild setup --packs` downloads this very file: could not tell", PARTIAL
    target = declared.rstrip("/") + "/" + name
    if target == prov.url and getattr(prov, "sha256", None):
        listed = getattr(prov, "on_index", None)
        tail = ("; the public index lists the pack" if listed is True else
                "; the public index does **not** list it yet" if listed is False else
                "; the public index was not asked")
        return (f"`cbuild setup --packs` downloads the file the PDSC `<url>` names, the release asset verified here "
                f"(same URL, sha256 above){tail}", OK if listed is True else WARN if listed is False else PARTIAL)
    return (f"the PDSC `<url>` ({code(declared, cap=200)}) does not name the release asset verified here, and "
            f"`cbuild setup --packs` downloads from that `<url>`: before merging, download {code(name)} from it "
            "and compare its sha256 with the one above (a different or missing file is not what was verified)", WARN)


def pack_line(plan, evidence, pack_report) -> str:
    from bot.report.pack import verdict

    prov = getattr(evidence, "pack", None)
    how = getattr(prov, "how", None)
    sha = getattr(prov, "sha256", None)
    url = getattr(prov, "url", None)
    asset = f"the [release asset]({url})" if how == "asset" and url and _SAFE_URL.fullmatch(url) else "the release asset"
    source = {"asset": asset, "built": f"built from the tag {code(plan.bump.new_tag)}",
              "verified-here": "obtained by an earlier job", "reported": "obtained by an earlier job"}.get(
        how, "not obtained by this run")
    if getattr(evidence, "refusal", None):
        source += " (the release asset was refused: see below)"
    if pack_report is None:
        state, icon = "verification not run", UNKNOWN
    elif hasattr(pack_report, "checks"):
        head, failed = verdict(pack_report)
        state, icon = ("verification **failed**", NO) if failed else ("verified (`verify-pack`)", OK)
    else:
        failed = bool(getattr(pack_report, "failed", False))
        state, icon = ("verification **failed**", NO) if failed else ("verified by an earlier job", OK)
    if how is None:
        icon = UNKNOWN
    out = f"**Pack**: {source}" + (f", sha256 {code(sha, cap=80)}" if sha else ", sha256 not known") + f"; {state}"
    if pack_report is not None:
        sentence, mark = download_state(plan, prov, pack_report)
        out += "; " + sentence
        if icon == OK and mark != OK:   # verified, but not everything the line names passed
            icon = mark
    return f"- {icon} {out}"


def schema_line(plan, evidence) -> str:
    b = plan.bump
    ch = getattr(evidence, "changes", None)
    if not getattr(evidence, "upstream_ran", True) or evidence is None:
        return f"- {UNKNOWN} **`.pte` schema**: not compared ({NOT_READ})"
    if ch is None or ch.error or ch.paths is None:
        return (f"- {UNKNOWN} **`.pte` schema**: not compared (the upstream source could not list the files "
                "changed between the tags)")
    span = f"between {code(b.old_tag)} and {code(b.new_tag)}"
    if not ch.schema:
        return f"- {OK} **`.pte` schema**: `schema/*.fbs` unchanged {span}"
    if ch.schema_changed:
        return f"- {NO} **`.pte` schema**: **changed** {span}: re-export the models (a blocking item)"
    return f"- {OK} **`.pte` schema**: only comments or white space changed in `schema/*.fbs` {span}"


_PROOF = {"pass": "passed", "fail": "**failed**", "warn": "passed with warnings", "not-run": "not run"}


def proofs_line(evidence, pack_report) -> str:
    proofs = dict(getattr(evidence, "proofs", None) or {})
    if not proofs and pack_report is not None:   # evidence made by hand, without a record
        failed = bool(getattr(pack_report, "failed", False))
        proofs["verify-pack"] = "fail" if failed else "pass"
        comp = pack_report.check("compile") if hasattr(pack_report, "check") else None
        proofs["compile"] = comp.status if comp is not None else "not-run"
    named = {"verify-pack": "pack verification", "compile": "compile of the Runtime sources", "model-run": "model run"}
    states = {k: proofs.get(k, "not-run") for k in named}
    ran = [v for v in states.values() if v != "not-run"]
    missing = [named[k] for k, v in states.items() if v == "not-run"]
    if "fail" in ran:
        icon = NO
    elif not ran:
        icon = UNKNOWN
    elif missing:
        icon = PARTIAL      # what ran passed, the rest did not run: no ✅ for a proof not made
    else:
        icon = WARN if "warn" in ran else OK
    return f"- {icon} **Proofs**: " + "; ".join(f"{named[k]} {_PROOF.get(v, v)}" for k, v in states.items())


def unproven_line(evidence) -> str:
    """What this pull request did not prove, and how to prove each (item 6 of the module docstring)."""
    proofs = dict(getattr(evidence, "proofs", None) or {})
    items = ["the template's own build: not run by the bot (the compile check builds only the pack's Runtime "
             "sources); prove it with step 4 of the maintenance procedure (`cbuild`) or the template's CI"]
    if proofs.get("model-run") != "pass":
        state = "failed (a blocking item)" if proofs.get("model-run") == "fail" else "not run"
        items.append(f"a model run: {state} here; prove it with `executorch-pack-bot run-model` on this pack "
                     "(docs/model-run.md) or the workflow's `run-model` job")
    ci = getattr(evidence, "ci", None)
    if ci is None:
        items.append("the template's CI: not read by this run; see the checks of this pull request")
    elif not ci.workflows:
        items.append("the template's CI: the template has no workflow; build and test on a checkout of this branch")
    elif ci.running:
        items.append(f"the template's CI: not yet run when this was written ({plural(len(ci.running), 'workflow')} "
                     "will run on this pull request); wait for its checks")
    else:
        items.append("the template's CI: it will not run on this pull request (see the warning and `### Template "
                     "CI`); start it by hand or build on a checkout of this branch")
    items.append("the model on the Ethos-U NPU: the bot runs no hardware (`run-model` uses a simulated Cortex-M55 "
                 "in QEMU, with no NPU); prove it with the hardware test plan below")
    return f"- {PARTIAL} **Not proven by this pull request**: " + "; ".join(items) + "."


def verdict_section(plan, evidence, pack_report, upstream: str, server: str) -> str:
    """The six lines (module docstring); empty text without a bump."""
    if plan.bump is None:
        return ""
    return "\n".join(["### Verdict", "", exporter_line(plan), pins_line(plan, server, upstream, evidence),
                      pack_line(plan, evidence, pack_report), schema_line(plan, evidence),
                      proofs_line(evidence, pack_report), unproven_line(evidence)])
