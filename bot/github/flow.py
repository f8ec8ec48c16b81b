"""One scheduled run, step by step: check, plan, package index, pack asset, apply, publish.

The command modules (``check``, ``fetch-pack``, ``publish``, ``run``) only
parse arguments and print; the steps live here so that tests and the
benchmark drive them directly.  Nothing here prints: messages go to the
``progress`` callback.
"""

from __future__ import annotations

import re

import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional

from packaging.version import Version

from bot.report.markdown import MarkdownReport  # noqa: F401 - defined with the reports, used by publish
from bot.versions import tag_version

Progress = Callable[[str], None]


@dataclass
class CheckState:
    """The template's version against upstream's releases (the ``check`` command's outputs)."""

    current: str
    target: str
    target_tag: str
    update_needed: bool
    release: object = None          # bot.github.releases.Release or None
    asset: object = None            # bot.github.releases.Asset or None
    index: object = None            # bot.github.index.IndexStatus once asked (only when an update is needed)
    label: Optional[str] = None     # the local-build label of the template's pack pins (``local`` for @1.4.0-local)
    pack_index: object = None       # bot.pack.public_index.PackIndexAnswer once asked (see pack_index_status)
    open_prs: Optional[list] = None  # [(number, bot.github.standing.Standing)] of the bot's open PRs, once rechecked

    @property
    def pack_version(self) -> str:
        """The pack version the template moves to: ``1.5.1``, or ``1.5.1-local`` for a locally built pack."""
        from bot.versions import to_semver
        base = to_semver(self.target)
        return f"{base}-{self.label}" if self.label else base

    def outputs(self) -> dict:
        """``current``, ``target``, ``update-needed``, ``pack-source`` (``release-asset``/``build``), ``pack-url``,
        ``pack-version`` (the pack to fetch or build: ``1.5.1``, ``1.5.1-local``), ``index-ready`` (True
        only when the package index was asked and serves the target: see :func:`index_status`),
        ``pack-on-index`` (``yes``/``no``/``unknown``/``not-checked``, or ``""`` when not asked: see
        :func:`pack_index_status`), and the bot's open pull request once rechecked (:func:`recheck_state`; only then):
        ``open-pr`` (its number, or ``""``), ``open-pr-holds`` (``true``/``false``; ``""`` when none was
        rechecked) and ``open-pr-note`` (why its release no longer holds, and what becomes of it).

        A template on a locally built pack (``@1.4.0-local``) always gets ``pack-source`` ``build``:
        the release asset is another pack.  ``pack-sha256``: the hex of the sha256 ``digest`` GitHub publishes
        for the asset (GitHub REST docs, "Get a release asset": ``"sha256:HEX"``), recorded here, before any job
        runs upstream code, for the pull-request job to check the downloaded pack against; an asset without
        one (uploaded before GitHub computed digests) is ``build``: nothing recorded could vouch for it."""
        asset = self.asset if not self.label else None
        digest = getattr(asset, "digest", None) or ""
        sha = digest.removeprefix("sha256:") if re.fullmatch(r"sha256:[0-9a-f]{64}", digest) else ""
        asset = asset if sha else None
        return {"current": self.current, "target": self.target, "update-needed": self.update_needed,
                "pack-source": "release-asset" if asset else "build",
                "pack-url": asset.download_url if asset else "", "pack-sha256": sha,
                "pack-version": self.pack_version,
                "index-ready": bool(self.index is not None and self.index.ready),
                "pack-on-index": self.pack_index.state if self.pack_index is not None else "",
                **(self.open_pr_outputs() if self.open_prs is not None else {})}

    def open_pr_outputs(self) -> dict:
        """``open-pr``, ``open-pr-holds``, ``open-pr-note`` (see :meth:`outputs`); the first PR that no longer
        holds is named, else the first rechecked one."""
        from bot.github.standing import withdrawn_note
        if not self.open_prs:
            return {"open-pr": "", "open-pr-holds": "", "open-pr-note": ""}
        bad = [(n, st) for n, st in self.open_prs if not st.holds]
        n, st = (bad or self.open_prs)[0]
        target = self.target if self.update_needed and self.target != st.version else None
        return {"open-pr": str(n), "open-pr-holds": not bad,
                "open-pr-note": withdrawn_note(st, self.current, target) if bad else ""}


