"""The facts a PR body needs beyond the plan: gathered once, each part optional.

:func:`gather` reads them from the upstream source (changes between the
tags, ``version.txt``, newer tags skipped), the template checkout (its CI,
boards, measured numbers, stated Pythons) and the run (pack provenance, run
link).  Every field may stay None: the renderers say "not known" rather than
fail, so a body can always be written.
"""

from __future__ import annotations

import os
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from bot.errors import BotError


@dataclass
class PackProvenance:
    """How the pack of the target version was obtained and verified.

    ``how``: ``"asset"`` (the release asset), ``"built"`` (``build-pack`` on
    a runner), ``"reported"`` (another job of the workflow verified it and
    handed over its report: ``publish --pack-report``), ``"verified-here"``
    (another job obtained it, the publishing job verified it: ``publish
    --pack``), or None (no pack in
    this run); ``url``/``sha256`` of the
    asset, or ``sha256`` of the built pack; ``run_url`` of the build run;
    ``tag``: the upstream tag a built pack was built from; ``on_index``:
    whether ``PyTorch::ExecuTorch@V`` is on the public CMSIS pack index that
    ``cbuild setup --packs`` reads (None: not checked, or could not tell);
    ``index_why``: the sentence of :class:`bot.pack.public_index.PackIndexAnswer`
    (None: the index was not asked).
    """

    how: Optional[str] = None
    url: Optional[str] = None
    sha256: Optional[str] = None
    run_url: Optional[str] = None
    on_index: Optional[bool] = None
    tag: Optional[str] = None
    index_why: Optional[str] = None
    job: Optional[str] = None       # the job of this run that built it (``how == "built"``: publish --pack-built-by)

    def record_index(self, answer) -> None:
        """Keep a :class:`bot.pack.public_index.PackIndexAnswer` (an answer that was not asked changes nothing)."""
        if answer is None or not getattr(answer, "asked", True):
            return
        self.on_index, self.index_why = answer.listed, answer.why


@dataclass
class Evidence:
    """Everything optional the body shows (see the module docstring)."""

    changes: object = None                  # bot.upstream.changes.UpstreamChanges
    selected: tuple[str, ...] = ()          # operator Csubs the template selects ("Portable add")
    ci: object = None                       # bot.template.ci.TemplateCI
    boards: list = field(default_factory=list)          # bot.template.hardware.Board
    measurements: list = field(default_factory=list)    # bot.template.hardware.Measurement
    stated_pythons: Optional[list] = None   # [(path, line, text)] the template states
    requires_python: Optional[tuple[Optional[str], Optional[str]]] = None   # upstream (old, new)
    version_txt: Optional[str] = None       # upstream version.txt at the new tag
    skipped: list = field(default_factory=list)          # [(tag, why)] newer tags not chosen
    pack: PackProvenance = field(default_factory=PackProvenance)
    rebuild_run_url: Optional[str] = None   # the run that rebuilt the venv, AI layer and project
    run_url: Optional[str] = None           # this run (the job summary lives there)
    command: Optional[str] = None           # the `update` command that reproduces the plan
    upstream: str = "pytorch/executorch"
    old_vela: Optional[str] = None
    refusal: Optional[dict] = None          # the refused release asset (bot.report.refusal), when the pack was built
    pin_lines: dict = field(default_factory=dict)   # {pin name: (upstream path, line)} where the new value is
    upstream_ran: bool = True               # False: no stage with upstream access ran (the parts are "not gathered")
    proofs: dict = field(default_factory=dict)   # {"verify-pack", "compile", "model-run": pass/fail/warn/not-run}
    model_run: Optional[tuple] = None       # (new, old, job) of the record's model_run (bot.report.record)
    npu: Optional[tuple] = None             # (new, old, items): the record's Ethos-U estimates (bot.report.record)


#: Set by action.yml to ``${{ inputs.token == github.token }}``: "true" when the PR is made with GITHUB_TOKEN.
DEFAULT_TOKEN_ENV = "EXECUTORCH_PACK_BOT_DEFAULT_TOKEN"


def asset_provenance(asset) -> PackProvenance:
    """The :class:`PackProvenance` of a release asset (``bot.github.releases.Asset``; ``digest`` ``sha256:HEX``)."""
    digest = getattr(asset, "digest", None) or ""
    return PackProvenance(how="asset", url=getattr(asset, "download_url", None),
                          sha256=digest.split(":", 1)[1] if digest.startswith("sha256:") else None)


def run_url(env=os.environ) -> Optional[str]:
    """``$GITHUB_SERVER_URL/$GITHUB_REPOSITORY/actions/runs/$GITHUB_RUN_ID`` (GitHub docs, "Variables"), or None."""
    repo, run = env.get("GITHUB_REPOSITORY"), env.get("GITHUB_RUN_ID")
    if not repo or not run:
        return None
    return f"{(env.get('GITHUB_SERVER_URL') or 'https://github.com').rstrip('/')}/{repo}/actions/runs/{run}"


def reproduce_command(plan, upstream_spec: str, exclude: tuple[str, ...] = ()) -> str:
    """The ``executorch-pack-bot update`` command that plans the same bump on a checkout of the base branch."""
    parts = ["executorch-pack-bot", "update", "--repo", ".", "--upstream", upstream_spec]
    if plan.bump:
        parts += ["--version", plan.bump.new_executorch]
    for r in plan.rows:
        if r.source == "--set" and r.new:
            parts += ["--set", f"{r.name}={r.new}"]
    for e in exclude:
        parts += ["--exclude", e]
    return " ".join(shlex.quote(p) for p in parts) + " --dry-run"


