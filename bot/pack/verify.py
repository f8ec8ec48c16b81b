"""Every check of one ``PyTorch.ExecuTorch.<V>.pack``, in one call: :func:`verify_pack`.

Order: ``archive`` safety (a bomb or an unreadable zip stops everything;
other archive failures stop only the external tools); the manifest
(``pdsc``, ``pdsc-parse`` when it cannot be parsed, ``vendor-name``, ``release-version``, ``pack-file-name``,
``url``); the quiet omissions (``flatbuffers-headers``,
``generated-headers``); ``file-references``, ``no-python``,
``license-docs``; ``component-versions``, ``component-ids``,
``registrations``; ``baseline-operators``, ``template-components``;
then the external tools ``upstream-validator``, ``cpackget`` and ``compile``,
which never run on an archive that failed the ``archive`` check.

Bad usage (missing files, a tool not on PATH, an invalid version) raises a
:class:`~bot.errors.BotError` with exit code 2 before any check runs; a
failed check is a value in the report (exit 1 from the command).
"""

from __future__ import annotations

import fnmatch
from pathlib import Path
from typing import Callable

from bot.errors import PackError, UsageError
from bot.model import CheckResult
from bot.pack import checks
from bot.pack.archive import Limits, UnsafeArchive, open_zip, read_member, require_file, scan_archive
from bot.pack.pdsc import MAX_PDSC_BYTES, Pdsc, PdscError, parse_pdsc
from bot.pack.report import PackReport
from bot.versions import PackVersion, parse_pack_version

DOWNLOAD_URL = "https://github.com/pytorch/executorch/releases/download/{tag}/"

__all__ = ["verify_pack", "PackReport", "DOWNLOAD_URL", "expected_url", "pack_version"]


def pack_version(version: str) -> tuple[str, str]:
    """(pack version as written, url segment) for a user-typed version.

    ``"1.4.1"``/``"v1.4.1"`` -> ``("1.4.1", "v1.4.1")``; ``"1.4.1-rc2"`` ->
    ``("1.4.1-rc2", "v1.4.1-rc2")``; a local build ``"1.4.1-local"`` ->
    ``("1.4.1-local", "1.4.1-local")`` (its ``<url>`` ends in the label,
    :attr:`bot.versions.PackVersion.url_segment`).  Raises :class:`UsageError`
    for anything that is not a SemVer pack version.
    """
    v = parse_pack_version(version, what="--version")
    return v.text, v.url_segment


def expected_url(tag: str) -> str:
    """The download location ending in ``tag`` (GitHub release assets): ``.../releases/download/v1.4.1/``."""
    return DOWNLOAD_URL.format(tag=tag)


def upstream_url_form(segment: str) -> str | None:
    """The ``<url>`` upstream's release workflow writes for the download location ``segment``, when it differs.

    Upstream's ``.github/workflows/build-cmsis-pack.yml`` (v1.4.1) builds the
    release pack with ``PACK_VERSION="${GITHUB_REF#refs/tags/v}"`` and its PDSC
    template writes ``.../releases/download/%{RELEASE_VERSION}%/``, so the pack
    of tag ``v1.4.1`` says ``.../download/1.4.1/`` (ExecuTorch's .github/workflows/build-cmsis-pack.yml at v1.4.1).
    ``"v1.4.1"`` -> that url; a segment without the ``v`` -> None.
    """
    return DOWNLOAD_URL.format(tag=segment[1:]) if segment.startswith("v") and len(segment) > 1 else None