def check(repo: Path, source, *, to: Optional[str] = None, allow_prerelease: bool = False,
          ignored: tuple[str, ...] = ()) -> CheckState:
    """Compare the template's ExecuTorch pin with upstream's releases.

    ``source`` is any :class:`~bot.upstream.source.UpstreamSource`; a
    :class:`~bot.github.source.GitHubSource` also gives the release and its
    pack asset.  Costs one API request (the releases listing) for GitHub.
    ``ignored`` versions are skipped when ``to`` is None (the next newer
    release is chosen; :func:`bot.upstream.releases.select_target`).
    Raises :class:`~bot.errors.BotError` for disagreeing pins, an unknown or
    prerelease ``to`` (without ``allow_prerelease``), or a failed listing.
    """
    from bot import engine
    from bot.github.assets import find_pack_asset
    from bot.upstream.releases import select_target

    current, label = engine.current_pins(engine.read_template(Path(repo)))
    tag = select_target(source, to=to, current=str(current), allow_prerelease=allow_prerelease, ignored=ignored)
    tv = tag_version(tag) or Version(str(current))
    release = source.release(tag) if hasattr(source, "release") else None
    asset = find_pack_asset(release, str(tv)) if release else None
    return CheckState(str(current), str(tv), tag, tv > current, release, asset, label=label)


def recheck_state(publisher, source, state: CheckState, *, keep_pulls: bool = False) -> list:
    """Recheck the release of every open bot PR (:func:`bot.github.standing.recheck_open`); sets
    ``state.open_prs`` (``[(number, Standing)]``) and returns it, or with ``keep_pulls`` the ``[(pull request,
    Standing)]`` pairs.  One request to list the bot's open pull requests, and the package index asked once per
    PR proposing a release newer than the template's."""
    from bot.github.standing import recheck_open
    from bot.github.standing import template_pythons
    pairs = recheck_open(publisher, source, state.current, pythons=template_pythons(publisher.git.repo))
    state.open_prs = [(pr.number, st) for pr, st in pairs]
    return pairs if keep_pulls else state.open_prs


def index_status(source, state: CheckState, *, policy=None, pythons: tuple[str, ...] = ()):
    """Is the target of ``state`` on the package index, with the pins upstream resolves at its tag?

    Resolves the target pin set through ``source``
    (:func:`bot.upstream.pins.resolve_pinset`: a few contents-API requests for
    GitHub) and asks :func:`bot.github.index.check_index` about
    ``executorch==V`` with the resolved torch/torchao (an unresolved pin is not
    checked), and, with ``pythons`` (the CPython versions the template states), whether a wheel serves each.  Call it only when ``state.update_needed``: a no-op check asks
    nothing more.  Returns the :class:`~bot.github.index.IndexStatus` and sets
    ``state.index``.  Raises :class:`~bot.errors.UpstreamError` when a pin file
    at the tag does not parse, :class:`~bot.errors.PlatformError` when the
    index cannot be asked.
    """
    from bot.github.index import check_index
    from bot.upstream.pins import resolve_pinset

    target = resolve_pinset(source, state.target_tag)
    pins = {p.name: p.version for p in target.pins if p.version}
    state.index = check_index(target.executorch, pins, policy=policy, pythons=pythons)
    return state.index


def pack_index_status(state: CheckState, *, url: Optional[str] = None, policy=None):
    """Is ``PyTorch::ExecuTorch@V`` of the target of ``state`` on the public CMSIS pack index?

    Asks :func:`bot.pack.public_index.check_pack_index` (``url``: the index,
    default ``--pack-index-url``'s environment variable or the public index)
    about the pack version of ``state.target`` (SemVer, :func:`bot.versions.to_semver`).
    Returns the :class:`~bot.pack.public_index.PackIndexAnswer` and sets
    ``state.pack_index``; never raises for a fault of the index.
    """
    from bot.pack.public_index import check_pack_index
    from bot.versions import to_semver

    state.pack_index = check_pack_index(to_semver(state.target), url=url, policy=policy)
    return state.pack_index


def index_pins(plan) -> dict[str, str]:
    """``{name: new version}`` of the plan's Python pins (for the package-index check)."""
    return {r.name: r.new for r in plan.rows if r.new and "::" not in r.name}


