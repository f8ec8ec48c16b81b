"""The sections that help a reviewer test the bump: the template's CI, a hardware test plan, reproducing locally.

- :func:`ci_notice` goes near the top when none of the template's workflows
  will run on the PR (see :mod:`bot.template.ci` for the rules), with the
  ``gh workflow run FILE --ref BRANCH`` command when a workflow has
  ``workflow_dispatch``; :func:`ci_section` lists each workflow.
- :func:`test_plan_section`: the boards of the csolution's target types,
  "flash, run, compare timing and output with the docs' numbers", and a
  warning for numbers quoted in the docs (measured with the old ExecuTorch/Vela).
- :func:`reproduce_section`: the exact ``update`` command and the plan's fingerprint.
"""

from __future__ import annotations

import re
import shlex

from bot.inert import code, markdown
from bot.textreport import plural

MAX_WORKFLOWS = 30
MAX_MEASUREMENTS = 15


def _dispatch_commands(ci) -> list[str]:
    return [f"gh workflow run {shlex.quote(w.path.rsplit('/', 1)[-1])} --ref {shlex.quote(ci.branch)}"
            for w in ci.dispatchable if ci.branch]


def ci_notice(ci) -> str:
    """A warning for the top of the body when no template workflow will run on the PR ("" otherwise)."""
    if ci is None or not ci.workflows or ci.running:
        return ""
    if ci.default_token:
        why = "the pull request was opened with `GITHUB_TOKEN`, whose events start no workflow"
    else:
        why = "no workflow triggers on a pull request into this base branch or a push to the bot branch"
    out = f"> [!WARNING]\n> **The template's CI will not run on this pull request**: {why}."
    cmds = _dispatch_commands(ci)
    if cmds:
        out += "\n> Start it by hand: " + "; ".join(code(c, cap=300) for c in cmds[:5]) + "."
    else:
        out += "\n> No workflow has `workflow_dispatch`: build and test on a checkout of this branch."
    return out


def ci_section(ci) -> str:
    """``### Template CI``: each workflow and whether it runs on this PR."""
    if ci is None:
        return ""
    out = ["### Template CI", ""]
    if not ci.workflows:
        return "\n".join(out + ["The template has no `.github/workflows/*.yml`: nothing runs on this pull request."])
    running = ci.running
    out.append(f"{len(running)} of {plural(len(ci.workflows), 'workflow')} will run on this pull request"
               + (" (opened with `GITHUB_TOKEN`: none runs)." if ci.default_token else "."))
    out.append("")
    for w in ci.workflows[:MAX_WORKFLOWS]:
        if ci.default_token:
            state = "does not run (`GITHUB_TOKEN`)"
        elif w.unread:
            state = f"not read: {markdown(w.why)}"
        elif w.runs:
            state = "runs" + (" (pull_request)" if w.on_pr else " (push to the bot branch)")
        else:
            state = f"does not run: {w.why}"
        disp = "; has `workflow_dispatch`" if w.dispatch else ""
        out.append(f"- {markdown(w.name, cap=100)} ({code(w.path)}): {state}{disp}")
    if len(ci.workflows) > MAX_WORKFLOWS:
        out.append(f"- … and {len(ci.workflows) - MAX_WORKFLOWS} more workflows")
    cmds = _dispatch_commands(ci)
    if cmds and not running:
        out += ["", "Run them on the bot branch:", "", "```sh"] + cmds[:10] + ["```"]
    return "\n".join(out)


def test_plan_section(plan, evidence) -> str:
    """``### Hardware test plan``: boards, what to do on each, and the doc numbers measured before the bump."""
    if plan.bump is None or evidence is None:
        return ""
    b = plan.bump
    boards = list(getattr(evidence, "boards", None) or [])
    out = ["### Hardware test plan", ""]
    if boards:
        for bd in boards[:20]:
            what = " / ".join(code(x, cap=80) for x in (bd.board, bd.device) if x)
            out.append(f"- [ ] target type {code(bd.type, cap=80)}{' (' + what + ')' if what else ''} from "
                       f"{code(f'{bd.path}:{bd.line}')}: flash, run the sample, compare timing and output with "
                       "the docs' numbers")
        if len(boards) > 20:
            out.append(f"- … and {len(boards) - 20} more target types")
    else:
        out.append("- [ ] no `target-types` found in a `*.csolution.yml`: flash the template's board, run the "
                   "sample, compare timing and output with the docs' numbers")
    meas = list(getattr(evidence, "measurements", None) or [])
    if meas:
        out += ["", "> [!NOTE]\n> " + measured_sentence(b, meas, getattr(evidence, "old_vela", None)), "",
                f"<details><summary>The {plural(len(meas), 'line')}</summary>", ""]
        for m in sorted(meas, key=lambda m: (not m.old, m.path, m.line))[:MAX_MEASUREMENTS]:
            out.append(f"- {code(f'{m.path}:{m.line}')}: {code(m.text, cap=160)}"
                       + (" (names the old version)" if m.old else ""))
        if len(meas) > MAX_MEASUREMENTS:
            out.append(f"- … and {len(meas) - MAX_MEASUREMENTS} more lines")
        out += ["", "</details>"]
    return "\n".join(out)


_NAMED_EXECUTORCH = re.compile(r"(?i)\bExecuTorch\s+v?(\d+\.\d+(?:\.\d+)?)(?![\w.])")


def measured_sentence(bump, meas, old_vela=None) -> str:
    """The note over the docs' measured lines (:class:`bot.template.hardware.Measurement`), true of each line
    cited: the ExecuTorch versions the lines themselves name (``ExecuTorch 1.4.1``), and for the lines that name
    none, the versions the template was on before the bump (the bump's old ExecuTorch, Vela ``old_vela``)."""
    from packaging.version import Version

    named: set[str] = set()
    unnamed = 0
    for m in meas:
        found = _NAMED_EXECUTORCH.findall(m.text)
        named.update(found)
        unnamed += not found
    parts = []
    if named:
        versions = sorted(named, key=Version)
        k = len(meas) - unnamed
        parts.append(f"{plural(k, 'line')} name{'s' if k == 1 else ''} the ExecuTorch release {'it was' if k == 1 else 'each was'} measured with ("
                     + ", ".join(code(v, cap=40) for v in versions) + ")")
    if unnamed:
        with_what = f"ExecuTorch {code(bump.old_executorch)}" + (f" and Vela {code(old_vela)}" if old_vela else "")
        parts.append(f"{plural(unnamed, 'line')} name{'s' if unnamed == 1 else ''} no release (the template was on "
                     f"{with_what} before this bump)")
    return (f"{plural(len(meas), 'line')} of the docs quote measured numbers (cycles, fps, CRCs, latency) taken before "
            f"this bump to ExecuTorch {code(bump.new_executorch)}: " + "; ".join(parts)
            + ". Re-measure them on hardware or mark them as history.")


def reproduce_section(plan, evidence) -> str:
    """``### Reproduce locally``: the ``update`` command on a checkout of the base branch and the fingerprint."""
    cmd = getattr(evidence, "command", None) if evidence is not None else None
    out = ["### Reproduce locally", ""]
    if cmd and "`" not in cmd and "\n" not in cmd:
        out += ["On a checkout of the base branch:", "", "```sh", cmd, "```", ""]
    out.append(f"Plan fingerprint (sha256 of the target pins; `update --json` prints it): `{plan.fingerprint()}`")
    return "\n".join(out)
