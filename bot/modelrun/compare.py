"""Compare the image's outputs with the host runtime's: bit-exact, or within a stated tolerance.

Portable kernels compute the same IEEE-754 operations in the same order on
the host and on the Cortex-M55, so their outputs must be bit-identical
(``tolerance`` 0, the default).  Kernels that may differ (CMSIS-NN, MVE
paths) are compared with ``tolerance``: the largest absolute difference
allowed, in the output's units (float outputs) or in quantised steps
(integer outputs).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

from bot.modelrun.qemu import Tensor

#: ScalarType number -> struct format of one element (ExecuTorch's schema/scalar_type.fbs numbering).
FORMATS = {0: "B", 1: "b", 2: "h", 3: "i", 4: "q", 6: "f", 7: "d", 11: "?"}


#: How many leading values of each output a result keeps (host and device), so a "bit-exact" claim shows numbers.
FIRST_VALUES = 8


@dataclass(frozen=True)
class OutputDiff:
    """One output: ``exact`` (bytes identical), ``max_abs_diff`` (None when shapes/types differ), why not comparable;
    ``device``/``host``: its first :data:`FIRST_VALUES` values as text (``repr`` of each number: ``0.25``,
    ``nan``), empty when its type has no format here; ``elements``: how many values the device output holds."""

    index: int
    exact: bool
    max_abs_diff: float | None
    problem: str | None = None
    device: tuple[str, ...] = ()
    host: tuple[str, ...] = ()
    elements: int | None = None


def first_values(t: Tensor) -> tuple[tuple[str, ...], int | None]:
    """``(first values as text, element count)`` of ``t``; ``((), None)`` for a type with no format here."""
    try:
        v = values(t)
    except ValueError:
        return (), None
    return tuple(repr(x) for x in v[:FIRST_VALUES]), len(v)


def values(t: Tensor) -> list:
    """The elements of ``t`` as Python numbers; raises ValueError for a type with no format here."""
    fmt = FORMATS.get(t.scalar_type)
    if fmt is None:
        raise ValueError(f"scalar type {t.scalar_type} is not compared")
    n = len(t.data) // struct.calcsize(fmt)
    return list(struct.unpack(f"<{n}{fmt}", t.data[:n * struct.calcsize(fmt)]))


def compare(device: list[Tensor], host: list[Tensor]) -> list[OutputDiff]:
    """One :class:`OutputDiff` per output, plus one for a missing/extra output (``problem`` says which)."""
    out = []
    for i in range(max(len(device), len(host))):
        if i >= len(device) or i >= len(host):
            out.append(OutputDiff(i, False, None, "missing on the device" if i >= len(device) else "not on the host"))
            continue
        d, h = device[i], host[i]
        (dfirst, n), (hfirst, _n) = first_values(d), first_values(h)
        shown = {"device": dfirst, "host": hfirst, "elements": n}
        if d.scalar_type != h.scalar_type or d.sizes != h.sizes:
            out.append(OutputDiff(i, False, None, f"device {d.scalar_type}{list(d.sizes)} vs host "
                                                  f"{h.scalar_type}{list(h.sizes)}", **shown))
            continue
        exact = d.data == h.data
        if len(d.data) != len(h.data):   # zip() below would compare the shorter prefix only
            out.append(OutputDiff(i, False, None, f"device {len(d.data)} bytes vs host {len(h.data)} bytes", **shown))
            continue
        try:
            dv, hv = values(d), values(h)
            diff = max((abs(float(a) - float(b)) for a, b in zip(dv, hv)), default=0.0)
            if diff != diff:  # NaN somewhere: only an exact match counts
                diff = 0.0 if exact else float("inf")
        except ValueError as exc:
            out.append(OutputDiff(i, exact, None, None if exact else str(exc), **shown))
            continue
        out.append(OutputDiff(i, exact, diff, **shown))
    return out


def matches(diffs: list[OutputDiff], tolerance: float) -> bool:
    """True when every output is bit-exact, or (tolerance > 0) within ``tolerance``."""
    return bool(diffs) and all(d.exact or (tolerance > 0 and d.problem is None and d.max_abs_diff is not None
                                           and d.max_abs_diff <= tolerance) for d in diffs)
