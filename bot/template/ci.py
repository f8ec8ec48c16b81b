"""Will the template's own CI run on the bot's pull request?  Read from ``.github/workflows/*.yml``.

Facts (GitHub docs, "Events that trigger workflows" and "Triggering a
workflow from a workflow"):

- ``pull_request`` (and ``pull_request_target``) runs for a PR whose *base*
  branch matches its ``branches`` filter (glob patterns, ``!`` negates) and
  does not match ``branches-ignore``; without a filter, for every base.
- ``push`` runs for a push to a branch matching its filter; the bot's push
  to its own branch counts only when the filter admits that branch.
- Events caused by the repository's ``GITHUB_TOKEN`` start no workflow
  (except ``workflow_dispatch`` and ``repository_dispatch``): a PR opened or
  pushed with it runs nothing.
- ``workflow_dispatch`` can always be started by hand:
  ``gh workflow run FILE --ref BRANCH`` (GitHub CLI manual).

A workflow that does not parse is listed as unread, never guessed.
"""

from __future__ import annotations

import fnmatch
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

WORKFLOWS = ".github/workflows"
MAX_WORKFLOW_BYTES = 1 << 20


@dataclass(frozen=True)
class Workflow:
    """One template workflow: ``path`` (repository-relative), ``name``, ``on_pr`` and ``on_push`` for
    the bot's PR (True/False), ``dispatch`` (has ``workflow_dispatch``), ``why`` (one phrase when it
    will not run), ``unread`` (did not parse)."""

    path: str
    name: str
    on_pr: bool = False
    on_push: bool = False
    dispatch: bool = False
    why: str = ""
    unread: bool = False

    @property
    def runs(self) -> bool:
        return self.on_pr or self.on_push


@dataclass
class TemplateCI:
    """The template's workflows as the bot's PR sees them.

    ``base`` / ``branch``: the PR's base branch (None when unknown) and the
    bot branch; ``default_token``: True when the PR is opened with
    ``GITHUB_TOKEN`` (nothing runs), None when unknown.
    """

    workflows: list[Workflow] = field(default_factory=list)
    base: Optional[str] = None
    branch: str = ""
    default_token: Optional[bool] = None

    @property
    def running(self) -> list[Workflow]:
        """The workflows that will start on the PR (none when the PR is opened with ``GITHUB_TOKEN``)."""
        if self.default_token:
            return []
        return [w for w in self.workflows if w.runs]

    @property
    def dispatchable(self) -> list[Workflow]:
        return [w for w in self.workflows if w.dispatch]


def _filter_admits(patterns: list[str], ignore: list[str], name: Optional[str]) -> Optional[bool]:
    """Does a ``branches``/``branches-ignore`` pair admit ``name``?  None when ``name`` is unknown."""
    if not patterns and not ignore:
        return True
    if name is None:
        return None
    if ignore:
        return not any(fnmatch.fnmatchcase(name, p) for p in ignore)
    ok = False
    for p in patterns:    # in order: a later "!pattern" takes back an earlier match
        if p.startswith("!"):
            if fnmatch.fnmatchcase(name, p[1:]):
                ok = False
        elif fnmatch.fnmatchcase(name, p):
            ok = True
    return ok


def _strings(node) -> list[str]:
    import yaml
    if isinstance(node, yaml.ScalarNode):
        return [node.value]
    if isinstance(node, yaml.SequenceNode):
        return [n.value for n in node.value if isinstance(n, yaml.ScalarNode)]
    return []


def _events(on) -> dict[str, object]:
    """``{event: its mapping node or None}`` of a workflow's ``on:`` value (a string, a list or a mapping)."""
    import yaml
    if isinstance(on, yaml.MappingNode):
        return {k.value: v for k, v in on.value if isinstance(k, yaml.ScalarNode)}
    return {e: None for e in _strings(on)}


def _filters(node) -> tuple[list[str], list[str]]:
    import yaml
    inc, exc = [], []
    if isinstance(node, yaml.MappingNode):
        for k, v in node.value:
            if isinstance(k, yaml.ScalarNode) and k.value == "branches":
                inc = _strings(v)
            elif isinstance(k, yaml.ScalarNode) and k.value == "branches-ignore":
                exc = _strings(v)
    return inc, exc


def read_workflow(rel: str, text: str, *, base: Optional[str], branch: str) -> Workflow:
    """The :class:`Workflow` for one workflow file's text."""
    import yaml

    try:
        root = yaml.compose(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except (yaml.YAMLError, RecursionError):
        return Workflow(rel, rel.rsplit("/", 1)[-1], unread=True, why="does not parse as YAML")
    if not isinstance(root, yaml.MappingNode):
        return Workflow(rel, rel.rsplit("/", 1)[-1], unread=True, why="is not a YAML mapping")
    top = {k.value: v for k, v in root.value if isinstance(k, yaml.ScalarNode)}
    name = top.get("name")
    name = name.value if isinstance(name, yaml.ScalarNode) and name.value else rel.rsplit("/", 1)[-1]
    events = _events(top.get("on", top.get("true")))
    on_pr = on_push = False
    why = []
    for ev in ("pull_request", "pull_request_target"):
        if ev in events:
            admits = _filter_admits(*_filters(events[ev]), base)
            on_pr = on_pr or bool(admits)
            if admits is False:
                why.append(f"`{ev}` only for other base branches")
            elif admits is None:
                why.append(f"`{ev}` has a branch filter and the base branch is unknown")
    if "push" in events:
        admits = _filter_admits(*_filters(events["push"]), branch)
        on_push = bool(admits)
        if not admits:
            why.append("`push` only for other branches")
    if not any(e in events for e in ("pull_request", "pull_request_target", "push")):
        from bot.inert import code
        others = ", ".join(code(e, cap=60) for e in sorted(events)[:10]) or "no trigger"
        why.append(f"triggers only on {others}")
    return Workflow(rel, name, on_pr, on_push, "workflow_dispatch" in events, "; ".join(why))


def template_ci(repo: Path, *, base: Optional[str], branch: str, default_token: Optional[bool] = None) -> TemplateCI:
    """Read every ``.github/workflows/*.yml``/``*.yaml`` of the checkout at ``repo`` (symlinks skipped)."""
    ci = TemplateCI(base=base, branch=branch, default_token=default_token)
    folder = Path(repo) / WORKFLOWS
    if not folder.is_dir() or folder.is_symlink():
        return ci
    for entry in sorted(os.scandir(folder), key=lambda e: e.name):
        if not entry.name.endswith((".yml", ".yaml")) or entry.is_symlink() or not entry.is_file():
            continue
        rel = f"{WORKFLOWS}/{entry.name}"
        try:
            with open(entry.path, "rb") as fh:
                raw = fh.read(MAX_WORKFLOW_BYTES + 1)
            text = raw.decode("utf-8-sig") if len(raw) <= MAX_WORKFLOW_BYTES else None
        except (OSError, UnicodeDecodeError):
            text = None
        if text is None:
            ci.workflows.append(Workflow(rel, entry.name, unread=True, why="cannot be read as UTF-8 text"))
            continue
        ci.workflows.append(read_workflow(rel, text, base=base, branch=branch))
    return ci
