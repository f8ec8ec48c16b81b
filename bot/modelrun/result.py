"""The ``run-model`` result handed from the job that ran QEMU to the pull-request job: small, inert JSON.

Shape (``schema`` 1)::

    {"schema": 1, "model": NAME, "pack": LABEL, "status": "match" | "mismatch" | "fail" | "not-runnable",
     "stage": null | STAGE, "error": TEXT, "error_lines": [TEXT],
     "operators": [NAME], "outputs": [{"index", "exact", "max_abs_diff", "problem", "device": [first values],
                                      "host": [first values], "elements"}],
     "tolerance": NUMBER, "instructions": INT | null, "ticks": INT | null,
     "build_seconds": NUMBER | null, "qemu_seconds": NUMBER | null,
     "packs": [TEXT], "runtime_sha256": HEX64 | null}

``packs`` names each pack a selected component required besides the pack run
(``ARM::CMSIS-NN@7.0.0 (pack index URL)``, :mod:`bot.modelrun.packdeps`).
``runtime_sha256`` is :func:`bot.modelrun.fingerprint.runtime_digest` of the
pack files the image was built from (absent in older results: null).

As with the compile result (:mod:`bot.pack.compile_result`), the job that
writes it ran foreign code (the pack's sources, the model), so the reader
trusts only its shape: every string is made one inert capped line again,
numbers must be numbers, lists are capped, and anything odd reads as a
``fail`` saying the result is unreadable.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path

from bot import inert
from bot.errors import UsageError

SCHEMA = 1
MAX_BYTES = 64 << 10
TEXT_CAP = 400
MAX_ITEMS = 64
#: ``not-runnable``: a delegated program (an NPU QEMU lacks): reported, neither a failure nor a blocking item.
NOT_RUNNABLE = "not-runnable"
STATUSES = ("match", "mismatch", "fail", NOT_RUNNABLE)


@dataclass
class ModelResult:
    """One model on one pack; see the module docstring for the fields."""

    model: str
    pack: str
    status: str
    stage: str | None = None
    error: str = ""
    error_lines: list = field(default_factory=list)
    operators: list = field(default_factory=list)
    outputs: list = field(default_factory=list)
    tolerance: float = 0.0
    instructions: int | None = None
    ticks: int | None = None
    build_seconds: float | None = None
    qemu_seconds: float | None = None
    packs: list = field(default_factory=list)
    runtime_sha256: str | None = None

    @property
    def max_abs_diff(self) -> float | None:
        """The largest difference over the outputs (None when none was comparable)."""
        diffs = [o.get("max_abs_diff") for o in self.outputs if isinstance(o.get("max_abs_diff"), (int, float))]
        return max(diffs) if diffs else None

    def to_json(self) -> dict:
        return {"schema": SCHEMA, **asdict(self)}


def write_result(result: ModelResult, path: Path) -> None:
    """Write ``result`` as JSON, within what :func:`read_results` accepts (:func:`fitted`); raises
    :class:`UsageError` naming the file when it cannot be written."""
    try:
        Path(path).write_text(fitted(result.to_json()) + "\n", encoding="utf-8")
    except (OSError, ValueError) as exc:
        raise UsageError(f"--json: cannot write {path}: {getattr(exc, 'strerror', None) or exc}") from None


def _cut(v):
    return v[:TEXT_CAP] + inert.ELLIPSIS if isinstance(v, str) and len(v) > TEXT_CAP else v


def fitted(data: dict) -> str:
    """``data`` (:meth:`ModelResult.to_json`) as JSON of at most :data:`MAX_BYTES` bytes, cut as the reader cuts.

    The strings a run copies from its inputs (a ``.pte``'s operator and delegate names, a tool's error lines)
    have no bound of their own: a template's model naming thousands of long delegates once made a result of
    hundreds of kB, which :func:`read_results` refuses whole.  Strings are cut to :data:`TEXT_CAP` characters,
    ``operators`` and ``outputs`` to :data:`MAX_ITEMS` items, ``error_lines`` and ``packs`` to 8, all as
    :func:`result_from_data` would; then, while the text is still too big (escaped non-ASCII), the longest of
    ``operators``, ``outputs``, ``error_lines`` and ``packs`` is halved.  Raises ValueError for a NaN or infinity.
    """
    d = dict(data)
    for k in ("model", "pack", "error"):
        d[k] = _cut(d.get(k))
    for k, n in (("error_lines", 8), ("operators", MAX_ITEMS), ("packs", 8)):
        d[k] = [_cut(x) for x in (d.get(k) or [])[:n]]
    d["outputs"] = [{**o, "problem": _cut(o.get("problem"))} if isinstance(o, dict) else o
                    for o in (d.get("outputs") or [])[:MAX_ITEMS]]
    while True:
        text = json.dumps(d, allow_nan=False, default=str)
        if len(text.encode("utf-8")) <= MAX_BYTES:
            return text
        longest = max(("operators", "outputs", "error_lines", "packs"), key=lambda k: len(json.dumps(d[k], default=str)))
        if not d[longest]:   # nothing left to halve: only the single strings remain, each at most TEXT_CAP
            d["error"] = _cut((d.get("error") or "")[:TEXT_CAP // 4])
            return json.dumps(d, allow_nan=False, default=str)
        d[longest] = d[longest][:len(d[longest]) // 2]


def _head(path: Path) -> bytes:
    """The first :data:`MAX_BYTES` + 1 bytes of ``path`` (enough to tell it is too big, without reading it all)."""
    with open(path, "rb") as fh:
        return fh.read(MAX_BYTES + 1)


def _text(v) -> str:
    return inert.line(v, cap=TEXT_CAP) if isinstance(v, str) else ""


def _num(v, integer=False):
    if isinstance(v, bool) or not isinstance(v, (int, float)) or (isinstance(v, float) and not math.isfinite(v)):
        return None
    return int(v) if integer else float(v)


def read_result(path: Path, *, model: str = "?", pack: str = "?") -> ModelResult:
    """The :class:`ModelResult` in ``path``, rebuilt field by field; a missing or odd file is a ``fail``."""
    try:
        raw = _head(Path(path))
        data = json.loads(raw.decode("utf-8")) if len(raw) <= MAX_BYTES else None
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as exc:
        reason = getattr(exc, "strerror", None) or "unreadable"
        return ModelResult(model, pack, "fail", None, f"no run-model result ({reason})")
    if not isinstance(data, dict) or data.get("schema") != SCHEMA or data.get("status") not in STATUSES:
        return ModelResult(model, pack, "fail", None, "the run-model result is unreadable")
    return result_from_data(data, model=model, pack=pack)


_NUMBER = re.compile(r"-?(?:\d+(?:\.\d*)?(?:e[-+]?\d+)?|inf|nan)|True|False")


def _values(v) -> list[str]:
    """The first values of an output as a result keeps them (:data:`bot.modelrun.compare.FIRST_VALUES`, each the
    ``repr`` of a number): anything that is not such a text is dropped, so no foreign text rides along."""
    from bot.modelrun.compare import FIRST_VALUES

    if not isinstance(v, list):
        return []
    return [x for x in v[:FIRST_VALUES] if isinstance(x, str) and len(x) <= 32 and _NUMBER.fullmatch(x)]


def result_from_data(data: dict, *, model: str = "?", pack: str = "?") -> ModelResult:
    """The :class:`ModelResult` of a decoded result object (``schema`` 1, a known ``status``), rebuilt field by
    field as :func:`read_result` does: strings one inert capped line, numbers finite, lists capped."""
    outputs = []
    for o in (data.get("outputs") if isinstance(data.get("outputs"), list) else [])[:MAX_ITEMS]:
        if isinstance(o, dict):
            out = {"index": _num(o.get("index"), True), "exact": o.get("exact") is True,
                   "max_abs_diff": _num(o.get("max_abs_diff")), "problem": _text(o.get("problem")) or None}
            if "device" in o or "host" in o:    # a result of an older run-model has no values: none are made up
                out.update(device=_values(o.get("device")), host=_values(o.get("host")),
                           elements=_num(o.get("elements"), True))
            outputs.append(out)
    stage = data.get("stage")
    from bot.modelrun import STAGES
    return ModelResult(
        model=_text(data.get("model")) or model, pack=_text(data.get("pack")) or pack, status=data["status"],
        stage=stage if stage in STAGES else None, error=_text(data.get("error")),
        error_lines=[_text(x) for x in (data.get("error_lines") if isinstance(data.get("error_lines"), list)
                                         else [])[:8]],
        operators=[_text(x) for x in (data.get("operators") if isinstance(data.get("operators"), list)
                                       else [])[:MAX_ITEMS]],
        outputs=outputs, tolerance=_num(data.get("tolerance")) or 0.0,
        instructions=_num(data.get("instructions"), True), ticks=_num(data.get("ticks"), True),
        build_seconds=_num(data.get("build_seconds")), qemu_seconds=_num(data.get("qemu_seconds")),
        packs=[t for t in (_text(x).strip() for x in (data.get("packs") if isinstance(data.get("packs"), list)
                                                      else [])[:8]) if t],   # a blank or non-string entry names nothing
        runtime_sha256=_digest(data.get("runtime_sha256")))


def _digest(v) -> str | None:
    """A 64-hex-digit SHA-256 (lower case), or None for anything else."""
    return v.lower() if isinstance(v, str) and re.fullmatch(r"[0-9a-fA-F]{64}", v) else None


def read_results(folder: Path, *, option: str = "--model-results") -> list[ModelResult]:
    """Every ``*.json`` result in ``folder`` (as ``run-model --results`` writes them), sorted by file name.

    Strict, unlike :func:`read_result`: the pull-request job was handed these
    files, so a file that is not a result (too big, not UTF-8 JSON, not
    ``schema`` 1, an unknown ``status``, no model name) or a folder with none
    raises :class:`UsageError` naming the file (exit 2, nothing published).
    What a well-formed file says is still foreign text: every string is made
    one inert line (:func:`result_from_data`).
    """
    folder = Path(folder)
    if not folder.is_dir():
        raise UsageError(f"{option}: not a folder of run-model results", path=str(folder))
    files = sorted(p for p in folder.iterdir() if p.name.endswith(".json"))
    if not files:
        raise UsageError(f"{option}: no run-model result (*.json) in the folder", path=str(folder))
    if len(files) > MAX_ITEMS:
        raise UsageError(f"{option}: {len(files)} result files (at most {MAX_ITEMS})", path=str(folder))
    out = []
    for f in files:
        why = None
        try:
            if not f.is_file():
                raise UsageError(f"{option}: not a regular file", path=str(f))
            raw = _head(f)
            if len(raw) > MAX_BYTES:
                why = f"larger than {MAX_BYTES} bytes"
            else:
                data = json.loads(raw.decode("utf-8"))
        except OSError as exc:
            raise UsageError(f"{option}: cannot read: {exc.strerror}", path=str(f)) from None
        except (UnicodeDecodeError, ValueError, RecursionError):
            why = "not UTF-8 JSON"
        if why is None:
            if not isinstance(data, dict) or data.get("schema") != SCHEMA:
                why = f"not a run-model result of schema {SCHEMA}"
            elif data.get("status") not in STATUSES:
                why = f"status is not one of {', '.join(STATUSES)}"
            elif not isinstance(data.get("model"), str) or not inert.line(data["model"], cap=TEXT_CAP).strip():
                why = "no model name"
        if why:
            raise UsageError(f"{option}: {why} (expected the JSON `run-model --results` writes)", path=str(f))
        out.append(result_from_data(data, model=f.stem, pack="?"))
    names = [r.model for r in out]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise UsageError(f"{option}: model {dup[0]} has more than one result", path=str(folder))
    return out
