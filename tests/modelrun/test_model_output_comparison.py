"""run-model's proof compares the image's outputs with the host runtime's (bot/modelrun/compare.py): outputs of other
counts, shapes, types, lengths and NaN are each named, never read as "no difference", and every ScalarType the
comparison knows is read with its own width and sign (ExecuTorch's schema/scalar_type.fbs numbering)."""

from __future__ import annotations

import math
from dataclasses import replace
import struct

import pytest

from bot.modelrun.compare import OutputDiff, matches, values
from bot.modelrun.compare import compare as compare_with_values


def compare(*args, **kwargs) -> list[OutputDiff]:
    """The comparison's verdict on each output (index, exact, difference, problem), without the first values it
    also records (tests/modelrun/test_model_run_output_values.py holds those)."""
    return [replace(d, device=(), host=(), elements=None) for d in compare_with_values(*args, **kwargs)]
from bot.modelrun.qemu import Tensor

# ScalarType number -> (struct format, sample values that tell signed from unsigned and one width from another)
KNOWN = {
    0: ("B", [0, 200, 255]),                       # Byte (uint8)
    1: ("b", [-128, -1, 127]),                     # Char (int8)
    2: ("h", [-32768, -2, 32767]),                 # Short (int16)
    3: ("i", [-2**31, -3, 2**31 - 1]),             # Int (int32)
    4: ("q", [-2**63, -4, 2**63 - 1]),             # Long (int64)
    6: ("f", [-1.5, 0.25, 3.0]),                   # Float (float32)
    7: ("d", [-1e300, 0.1, 2.5]),                  # Double (float64)
    11: ("?", [True, False, True]),                # Bool
}


def tensor(stype: int, vals: list, sizes: tuple | None = None) -> Tensor:
    fmt = KNOWN[stype][0]
    return Tensor(stype, sizes if sizes is not None else (len(vals),), struct.pack(f"<{len(vals)}{fmt}", *vals))


def f32(*vals: float) -> Tensor:
    return tensor(6, list(vals))


@pytest.mark.parametrize("stype", sorted(KNOWN))
def test_every_known_scalar_type_reads_back_its_own_values(stype):
    fmt, vals = KNOWN[stype]
    assert values(tensor(stype, vals)) == vals


@pytest.mark.parametrize("stype", sorted(KNOWN))
def test_a_trailing_partial_element_is_not_read(stype):
    fmt, vals = KNOWN[stype]
    t = tensor(stype, vals)
    assert values(Tensor(stype, t.sizes, t.data + b"\x01" * (struct.calcsize(fmt) - 1))) == vals


@pytest.mark.parametrize("stype", [5, 8, 12, 15, 99])
def test_a_scalar_type_with_no_format_is_refused_by_name(stype):
    with pytest.raises(ValueError) as exc:
        values(Tensor(stype, (1,), b"\x00\x00"))
    assert str(exc.value) == f"scalar type {stype} is not compared"


def test_identical_outputs_are_exact_with_no_difference():
    outs = [f32(1.0, -2.0), tensor(3, [5, -7]), tensor(0, [1, 2, 3])]
    assert compare(outs, list(outs)) == [OutputDiff(0, True, 0.0), OutputDiff(1, True, 0.0), OutputDiff(2, True, 0.0)]
    assert matches(compare(outs, outs), 0)


def test_the_difference_is_the_largest_absolute_one_of_any_element():
    diffs = compare([f32(1.0, 5.0, -1.0)], [f32(1.5, 3.0, -2.0)])
    assert diffs == [OutputDiff(0, False, 2.0)]
    assert compare([tensor(1, [-100, 3])], [tensor(1, [100, 3])]) == [OutputDiff(0, False, 200.0)]
    assert compare([tensor(0, [0, 255])], [tensor(0, [255, 0])]) == [OutputDiff(0, False, 255.0)]


def test_empty_outputs_of_the_same_shape_are_exact():
    empty = Tensor(6, (0,), b"")
    assert compare([empty], [empty]) == [OutputDiff(0, True, 0.0)]
    assert matches(compare([empty], [empty]), 0)


def test_fewer_device_outputs_name_each_missing_one():
    host = [f32(1.0), f32(2.0), f32(3.0)]
    diffs = compare([f32(1.0)], host)
    assert diffs == [OutputDiff(0, True, 0.0), OutputDiff(1, False, None, "missing on the device"),
                     OutputDiff(2, False, None, "missing on the device")]
    assert not matches(diffs, 0) and not matches(diffs, 1e9)


def test_no_device_output_at_all_is_missing_not_a_crash():
    assert compare([], [f32(1.0)]) == [OutputDiff(0, False, None, "missing on the device")]
    assert not matches(compare([], [f32(1.0)]), 1.0)


def test_more_device_outputs_than_the_host_has_are_named():
    diffs = compare([f32(1.0), f32(2.0)], [f32(1.0)])
    assert diffs == [OutputDiff(0, True, 0.0), OutputDiff(1, False, None, "not on the host")]
    assert not matches(diffs, 1e9)


def test_no_outputs_on_either_side_prove_nothing():
    assert compare([], []) == []
    assert not matches([], 0) and not matches([], 1.0)


