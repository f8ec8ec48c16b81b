"""A refused release asset: the refusal record ``fetch-pack --refusal-file`` writes, and its text for a PR.

When the release's ``PyTorch.ExecuTorch.V.pack`` downloads but fails
verification (a check of the pack itself fails; a label artefact such as
the PDSC ``<url>`` without the tag's ``v``, which upstream's own pack
workflow writes, does not: :func:`bot.report.pack.verdict`), the workflow
builds the pack from the tag instead.  The refusal record carries why, so
that the job that opens the pull request (``publish --asset-refusal FILE``)
can say it and offer an upstream report.

The record (JSON, ``schema`` 1)::

    {"schema": 1, "asset": "PyTorch.ExecuTorch.1.5.1.pack", "url": "https://...", "sha256": "HEX",
     "size": BYTES, "tag": "v1.5.1", "version": "1.5.1",
     "failing_checks": [{"name", "detail"}], "missing": ["include/flatbuffers/", ...],
     "warnings": [{"name", "detail"}], "upstream_validator": "pass" | "warn" | "fail" | null}

``missing`` lists the entries every ExecuTorch pack needs that this one
lacks (``include/flatbuffers/`` and its headers, the two flatc headers under
``include/executorch/schema/``: the ones a pack built without the CMake
cross-compile lacks, bot/pack/checks.py); ``upstream_validator`` is the
result of upstream's ``validate_pack.py`` when this run ran it (the
``upstream-validator`` check), else null.
"""

from __future__ import annotations

import hashlib
import json
import re
import zipfile
from pathlib import Path

from bot.inert import code, markdown

SCHEMA = 1
KEYS = ("asset", "url", "sha256", "size", "tag", "version", "failing_checks", "missing", "warnings")


def refused(report) -> bool:
    """True when ``report`` (a :class:`~bot.pack.report.PackReport`) refuses the pack: a real failure of the pack.

    A failed ``template-components`` check is the template's item (a blocking item of
    the PR), and a label artefact of the ``url`` check is not a fault of the pack.
    """
    from bot.report.pack import label_artefact
    return any(c.status == "fail" and c.name != "template-components" and not label_artefact(c)
               for c in report.checks)


def missing_entries(pack: Path) -> list[str]:
    """The entries every ExecuTorch pack needs that the zip ``pack`` lacks (folder names end with ``/``).

    The needed set is the one bot/pack/checks.py checks: ``include/flatbuffers/`` with its
    required headers, and ``include/executorch/schema/{program,scalar_type}_generated.h``.
    An unreadable zip gives an empty list (the failing checks already say why).
    """
    from bot.pack.checks import FLATBUFFERS_DIR, FLATBUFFERS_REQUIRED, GENERATED, SCHEMA_DIR

    try:
        with zipfile.ZipFile(pack) as zf:
            names = set(zf.namelist())
    except (OSError, zipfile.BadZipFile, ValueError):
        return []
    out = []
    if not any(n.startswith(FLATBUFFERS_DIR) for n in names):
        out.append(FLATBUFFERS_DIR)
    else:
        out += [FLATBUFFERS_DIR + h for h in FLATBUFFERS_REQUIRED if FLATBUFFERS_DIR + h not in names]
    out += [SCHEMA_DIR + h for h in GENERATED if SCHEMA_DIR + h not in names]
    return out


def refusal_record(asset, tag: str, version: str, pack: Path, report) -> dict:
    """The refusal record (module docstring) of the release ``asset`` (``bot.github.releases.Asset``) downloaded
    to ``pack`` and refused by ``report``; the sha256 and size are those of the downloaded file."""
    from bot.report.pack import label_artefact

    data = Path(pack).read_bytes()
    validator = report.check("upstream-validator") if hasattr(report, "check") else None
    return {"schema": SCHEMA, "asset": getattr(asset, "name", Path(pack).name),
            "url": getattr(asset, "download_url", None), "sha256": hashlib.sha256(data).hexdigest(),
            "size": len(data), "tag": tag, "version": version,
            "failing_checks": [{"name": c.name, "detail": c.detail} for c in report.checks
                               if c.status == "fail" and not label_artefact(c)],
            "missing": missing_entries(Path(pack)),
            "warnings": [{"name": c.name, "detail": c.detail} for c in report.checks
                         if c.status == "warn" or label_artefact(c)],
            "upstream_validator": validator.status if validator is not None else None}


def write_refusal(path: Path, record: dict) -> None:
    """Write ``record`` as JSON to ``path`` (its folder is created); UsageError naming the file when it cannot."""
    from bot.errors import UsageError
    try:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        Path(path).write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"--refusal-file {path}: cannot write: {exc.strerror or exc}") from None


def read_refusal(path: Path, option: str = "--asset-refusal") -> dict:
    """The refusal record in ``path``; :class:`~bot.errors.UsageError` naming the file (exit 2) when it is not one."""
    from bot.errors import UsageError

    p = Path(path)
    if p.exists() and not p.is_file():
        raise UsageError(f"{option}: not a regular file", path=str(p))
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except OSError as exc:
        raise UsageError(f"{option}: cannot read: {exc.strerror or exc}", path=str(p)) from None
    except (ValueError, RecursionError) as exc:
        raise UsageError(f"{option}: not JSON: {exc}", path=str(p), line=getattr(exc, "lineno", None)) from None
    if not isinstance(data, dict) or data.get("schema") != SCHEMA or any(k not in data for k in KEYS):
        raise UsageError(f"{option}: not a refusal record written by `fetch-pack --refusal-file`", path=str(p))
    for k in ("failing_checks", "warnings"):
        if not isinstance(data[k], list) or not all(isinstance(c, dict) and isinstance(c.get("name"), str)
                                                     and isinstance(c.get("detail", ""), str) for c in data[k]):
            raise UsageError(f"{option}: {k} is not a list of checks", path=str(p))
    if not isinstance(data["missing"], list) or not all(isinstance(m, str) for m in data["missing"]):
        raise UsageError(f"{option}: missing is not a list of entry names", path=str(p))
    if not (isinstance(data["sha256"], str) and re.fullmatch(r"[0-9a-f]{64}", data["sha256"])):
        raise UsageError(f"{option}: sha256 is not 64 hexadecimal digits", path=str(p))
    if not isinstance(data["size"], int) or isinstance(data["size"], bool) or data["size"] < 0:
        raise UsageError(f"{option}: size is not a number of bytes", path=str(p))
    for k in ("asset", "tag", "version"):
        if not isinstance(data[k], str):
            raise UsageError(f"{option}: {k} is not text", path=str(p))
    if data["url"] is not None and not isinstance(data["url"], str):
        raise UsageError(f"{option}: url is not text", path=str(p))
    return data