def verify_pack(pack: Path, version: str, *, url: str | None = None, tag: str | None = None,
                baseline: Path | None = None, template: Path | None = None,
                executorch_root: Path | None = None, compile_check: bool = False, cxx: str | None = None,
                compile_jobs: int | None = None, ccache: str | None = None,
                cpackget: bool = False, limits: Limits | None = None, installed: Path | None = None,
                progress: Callable[[str], None] | None = None) -> PackReport:
    """Run every applicable check on ``pack`` for pack version ``version``; returns a :class:`PackReport`.

    Args:
        pack: the ``.pack`` file.
        version: a SemVer pack version, checked exactly as written against the
            file name, ``<release>`` and every ``Cversion``: ``X.Y.Z``,
            ``X.Y.Z-rcN``, a local build ``X.Y.Z-local`` / ``X.Y.Z-local.2``
            (``vX.Y.Z`` and PEP 440 ``X.Y.ZrcN`` accepted).
        url / tag: the expected ``<url>``; default the download location of
            ``tag``, itself defaulting to ``vX.Y.Z`` (``vX.Y.Z-rcN``), or for a
            local build ``.../download/X.Y.Z-local/``.  Give at most one.  Without
            ``url``, upstream's own form ``.../download/X.Y.Z/`` for tag
            ``vX.Y.Z`` is a warning (:func:`upstream_url_form`), any other
            ``<url>`` a failure.
        baseline: the previous version's pack (a ``.pack``, an unpacked pack
            folder, or a folder written by ``previous-pack``, whose record may
            say there is none: :mod:`bot.pack.previous`): operator components
            added, removed and changed.
        template: a template checkout (or one clayer/cproject file): its
            selected ExecuTorch components must exist in the pack.
        executorch_root: an ExecuTorch checkout whose ``validate_pack.py`` runs on the pack.
        compile_check / cxx: compile the Runtime sources (default ``arm-none-eabi-g++``).
        compile_jobs / ccache: compiles at once, and the ccache executable they go through
            (:func:`bot.pack.compile.compile_check`).
        cpackget: install with cpackget into a temporary pack root.
        installed: a folder the pack was installed into (``$CMSIS_PACK_ROOT/PyTorch/ExecuTorch/V``):
            it must hold exactly the pack's files (:mod:`bot.pack.installed`).
        limits: zip bomb limits (:class:`~bot.pack.archive.Limits`).
        progress: called with a short message before each group of checks.

    Raises:
        UsageError / PackError (exit 2): bad arguments, unreadable files,
        a tool that is not on PATH, an unreadable baseline.
    """
    say = progress or (lambda _m: None)
    limits = limits or Limits()
    if url is not None and tag is not None:
        raise UsageError("give --url or --tag, not both")
    semver, default_segment = pack_version(version)
    want_url = url if url is not None else expected_url(tag or default_segment)
    # the known upstream form is a warning only when the location comes from the version or --tag
    upstream_form = None if url is not None else upstream_url_form(tag or default_segment)
    pack = require_file(Path(pack), "pack")
    baseline_note = None
    baseline_from = None
    if baseline is not None:
        baseline = Path(baseline)
        if baseline.is_dir() and not (baseline / checks.PDSC_NAME).is_file():
            from bot.pack.previous import read_previous
            prev = read_previous(baseline)
            baseline, baseline_note, baseline_from = prev.path, prev.note, prev.source or None
        if baseline is not None and not baseline.is_dir():
            require_file(baseline, "--baseline")
    if template is not None:
        _require_template(Path(template))
    if executorch_root is not None:
        from bot.pack.validator import validator_script
        validator_script(Path(executorch_root))
    if compile_check:
        from bot.pack.compile import find_compiler
        find_compiler(cxx)
    if cpackget:
        from bot.pack.cpackget import find_cpackget
        find_cpackget()

    report = PackReport(pack=pack.name, version=semver, baseline=Path(baseline).name if baseline else None,
                        baseline_note=baseline_note, baseline_source=baseline_from)
    add = report.checks.append

    say("archive")
    try:
        zf = open_zip(pack, limits)
    except UnsafeArchive as exc:
        add(CheckResult("archive", "fail", str(exc)))
        return report
    with zf:
        try:
            scan = scan_archive(zf, limits)
        except UnsafeArchive as exc:
            add(CheckResult("archive", "fail", f"{pack.name}: {exc}"))
            return report
        if scan.problems:
            add(CheckResult("archive", "fail", f"{pack.name}: " + "; ".join(scan.problems[:5]) +
                            (f" (+{len(scan.problems) - 5} more)" if len(scan.problems) > 5 else ""),
                            {"problems": scan.problems}))
        else:
            add(CheckResult("archive", "warn" if scan.warnings else "pass",
                            f"{scan.entries} entries, {scan.total_size} bytes unpacked, CRCs verified"
                            + ("; " + "; ".join(scan.warnings[:3]) if scan.warnings else ""),
                            {"entries": scan.entries, "unpacked": scan.total_size,
                             "packed": scan.compressed_size}))
        index = scan.index

        say("manifest")
        res, entry = checks.root_pdsc(index, pack.name)
        add(res)
        pdsc = None
        if entry is not None:
            try:
                pdsc = parse_pdsc(read_member(zf, entry, MAX_PDSC_BYTES), entry)
            except (PdscError, UnsafeArchive) as exc:
                add(CheckResult("pdsc-parse", "fail", str(exc)))
        if pdsc is not None:
            add(checks.identity(pdsc))
            add(checks.release_version(pdsc, semver))
        add(checks.file_name(pack.name, semver))
        if pdsc is not None:
            add(checks.url(pdsc, want_url, upstream_form=upstream_form))

        say("contents")
        add(checks.flatbuffers_headers(index))
        add(_guarded("generated-headers", lambda: checks.generated_headers(zf, index)))
        if pdsc is not None:
            add(checks.references(pdsc, index))
        add(checks.no_python(index))
        add(checks.license_docs(pdsc, index))

        if pdsc is not None:
            say("components")
            add(checks.component_versions(pdsc, semver))
            add(checks.component_ids(pdsc))
            add(_guarded("registrations", lambda: checks.registrations(zf, index, pdsc)))

        if baseline is not None:
            say("baseline")
            from bot.pack.baseline import baseline_check
            old = _read_baseline(Path(baseline), limits)
            if pdsc is not None:
                res, report.operators_added, report.operators_removed = baseline_check(old, pdsc, Path(baseline).name)
                report.operators_changed = list(res.data.get("changed", []))
                add(res)
            else:
                add(CheckResult("baseline-operators", "fail", "the new pack has no readable PDSC to compare"))
        if template is not None:
            say("template")
            from bot.pack.baseline import template_check
            if pdsc is not None:
                res = template_check(Path(template), pdsc)
                report.template_missing = list((res.data or {}).get("missing", []))
                add(res)
            else:
                add(CheckResult("template-components", "fail", "the new pack has no readable PDSC"))

        unsafe = bool(scan.problems)
        skip = "not run: the archive check failed"
        if executorch_root is not None:
            say("upstream validator")
            if unsafe:
                add(CheckResult("upstream-validator", "fail", skip))
            else:
                from bot.pack.validator import run_validator
                add(run_validator(Path(executorch_root), pack))
        if cpackget:
            say("cpackget")
            if unsafe:
                add(CheckResult("cpackget", "fail", skip))
            else:
                from bot.pack.cpackget import cpackget_check
                add(cpackget_check(pack, semver))
        if installed is not None:
            say("installed")
            if unsafe:
                add(CheckResult("installed", "fail", skip))
            else:
                from bot.pack.installed import installed_check
                add(_guarded("installed", lambda: installed_check(zf, Path(installed), limits)))
        if compile_check:
            say("compile")
            if unsafe or pdsc is None:
                add(CheckResult("compile", "fail", skip if unsafe else "not run: no readable PDSC"))
            else:
                from bot.pack.compile import compile_check as run_compile
                add(_guarded("compile", lambda: run_compile(zf, pdsc, cxx, limits=limits, jobs=compile_jobs,
                                                                 ccache=ccache)))
    return report


