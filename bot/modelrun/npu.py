"""Ethos-U estimates of a model: lowered with the host venv's exporter and Vela, read from Vela's own CSV files.

No NPU runs here.  Each model is quantized with the Arm backend's ``EthosUQuantizer``
(``executorch.backends.arm.quantizer``), lowered with ``to_edge_transform_and_lower`` and
``EthosUPartitioner(EthosUCompileSpec(target, extra_flags=[...]))``, and the Arm backend compiles each
delegate's TOSA with Vela in-process (``backends/arm/arm_vela.py`` calls ``vela.main()``).  All of this
runs in a subprocess of the venv's python (``PYTHON -c SCRIPT``, as :mod:`bot.modelrun.suite` exports),
so no upstream code runs in the bot's process.  The script gives each delegate its own Vela output
folder (``DIR/MODEL/delegate-N/output``: one folder shared by several delegates would keep only the last
delegate's CSVs) and keeps the TOSA file beside it (``out.tosa``), so an older Vela can be run on the very
same TOSA (:func:`vela_on_tosa`).

What is read, and from where:

- Vela's ``out_summary_<system config>.csv`` (always written): ``cycles_npu``, ``cycles_total``,
  ``inference_time`` (seconds), ``nn_macs``, ``sram_memory_used`` and ``on_chip_flash_memory_used`` /
  ``off_chip_flash_memory_used`` (KiB), ``total_original_weights`` / ``total_npu_encoded_weights`` (bytes),
  ``accelerator_configuration``, ``system_config``, ``memory_mode``;
- Vela's ``out_per-layer.csv`` (written with ``--verbose-performance``): per operator, ``Original
  Operator``, ``Target`` (``NPU`` or ``CPU``), ``Op Cycles``, ``MAC Count``;
- the ExecuTorch graph after lowering (the edge program): how many ``executorch_call_delegate`` calls and
  which operators stayed outside them.  Those are the operators the CPU runs; Vela's own CPU count misses
  operators the partitioner never handed to it.

Every number is Vela's estimate for one system configuration and memory mode (named in the estimate);
two estimates compare only when both are the same (:func:`compare` says so otherwise).
"""

from __future__ import annotations

import csv
import json
import os
import re
import subprocess
from dataclasses import asdict, dataclass, field
from pathlib import Path

from bot import inert
from bot.errors import BotError, UsageError
from bot.scrubbed import scrubbed_env

#: The Ethos-U configurations Vela accepts as ``--accelerator-config`` (Vela 5.x's ``Accelerator`` enum).
TARGETS = ("ethos-u55-32", "ethos-u55-64", "ethos-u55-128", "ethos-u55-256", "ethos-u65-256", "ethos-u65-512",
           "ethos-u85-128", "ethos-u85-256", "ethos-u85-512", "ethos-u85-1024", "ethos-u85-2048")
#: The models the NPU suite lowers (defined in :data:`SCRIPT`; int8-quantized for the Ethos-U).
MODELS = ("conv_relu_linear", "linear_relu_add")
#: The Vela flags every lowering passes (through ``EthosUCompileSpec(extra_flags=...)``).
VELA_FLAGS = ("--verbose-performance",)
#: Cycles worse by more than this fraction make a review item (a setting's default).
CYCLES_THRESHOLD = 0.10

