"""docs/action.md draws the reusable workflow's job graph: which job needs which, what passes between
them (job outputs and artifacts), the permissions of each job's GITHUB_TOKEN and the token each bot
step holds. The drawing is checked against .github/workflows/executorch-pack-bot.yml here, so it
cannot drift from the workflow."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
WORKFLOW = ROOT / ".github/workflows/executorch-pack-bot.yml"
DOC = ROOT / "docs/action.md"
APP_TOKEN = "${{ steps.app-token.outputs.token || secrets.token || github.token }}"
TOKENS = {None: "GITHUB_TOKEN", "": "none", APP_TOKEN: "App token, else the token secret, else GITHUB_TOKEN"}


def jobs() -> dict:
    return yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))["jobs"]


def needs(job: dict) -> list[str]:
    n = job.get("needs", [])
    return n if isinstance(n, list) else [n]


def artifacts(job: dict, action: str) -> set[str]:
    return {s["with"]["name"] for s in job["steps"] if str(s.get("uses", "")).startswith(f"actions/{action}@")}


def edges() -> dict[tuple[str, str], str]:
    """``{(from, to): label}``: the job outputs ``to`` reads from ``from``, then the artifacts it downloads."""
    js = jobs()
    out = {}
    for name, job in js.items():
        text = yaml.safe_dump(job, width=10**6)
        for dep in needs(job):
            outputs = sorted(set(re.findall(rf"needs\.{re.escape(dep)}\.outputs\.([\w-]+)", text)))
            # an artifact reaches a job from every upstream job that uploads it
            arts = sorted(artifacts(js[dep], "upload-artifact") & artifacts(job, "download-artifact"))
            parts = ([f"outputs: {', '.join(outputs)}"] if outputs else []) + (
                [f"artifacts: {', '.join(arts)}"] if arts else [])
            out[(dep, name)] = "; ".join(parts)
    return out


def drawn_edges() -> dict[tuple[str, str], str]:
    block = re.search(r"```mermaid\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S).group(1)
    out = {}
    for a, label, b in re.findall(r"^\s*(\w+) -->(?:\|\"([^\"]*)\"\|)? (\w+)\s*$", block, re.M):
        out[(a.replace("_", "-"), b.replace("_", "-"))] = label
    return out


def permissions(job: dict) -> str:
    return ", ".join(f"{k}: {v}" for k, v in job.get("permissions", {}).items()) or "none"


def bot_tokens(job: dict) -> str:
    return "; ".join(f"{s['with']['command']}: {TOKENS[s['with'].get('token')]}" for s in job["steps"]
                     if s.get("uses") == "./.executorch-pack-bot")


def drawn_table() -> dict[str, tuple[str, str]]:
    text = DOC.read_text(encoding="utf-8")
    section = text[text.index("| job | permissions of its GITHUB_TOKEN | token of each bot step |"):]
    rows = {}
    for line in section.splitlines()[2:]:
        if not line.startswith("| `"):
            break
        cells = [c.strip() for c in line.strip("|").split("|")]
        rows[cells[0].strip("`")] = (cells[1], cells[2])
    return rows


def test_the_drawing_has_exactly_the_workflows_edges_and_what_passes_along_them():
    assert drawn_edges() == edges()


def test_the_token_table_has_every_jobs_permissions_and_each_bot_steps_token():
    assert drawn_table() == {name: (permissions(job), bot_tokens(job)) for name, job in jobs().items()}


def test_every_job_is_in_the_drawing():
    block = re.search(r"```mermaid\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S).group(1)
    drawn = {m.replace("_", "-") for m in re.findall(r"^\s*(\w+)\[", block, re.M)}
    assert drawn == set(jobs())


if __name__ == "__main__":   # print the drawing as the workflow has it (to update docs/action.md)
    for (a, b), label in edges().items():
        arrow = f' -->|"{label}"| ' if label else " --> "
        print(f"  {a.replace('-', '_')}{arrow}{b.replace('-', '_')}")
    for name, job in jobs().items():
        print(f"| `{name}` | {permissions(job)} | {bot_tokens(job)} |")


def test_every_output_the_workflow_reads_from_a_bot_step_is_declared_by_the_action():
    """A composite action passes on only the outputs action.yml declares (GitHub's metadata syntax,
    runs.outputs); act passes undeclared ones too, so only this static check catches a missing one."""
    declared = set(yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))["outputs"])
    read = set()
    for job in jobs().values():
        ids = {s["id"] for s in job["steps"] if s.get("uses") == "./.executorch-pack-bot" and "id" in s}
        text = yaml.safe_dump(job, width=10**6)
        for step_id in ids:
            read |= set(re.findall(rf"steps\.{re.escape(step_id)}\.outputs\.([\w-]+)", text))
    assert read and read <= declared, read - declared