def verify_asset(asset, version: str, tag: str, dest: Optional[Path] = None, *, progress=None,
                 token: Optional[str] = None, template: Optional[Path] = None, baseline: Optional[Path] = None):
    """Download the release asset, verify it with ``verify-pack``; returns ``(path or None, PackReport)``.

    Args:
        asset: a :class:`bot.github.releases.Asset` (``PyTorch.ExecuTorch.V.pack``).
        version: the pack (SemVer) version to verify against (the Open-CMSIS-Pack spec).
        tag: the release tag (``v1.5.1``), for the report.
        dest: a folder to keep the pack in (``fetch-pack --dest``); the path is
            returned.  None: the pack goes to a temporary folder that is
            deleted after the verification, and the path is None.
        progress: download progress callback (bytes so far, total or None).
        token: the GitHub token, for a private upstream's asset endpoint.
        template / baseline: ``verify-pack --template`` and ``--baseline`` (the
            previous pack, or a ``previous-pack`` folder: :mod:`bot.pack.previous`).

    Raises what :func:`bot.github.assets.download_asset` raises (a sha256
    mismatch is :class:`~bot.errors.CheckFailed`, exit 1).
    """
    from bot.github.assets import download_asset
    from bot.pack.verify import verify_pack

    extra = {k: v for k, v in (("template", template), ("baseline", baseline)) if v is not None}
    if dest is not None:
        path = download_asset(asset, Path(dest), progress=progress, token=token)
        return path, verify_pack(path, version, tag=tag, **extra)
    with tempfile.TemporaryDirectory(prefix="epb-pack-") as tmp:
        path = download_asset(asset, Path(tmp), progress=progress, token=token)
        return None, verify_pack(path, version, tag=tag, **extra)


@dataclass
class RunOutcome:
    """What :func:`run` did: exit code, outputs, one-line outcome, PR title/body (when one was proposed)."""

    exit_code: int
    outcome: str
    state: Optional[CheckState] = None
    plan: object = None
    title: str = ""
    body: str = ""
    pack_report: object = None
    pack_note: Optional[str] = None
    index_line: Optional[str] = None
    pack_index: object = None       # bot.pack.public_index.PackIndexAnswer of the target pack, once asked
    evidence: object = None         # bot.report.evidence.Evidence of the proposed bump (read from ``record``)
    record: Optional[dict] = None   # the bump record (bot.report.record) the body is rendered from
    report: object = None           # bot.report.body.Report: the body and the uncut job-summary text
    result: object = None
    errors: list = field(default_factory=list)   # BotError values for annotations