def _guarded(name: str, fn: Callable[[], CheckResult]) -> CheckResult:
    """Run a check that streams members; an unreadable member (or a failed write) becomes a failed check naming it."""
    try:
        return fn()
    except UnsafeArchive as exc:  # UnreadableMember included: the message names the entry
        return CheckResult(name, "fail", str(exc))
    except OSError as exc:  # writing the unpacked files (a full disk)
        return CheckResult(name, "fail", f"cannot be run: {exc}")


def _read_baseline(path: Path, limits: Limits) -> Pdsc:
    """The PDSC of the baseline pack (a ``.pack`` or an unpacked pack folder); raises :class:`PackError` (exit 2)
    when it cannot be read safely."""
    if path.is_dir():
        f = path / checks.PDSC_NAME
        try:
            data = f.read_bytes()
        except OSError as exc:
            raise PackError(f"--baseline: cannot read: {exc.strerror}", path=str(f)) from None
        if len(data) > MAX_PDSC_BYTES:
            raise PackError(f"--baseline: larger than {MAX_PDSC_BYTES} bytes", path=str(f))
        try:
            return parse_pdsc(data, f"{path.name}/{checks.PDSC_NAME}")
        except PdscError as exc:
            raise PackError(f"--baseline {path.name}: {exc}") from exc
    try:
        zf = open_zip(path, limits)
    except UnsafeArchive as exc:
        raise PackError(f"--baseline: {_detail(exc, path)}", path=str(path)) from exc
    with zf:
        try:
            scan = scan_archive(zf, limits, verify_crc=False)
        except UnsafeArchive as exc:
            raise PackError(f"--baseline: {_detail(exc, path)}", path=str(path)) from exc
        res, entry = checks.root_pdsc(scan.index, path.name)
        if entry is None:
            raise PackError(f"--baseline: {res.detail}", path=str(path))
        try:
            return parse_pdsc(read_member(zf, entry, MAX_PDSC_BYTES), entry)
        except (PdscError, UnsafeArchive) as exc:
            raise PackError(f"--baseline {path.name}: {exc}") from exc


def _detail(exc: PackError, path: Path) -> str:
    """The message of ``exc`` without its location when that location is ``path`` itself (named once)."""
    return exc.message if exc.path in (path.name, str(path)) and exc.line is None else str(exc)


def _require_template(template: Path) -> None:
    """Refuse a ``--template`` that is neither a folder (a template checkout) nor one layer/project file.

    A ``*.clayer.yml`` or ``*.cproject.yml`` file is read alone
    (:func:`bot.pack.baseline.selected_components`); any other file would select
    nothing and pass the check by accident.  Raises :class:`UsageError` (exit 2),
    as ``update --repo FILE`` does.
    """
    from bot.pack.baseline import PATTERNS

    if not template.exists():
        raise UsageError(f"--template: {template} does not exist")
    if template.is_dir():
        return
    if not template.is_file() or not any(fnmatch.fnmatchcase(template.name, p) for p in PATTERNS):
        raise UsageError(f"--template {template}: not a directory (the template checkout) nor a "
                         + " or ".join(PATTERNS) + " file")