SCRIPT = r"""
import importlib.metadata, json, os, sys
import torch
from torch.export import export
from executorch.exir import to_edge_transform_and_lower
from executorch.backends.arm.ethosu import EthosUCompileSpec, EthosUPartitioner
from executorch.backends.arm.quantizer import EthosUQuantizer, get_symmetric_quantization_config
from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e
import executorch.backends.arm.ethosu.backend as ethosu_backend

dest, target, sysconf, memmode, flags = sys.argv[1], sys.argv[2], sys.argv[3] or None, sys.argv[4] or None, json.loads(sys.argv[5])
state = {"dir": dest, "n": 0}
compile_with_vela = ethosu_backend.vela_compile
def one_folder_per_delegate(tosa, args, verbose=False, intermediate_path=None):
    d = os.path.join(state["dir"], "delegate-%d" % state["n"])
    state["n"] += 1
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "vela-args.json"), "w") as fh:
        json.dump(list(args), fh)
    return compile_with_vela(tosa, list(args), verbose=False, intermediate_path=d)
ethosu_backend.vela_compile = one_folder_per_delegate

class ConvReluLinear(torch.nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.conv = torch.nn.Conv2d(3, 8, 3)
        self.linear = torch.nn.Linear(8 * 6 * 6, 4)
    def forward(self, x):
        return self.linear(torch.relu(self.conv(x)).flatten(1))

class LinearReluAdd(torch.nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.linear = torch.nn.Linear(8, 4)
    def forward(self, x, y):
        return torch.relu(self.linear(x)) + y

models = {"conv_relu_linear": (ConvReluLinear, ((1, 3, 8, 8),)),
          "linear_relu_add": (LinearReluAdd, ((1, 8), (1, 4)))}
vela = importlib.metadata.version("ethos-u-vela")
for name in sys.argv[6:]:
    cls, shapes = models[name]
    out = os.path.join(dest, name)
    os.makedirs(out, exist_ok=True)
    state["dir"], state["n"] = out, 0
    try:
        spec = EthosUCompileSpec(target, system_config=sysconf, memory_mode=memmode, extra_flags=list(flags))
        spec.dump_intermediate_artifacts_to(out)
        example = tuple(torch.ones(s) for s in shapes)
        quantizer = EthosUQuantizer(spec)
        quantizer.set_global(get_symmetric_quantization_config())
        gm = prepare_pt2e(export(cls().eval(), example).module(), quantizer)
        torch.manual_seed(1)
        for _ in range(4):
            gm(*[torch.randn(s) for s in shapes])
        gm = convert_pt2e(gm)
        edge = to_edge_transform_and_lower(export(gm, example), partitioner=[EthosUPartitioner(spec)])
        delegates, cpu = 0, []
        for node in edge.exported_program().graph.nodes:
            if node.op != "call_function":
                continue
            called = getattr(node.target, "__name__", str(node.target))
            if called == "executorch_call_delegate":
                delegates += 1
            elif called != "getitem":
                schema = getattr(getattr(node.target, "_op", node.target), "_schema", None)
                cpu.append(schema.name if schema is not None else called)
        data = edge.to_executorch().buffer
        with open(os.path.join(out, name + ".pte"), "wb") as fh:
            fh.write(data)
        print("ET_NPU " + json.dumps({"model": name, "delegates": delegates, "cpu_ops": cpu, "vela": vela,
                                      "folders": state["n"]}), flush=True)
    except Exception as exc:
        print("ET_NPU " + json.dumps({"model": name, "error": (type(exc).__name__ + ": " + str(exc))[:400],
                                      "vela": vela}), flush=True)
"""

#: Runs one Vela on one TOSA file: ``PYTHON -c VELA_SCRIPT TOSA OUTPUT_DIR ARGS_JSON`` (Vela's own ``main``).
VELA_SCRIPT = r"""
import importlib.metadata, json, sys
from ethosu.vela import vela
args = [a for a in json.loads(sys.argv[3]) if not a.startswith("--output-dir=")]
rc = vela.main(args + ["--output-dir=" + sys.argv[2], sys.argv[1]])
print("ET_VELA " + json.dumps({"vela": importlib.metadata.version("ethos-u-vela"), "rc": rc}), flush=True)
"""


class NpuError(BotError):
    """The venv could not lower anything (no executorch, no Vela, the script failed); exit 1."""

    exit_code = 1


@dataclass(frozen=True)
class Layer:
    """One row of Vela's ``out_per-layer.csv``: the TOSA operator, where it runs, its cycles and MACs."""

    operator: str
    target: str
    cycles: int
    macs: int


