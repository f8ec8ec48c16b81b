"""The compile check's result handed from the build job to the pull-request job: one bit and inert text.

The compile check runs where the pack was built (the build job), where
upstream code ran before it; whatever that job writes may be forged.  So it
hands on only this: ``{"status": "pass" | "fail", "detail": TEXT}`` as
JSON, and the reader trusts the bit and nothing else: the detail is made one
inert capped line again (:func:`bot.inert.line`), any other status, shape or
size reads as a failure, and every other check is re-run by the reader on
the pack itself (docs/security.md).
"""

from __future__ import annotations

import json
from pathlib import Path

from bot import inert
from bot.errors import UsageError
from bot.model import CheckResult

#: Longest detail kept (characters) and largest file read (bytes).
DETAIL_CAP = 500
MAX_BYTES = 16 << 10


def write_compile_result(result: CheckResult | None, path: Path) -> None:
    """Write ``result`` (the ``compile`` check; None when it did not run: a failure) to ``path`` as JSON.

    Raises :class:`UsageError` naming the file when it cannot be written.
    """
    if result is None:
        data = {"status": "fail", "detail": "the compile check did not run"}
    else:
        status = result.status if result.status in ("pass", "fail") else "fail"
        data = {"status": status, "detail": inert.line(result.detail, cap=DETAIL_CAP)}
    try:
        Path(path).write_text(json.dumps(data) + "\n", encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"--compile-result: cannot write {path}: {exc.strerror or exc}") from None


def read_compile_result(path: Path) -> CheckResult:
    """The ``compile`` :class:`CheckResult` from a file :func:`write_compile_result` wrote, trusted as one bit.

    ``pass`` only for exactly ``{"status": "pass", ...}``; a missing,
    oversized, non-JSON or odd file is a ``fail`` saying so.  The detail is
    neutralised again and prefixed with where it comes from.
    """
    try:
        raw = Path(path).read_bytes()[:MAX_BYTES + 1]
    except OSError as exc:
        return CheckResult("compile", "fail", f"no compile result from the build job ({exc.strerror or exc})")
    try:
        data = json.loads(raw.decode("utf-8")) if len(raw) <= MAX_BYTES else None
    except (UnicodeDecodeError, ValueError, RecursionError):
        data = None
    if not isinstance(data, dict) or data.get("status") not in ("pass", "fail"):
        return CheckResult("compile", "fail", "the build job's compile result is unreadable")
    detail = data.get("detail") if isinstance(data.get("detail"), str) else ""
    return CheckResult("compile", data["status"], "build job: " + inert.line(detail, cap=DETAIL_CAP))