def run(repo: Path, source, publisher, *, to: Optional[str] = None, allow_prerelease: bool = False,
        dry_run: bool = False, progress: Optional[Progress] = None, sets: Optional[dict[str, str]] = None,
        exclude: tuple[str, ...] = (), allow_flagged: bool = True, ignored: tuple[str, ...] = (),
        pack_index_url: Optional[str] = None, model_results: Optional[tuple] = None,
        npu_estimates: Optional[dict] = None) -> RunOutcome:
    """check -> plan -> package index -> pack asset -> public pack index -> apply -> publish (the ``run`` command).

    ``publisher`` is a :class:`~bot.github.publish.Publisher` for the template
    repository.  With ``dry_run`` nothing is written, pushed or sent: the
    outcome carries the PR title and body that would be proposed.
    ``sets`` (``{package: version}``, from :func:`bot.engine.parse_sets`) and
    ``exclude`` (path globs) go to :func:`bot.engine.plan` as for ``update``;
    ``ignored`` versions are skipped (:func:`check`);
    a blocking flagged item goes to a draft pull request that lists it
    (``Config.wants_draft``: a draft when a blocking item is flagged),
    or, with ``allow_flagged=False`` (``run --stop-on-flagged``), stops the
    run before the package index is asked (exit 1, nothing proposed).
    Exit code: 0 done or nothing to do (also "waiting for the package index"),
    1 a blocking item without ``allow_flagged`` or the pack failed
    verification.  When publishing fails (the error is raised), the files
    the plan wrote get their original bytes back first.
    ``pack_index_url``: the public CMSIS pack index asked whether
    ``PyTorch::ExecuTorch@V`` is on it (:func:`pack_index_status`; None: the
    environment or the public index; ``"off"``: not asked); its answer goes
    to the PR body's step 1 and ``out.pack_index``, and "could not tell"
    never fails the run.
    ``model_results``: ``(new, old, job)`` of :func:`bot.commands.publish.model_results` (None: the model run
    was not run), added to the bump record as ``publish --model-results`` does; ``npu_estimates``: the data of
    :func:`bot.commands.publish.npu_estimates`, added as ``publish --npu-estimates`` does.
    """
    from bot import engine
    from bot.github.index import check_index
    from bot.report import pr_title

    say = progress or (lambda m: None)
    repo = Path(repo)
    state = check(repo, source, to=to, allow_prerelease=allow_prerelease, ignored=ignored)
    say(f"template on ExecuTorch {state.current}; upstream target {state.target_tag}")
    # Upstream's truth for the PR's whole life: an open bot PR whose release no longer holds (deleted, draft,
    # prerelease, gone from or yanked on the package index) is closed with the true reason, not left open.
    # A PR that a new one replaces is closed when that one is published, its comment giving the reason too.
    pulls = publisher.bot_pulls("open") if hasattr(publisher, "bot_pulls") else []
    withdrawn, notes = withdraw_open(publisher, source, state, pulls, dry_run=dry_run, say=say)
    if not state.update_needed:
        closed = [] if dry_run else publisher.close_obsolete(state.current, skip=tuple(n for n, _ in withdrawn),
                                                             pulls=[p for p in pulls if p.number not in dict(withdrawn)])
        gone = "".join(f"; closed #{n}: {st.reason}" for n, st in withdrawn)
        return RunOutcome(0, "up to date" + gone + (f"; closed #{', #'.join(map(str, closed))}" if closed else ""),
                          state)

    plan = engine.plan(repo, source, to=state.target_tag, sets=sets, allow_prerelease=allow_prerelease,
                       progress=say, exclude=tuple(exclude))
    if plan.nothing_to_do:
        closed = [] if dry_run else publisher.close_obsolete(state.target)
        return RunOutcome(0, "template already on the target", state, plan)
    if plan.blocking_flags and not allow_flagged:
        items = "".join(f"\n- {f.code}: {_where(f)}{f.message}" for f in plan.blocking_flags)
        return RunOutcome(1, f"nothing proposed: {len(plan.blocking_flags)} blocking item(s); fix them, supply "
                             f"values with --set NAME=VERSION, or run without --stop-on-flagged (a draft pull "
                             f"request lists them){items}", state, plan)

    from bot.github.standing import template_pythons
    index = state.index = check_index(plan.bump.new_executorch, index_pins(plan), pythons=template_pythons(repo))
    out = RunOutcome(0, "", state, plan, index_line=index.summary())
    if not index.ready:
        out.outcome = index.summary()
        return out

    pdsc = None
    if state.asset is not None and not state.label:   # a locally built pack is never the release asset
        from bot.pack.previous import previous_pack, write_previous
        token = getattr(source, "token", None)
        # the template's selected components and the previous pack's operators (verify-pack --template, --baseline)
        with tempfile.TemporaryDirectory(prefix="epb-pack-") as tmp, \
                tempfile.TemporaryDirectory(prefix="epb-previous-") as prev_dir:
            write_previous(previous_pack(repo, source, Path(prev_dir), token=token), Path(prev_dir))
            path, out.pack_report = verify_asset(state.asset, plan.bump.new_pack, state.target_tag, Path(tmp),
                                                 token=token, template=repo, baseline=Path(prev_dir))
            pdsc = None if pack_failed(out.pack_report) else pack_pdsc(path)
        plan.flags = plan.flags + gone_flags(out.pack_report)
        if pack_failed(out.pack_report):
            out.exit_code = 1
            out.outcome = f"release asset {state.asset.name} failed verification; no pull request"
            return out
    elif state.label:
        out.pack_note = (f"The template pins a locally built pack: build `PyTorch.ExecuTorch.{plan.bump.new_pack}.pack` "
                         f"from the {state.target_tag} sources with `executorch-pack-bot build-pack --version "
                         f"{plan.bump.new_pack}` (the item below) and verify it before merging.")
    else:
        out.pack_note = (f"The release {state.target_tag} has no `PyTorch.ExecuTorch.{plan.bump.new_pack}.pack` "
                         "asset: build it with `executorch-pack-bot build-pack` and verify it before merging.")

    upstream = getattr(source, "full_name", "pytorch/executorch")
    # the same stages as the workflow's jobs, through the same bump record (bot.report.record):
    # update (plan and upstream evidence), then the pack, then the one renderer
    gathered = gather_evidence(plan, source, publisher, state, upstream, exclude, pdsc=pdsc, ignored=ignored)
    from bot.pack.public_index import check_pack_index
    from bot.report.record import add_pack, evidence_from_record, record_of, render_record
    out.pack_index = state.pack_index = check_pack_index(plan.bump.new_pack, url=pack_index_url)
    gathered.pack.record_index(out.pack_index)
    spec = f"github:{upstream}" if hasattr(source, "full_name") else None
    out.record = record_of(plan, gathered, upstream_spec=spec, upstream_ran=True, pdsc=pdsc is not None)
    add_pack(out.record, gathered.pack, out.pack_report, note=out.pack_note)
    if model_results is not None:
        from bot.report.record import add_model_run
        add_model_run(out.record, model_results[0], model_results[1], job=model_results[2])
    if npu_estimates is not None:
        from bot.report.record import add_npu
        add_npu(out.record, npu_estimates)
    base, branch = _base_and_branch(plan, publisher)
    from bot.report.record import blocked_by
    out.title = pr_title(plan, blocked_by(out.record))
    out.report = render_record(out.record, repo=repo, contents=plan.contents, upstream=upstream, base=base,
                               branch=branch)
    out.body = out.report.body
    out.evidence = evidence_from_record(out.record, repo=repo, base=base, branch=branch, upstream=upstream)
    if dry_run:
        out.outcome = "dry run: nothing written, pushed or opened"
        return out
    engine.apply(plan)
    check_failed = bool(getattr(out.pack_report, "failed", False))
    model_failed = out.record["proofs"].get("model-run") == "fail"
    draft = publisher.config.wants_draft(plan.flags, check_failed=check_failed, model_failed=model_failed)
    draft_reason = publisher.config.draft_reason(plan.flags, check_failed=check_failed,
                                                 model_failed=model_failed) or ""
    from bot.github.commitmsg import commit_message

    msg = commit_message(out.title, plan.rows)
    try:
        replan = replanner(publisher, source, to=state.target_tag, sets=sets, allow_prerelease=allow_prerelease,
                           exclude=tuple(exclude), progress=say)
        out.result = publisher.publish(version=plan.bump.new_executorch, files=dict(plan.contents),
                                       title=out.title, body=out.body, fingerprint=plan.fingerprint(), draft=draft,
                                       commit_message=msg, originals=dict(plan.originals), replan=replan,
                                       draft_reason=draft_reason, notes=notes)
    except BaseException:
        restore_checkout(plan, say)
        raise
    r = out.result
    if r.number:
        out.outcome = f"pull request #{r.number}: {r.action}" + (f" ({r.message})" if r.message else "")
    else:      # no pull request to name: the action and why (the message was printed twice)
        out.outcome = f"{r.action}: {r.message}" if r.message else r.action
    return out