def test_another_shape_with_the_same_bytes_is_not_comparable():
    d, h = f32(1.0, 2.0, 3.0, 4.0), f32(1.0, 2.0, 3.0, 4.0)
    diffs = compare([Tensor(6, (2, 2), d.data)], [Tensor(6, (4,), h.data)])
    assert diffs == [OutputDiff(0, False, None, "device 6[2, 2] vs host 6[4]")]
    assert not matches(diffs, 0) and not matches(diffs, 1e9)


def test_another_dtype_with_the_same_bytes_is_not_comparable():
    data = struct.pack("<2i", 1, 2)
    diffs = compare([Tensor(3, (2,), data)], [Tensor(6, (2,), data)])
    assert diffs == [OutputDiff(0, False, None, "device 3[2] vs host 6[2]")]
    assert not matches(diffs, 1e9)


def test_outputs_of_another_byte_length_under_the_same_shape_are_not_comparable():
    diffs = compare([Tensor(6, (2,), struct.pack("<3f", 1, 2, 3))], [f32(1.0, 2.0)])
    assert diffs == [OutputDiff(0, False, None, "device 12 bytes vs host 8 bytes")]
    assert not matches(diffs, 1e9)


def test_the_same_nan_bits_on_both_sides_are_exact():
    nan = Tensor(6, (2,), struct.pack("<2f", math.nan, 1.0))
    assert compare([nan], [nan]) == [OutputDiff(0, True, 0.0)]
    assert matches(compare([nan], [nan]), 0)


def test_a_nan_where_the_host_has_a_number_is_an_infinite_difference():
    diffs = compare([Tensor(6, (2,), struct.pack("<2f", math.nan, 1.0))], [f32(0.0, 1.0)])
    assert diffs == [OutputDiff(0, False, math.inf)]
    assert not matches(diffs, 1e30)


def test_nan_of_other_bits_on_each_side_is_an_infinite_difference():
    quiet = struct.pack("<I", 0x7FC00000)
    other = struct.pack("<I", 0x7FC00001)
    diffs = compare([Tensor(6, (1,), quiet)], [Tensor(6, (1,), other)])
    assert diffs == [OutputDiff(0, False, math.inf)]
    assert not matches(diffs, 1e30)


def test_an_unknown_scalar_type_is_exact_when_bytes_agree_and_named_when_they_do_not():
    same = Tensor(5, (2,), b"\x00\x3c\x00\x40")    # Half: no format here
    assert compare([same], [same]) == [OutputDiff(0, True, None, None)]
    assert matches(compare([same], [same]), 0)
    other = Tensor(5, (2,), b"\x00\x3c\x00\x41")
    diffs = compare([other], [same])
    assert diffs == [OutputDiff(0, False, None, "scalar type 5 is not compared")]
    assert not matches(diffs, 1e9)


def test_a_difference_within_the_tolerance_matches_only_when_a_tolerance_is_stated():
    diffs = compare([f32(1.0, 2.5)], [f32(1.0, 2.0)])
    assert diffs == [OutputDiff(0, False, 0.5)]
    assert not matches(diffs, 0)              # tolerance 0: bit-exact only
    assert matches(diffs, 0.5)                # the bound itself is within
    assert matches(diffs, 0.75)
    assert not matches(diffs, 0.25)


def test_every_output_must_match_not_just_one():
    diffs = compare([f32(1.0), f32(9.0)], [f32(1.0), f32(2.0)])
    assert diffs == [OutputDiff(0, True, 0.0), OutputDiff(1, False, 7.0)]
    assert not matches(diffs, 1.0)
    assert matches(diffs, 7.0)


@pytest.mark.parametrize("diff", [OutputDiff(0, False, None, None), OutputDiff(0, False, 0.0, "named problem"),
                                  OutputDiff(0, False, None, "named problem")])
def test_an_output_without_a_difference_or_with_a_problem_never_matches(diff):
    assert not matches([diff], 1e9)
    assert matches([OutputDiff(0, True, None, None)], 0)


def test_tolerance_zero_is_bit_exact_even_where_the_values_are_equal():
    diffs = compare([f32(-0.0)], [f32(0.0)])    # -0.0 == 0.0, but not the same bits
    assert diffs == [OutputDiff(0, False, 0.0)]
    assert not matches(diffs, 0)
    assert matches(diffs, 1e-9)


def test_every_output_after_one_that_is_not_comparable_is_still_compared():
    half = Tensor(5, (1,), b"\x00\x3c")
    device = [Tensor(6, (1, 1), f32(1.0).data), f32(1.0, 2.0, 3.0), Tensor(5, (1,), b"\x00\x3d"), f32(4.0), f32(5.0)]
    host = [f32(1.0), Tensor(6, (3,), f32(1.0, 2.0).data), half, f32(4.5), f32(5.0)]
    assert compare(device, host) == [OutputDiff(0, False, None, "device 6[1, 1] vs host 6[1]"),
                                     OutputDiff(1, False, None, "device 12 bytes vs host 8 bytes"),
                                     OutputDiff(2, False, None, "scalar type 5 is not compared"),
                                     OutputDiff(3, False, 0.5), OutputDiff(4, True, 0.0)]
    assert compare([half, f32(2.0)], [half, f32(1.0)]) == [OutputDiff(0, True, None, None), OutputDiff(1, False, 1.0)]
