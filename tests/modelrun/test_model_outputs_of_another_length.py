"""run-model's comparison: an output whose bytes are fewer (or more) than the host's, under the same sizes, is not
comparable, also under a tolerance (the element-wise difference saw only the shorter prefix and matched)."""

from __future__ import annotations

import struct

from bot.modelrun.compare import OutputDiff, compare, matches
from bot.modelrun.qemu import Tensor


def test_a_short_device_output_never_matches_within_a_tolerance():
    host = [Tensor(6, (2,), struct.pack("<2f", 1.0, 2.0))]
    device = [Tensor(6, (2,), struct.pack("<f", 1.0))]
    diffs = compare(device, host)
    assert diffs == [OutputDiff(0, False, None, "device 4 bytes vs host 8 bytes", device=("1.0",), host=("1.0", "2.0"),
                                elements=1)]
    assert not matches(diffs, 0.5)
    assert matches(compare(host, host), 0.5)
