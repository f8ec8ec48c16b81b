""""On the public pack index" is said only as cpackget would install the pack: the index's ``<pdsc>`` entry AND the
PDSC it points to must list the release (cpackget ``FindPackURL``: the release is looked up in the PDSC with
``FindReleaseTagByVersion``, else "pack version not found in the pdsc file"; the index's ``version`` is not enough).

Served by a local pytest-httpserver; fixtures are written here after the Open-CMSIS-Pack "Pack Index Files" format.
"""

from __future__ import annotations

import pytest

from test_public_pack_index import ask, pdsc, pidx


@pytest.mark.parametrize("index_version, pdsc_answer, expected_state, expected_why", [
    # the index names 1.5.1, its PDSC (stale, or not deployed yet) lists only 1.4.0: cpackget refuses
    ("1.5.1", pdsc("1.4.0"), "no", "the index lists PyTorch::ExecuTorch 1.5.1, and its PDSC has no release 1.5.1"),
    # the index names 1.5.1, its PDSC answers 404: nobody can install it, and we cannot tell what it would list
    ("1.5.1", None, "unknown", "the index lists PyTorch::ExecuTorch 1.5.1, but its PDSC {pdsc_url} answered 404 "
                               "(not found)"),
    # controls: the index names an older version, the PDSC lists the release; and lists only the older one
    ("1.4.0", pdsc("1.5.1", "1.4.0"), "yes", "the index lists PyTorch::ExecuTorch 1.4.0, and its PDSC has a "
                                             "release 1.5.1"),
    ("1.4.0", pdsc("1.4.0"), "no", "the index lists PyTorch::ExecuTorch 1.4.0, and its PDSC has no release 1.5.1"),
], ids=["index-names-it-pdsc-does-not", "index-names-it-pdsc-missing", "pdsc-lists-it", "neither-lists-it"])
def test_the_pack_is_on_the_index_only_when_the_pdsc_the_index_points_to_lists_the_release(
        httpserver, index_version, pdsc_answer, expected_state, expected_why):
    httpserver.expect_request("/pack/index.pidx").respond_with_data(
        pidx((httpserver.url_for("/pack/"), "PyTorch", "ExecuTorch", index_version)))
    if pdsc_answer is None:
        httpserver.expect_request("/pack/PyTorch.ExecuTorch.pdsc").respond_with_data("", status=404)
    else:
        httpserver.expect_request("/pack/PyTorch.ExecuTorch.pdsc").respond_with_data(pdsc_answer)
    ans = ask(httpserver, "1.5.1")
    assert ans.state == expected_state
    assert ans.why == expected_why.format(pdsc_url=httpserver.url_for("/pack/PyTorch.ExecuTorch.pdsc"))
    # the PDSC was read in every case, the index's version notwithstanding
    assert "/pack/PyTorch.ExecuTorch.pdsc" in [r.path for r, _ in httpserver.log]
