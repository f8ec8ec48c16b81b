"""A .pte whose offsets share or overlap their targets, or leave out a table, is a clear PteError, never a crash."""

from __future__ import annotations

import struct
import tracemalloc

import pytest

from bot.modelrun.pte import PteError, _Reader, read_program
from ptekit import T, plan, program, tensor


def _repeat_first_operator(data: bytes) -> bytes:
    """Point every entry of the plan's operators vector at the first operator's table."""
    buf = bytearray(data)
    r = _Reader(bytes(buf))
    the_plan = r.tables(r.ref(0), 1)[0]
    start, n = r.vector(the_plan, 6)
    first = r.ref(start)
    for i in range(1, n):
        at = start + 4 * i
        struct.pack_into("<I", buf, at, first - at)
    return bytes(buf)


def test_a_tensor_value_without_its_tensor_table_is_refused():
    data = program(plan(values=[T(s0=("u8", 5))], inputs=[0], outputs=[], operators=[], calls=[]))
    with pytest.raises(PteError, match="input value 0 is a tensor without its Tensor table"):
        read_program(data)


def test_one_long_name_shared_by_many_operator_entries_is_refused_within_a_small_memory():
    ops = [("aten::" + "a" * 200_000, "out")] + [("b", "o")] * 20_000
    data = _repeat_first_operator(program(plan([tensor((4,))], [0], [0], ops, [])))
    assert len(data) < 1_200_000
    tracemalloc.start()
    try:
        with pytest.raises(PteError, match="repeated or overlapping offsets"):
            read_program(data)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 20 * len(data)  # without the budget: 20,000 copies of 200 kB (4 GB)


def test_one_input_repeated_many_times_is_refused():
    sizes = [1] * 50_000
    data = program(plan([tensor(sizes)], [0] * 50_000, [0], [("aten::add", "out")], []))
    with pytest.raises(PteError, match="repeated or overlapping offsets"):
        read_program(data)


def test_many_distinct_operators_are_listed_once_each_in_order():
    ops = [(f"aten::op{i}", "out") for i in range(3000)] + [("aten::op0", "Tensor")]
    p = read_program(program(plan([tensor((4,))], [0], [0], ops, [])))
    assert p.operator_names() == [f"aten::op{i}" for i in range(3000)]
    assert len(p.operators) == 3001
