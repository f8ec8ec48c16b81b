"""The bot's own model suite, exported at bump time with the new executorch (in the template's venv).

Small models whose operators every ExecuTorch pack has as portable kernels:
``add_mul`` (``(x + y) * y``: aten::add, aten::mul) and ``linear_relu_add``
(``relu(Linear(8, 4)(x)) + y``: aten::permute_copy, aten::addmm, aten::relu,
aten::add, with constant weights in the program's constant segment).  The
weights come from a fixed seed, so an export is reproducible.  Exported with
``to_edge(torch.export.export(model, example)).to_executorch()`` (ExecuTorch's
exir API, as its getting-started guide shows) by ``PYTHON -c`` in the venv
holding the wheel; nothing here imports torch.

``linear_int8`` is ``Linear(8, 4)`` quantized to int8 for the Cortex-M backend
(the wheel's ``executorch.backends.cortex_m``: ``CortexMQuantizer`` with
``prepare_pt2e``/``convert_pt2e``, calibrated on 8 seeded inputs, then
``CortexMPassManager`` on the edge program, as the wheel's own Cortex-M test
harness does): ``cortex_m::quantize_per_tensor``, ``cortex_m::quantized_linear``
(CMSIS-NN's ``arm_fully_connected_s8``), ``cortex_m::dequantize_per_tensor``.
The wheel's host runtime has no ``cortex_m`` kernels ("Missing operator"), so
its reference is the wheel's own Python implementation of those operators
(``executorch/backends/cortex_m/ops/operators.py``), run on the transformed
edge program with the runner's fixed inputs; the export writes it beside the
program as ``linear_int8.expected.json`` (:data:`REFERENCE_SUFFIX`) and
``run-model --suite`` compares with it, bit-exact (:data:`TOLERANCES`).  Its
quantizer imports the Arm backend, which needs ``tosa_serializer`` (PyPI
``tosa-tools``, the ``executorch[ethos-u]`` extra): a venv without it exports
the float models and reports the int8 one as not exported.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from bot import inert
from bot.errors import BotError
from bot.scrubbed import scrubbed_env

MODELS = ("add_mul", "linear_relu_add", "linear_int8")
#: The file beside ``NAME.pte`` holding the reference outputs of a model the host runtime cannot run.
REFERENCE_SUFFIX = ".expected.json"
#: Largest absolute difference accepted per model (default 0: bit-exact).  The int8 model's output is the
#: dequantized int8 result: CMSIS-NN and the reference agree exactly on the int8 values (measured on the
#: v1.4.1 pack with CMSIS-NN 7.0.0), so it too is compared bit for bit.
TOLERANCES: dict = {}

EXPORT = r"""
import sys, torch
from torch.export import export
from executorch.exir import to_edge

class AddMul(torch.nn.Module):
    def forward(self, x, y):
        return (x + y) * y