@dataclass(frozen=True)
class Delegate:
    """Vela's estimate of one delegate (one ``out_summary_*.csv`` and its ``out_per-layer.csv``).

    Units as Vela writes them: cycles, ``inference_us`` microseconds (Vela's ``inference_time`` is seconds),
    ``sram_kib``/``flash_kib`` KiB (on-chip plus off-chip flash), weights in bytes before and after encoding.
    """

    accelerator: str
    system_config: str
    memory_mode: str
    npu_cycles: int
    total_cycles: int
    inference_us: float
    macs: int
    sram_kib: float
    flash_kib: float
    weights_original: int
    weights_encoded: int
    layers: tuple = ()


@dataclass(frozen=True)
class NpuEstimate:
    """One model on one side (``label``: a release, "1.4.1"), for one Ethos-U ``target``.

    ``status``: ``lowered`` (the numbers are sums over the delegates; ``sram_kib`` the largest delegate's,
    as delegates run one after another) or ``not-lowered`` (``error`` says why; no numbers).  ``cpu_ops``
    are the operators left outside the delegates in the ExecuTorch graph, ``npu_ops`` the NPU rows of
    Vela's per-layer CSV, in order.  ``basis`` says what made the numbers when it is not the side's own
    exporter and Vela (the old Vela on the new exporter's TOSA).  They are estimates: no NPU was run.
    """

    model: str
    label: str
    target: str
    vela_version: str
    system_config: str = ""
    memory_mode: str = ""
    status: str = "lowered"
    error: str = ""
    basis: str = ""
    delegates: int = 0
    npu_ops: tuple = ()
    cpu_ops: tuple = ()
    npu_cycles: int = 0
    total_cycles: int = 0
    inference_us: float = 0.0
    macs: int = 0
    sram_kib: float = 0.0
    flash_kib: float = 0.0
    weights_original: int = 0
    weights_encoded: int = 0
    layers: tuple = field(default=(), compare=False)

    def to_json(self) -> dict:
        """The estimate as JSON-ready data (:func:`from_json` reads it back)."""
        d = asdict(self)
        d["layers"] = [list(x) if not isinstance(x, dict) else [x["operator"], x["target"], x["cycles"], x["macs"]]
                       for x in d["layers"]]
        d["npu_ops"], d["cpu_ops"] = list(self.npu_ops), list(self.cpu_ops)
        return d


def from_json(data: dict) -> NpuEstimate:
    """An :class:`NpuEstimate` from :meth:`NpuEstimate.to_json`'s data; every string made inert.

    Raises ValueError for data of another shape."""
    if not isinstance(data, dict):
        raise ValueError("an NPU estimate is not an object")
    s = lambda k: inert.line(str(data.get(k, "")), cap=400)  # noqa: E731
    n = lambda k, t=int: t(data.get(k, 0) or 0)  # noqa: E731
    layers = tuple(Layer(inert.line(str(a), cap=80), inert.line(str(b), cap=8), int(c), int(m))
                   for a, b, c, m in data.get("layers", [])[:256])
    return NpuEstimate(model=s("model"), label=s("label"), target=s("target"), vela_version=s("vela_version"),
                       system_config=s("system_config"), memory_mode=s("memory_mode"),
                       status=s("status") or "lowered", error=s("error"), basis=s("basis"),
                       delegates=n("delegates"), npu_ops=tuple(inert.line(str(x), cap=80)
                                                               for x in data.get("npu_ops", [])[:256]),
                       cpu_ops=tuple(inert.line(str(x), cap=120) for x in data.get("cpu_ops", [])[:256]),
                       npu_cycles=n("npu_cycles"), total_cycles=n("total_cycles"),
                       inference_us=n("inference_us", float), macs=n("macs"), sram_kib=n("sram_kib", float),
                       flash_kib=n("flash_kib", float), weights_original=n("weights_original"),
                       weights_encoded=n("weights_encoded"), layers=layers)


