"""Read what a ``.pte`` (an ExecuTorch program flatbuffer) needs: its operators, delegates and inputs.

A small reader of ours against the field layout of ExecuTorch's
``schema/program.fbs`` (file identifier ``ET12``; the same layout at v1.4.1),
not the ``flatbuffers`` package: only a handful of tables are read and every
offset is bounds-checked, so a damaged file is a clear error, never a crash.

FlatBuffers layout (flatbuffers.dev, "Internals"): the file starts with the
``uoffset`` of the root table; a table starts with the ``soffset`` of its
vtable (vtable = table position minus it); the vtable holds its own size,
the table size and one ``voffset`` per field (0: absent).  A union field
takes two slots: its type (a byte) then its value.  An offset field holds
the distance from the field to its target.  A ``.pte`` may carry an
extended header (``eh00`` at byte 8) whose segment base offset locates the
constant data appended after the flatbuffer.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

#: The schema's file identifier (bytes 4..8 of the file), ExecuTorch's schema/program.fbs.
FILE_IDENTIFIER = b"ET12"
#: ScalarType numbers (c10's ScalarType order, ExecuTorch's schema/scalar_type.fbs) -> name and bytes.
SCALAR_TYPES = {0: ("uint8", 1), 1: ("int8", 1), 2: ("int16", 2), 3: ("int32", 4), 4: ("int64", 8),
                5: ("float16", 2), 6: ("float32", 4), 7: ("float64", 8), 11: ("bool", 1)}
#: KernelTypes union member of a Tensor (NONE=0, Null, Int, Bool, Double, Tensor, ...).
_TENSOR = 5


class PteError(ValueError):
    """The bytes are not a readable ExecuTorch program; the message says where it broke."""


@dataclass(frozen=True)
class TensorInfo:
    """One input tensor of the first execution plan: ScalarType number, dtype name and sizes."""

    scalar_type: int
    dtype: str
    sizes: tuple


@dataclass(frozen=True)
class Program:
    """What :func:`read_program` found in the first execution plan (the ``forward`` method).

    ``operators`` are ``"namespace::name.overload"`` strings in the plan's
    order (``"aten::add.out"``); ``delegates`` the backend ids
    (``"EthosUBackend"``); ``inputs`` the plan's input tensors.
    """

    version: int
    method: str
    operators: tuple
    delegates: tuple
    inputs: tuple = field(default=())

    def operator_names(self) -> list[str]:
        """The operators without their overload, deduplicated in order: ``["aten::add", ...]``."""
        return list(dict.fromkeys(op.split(".", 1)[0] for op in self.operators))


#: What the names and sizes read may add up to, per byte of the file (plus a fixed allowance): offsets may
#: share or overlap their targets, so without a budget a small file could ask for gigabytes of strings.
BUDGET_PER_BYTE = 4
BUDGET_EXTRA = 1 << 16


class _Reader:
    def __init__(self, data: bytes):
        self.data = data
        self.budget = BUDGET_PER_BYTE * len(data) + BUDGET_EXTRA

    def spend(self, n: int, what: str, at: int) -> None:
        self.budget -= n
        if self.budget < 0:
            raise PteError(f"{what} at {at}: the names and sizes read add up to more than "
                           f"{BUDGET_PER_BYTE} times the file ({len(self.data)} bytes): repeated or "
                           "overlapping offsets")

    def _unpack(self, fmt: str, at: int | None):
        if at is None:
            raise PteError("a table the program needs is absent")
        size = struct.calcsize(fmt)
        if at < 0 or at + size > len(self.data):
            raise PteError(f"offset {at} is outside the file ({len(self.data)} bytes)")
        return struct.unpack_from(fmt, self.data, at)[0]

    def u8(self, at): return self._unpack("<B", at)
    def u16(self, at): return self._unpack("<H", at)
    def u32(self, at): return self._unpack("<I", at)
    def i32(self, at): return self._unpack("<i", at)

    def field(self, table: int, slot: int) -> int | None:
        """Absolute position of field ``slot`` of the table at ``table``, or None when absent."""
        vtable = table - self.i32(table)
        vsize = self.u16(vtable)
        entry = 4 + 2 * slot
        if entry + 2 > vsize:
            return None
        off = self.u16(vtable + entry)
        return table + off if off else None

    def ref(self, at: int) -> int:
        return at + self.u32(at)

    def table(self, table: int, slot: int) -> int | None:
        at = self.field(table, slot)
        return None if at is None else self.ref(at)

    def vector(self, table: int, slot: int) -> tuple[int, int]:
        """(element start, length) of a vector field; (0, 0) when absent."""
        at = self.field(table, slot)
        if at is None:
            return 0, 0
        vec = self.ref(at)
        n = self.u32(vec)
        if n > len(self.data):
            raise PteError(f"vector of {n} elements at {vec} is larger than the file")
        return vec + 4, n

    def tables(self, table: int, slot: int) -> list[int]:
        start, n = self.vector(table, slot)
        self.spend(n, "vector", start)
        return [self.ref(start + 4 * i) for i in range(n)]

    def string(self, table: int, slot: int) -> str:
        at = self.field(table, slot)
        if at is None:
            return ""
        s = self.ref(at)
        n = self.u32(s)
        if s + 4 + n > len(self.data):
            raise PteError(f"string at {s} runs past the end of the file")
        self.spend(n, "string", s)
        return self.data[s + 4:s + 4 + n].decode("utf-8", "replace")

    def ints(self, table: int, slot: int) -> list[int]:
        start, n = self.vector(table, slot)
        self.spend(n, "vector", start)
        return [self.i32(start + 4 * i) for i in range(n)]


def read_program(data: bytes) -> Program:
    """Parse ``data`` (a whole ``.pte`` file) and return its first execution plan's needs.

    Raises :class:`PteError` when the file identifier is not ``ET12``, the
    program has no execution plan, or any offset points outside the file.
    """
    if len(data) < 8:
        raise PteError(f"{len(data)} bytes: too short for a flatbuffer")
    if data[4:8] != FILE_IDENTIFIER:
        raise PteError(f"file identifier {data[4:8]!r}, expected {FILE_IDENTIFIER!r} (an ExecuTorch program)")
    r = _Reader(data)
    try:
        root = r.ref(0)
        version_at = r.field(root, 0)
        version = r.u32(version_at) if version_at is not None else 0
        plans = r.tables(root, 1)
        if not plans:
            raise PteError("the program has no execution plan")
        plan = plans[0]
        method = r.string(plan, 0)
        ops = tuple(f"{r.string(op, 0)}.{r.string(op, 1)}" if r.string(op, 1) else r.string(op, 0)
                    for op in r.tables(plan, 6))
        delegates = tuple(r.string(d, 0) for d in r.tables(plan, 7))
        values = r.tables(plan, 2)
        inputs = []
        for idx in r.ints(plan, 3):
            if not 0 <= idx < len(values):
                raise PteError(f"input value index {idx} is outside the {len(values)} values")
            ev = values[idx]
            kind_at = r.field(ev, 0)
            if kind_at is None or r.u8(kind_at) != _TENSOR:
                continue
            t = r.table(ev, 1)
            if t is None:
                raise PteError(f"input value {idx} is a tensor without its Tensor table")
            st_at = r.field(t, 0)
            st = r.u8(st_at) if st_at is not None else 0
            dtype = SCALAR_TYPES.get(st, (f"scalar_type_{st}", 0))[0]
            inputs.append(TensorInfo(st, dtype, tuple(r.ints(t, 2))))
    except struct.error as exc:  # pragma: no cover - _unpack bounds-checks first
        raise PteError(str(exc)) from None
    return Program(version, method, ops, delegates, tuple(inputs))