def withdraw_open(publisher, source, state: CheckState, pulls, *, dry_run: bool = False,
                  say: Optional[Progress] = None) -> tuple[list, dict]:
    """The open bot PRs (``pulls``) whose release no longer holds (:func:`bot.github.standing.recheck_open`):
    ``([(number, Standing)] closed now, {number: note} for the publish)``.

    A PR is closed now, with its true reason as a comment, when nothing this run publishes replaces it (no
    update is needed, or the target is its own release); otherwise its note (the reason, and the release
    proposed instead) goes to :meth:`bot.github.publish.Publisher.publish`, which comments it on the PR it
    updates in place or closes as superseded.  With ``dry_run`` nothing is written."""
    from bot.github.standing import recheck_open, withdrawn_note

    closed, notes = [], {}
    target = state.target if state.update_needed else None
    from bot.github.standing import template_pythons
    pythons = template_pythons(publisher.git.repo) if pulls else ()
    for pr, st in recheck_open(publisher, source, state.current, pulls=pulls, pythons=pythons):
        if st.holds:
            continue
        (say or (lambda m: None))(f"#{pr.number}: ExecuTorch {st.version} no longer holds: {st.reason}")
        if target is not None and target != st.version:
            notes[pr.number] = withdrawn_note(st, state.current, target)
            continue
        if not dry_run:
            publisher.close_withdrawn(pr, withdrawn_note(st, state.current, None))
        closed.append((pr.number, st))
    return closed, notes


def pack_failed(report) -> bool:
    """True when a check of the pack itself failed; ``template-components`` is the template's item, not the pack's.

    A component the template selects that the new pack no longer has
    (:attr:`~bot.pack.report.PackReport.template_missing`) does not stop the pull
    request: it becomes a blocking item of it (:func:`gone_flags`).
    """
    return report.pack_failed


def gone_flags(report) -> list:
    """One blocking ``component-gone`` flag for each component the template selects that the new pack lacks."""
    from bot.model import Flag

    out = []
    for item in getattr(report, "template_missing", ()) or ():
        where, _, comp = item.rpartition(": ")
        path, _, line = where.rpartition(":")
        out.append(Flag("component-gone", f"{comp} is selected by the template but is not in "
                        f"{report.pack}: choose its replacement or remove it",
                        path=path or None, line=int(line) if line.isdigit() else None, blocking=True))
    return out