def _num(row: dict, key: str, kind=float):
    v = row.get(key, "")
    try:
        return kind(float(v)) if kind is int else float(v)
    except (TypeError, ValueError):
        raise ValueError(f"Vela's summary has no number in column {key!r}: {v!r}") from None


def read_delegate(output: Path) -> Delegate:
    """Vela's estimate in ``output`` (Vela's ``--output-dir``): its one ``out_summary_*.csv`` and per-layer CSV.

    Raises ValueError when there is no summary, more than one (a folder shared by several runs), or a column
    is missing or not a number."""
    summaries = sorted(Path(output).glob("*_summary_*.csv"))
    if len(summaries) != 1:
        raise ValueError(f"{output}: expected one Vela out_summary_*.csv, found {len(summaries)}")
    with summaries[0].open(newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    if len(rows) != 1:
        raise ValueError(f"{summaries[0]}: expected one row of numbers, found {len(rows)}")
    r = rows[0]
    layers = []
    per_layer = sorted(Path(output).glob("*_per-layer.csv"))
    if per_layer:
        with per_layer[0].open(newline="", encoding="utf-8") as fh:
            for row in csv.DictReader(fh):
                layers.append(Layer(row.get("Original Operator", ""), row.get("Target", ""),
                                    _num(row, "Op Cycles", int), _num(row, "MAC Count", int)))
    return Delegate(accelerator=r.get("accelerator_configuration", ""), system_config=r.get("system_config", ""),
                    memory_mode=r.get("memory_mode", ""), npu_cycles=_num(r, "cycles_npu", int),
                    total_cycles=_num(r, "cycles_total", int),
                    inference_us=_num(r, "inference_time") * 1e6, macs=_num(r, "nn_macs", int),
                    sram_kib=_num(r, "sram_memory_used"),
                    flash_kib=_num(r, "on_chip_flash_memory_used") + _num(r, "off_chip_flash_memory_used"),
                    weights_original=_num(r, "total_original_weights", int),
                    weights_encoded=_num(r, "total_npu_encoded_weights", int), layers=tuple(layers))


def estimate(model: str, label: str, target: str, vela_version: str, delegates: list, cpu_ops, *,
             basis: str = "") -> NpuEstimate:
    """The :class:`NpuEstimate` of ``model`` from its delegates' :class:`Delegate` s and the graph's CPU ops."""
    layers = tuple(x for d in delegates for x in d.layers)
    first = delegates[0] if delegates else None
    return NpuEstimate(
        model=model, label=label, target=target, vela_version=vela_version,
        system_config=first.system_config if first else "", memory_mode=first.memory_mode if first else "",
        basis=basis, delegates=len(delegates), npu_ops=tuple(x.operator for x in layers if x.target == "NPU"),
        cpu_ops=tuple(cpu_ops), npu_cycles=sum(d.npu_cycles for d in delegates),
        total_cycles=sum(d.total_cycles for d in delegates),
        inference_us=round(sum(d.inference_us for d in delegates), 3), macs=sum(d.macs for d in delegates),
        sram_kib=max((d.sram_kib for d in delegates), default=0.0), flash_kib=sum(d.flash_kib for d in delegates),
        weights_original=sum(d.weights_original for d in delegates),
        weights_encoded=sum(d.weights_encoded for d in delegates), layers=layers)


def check_target(target: str, option: str = "--npu") -> str:
    """``target`` when Vela knows it (:data:`TARGETS`); else :class:`UsageError` naming ``option``."""
    if target not in TARGETS:
        raise UsageError(f"{option}: {target!r} is not an Ethos-U configuration Vela knows ({', '.join(TARGETS)})")
    return target


def has_vela(python: str, option: str = "--host-python", *, vela_only: bool = False) -> None:
    """Raise :class:`UsageError` naming ``option`` when ``python``'s venv cannot import Vela or (unless
    ``vela_only``) the Arm backend's Ethos-U lowering and the TOSA serializer it writes with."""
    code = "import ethosu.vela" if vela_only else \
        "import ethosu.vela, ml_dtypes, tosa_serializer, executorch.backends.arm.ethosu"
    try:
        p = subprocess.run([python, "-c", code],
                           stdin=subprocess.DEVNULL, capture_output=True, text=True, errors="replace", timeout=300,
                           env=scrubbed_env())
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise UsageError(f"{option}: {python}: {exc}") from None
    if p.returncode != 0:
        last = [inert.line(x, cap=200) for x in p.stderr.splitlines() if x.strip()][-1:]
        raise UsageError(f"{option}: {python} has no Ethos-U lowering (pip install ethos-u-vela==5.1.0 and "
                         f"--no-deps tosa-tools==2026.5.0 ml_dtypes==0.5.1 into that venv): " + " ".join(last))


def lower(python: str, dest: Path, target: str, *, label: str, models: tuple = MODELS, system_config: str = "",
          memory_mode: str = "", timeout: float = 900) -> list[NpuEstimate]:
    """Lower ``models`` for ``target`` with ``python``'s executorch and Vela into ``dest``; one estimate each.

    ``dest/MODEL/delegate-N/output`` is Vela's output folder of delegate N, ``dest/MODEL/MODEL.pte`` the
    program.  A model that does not lower is an estimate of status ``not-lowered`` naming the exporter's
    error.  Raises :class:`NpuError` when the script itself fails (no torch, executorch or Vela)."""
    dest.mkdir(parents=True, exist_ok=True)
    args = [python, "-c", SCRIPT, str(dest), target, system_config, memory_mode, json.dumps(list(VELA_FLAGS)),
            *models]
    try:
        p = subprocess.run(args, stdin=subprocess.DEVNULL, capture_output=True, text=True, errors="replace",
                           timeout=timeout, env=scrubbed_env())
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise NpuError(f"lowering for {target} with {python}: {exc}") from None
    found = {}
    for line in p.stdout.splitlines():
        if line.startswith("ET_NPU "):
            try:
                item = json.loads(line[7:])
            except ValueError:
                continue
            if isinstance(item, dict) and item.get("model") in models:
                found[item["model"]] = item
    if p.returncode != 0 and not found:
        tail = [inert.line(x, cap=300) for x in p.stderr.splitlines() if x.strip()][-3:]
        raise NpuError(f"lowering for {target} with {python} failed (exit {p.returncode}): " + " | ".join(tail))
    out = []
    for m in models:
        item = found.get(m, {"error": "the exporter printed nothing for this model"})
        vela = inert.line(str(item.get("vela", "")), cap=40)
        if "error" in item:
            out.append(NpuEstimate(model=m, label=label, target=target, vela_version=vela, status="not-lowered",
                                   error=inert.line(str(item["error"]), cap=400)))
            continue
        folders = sorted((dest / m).glob("delegate-*"), key=lambda d: int(d.name.split("-")[1]))
        delegates = [read_delegate(d / "output") for d in folders]
        out.append(estimate(m, label, target, vela, delegates, [inert.line(str(x), cap=120)
                                                                 for x in item.get("cpu_ops", [])]))
    return out


def vela_on_tosa(python: str, new_dir: Path, dest: Path, new: NpuEstimate, *, label: str,
                 timeout: float = 600) -> NpuEstimate:
    """The old side where the old exporter cannot be installed: ``python``'s Vela on the TOSA files the new
    exporter wrote for ``new`` (``new_dir/MODEL/delegate-N/out.tosa``), with the same Vela arguments.

    The graph facts (delegates, CPU operators) are the new exporter's; ``basis`` says so.  Raises
    :class:`NpuError` when Vela fails."""
    if new.status != "lowered":
        return NpuEstimate(model=new.model, label=label, target=new.target, vela_version="", status="not-lowered",
                           error="the new exporter did not lower it: no TOSA to run the old Vela on")
    delegates, version = [], ""
    for folder in sorted((new_dir / new.model).glob("delegate-*"), key=lambda d: int(d.name.split("-")[1])):
        argv = (folder / "vela-args.json").read_text(encoding="utf-8")
        out = dest / new.model / folder.name / "output"
        out.mkdir(parents=True, exist_ok=True)
        try:
            p = subprocess.run([python, "-c", VELA_SCRIPT, str(folder / "out.tosa"), str(out), argv],
                               stdin=subprocess.DEVNULL, capture_output=True, text=True, errors="replace",
                               timeout=timeout, env=scrubbed_env())
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise NpuError(f"Vela ({python}) on {folder / 'out.tosa'}: {exc}") from None
        m = re.search(r"^ET_VELA (.*)$", p.stdout, re.M)
        if p.returncode != 0 or not m:
            tail = [inert.line(x, cap=300) for x in p.stderr.splitlines() if x.strip()][-3:]
            raise NpuError(f"Vela ({python}) on {folder / 'out.tosa'} failed (exit {p.returncode}): "
                           + " | ".join(tail))
        version = inert.line(str(json.loads(m.group(1)).get("vela", "")), cap=40)
        delegates.append(read_delegate(out))
    return estimate(new.model, label, new.target, version, delegates, new.cpu_ops,
                    basis=f"Vela {version} on the TOSA of the new exporter (the old exporter was not installed)")


def compare(old: NpuEstimate | None, new: NpuEstimate, *, threshold: float = CYCLES_THRESHOLD,
            sram_budget_kib: float | None = None, flash_budget_kib: float | None = None) -> list[str]:
    """The review items of ``new`` against ``old`` (one model, one target), as one-line sentences.

    An item for: an operator on the CPU that was not there before (by name, counted: ``aten::x`` twice on
    the new side and once on the old is one fallback); an export that lowered and no longer does; SRAM or
    flash over a budget (KiB, when given); NPU or total cycles worse by more than ``threshold`` (a
    fraction, 0.10 is 10%); and a note when the two sides' system config or memory mode differ (their
    numbers then do not compare).  ``old`` None (no baseline) gives the budget items only."""
    items = []
    who = f"`{new.model}` on {new.target}"
    if new.status != "lowered":
        if old is not None and old.status == "lowered":
            items.append(f"{who}: no longer lowers with {new.label} ({new.error})")
        return items
    for what, used, budget in (("SRAM", new.sram_kib, sram_budget_kib), ("flash", new.flash_kib, flash_budget_kib)):
        if budget is not None and used > budget:
            items.append(f"{who}: {what} {used:g} KiB over the budget of {budget:g} KiB (estimate, Vela "
                         f"{new.vela_version})")
    if old is None or old.status != "lowered":
        return items
    left = list(old.cpu_ops)
    for op in new.cpu_ops:
        if op in left:
            left.remove(op)
        else:
            items.append(f"{who}: `{op}` falls back to the CPU with {new.label} (it did not with {old.label})")
    if (old.system_config, old.memory_mode) != (new.system_config, new.memory_mode):
        items.append(f"{who}: the two sides used different Vela configurations ({old.system_config}/"
                     f"{old.memory_mode} against {new.system_config}/{new.memory_mode}): their cycles do not "
                     "compare")
        return items
    for what, a, b in (("NPU cycles", old.npu_cycles, new.npu_cycles), ("total cycles", old.total_cycles,
                                                                        new.total_cycles)):
        if a > 0 and (b - a) / a > threshold:
            items.append(f"{who}: {what} {a:,} -> {b:,} (+{(b - a) / a:.0%}, over {threshold:.0%}; estimates, "
                         f"Vela {old.vela_version} -> {new.vela_version})")
    return items
