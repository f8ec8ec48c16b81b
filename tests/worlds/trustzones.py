"""The one trust model of every job the project ships, as data and one checker (docs/security.md, "Trust zones").

Each step of a job is classified by the tables below:

* **foreign**: it runs code the template or upstream controls: a pip install of a template's requirements,
  CMake, ``build_pack.sh``, ``create_ai_layer.py``, cbuild, anything run through ``bot.contain``, the bot
  commands in :data:`FOREIGN_COMMANDS` (build-pack runs ``build_pack.sh`` and CMake, verify-pack upstream's
  ``validate_pack.py``, run-model the exporter and the models, npu-estimate the exporter and Vela), an action that installs tools a template's
  file names (:data:`FOREIGN_ACTIONS`);
* **token**: it hands a token to the code it runs: ``actions/checkout`` and the bot's action without an empty
  ``token:`` (both default to ``github.token``), any ``github.token``, ``secrets.*`` or ``steps.*.outputs.token``
  expression, ``actions/create-github-app-token``;
* **cache**: it restores a cache (``actions/cache`` and its ``restore`` sub-action, ``setup-python``'s ``cache:``).

A job **holds a credential** when its ``permissions:`` grant a ``write`` scope or a step names a secret or mints
an App token (that action's post step runs at the end of the job, the private key in its environment).

The rules, checked by :func:`violations` for every job of every workflow file and caller example and for the
composite action:

1. a job that holds a credential has no foreign step;
2. a job that holds a credential restores no cache;
3. no step after the first foreign step of a job holds a token, and a foreign step holds none itself.

A new workflow is covered by being in ``.github/workflows/``: nothing is listed by name.
"""

from __future__ import annotations

import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]

#: Commands of the bot's action that run upstream code (bot/commands/build_pack.py, verify_pack.py, run_model.py).
FOREIGN_COMMANDS = frozenset({"build-pack", "verify-pack", "run-model", "npu-estimate"})   # npu-estimate: the exporter and Vela
#: ``run:`` text that runs template or upstream code.
FOREIGN_RUN = tuple(re.compile(p) for p in (
    # a pip install from an index (a template's requirements: package build code), not a hash-locked one
    r"pip install(?![^\n]*(--require-hashes|--no-index))",
    r"-m bot\.contain\b",                                          # whatever the bot contains is foreign
    # CMake and cbuild as the command of a line (not a package name in an apt-get line)
    r"\bbuild_pack\.sh\b", r"(?m)(^|[;&|(]|\bexec)\s*cmake\s", r"(?m)(^|[;&|(]|\bexec)\s*cbuild\s",
    r"\bcreate_ai_layer\.py\b",
    r"\brun-model\b",
))
#: Third-party actions that run or install what a template's file chooses.
FOREIGN_ACTIONS = (re.compile(r"^ARM-software/cmsis-actions/vcpkg@"),)
#: Actions that restore a cache.
CACHE_ACTIONS = (re.compile(r"^actions/cache(/restore)?@"),)
APP_TOKEN = re.compile(r"^actions/create-github-app-token@")
TOKEN_EXPRESSION = re.compile(r"\$\{\{[^}]*\b(github\.token|secrets\.[\w-]+|steps\.[\w-]+\.outputs\.token)\b")
SECRET_EXPRESSION = re.compile(r"\$\{\{[^}]*\bsecrets\.")
#: Actions whose ``token`` input defaults to ``github.token``.
TOKEN_DEFAULT_ACTIONS = (re.compile(r"^actions/checkout@"), re.compile(r"^\./\.executorch-pack-bot$"))


def load(path: Path) -> dict:
    """A workflow or action file as PyYAML reads it, with ``on`` (YAML 1.1's ``True``) restored."""
    data = yaml.safe_load(path.read_text())
    if isinstance(data, dict) and True in data:
        data["on"] = data.pop(True)
    return data


def shipped_files() -> list[Path]:
    """Every workflow the project ships or shows: .github/workflows/*.yml, action.yml, docs/example-*.yml."""
    return sorted([*(ROOT / ".github/workflows").glob("*.y*ml"), ROOT / "action.yml",
                   *(ROOT / "docs").glob("example-*.yml")])


def _text(step: dict) -> str:
    return yaml.safe_dump(step, sort_keys=True)


def _code(script: str) -> str:
    """A shell script without its comment lines (a comment naming CMake runs nothing)."""
    script = script.replace("\\\n", " ")   # continued lines as one
    return "\n".join(ln for ln in script.splitlines() if not ln.lstrip().startswith("#"))


