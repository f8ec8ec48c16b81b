"""The reference outputs: the same ``.pte`` run by ExecuTorch's host runtime, with the same fixed inputs.

Runs ``PYTHON -c SCRIPT PTE SPEC`` in a subprocess, where PYTHON is the
interpreter of a venv holding the ``executorch`` wheel of the pack's version
(the template's venv the workflow builds); the script uses
``executorch.runtime.Runtime`` (ExecuTorch's runtime/__init__.py:
``Runtime.get().load_program(path).load_method("forward").execute(inputs)``)
and prints the outputs as JSON: ``[{"scalar_type", "sizes", "hex"}]``.
The inputs follow :func:`value`, the rule the image's runner applies in C.

:func:`read_expected` reads the same JSON from a file instead (outputs
recorded earlier by this host run).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from bot import inert
from bot.modelrun import StageError
from bot.modelrun.qemu import Tensor
from bot.scrubbed import scrubbed_env


def value(k: int, i: int) -> int:
    """The fixed input value (before its type's scaling) of element ``i`` of input ``k``: -8..8.

    Float inputs take ``value * 0.25`` (exact in binary), integer inputs the
    value itself, uint8 ``value + 8``, bool ``value & 1``; the C rule is
    ``et_fixed`` in :data:`bot.modelrun.runner.COMMON_H`.
    """
    return ((i * 7 + k * 3) % 17) - 8


_SCRIPT = r"""
import json, math, sys
import torch
from executorch.runtime import Runtime
pte, spec = sys.argv[1], json.loads(sys.argv[2])
DT = {0: torch.uint8, 1: torch.int8, 2: torch.int16, 3: torch.int32, 4: torch.int64, 6: torch.float32,
      7: torch.float64, 11: torch.bool}
ST = {v: k for k, v in DT.items()}
def value(k, i):
    return ((i * 7 + k * 3) % 17) - 8
inputs = []
for k, (st, sizes) in enumerate(spec):
    n = math.prod(sizes)
    vals = [value(k, i) for i in range(n)]
    if st in (6, 7):
        t = torch.tensor([v * 0.25 for v in vals], dtype=DT[st])
    elif st == 0:
        t = torch.tensor([v + 8 for v in vals], dtype=DT[st])
    elif st == 11:
        t = torch.tensor([v & 1 for v in vals], dtype=DT[st])
    else:
        t = torch.tensor(vals, dtype=DT[st])
    inputs.append(t.reshape(sizes))
method = Runtime.get().load_program(pte).load_method("forward")
outs = method.execute(inputs)
res = []
for o in outs:
    if isinstance(o, torch.Tensor):
        c = o.contiguous()
        res.append({"scalar_type": ST.get(c.dtype, -1), "sizes": list(c.shape),
                    "hex": c.numpy().tobytes().hex()})
print("ET_HOST " + json.dumps(res))
"""


def host_outputs(pte: Path, inputs: list, python: str, *, timeout: float = 300) -> list[Tensor]:
    """Outputs of ``pte`` on the host runtime of ``python``'s venv.

    ``inputs`` are :class:`bot.modelrun.pte.TensorInfo` of the program.
    Raises :class:`StageError` (stage ``compare``) with the host runtime's own
    error lines when it cannot run the program.
    """
    spec = json.dumps([[t.scalar_type, list(t.sizes)] for t in inputs])
    try:
        p = subprocess.run([python, "-c", _SCRIPT, str(pte), spec], stdin=subprocess.DEVNULL, capture_output=True,
                           text=True, errors="replace", timeout=timeout, env=scrubbed_env())
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise StageError("compare", f"the host runtime ({python}) did not run: {exc}") from None
    for line in p.stdout.splitlines():
        if line.startswith("ET_HOST "):
            return _tensors(json.loads(line[8:]), "the host runtime")
    errs = [inert.line(ln, cap=300) for ln in p.stderr.splitlines() if ln.strip()]
    raise StageError("compare", f"the host runtime ({python}) could not run the program (exit {p.returncode})",
                     errs[-5:])


def read_expected(path: Path) -> list[Tensor]:
    """Outputs recorded in ``path`` (the host run's JSON); raises :class:`bot.errors.UsageError` when unreadable."""
    from bot.errors import UsageError

    try:
        return _tensors(json.loads(Path(path).read_text(encoding="utf-8")), str(path))
    except (OSError, ValueError) as exc:
        raise UsageError(f"--expected: cannot read {path}: {exc}") from None


def _tensors(data, where: str) -> list[Tensor]:
    if not isinstance(data, list):
        raise ValueError(f"{where}: expected a JSON list of outputs")
    out = []
    for item in data:
        if not isinstance(item, dict):
            raise ValueError(f"{where}: an output is not an object")
        out.append(Tensor(int(item["scalar_type"]), tuple(int(s) for s in item["sizes"]), bytes.fromhex(item["hex"])))
    return out


def dump(outputs: list[Tensor]) -> str:
    """The JSON :func:`read_expected` reads."""
    return json.dumps([{"scalar_type": t.scalar_type, "sizes": list(t.sizes), "hex": t.data.hex()}
                       for t in outputs]) + "\n"
