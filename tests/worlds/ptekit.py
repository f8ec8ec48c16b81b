"""ExecuTorch program flatbuffers (``ET12``) for the run-model tests: the writer ships in
:mod:`bot.sample.pte` (the demo writes its sample program with it); the test-only programs are here."""

from __future__ import annotations

import struct

from bot.sample.pte import T, add_mul, fixed, integer, plan, program, tensor  # noqa: F401


def add_constant(weights: list[float]) -> bytes:
    """``x + W`` with W a constant float32 tensor in ``constant_buffer`` (index 1)."""
    n = len(weights)
    values = [tensor((n,)), tensor((n,), buffer=1), integer(1), tensor((n,))]
    return program(plan(values, [0], [3], [("aten::add", "out")], [(0, [0, 1, 2, 3, 3])]),
                   constants=[struct.pack(f"<{n}f", *weights)])


def single(op: str, overload: str = "out", shape=(4,), delegates=()) -> bytes:
    """One call of ``op`` on one input: for operators the pack or its runtime lacks."""
    values = [tensor(shape), tensor(shape)]
    return program(plan(values, [0], [1], [(op, overload)], [(0, [0, 1, 1])], delegates))