def replanner(publisher, source, *, to: str, sets, allow_prerelease: bool, exclude: tuple[str, ...],
              progress: Optional[Progress] = None) -> Callable[[str], dict[str, bytes]]:
    """``replan(base_sha) -> {path: new bytes}``: the same bump planned on commit ``base_sha`` of the checkout.

    The commit is checked out into a temporary ``git worktree`` (line-ending
    rules applied as in any checkout; hooks off) that is removed afterwards,
    so the user's checkout is not touched.  Used by
    :meth:`bot.github.publish.Publisher.onto_base` when the base branch moved
    between the clone and the push.  Raises what :func:`bot.engine.plan` raises.
    """
    from bot import engine

    def replan(base_sha: str) -> dict[str, bytes]:
        git = publisher.git
        with tempfile.TemporaryDirectory(prefix="epb-base-") as tmp:
            wt = Path(tmp) / "base"
            git("-c", "core.hooksPath=/dev/null", "worktree", "add", "--detach", "--quiet", str(wt), base_sha)
            try:
                again = engine.plan(wt, source, to=to, sets=sets, allow_prerelease=allow_prerelease,
                                    progress=progress, exclude=exclude)
                return dict(again.contents)
            finally:
                git("worktree", "remove", "--force", str(wt), check=False)
                git("worktree", "prune", check=False)
    return replan


def pack_pdsc(path: Path):
    """The PDSC of a verified pack (its ``<file>`` lists map components to upstream paths), or None."""
    from bot.errors import BotError
    from bot.pack.archive import Limits
    from bot.pack.verify import _read_baseline   # the hardened PDSC read of a second pack

    try:
        return _read_baseline(Path(path), Limits())
    except (BotError, OSError):
        return None


def gather_evidence(plan, source, publisher, state: CheckState, upstream: str, exclude: tuple[str, ...] = (),
                    pdsc=None, ignored: tuple[str, ...] = ()):
    """The :class:`bot.report.evidence.Evidence` of a proposed bump: upstream changes, the template's CI
    (for the publisher's base and bot branch), the pack asset's provenance; ``pdsc`` of the verified pack."""
    from bot.report.evidence import PackProvenance, asset_provenance, gather

    config = getattr(publisher, "config", None)
    base = getattr(config, "base", None)
    if base is None:
        from bot.github.publish import current_branch
        base = current_branch(plan.repo)
    branch = config.branch_for(plan.bump.new_executorch) if config is not None else ""
    prov = (asset_provenance(state.asset) if state.asset is not None and not getattr(state, "label", None)
            else PackProvenance())   # a locally built pack is not the release asset
    spec = f"github:{upstream}" if hasattr(source, "full_name") else None
    return gather(plan, source, upstream=upstream, upstream_spec=spec, base=base, branch=branch, pack=prov,
                  pdsc=pdsc, exclude=tuple(exclude), ignored=tuple(ignored))


def _base_and_branch(plan, publisher) -> tuple[Optional[str], str]:
    """The base branch (the config's ``base:``, else the checkout's branch) and the bot branch of ``plan``."""
    config = getattr(publisher, "config", None)
    base = getattr(config, "base", None)
    if base is None:
        from bot.github.publish import current_branch
        base = current_branch(plan.repo)
    return base, (config.branch_for(plan.bump.new_executorch) if config is not None else "")


def _where(flag) -> str:
    """``"PATH:LINE: "`` (or ``"PATH: "``, or ``""``) of a :class:`~bot.model.Flag`, for one line of text."""
    if not flag.path:
        return ""
    return f"{flag.path}:{flag.line}: " if flag.line else f"{flag.path}: "


def restore_checkout(plan, say: Progress) -> None:
    """Write ``plan.originals`` back (all-or-nothing) after a failed publish, and say so through ``say``.

    ``run`` applied the plan only to publish it; a failed publish must leave
    the checkout as it was.  A restore that fails itself is said too (the
    publish error is what the caller raises).
    """
    from bot.errors import BotError
    from bot.textfile import write_all

    try:
        write_all(Path(plan.repo), dict(plan.originals))
    except (BotError, OSError) as exc:
        say(f"publish failed, and the checkout could not be put back: {exc}")
        return
    say(f"publish failed: the checkout was put back as it was before run applied the plan "
        f"({len(plan.originals)} files)")
