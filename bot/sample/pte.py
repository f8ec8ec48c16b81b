"""A small writer of ExecuTorch program flatbuffers (``ET12``): our code, for the demo's runnable sample program.

Lays tables out parent first, children after (a FlatBuffers ``uoffset``
points forward), following the field slots of ExecuTorch's
schema/program.fbs: Program (version 0, execution_plan 1, constant_buffer 2),
ExecutionPlan (name 0, values 2, inputs 3, outputs 4, chains 5, operators 6,
delegates 7), EValue (val_type 0, val 1; Int=2, Double=4, Tensor=5),
Tensor (scalar_type 0, sizes 2, data_buffer_idx 5), Chain (instructions 2),
Instruction (type 0, args 1; KernelCall=1), KernelCall (op_index 0, args 1),
Operator (name 0, overload 1), Buffer (storage 0), BackendDelegate (id 0).

:func:`add_mul` is the program ``demo --keep`` writes for the sample pack's
runtime (it holds aten::add.out and aten::mul.out); :func:`add_mul_expected`
its outputs on the runner's fixed inputs, what ``run-model --expected`` reads.
"""

from __future__ import annotations

import struct


class T:
    """A table: ``{slot: (kind, value)}``; kinds u8 u32 i32 i64 f64 str table tables ints bytes."""

    def __init__(self, **slots):
        self.fields = {int(k[1:]): v for k, v in slots.items()}


_SIZE = {"u8": 1, "u32": 4, "i32": 4, "i64": 8, "f64": 8}
_FMT = {"u8": "<B", "u32": "<I", "i32": "<i", "i64": "<q", "f64": "<d"}


class _Writer:
    def __init__(self):
        self.buf = bytearray(8)

    def align(self, n, mod=0):
        while len(self.buf) % n != mod:
            self.buf.append(0)

    def patch(self, at, target):
        struct.pack_into("<I", self.buf, at, target - at)

    def place(self, kind, value) -> int:
        if kind == "table":
            return self.table(value)
        if kind == "str":
            self.align(4)
            at = len(self.buf)
            data = value.encode()
            self.buf += struct.pack("<I", len(data)) + data + b"\0"
            return at
        if kind in ("ints", "bytes"):
            self.align(16, 12) if kind == "bytes" else self.align(4)
            at = len(self.buf)
            body = bytes(value) if kind == "bytes" else struct.pack(f"<{len(value)}i", *value)
            self.buf += struct.pack("<I", len(value)) + body
            return at
        if kind == "tables":
            self.align(4)
            at = len(self.buf)
            self.buf += struct.pack("<I", len(value)) + bytes(4 * len(value))
            for i, t in enumerate(value):
                self.patch(at + 4 + 4 * i, self.table(t))
            return at
        raise ValueError(kind)

    def table(self, t: T) -> int:
        slots = max(t.fields) + 1 if t.fields else 0
        inline = sorted(t.fields.items(), key=lambda kv: -_SIZE.get(kv[1][0], 4))
        offs, pos = {}, 8
        for slot, (kind, _) in inline:
            size = _SIZE.get(kind, 4)
            pos = (pos + size - 1) // size * size
            offs[slot] = pos
            pos += size
        tsize = pos
        self.align(2)
        vt = len(self.buf)
        self.buf += struct.pack("<HH", 4 + 2 * slots, tsize)
        self.buf += b"".join(struct.pack("<H", offs.get(s, 0)) for s in range(slots))
        self.align(8)
        at = len(self.buf)
        self.buf += bytes(tsize)
        struct.pack_into("<i", self.buf, at, at - vt)
        later = []
        for slot, (kind, value) in inline:
            if kind in _FMT:
                struct.pack_into(_FMT[kind], self.buf, at + offs[slot], value)
            else:
                later.append((at + offs[slot], kind, value))
        for field_at, kind, value in later:
            self.patch(field_at, self.place(kind, value))
        return at


def program(plan: T, constants: list[bytes] | None = None) -> bytes:
    """The bytes of a Program with one execution plan and inline constant buffers (index 0 is reserved)."""
    fields = {"s1": ("tables", [plan])}
    if constants:
        fields["s2"] = ("tables", [T(s0=("bytes", b""))] + [T(s0=("bytes", c)) for c in constants])
    w = _Writer()
    root = w.table(T(s0=("u32", 0), **fields))
    struct.pack_into("<I", w.buf, 0, root)
    w.buf[4:8] = b"ET12"
    return bytes(w.buf)


def tensor(sizes, scalar_type=6, buffer=0) -> T:
    """An EValue holding a Tensor (float32 by default; ``buffer`` > 0: a constant)."""
    return T(s0=("u8", 5), s1=("table", T(s0=("u8", scalar_type), s2=("ints", list(sizes)),
                                           s5=("u32", buffer))))


def integer(v: int) -> T:
    """An EValue holding an Int (int64)."""
    return T(s0=("u8", 2), s1=("table", T(s0=("i64", v))))


def plan(values, inputs, outputs, operators, calls, delegates=()) -> T:
    """An ExecutionPlan named forward: ``operators`` ``[(name, overload)]``, ``calls`` ``[(op_index, [args])]``."""
    return T(s0=("str", "forward"), s2=("tables", list(values)), s3=("ints", list(inputs)),
             s4=("ints", list(outputs)),
             s5=("tables", [T(s2=("tables", [T(s0=("u8", 1), s1=("table", T(s0=("i32", op), s1=("ints", args))))
                                              for op, args in calls]))]),
             s6=("tables", [T(s0=("str", n), s1=("str", o)) for n, o in operators]),
             **({"s7": ("tables", [T(s0=("str", d)) for d in delegates])} if delegates else {}))


def add_mul(shape=(2, 3)) -> bytes:
    """``(x + y) * y``: aten::add.out (alpha 1) then aten::mul.out, as the emitter writes them (out, return)."""
    values = [tensor(shape), tensor(shape), integer(1), tensor(shape), tensor(shape)]
    return program(plan(values, [0, 1], [4], [("aten::add", "out"), ("aten::mul", "out")],
                        [(0, [0, 1, 2, 3, 3]), (1, [3, 1, 4, 4])]))


def fixed(k: int, i: int) -> float:
    """The runner's fixed float input ``i`` of input ``k``: :func:`bot.modelrun.host.value` times 0.25."""
    return (((i * 7 + k * 3) % 17) - 8) * 0.25


def add_mul_expected(shape=(2, 3)) -> list:
    """The outputs of :func:`add_mul` on the fixed inputs, float32 arithmetic (round after each operator).

    Returns ``[{"scalar_type": 6, "sizes": [...], "hex": ...}]``, the JSON shape
    :func:`bot.modelrun.host.dump` writes and ``run-model --expected`` reads.
    """
    n = 1
    for d in shape:
        n *= d

    def f32(x: float) -> float:
        return struct.unpack("<f", struct.pack("<f", x))[0]

    out = [f32(f32(fixed(0, i) + fixed(1, i)) * fixed(1, i)) for i in range(n)]
    return [{"scalar_type": 6, "sizes": list(shape), "hex": struct.pack(f"<{n}f", *out).hex()}]
