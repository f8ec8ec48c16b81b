"""Packages a requirement file installs from a URL (an ``-e`` option line, a bare VCS URL line):
which package each line names, and the whole non-blocking ``url-requirement`` flag it gives
(pip's VCS support: ``#egg=NAME``, else the repository name)."""

from __future__ import annotations

import pytest

from bot.model import Bump, Flag, PinChange
from bot.template.requirements import RequirementsManager, _option_package
from helpers import SAMPLE_BUMP, round_trip, assert_flags

M = RequirementsManager()
PATH = "requirements-dev.txt"


def run(raw: bytes, bump: Bump = SAMPLE_BUMP):
    return round_trip(M, PATH, raw, bump)


@pytest.mark.parametrize("option, package", [
    # the egg name as written (any case), before a later fragment
    ("-e git+https://example.invalid/org/fork.git#egg=ExecuTorch", "ExecuTorch"),
    ("-e git+https://example.invalid/org/fork.git#egg=executorch&subdirectory=py", "executorch"),
    # no egg: the repository name, after the fragment is cut off and before the ref
    ("-e git+https://example.invalid/org/executorch.git#subdirectory=py#frag", "executorch"),
    ("-e git+https://example.invalid/org/executorch.git#subdirectory=py", "executorch"),
    ("-e git+https://example.invalid/org/executorch/#subdirectory=py", "executorch"),
    ("-e git+ssh://git@example.invalid/org/executorch.git@v1.4.0@x", "executorch"),
    ("-e git+https://example.invalid/org/executorch@release/1.5", "executorch"),
    # a URL with no path part names nothing
    ("-e https://", None),
    ("-e git+https://example.invalid/org/.git", None),
])
def test_an_editable_url_names_its_package(option, package):
    assert _option_package(option) == package


def test_a_bare_vcs_url_line_for_a_bumped_package_is_flagged_and_later_pins_move():
    raw = (b"git+https://example.invalid/pytorch/executorch.git@v1.4.0#egg=executorch\n"
           b"torch==2.13.0\n")
    result, new = run(raw)
    assert new == raw.replace(b"2.13.0", b"2.14.0")
    assert_flags(result.flags, Flag(
        "url-requirement", "executorch is installed by the URL line "
        "'git+https://example.invalid/pytorch/executorch.git@v1.4.0#egg=executorch'; it was not changed to 1.5.1 "
        "(it names the old 1.4.0: move it by hand)", path=PATH, line=1, blocking=True))


def test_a_bare_url_line_of_another_package_or_a_local_path_is_not_flagged():
    raw = b"git+https://example.invalid/org/numpy.git@v2\n./wheels/executorch\ntorch==2.13.0\n"
    result, new = run(raw)
    assert result.flags == ()
    assert [(e.line, e.old, e.new) for e in result.edits] == [(3, "2.13.0", "2.14.0")]


def test_an_editable_url_whose_name_differs_only_in_case_is_flagged_with_its_spelling():
    bump = Bump("1.4.0", "1.5.1", "1.4.0", "1.5.1", "v1.4.0", "v1.5.1",
                (PinChange("torchx", "0.7.0", "0.8.0", "--set"),))
    result, new = run(b"-e git+https://example.invalid/org/TorchX/\n", bump)
    assert_flags(result.flags, Flag("url-requirement", "TorchX is installed by the option line "
                                    "'-e git+https://example.invalid/org/TorchX/'; it was not changed to 0.8.0",
                                    path=PATH, line=1, blocking=False))


def test_an_option_line_for_an_unbumped_package_is_not_flagged():
    result, new = run(b"-e git+https://example.invalid/org/numpy.git\n-r base.txt\nexecutorch==1.4.0\n")
    assert result.flags == ()
    assert new == b"-e git+https://example.invalid/org/numpy.git\n-r base.txt\nexecutorch==1.5.1\n"