def refusal_lines(rec: dict) -> list[str]:
    """Plain-text lines for the log: the refused asset and each reason (the caller makes them log-safe)."""
    out = [f"release asset {rec['asset']} of {rec['tag']} refused (sha256 {rec['sha256']}, {rec['size']} bytes):"]
    out += [f"  {c['name']}: {c.get('detail', '')}" for c in rec["failing_checks"]]
    if rec["missing"]:
        out.append(f"  missing entries: {', '.join(rec['missing'])}")
    out += [f"  warning {c['name']}: {c.get('detail', '')}" for c in rec["warnings"]]
    return out


def _validator_sentence(rec: dict) -> str:
    status = rec.get("upstream_validator")
    if status == "pass":
        return ("Upstream's `backends/arm/cmsis_pack/test/validate_pack.py` passes this pack (it ran on it in this "
                "run): it does not check these entries.")
    if status in ("fail", "warn"):
        return f"Upstream's `validate_pack.py` also reports a problem with this pack ({code(status)})."
    return ("Upstream's `backends/arm/cmsis_pack/test/validate_pack.py` was not run on this file by this run "
            "(`verify-pack --executorch-root DIR` runs it); it does not look for these entries: at v1.4.1 it passes "
            "a pack that lacks them.")


def refusal_section(rec: dict, *, built: bool = True) -> str:
    """``### The release asset was refused``: why, where the PR's pack came from, and a collapsed upstream report.

    Every value from the record (foreign: asset names, URLs, check details) goes through :mod:`bot.inert`.
    ``built``: the PR's pack was built from the tag (``publish --pack-built``).
    """
    tag, asset = rec.get("tag") or "", rec.get("asset") or ""
    url = rec.get("url") or ""
    fails = rec["failing_checks"]
    out = ["### The release asset was refused", "",
           f"The release {code(tag)} carries {code(asset)}, which failed verification, so "
           + (f"**this pull request's pack was built from the tag {code(tag)}** instead (step 1 below)."
              if built else "this pull request does not use it."), "",
           f"- asset: {code(url, cap=400) if url else 'URL not known'}",
           f"- sha256: {code(rec.get('sha256') or '', cap=80)} ({rec.get('size')} bytes)",
           f"- failing checks ({len(fails)}): "
           + "; ".join(f"{code(c['name'], cap=60)}: {markdown(c.get('detail', ''), cap=300)}" for c in fails[:10])]
    if rec["missing"]:
        out.append(f"- missing entries: {', '.join(code(m, cap=200) for m in rec['missing'][:20])}")
    if rec["warnings"]:
        out.append(f"- warnings (not a reason to refuse): "
                   + "; ".join(f"{code(c['name'], cap=60)}: {markdown(c.get('detail', ''), cap=200)}"
                               for c in rec["warnings"][:5]))
    out += ["", "<details><summary>An upstream report to paste into an ExecuTorch issue</summary>", "",
            upstream_report(rec), "", "</details>"]
    return "\n".join(out)


def upstream_report(rec: dict) -> str:
    """The Markdown of an upstream issue about the refused asset: what is missing, the validator, how to reproduce."""
    from bot.inert import line
    from shlex import quote

    def q(text: str) -> str:
        return line(quote(str(text)), cap=400)

    tag, asset, version = rec.get("tag") or "", rec.get("asset") or "", rec.get("version") or ""
    fence = "```"
    missing = rec["missing"]
    lines = [f"**The CMSIS pack attached to release {code(tag)} lacks entries a firmware build needs**", "",
             f"{code(asset)} ({code(rec.get('url') or '', cap=400)}, sha256 {code(rec.get('sha256') or '', cap=80)}, "
             f"{rec.get('size')} bytes)" + (" lacks:" if missing else " fails these checks:"), ""]
    lines += [f"- {code(m, cap=200)}" for m in missing[:30]] if missing else \
        [f"- {code(c['name'], cap=60)}: {markdown(c.get('detail', ''), cap=300)}" for c in rec["failing_checks"][:10]]
    lines += ["", _validator_sentence(rec), "",
              "The ExecuTorch runtime sources include `flatbuffers/flatbuffers.h` and the flatc-generated "
              "`program_generated.h`; a pack without them does not compile. They are produced by the CMake "
              "cross-compile before `build_pack.sh` packs the build folder.", "",
              "To reproduce:", "", fence + "sh",
              "# executorch-pack-bot installed from its repository (pip install .)",
              f"curl -LO {q(rec.get('url') or asset)}",
              f"sha256sum {q(asset)}   # {rec.get('sha256') or ''}",
              f"executorch-pack-bot verify-pack {q(asset)} --version {q(version)}",
              fence]
    return "\n".join(lines)