def is_foreign(step: dict) -> str:
    """Why ``step`` runs foreign code ("" when it does not)."""
    uses = str(step.get("uses", ""))
    if uses == "./.executorch-pack-bot" and (step.get("with") or {}).get("command") in FOREIGN_COMMANDS:
        return f"the bot's {step['with']['command']} (upstream code)"
    if any(p.search(uses) for p in FOREIGN_ACTIONS):
        return f"{uses.split('@')[0]} (tools a template's file chooses)"
    run = _code(str(step.get("run", "")))
    for p in FOREIGN_RUN:
        if p.search(run):
            return f"run: matches {p.pattern!r}"
    return ""


def holds_token(step: dict) -> str:
    """Why ``step`` hands a token to what it runs ("" when it does not)."""
    uses = str(step.get("uses", ""))
    if APP_TOKEN.search(uses):
        return "mints an App token"
    w = step.get("with") or {}
    if any(p.search(uses) for p in TOKEN_DEFAULT_ACTIONS) and "token" not in w:
        return f"{uses.split('@')[0]} without token: (github.token by default)"
    m = TOKEN_EXPRESSION.search(_text(step))
    if m:
        return f"names {m.group(1)}"
    return ""


def restores_cache(step: dict) -> str:
    """Why ``step`` restores a cache ("" when it does not)."""
    uses = str(step.get("uses", ""))
    if any(p.search(uses) for p in CACHE_ACTIONS):
        return uses.split("@")[0]
    if uses.startswith("actions/setup-python@") and (step.get("with") or {}).get("cache"):
        return "setup-python cache:"
    return ""


def job_credential(job: dict) -> str:
    """Why ``job`` holds a credential ("" when it does not)."""
    perms = job.get("permissions")
    if perms == "write-all":
        return "permissions: write-all"
    if isinstance(perms, dict):
        writes = sorted(k for k, v in perms.items() if v == "write")
        if writes:
            return "permissions: " + ", ".join(f"{k}: write" for k in writes)
    if "secrets" in job and job["secrets"]:
        return "secrets: passed to a reusable workflow"
    for step in job.get("steps") or []:
        if APP_TOKEN.search(str(step.get("uses", ""))):
            return f"step {step.get('name', step.get('uses'))!r} mints an App token"
        if SECRET_EXPRESSION.search(_text(step)):
            return f"step {step.get('name', step.get('uses'))!r} names a secret"
    return ""


def job_violations(where: str, job: dict) -> list[str]:
    """The broken rules of one job (``where``: ``FILE:JOB`` for the messages)."""
    out: list[str] = []
    steps = job.get("steps") or []
    cred = job_credential(job)
    foreign_seen = ""
    for i, step in enumerate(steps):
        name = step.get("name") or step.get("uses") or f"step {i + 1}"
        foreign, token, cache = is_foreign(step), holds_token(step), restores_cache(step)
        if cred and foreign:
            out.append(f"{where}: holds a credential ({cred}) and runs foreign code in {name!r}: {foreign}")
        if cred and cache:
            out.append(f"{where}: holds a credential ({cred}) and restores a cache in {name!r}: {cache}")
        if foreign and token:
            out.append(f"{where}: {name!r} runs foreign code ({foreign}) with a token ({token})")
        elif foreign_seen and token:
            out.append(f"{where}: {name!r} holds a token ({token}) after foreign code ran in {foreign_seen!r}")
        if foreign and not foreign_seen:
            foreign_seen = name
    return out


def action_violations(where: str, action: dict) -> list[str]:
    """The composite action: every step checked as one job's, and the bot's run step must clear the token
    for every command of :data:`FOREIGN_COMMANDS` that it knows."""
    out = job_violations(where, {"steps": action["runs"]["steps"]})
    run = next((s["run"] for s in action["runs"]["steps"] if "exec \"$bot\"" in s.get("run", "")), "")
    known = set(re.findall(r"^\s*([\w|-]+)\) cmd=", run, re.M))
    known = {c for alt in known for c in alt.split("|")}
    cleared = {c for m in re.findall(r'case "\$BOT_COMMAND" in ([\w|-]+)\) GITHUB_TOKEN=""', run)
               for c in m.split("|")}
    for command in sorted(FOREIGN_COMMANDS & known - cleared):
        out.append(f"{where}: the bot's {command} runs upstream code but the action hands it the token")
    return out


def violations(path: Path, doc: dict | None = None) -> list[str]:
    """Every broken rule of one file (a workflow, a caller example, or the composite action)."""
    doc = load(path) if doc is None else doc
    if "runs" in doc:
        return action_violations(path.name, doc)
    return [v for job_id, job in (doc.get("jobs") or {}).items()
            for v in job_violations(f"{path.name}:{job_id}", job)]