class LinearReluAdd(torch.nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.linear = torch.nn.Linear(8, 4)
    def forward(self, x, y):
        return torch.relu(self.linear(x)) + y

class Linear(torch.nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.linear = torch.nn.Linear(8, 4)
    def forward(self, x):
        return self.linear(x)

def fixed(k, shape):
    # the runner's fixed float inputs (bot.modelrun.host.value times 0.25)
    n = 1
    for d in shape:
        n *= d
    return torch.tensor([(((i * 7 + k * 3) % 17) - 8) * 0.25 for i in range(n)]).reshape(shape)

def cortex_m_int8(model, example):
    import json
    from executorch.exir import EdgeCompileConfig
    from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e
    from executorch.backends.cortex_m.quantizer.quantizer import CortexMQuantizer
    from executorch.backends.cortex_m.passes.cortex_m_pass_manager import CortexMPassManager
    gm = prepare_pt2e(export(model, example).module(), CortexMQuantizer())
    torch.manual_seed(1)
    for _ in range(8):
        gm(*[torch.randn(e.shape) * 2 for e in example])
    gm = convert_pt2e(gm)
    edge = to_edge(export(gm, example), compile_config=EdgeCompileConfig(
        preserve_ops=[torch.ops.aten.linear.default], _check_ir_validity=False))
    edge._edge_programs["forward"] = CortexMPassManager(edge.exported_program()).transform()
    outs = edge.exported_program().module()(*[fixed(k, e.shape) for k, e in enumerate(example)])
    outs = outs if isinstance(outs, (tuple, list)) else (outs,)
    st = {torch.float32: 6, torch.int8: 1, torch.int32: 3, torch.uint8: 0, torch.int64: 4}
    ref = [{"scalar_type": st[o.dtype], "sizes": list(o.shape), "hex": o.contiguous().detach().numpy().tobytes().hex()}
           for o in outs]
    return edge.to_executorch().buffer, json.dumps(ref)

models = {"add_mul": (AddMul(), (torch.ones(2, 3), torch.ones(2, 3))),
          "linear_relu_add": (LinearReluAdd(), (torch.ones(1, 8), torch.ones(1, 4))),
          "linear_int8": (Linear(), (torch.ones(1, 8),))}
for name in sys.argv[2:]:
    model, example = models[name]
    try:
        if name == "linear_int8":
            data, ref = cortex_m_int8(model.eval(), example)
            with open(f"{sys.argv[1]}/{name}.expected.json", "w") as fh:
                fh.write(ref)
        else:
            data = to_edge(export(model.eval(), example)).to_executorch().buffer
    except Exception as exc:
        print("ET_EXPORT_FAIL", name, f"{type(exc).__name__}: {exc}".replace("\n", " "))
        continue
    with open(f"{sys.argv[1]}/{name}.pte", "wb") as fh:
        fh.write(data)
    print("exported", name)
"""


class ExportError(BotError):
    """The suite could not be exported (no executorch in the venv, an export error); exit 1."""

    exit_code = 1


def export_suite(python: str, dest: Path, models: tuple = MODELS, *, timeout: float = 600) -> list[Path]:
    """Export ``models`` with ``python`` (a venv holding torch and executorch) into ``dest``; returns the paths.

    A model that fails to export alone (the int8 one without ``tosa-tools``) leaves no ``.pte``; its error
    is in :func:`export_error` (``dest/NAME.export-error.txt``).  Raises :class:`ExportError` with the
    exporter's last error lines when the exporter itself fails (no torch or executorch in the venv).
    """
    dest.mkdir(parents=True, exist_ok=True)
    try:
        p = subprocess.run([python, "-c", EXPORT, str(dest), *models], stdin=subprocess.DEVNULL,
                           capture_output=True, text=True, errors="replace", timeout=timeout, env=scrubbed_env())
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ExportError(f"exporting the model suite with {python}: {exc}") from None
    if p.returncode != 0:
        tail = [inert.line(ln, cap=300) for ln in p.stderr.splitlines() if ln.strip()][-3:]
        raise ExportError(f"exporting the model suite with {python} failed (exit {p.returncode}): " + " | ".join(tail))
    for line in p.stdout.splitlines():
        if line.startswith("ET_EXPORT_FAIL "):
            _, name, why = (line.split(" ", 2) + [""])[:3]
            if name in models:
                (dest / f"{name}{ERROR_SUFFIX}").write_text(inert.line(why, cap=400) + "\n", encoding="utf-8")
    return [dest / f"{m}.pte" for m in models]


#: The file beside where ``NAME.pte`` would be when the model could not be exported.
ERROR_SUFFIX = ".export-error.txt"


def export_error(pte: Path) -> str | None:
    """Why ``pte`` (a suite model) was not exported, or None."""
    f = pte.with_name(pte.stem + ERROR_SUFFIX)
    try:
        return f.read_text(encoding="utf-8").strip() if f.is_file() else None
    except OSError:
        return None


def reference(pte: Path) -> Path | None:
    """The reference outputs the export wrote beside ``pte`` (:data:`REFERENCE_SUFFIX`), or None."""
    f = pte.with_name(pte.stem + REFERENCE_SUFFIX)
    return f if f.is_file() else None