def skipped_tags(source, target_tag: str, ignored=()) -> list[tuple[str, str]]:
    """Tags newer than the target that the bot did not choose, each with why (prerelease, GitHub-flagged,
    ignored by a reviewer's ``/executorch-pack-bot ignore``, or ``--to``)."""
    from packaging.version import InvalidVersion, Version

    from bot.versions import stable_version, tag_version

    target = tag_version(target_tag)
    if target is None:
        return []
    skip = set()
    for v in ignored or ():
        try:
            skip.add(Version(str(v)))
        except InvalidVersion:
            continue
    pre = set(source.prereleases())
    out = []
    for t in source.tags():
        v = tag_version(t)
        if v is None or v <= target:
            continue
        if v in skip and stable_version(t) is not None:
            out.append((v, t, "ignored by a reviewer (`/executorch-pack-bot ignore`)"))
        elif t in pre:
            out.append((v, t, "flagged as a prerelease on GitHub"))
        elif stable_version(t) is None:
            out.append((v, t, "a release candidate (prerelease)"))
        else:
            out.append((v, t, "newer stable release not chosen: the run named the version to target"))
    return [(t, why) for _v, t, why in sorted(out)]


def pin_lines(plan, source) -> dict:
    """``{pin name: (path, line)}``: the line of the upstream file (at the new tag) a pin's new value was read from.

    The path and tag come from the pin row's source (``torch_pin.py TORCH_VERSION @ v1.5.1``); the line is
    the first that holds the name of the variable (when the source names one) and the new value.  A file
    that cannot be read, or holds no such line, gives no entry (the verdict then links the file).
    """
    import re

    form = re.compile(r"^(?P<path>[\w./-]+?\.(?:py|txt|toml|cfg))(?: (?P<var>[\w.]+))? @ (?P<tag>\S+)$")
    texts: dict = {}
    out = {}
    for r in plan.rows:
        m = form.match(r.source or "")
        if not m or not r.new:
            continue
        key = (m["tag"], m["path"])
        if key not in texts:
            try:
                raw = source.read(m["tag"], m["path"])
            except BotError:
                raw = None
            texts[key] = raw.decode("utf-8", "replace").splitlines() if raw is not None else []
        for i, text in enumerate(texts[key], 1):
            if r.new in text and (not m["var"] or m["var"] in text):
                out[r.name] = (m["path"], i)
                break
    return out


def gather(plan, source, *, upstream: str = "pytorch/executorch", upstream_spec: Optional[str] = None,
           base: Optional[str] = None, branch: str = "", default_token: Optional[bool] = None,
           pack: Optional[PackProvenance] = None, pdsc=None, exclude: tuple[str, ...] = (),
           ignored: tuple[str, ...] = (), env=os.environ) -> Evidence:
    """The :class:`Evidence` for ``plan`` (a :class:`bot.plan.Plan`) from ``source`` and the checkout.

    Each part that fails (a :class:`BotError` from upstream or the template)
    is left empty; the failure is kept in ``changes.error`` for the upstream
    part.  ``pdsc``: the verified pack's :class:`bot.pack.pdsc.Pdsc`, whose
    ``<file>`` lists map the selected components to upstream paths.
    ``ignored``: versions reviewers asked to skip (named among the skipped tags).
    ``source`` None: the upstream parts are left out (a job without upstream access).
    ``default_token`` None: read from :data:`DEFAULT_TOKEN_ENV`.
    """
    from bot.template import ci as ci_mod
    from bot.template import hardware

    ev = Evidence(upstream=upstream, pack=pack or PackProvenance(), run_url=run_url(env),
                  upstream_ran=source is not None)
    ev.command = reproduce_command(plan, upstream_spec or f"github:{upstream}", exclude)
    if default_token is None:
        default_token = {"true": True, "false": False}.get(env.get(DEFAULT_TOKEN_ENV, ""))
    b = plan.bump if source is not None else None
    repo = Path(plan.repo)
    try:
        from bot.pack.baseline import selected_components
        selected = selected_components(repo)
    except (BotError, OSError):
        selected = []
    ev.selected = tuple(sorted({s.csub for s in selected if s.csub and s.cgroup == "ExecuTorch Operators"}))
    if b is not None:
        from bot.upstream.changes import component_paths, upstream_changes
        ev.changes = upstream_changes(source, b.old_tag, b.new_tag, component_paths(selected, pdsc))
        try:
            raw = source.read(b.new_tag, "version.txt")
            ev.version_txt = raw.decode("utf-8", "replace").strip() if raw is not None else None
        except BotError:
            ev.version_txt = None
        try:
            ev.skipped = skipped_tags(source, b.new_tag, ignored)
        except BotError:
            ev.skipped = []
        try:
            from bot.upstream.pins import resolve_pinset
            old = resolve_pinset(source, b.old_tag).requires_python if b.old_tag in source.tags() else None
            new = resolve_pinset(source, b.new_tag).requires_python
            ev.requires_python = (old, new)
        except BotError:
            ev.requires_python = None
        ev.pin_lines = pin_lines(plan, source)
        vela = next((r for r in plan.rows if r.name == "ethos-u-vela"), None)
        ev.old_vela = vela.old if vela else None
    ev.ci = ci_mod.template_ci(repo, base=base, branch=branch, default_token=default_token)
    ev.boards = hardware.boards(repo)
    olds = (b.old_executorch,) if b else ()
    ev.measurements = hardware.measurements(repo, olds + ((ev.old_vela,) if ev.old_vela else ()))
    try:
        from bot.engine import read_template
        from bot.engine.pythons import stated_pythons
        ev.stated_pythons = stated_pythons(read_template(repo, exclude=exclude))
    except (BotError, OSError):
        ev.stated_pythons = None
    return ev
