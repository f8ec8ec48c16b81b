"""What the requirements manager reports for each pin, asserted whole: every flag's code, message,
path, line and blocking, and every edit's span, text, line, kind and reason (public CMSIS ExecuTorch templates such as Arm-Examples/CMSIS-Executorch)."""

from __future__ import annotations

import pytest

from bot.model import Bump, Edit, Flag, PinChange
from bot.template.interface import ManagerError
from bot.template.requirements import RequirementsManager, new_version_text
from bot.textfile import TextDocument
from helpers import SAMPLE_BUMP, round_trip, assert_flags, assert_manager_error

M = RequirementsManager()
PATH = "env/requirements.txt"


def run(raw: bytes, bump: Bump = SAMPLE_BUMP):
    return round_trip(M, PATH, raw, bump)


def test_an_edit_is_the_version_span_with_kind_line_and_reason():
    raw = b"# pins\nnumpy==2.1.0\ntorch == 2.13.0  # cpu wheel\n"
    result, new = run(raw)
    assert result.edits == (Edit(path=PATH, start=29, end=35, old="2.13.0", new="2.14.0", line=3,
                                 kind="requirement", why="torch pin (torch_pin.py TORCH_VERSION @ v1.5.1)"),)
    assert result.flags == ()
    assert new == b"# pins\nnumpy==2.1.0\ntorch == 2.14.0  # cpu wheel\n"


def test_a_range_is_a_whole_blocking_flag_and_no_edit():
    result, new = run(b"numpy\ntorch>=2.12,<2.14\n")
    assert result.edits == ()
    assert_flags(result.flags, Flag("range-pin", "torch>=2.12,<2.14 is a range; the bump pins 2.14.0 exactly, "
                                    "so it was left for you to change", path=PATH, line=2, blocking=True))


def test_a_pin_different_from_upstream_is_moved_and_flagged_whole():
    result, new = run(b"torchao==0.17.0+cpu\n")
    assert new == b"torchao==0.19.0+cpu\n"
    assert_flags(result.flags, Flag("pin-was-different", "torchao was pinned at 0.17.0+cpu, not upstream's "
                                    "0.18.0; it is moved to 0.19.0+cpu too", path=PATH, line=1, blocking=False))


def test_a_local_label_of_upstream_old_version_is_not_a_different_pin():
    result, new = run(b"torch==2.13.0+cpu\n")
    assert (result.flags, new) == ((), b"torch==2.14.0+cpu\n")


def test_a_nightly_of_upstream_old_version_is_flagged_whole():
    result, new = run(b"executorch==1.4.0.dev20260728\n")
    assert new == b"executorch==1.5.1\n"
    assert_flags(result.flags, Flag("nightly-pin", "executorch==1.4.0.dev20260728 is a nightly of 1.4.0; "
                                    "rewritten to 1.5.1 like any other pin", path=PATH, line=1, blocking=False))


def test_a_nightly_when_upstream_old_version_is_unknown_is_flagged_without_it():
    bump = Bump(None, "1.5.1", None, "1.5.1", None, "v1.5.1",
                (PinChange("executorch", None, "1.5.1", "release tag v1.5.1"),))
    result, new = run(b"numpy==2.1.0\nexecutorch==1.4.0.dev20260728\n", bump)
    assert new == b"numpy==2.1.0\nexecutorch==1.5.1\n"
    assert_flags(result.flags, Flag("nightly-pin", "executorch==1.4.0.dev20260728 is a nightly; "
                                    "rewritten to 1.5.1 like any other pin", path=PATH, line=2, blocking=False))


def test_a_pin_equal_to_the_target_in_another_spelling_is_left_alone():
    # 2.14 and 2.14.0 are the same PEP 440 version: nothing to write
    result, new = run(b"torch==2.14\nexecutorch==1.4.0\n")
    assert [(e.line, e.old, e.new) for e in result.edits] == [(2, "1.4.0", "1.5.1")]
    assert result.flags == ()


def test_an_arbitrary_equality_pin_that_is_not_a_version_is_rewritten():
    # "===" compares text: a non-PEP 440 value is different from the target, so it moves
    result, new = run(b"torch===2.13.0-custom\n")
    assert new == b"torch===2.14.0\n"
    assert_flags(result.flags, Flag("pin-was-different", "torch was pinned at 2.13.0-custom, not upstream's "
                                    "2.13.0; it is moved to 2.14.0 too", path=PATH, line=1, blocking=False))


def test_an_arbitrary_equality_pin_already_at_the_target_text_is_left_alone():
    bump = Bump("1.4.0", "1.5.1", "1.4.0", "1.5.1", "v1.4.0", "v1.5.1",
                (PinChange("torch", "2.13.0", "2.14.0-custom", "--set"),))
    result, new = run(b"torch===2.14.0-custom\n", bump)
    assert (result.edits, result.flags) == ((), ())


def test_a_bumped_package_without_a_version_does_not_stop_later_pins():
    result, new = run(b"torch\nexecutorch==1.4.0\ntorchao==0.18.0\n")
    assert [(e.line, e.old, e.new) for e in result.edits] == [(2, "1.4.0", "1.5.1"), (3, "0.18.0", "0.19.0")]
    assert result.flags == ()


def test_a_hash_pinned_requirement_that_must_change_is_a_blocking_item_naming_the_command():
    doc = TextDocument.from_bytes(PATH, b"numpy==2.1.0\ntorch==2.13.0 --hash=sha256:" + b"a" * 64 + b"\n")
    result = M.update(doc, SAMPLE_BUMP)
    assert result.edits == ()
    assert [(f.code, f.path, f.line, f.blocking) for f in result.flags] == [("hashed-pin", PATH, 2, True)]
    assert result.flags[0].message == (
        "torch==2.13.0 is pinned with --hash; the hashes of 2.14.0 cannot be recomputed offline, so the bot does "
        "not rewrite it: regenerate the file with hashes (pip-compile --generate-hashes, or uv pip compile "
        "--generate-hashes, from its input), or update this requirement and its hashes yourself")


@pytest.mark.parametrize("old, new, want", [
    ("2.13.0+cpu", "2.14.0", "2.14.0+cpu"),
    ("2.13.0+cpu", "2.14.0+cu126", "2.14.0+cu126"),   # the new version's own label wins
    ("2.13.0", "2.14.0", "2.14.0"),
    ("2.13.0+a+b", "2.14.0", "2.14.0+a+b"),          # an arbitrary-equality text: all after the first "+"
])
def test_new_version_text_keeps_a_local_label_only_when_the_new_version_has_none(old, new, want):
    assert new_version_text(old, new) == want


def test_an_arbitrary_equality_pin_with_two_plus_signs_compares_its_public_version():
    # "2.13.0+a+b" is upstream's 2.13.0 with a label: no pin-was-different flag
    result, new = run(b"torch===2.13.0+a+b\n")
    assert (result.flags, new) == ((), b"torch===2.14.0+a+b\n")
