"""The bot's own model suite, exported at bump time with the new executorch (in the template's venv).

Small models whose operators every ExecuTorch pack has as portable kernels:
``add_mul`` (``(x + y) * y``: aten::add, aten::mul) and ``linear_relu_add``
(``relu(Linear(8, 4)(x)) + y``: aten::permute_copy, aten::addmm, aten::relu,
aten::add, with constant weights in the program's constant segment).  The
weights come from a fixed seed, so an export is reproducible.  Exported with
``to_edge(torch.export.export(model, example)).to_executorch()`` (ExecuTorch's
exir API, as its getting-started guide shows) by ``PYTHON -c`` in the venv
holding the wheel; nothing here imports torch.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from bot import inert
from bot.errors import BotError
from bot.scrubbed import scrubbed_env

MODELS = ("add_mul", "linear_relu_add")

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

models = {"add_mul": (AddMul(), (torch.ones(2, 3), torch.ones(2, 3))),
          "linear_relu_add": (LinearReluAdd(), (torch.ones(1, 8), torch.ones(1, 4)))}
for name in sys.argv[2:]:
    model, example = models[name]
    with open(f"{sys.argv[1]}/{name}.pte", "wb") as fh:
        fh.write(to_edge(export(model.eval(), example)).to_executorch().buffer)
    print("exported", name)
"""


class ExportError(BotError):
    """The suite could not be exported (no executorch in the venv, an export error); exit 1."""

    exit_code = 1


def export_suite(python: str, dest: Path, models: tuple = MODELS, *, timeout: float = 600) -> list[Path]:
    """Export ``models`` with ``python`` (a venv holding torch and executorch) into ``dest``; returns the paths.

    Raises :class:`ExportError` with the exporter's last error lines.
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
    return [dest / f"{m}.pte" for m in models]
