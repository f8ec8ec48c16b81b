"""RequirementsManager: Python pins in requirement files (public CMSIS ExecuTorch templates such as Arm-Examples/CMSIS-Executorch;
faults of other bots: dependabot/dependabot-core#2689, #5300, #8693, renovatebot/renovate#2720,
open-telemetry/opentelemetry-python PR #5237, pytorch/executorch PR #7160)."""

from __future__ import annotations

import dataclasses

import pytest

from bot.model import Bump, Edit, PinChange
from bot.template.interface import ManagerError
from bot.template.requirements import RequirementsManager, parse
from bot.textfile import TextDocument
from helpers import SAMPLE_BUMP

BUMP = SAMPLE_BUMP

M = RequirementsManager()


def bump_file(raw: bytes, path: str = "requirements.txt", bump: Bump = BUMP):
    doc = TextDocument.from_bytes(path, raw)
    result = M.update(doc, bump)
    new = doc.apply(result.edits)
    M.check(doc, TextDocument.from_bytes(path, new), list(result.edits))
    return result, new


HASH_PINNED = (b"executorch==1.4.0 \\\n"
       b"    --hash=sha256:1111111111111111111111111111111111111111111111111111111111111111\\\n"
       b"    --hash=sha256:2222222222222222222222222222222222222222222222222222222222222222\n"
       b"torch==2.13.0\n")


@pytest.mark.parametrize("eol", [b"\n", b"\r\n"])
def test_hash_pinned_requirement_that_must_change_is_a_blocking_item_naming_its_line(eol):
    doc = TextDocument.from_bytes("requirements-executorch.txt", HASH_PINNED.replace(b"\n", eol))
    entries = parse(doc)
    assert [(e.line, e.name, e.hashed) for e in entries] == [(1, "executorch", True), (4, "torch", False)]
    result = M.update(doc, BUMP)
    hashed = [f for f in result.flags if f.code == "hashed-pin"]
    assert [(f.path, f.line, f.blocking) for f in hashed] == [("requirements-executorch.txt", 1, True)]
    assert "offline" in hashed[0].message and "pip-compile --generate-hashes" in hashed[0].message
    assert all(e.line != 1 for e in result.edits)


def test_hash_pinned_requirement_that_does_not_change_is_untouched():
    raw = (b"numpy==2.1.0 \\\n    --hash=sha256:3333333333333333333333333333333333333333333333333333333333333333\\\n"
           b"    --hash=sha256:4444444444444444444444444444444444444444444444444444444444444444\n"
           b"torch==2.14.0 --hash=sha256:5555555555555555555555555555555555555555555555555555555555555555\n"
           b"executorch==1.4.0\n")
    result, new = bump_file(raw)
    assert new == raw.replace(b"executorch==1.4.0", b"executorch==1.5.1")
    assert [e.line for e in result.edits] == [5]


def test_every_marker_line_gets_the_new_version_markers_byte_for_byte():
    raw = (b'torch==2.13.0 ; platform_machine == "x86_64"\n'
           b'torch==2.12.0 ; platform_machine == "aarch64"\n'
           b"executorch==1.4.0\n")
    result, new = bump_file(raw)
    assert new == (b'torch==2.14.0 ; platform_machine == "x86_64"\n'
                   b'torch==2.14.0 ; platform_machine == "aarch64"\n'
                   b"executorch==1.5.1\n")
    assert [(e.line, e.old, e.new) for e in result.edits] == [
        (1, "2.13.0", "2.14.0"), (2, "2.12.0", "2.14.0"), (3, "1.4.0", "1.5.1")]
    # deterministic: same input, same edits
    assert M.update(TextDocument.from_bytes("requirements.txt", raw), BUMP) == result
    assert [(f.code, f.line, f.blocking) for f in result.flags] == [("pin-was-different", 2, False)]


@pytest.mark.parametrize("line, expected", [
    (b"executorch[cortex_m]==1.4.0", b"executorch[cortex_m]==1.5.1"),
    (b"executorch[cortex_m] == 1.4.0", b"executorch[cortex_m] == 1.5.1"),
    (b"executorch[ethos_u,cortex_m]  ==  1.4.0   # the pack pinned in the csolution",
     b"executorch[ethos_u,cortex_m]  ==  1.5.1   # the pack pinned in the csolution"),
])
def test_extras_and_spacing_kept(line, expected):
    _, new = bump_file(line + b"\n")
    assert new == expected + b"\n"


def test_crlf_kept():
    raw = b"executorch==1.4.0\r\ntorch==2.13.0\r\n"
    _, new = bump_file(raw)
    assert new == b"executorch==1.5.1\r\ntorch==2.14.0\r\n"


def test_bom_and_no_final_newline():
    raw = b"\xef\xbb\xbfexecutorch==1.4.0\ntorch==2.13.0"
    _, new = bump_file(raw)
    assert new == b"\xef\xbb\xbfexecutorch==1.5.1\ntorch==2.14.0"


def test_names_compared_in_full_after_pep503_normalisation():
    raw = b"torch==2.13.0\ntorchao==0.18.0\ntorchvision==0.28.0\nTorchAudio==2.13.0\n"
    result, new = bump_file(raw)
    assert new == b"torch==2.14.0\ntorchao==0.19.0\ntorchvision==0.28.0\nTorchAudio==2.13.0\n"
    assert [e.line for e in result.edits] == [1, 2]


def test_pep503_spellings_match():
    raw = b"Ethos_U.Vela==5.1.0\nTOSA_tools == 2026.5.0\n"
    _, new = bump_file(raw, "requirements-arm.txt")
    assert new == b"Ethos_U.Vela==5.2.0\nTOSA_tools == 2026.8.0\n"


def test_upstream_downgrade_is_written():
    bump = dataclasses.replace(BUMP, changes=(PinChange("ethos-u-vela", "4.1.0", "4.0.0",
                                                        "backends/arm/requirements-arm-ethos-u.txt @ v1.5.1"),))
    result, new = bump_file(b"ethos-u-vela==4.1.0\n", "requirements-arm.txt", bump)
    assert new == b"ethos-u-vela==4.0.0\n"
    assert result.flags == ()


def test_tosa_file_only_changed_pin_moves():
    raw = b"ml_dtypes == 0.5.1\nflatbuffers == 24.3.25\ntosa-tools == 2026.5.0\n"
    _, new = bump_file(raw, "requirements-arm-tosa.txt")
    assert new == b"ml_dtypes == 0.5.1\nflatbuffers == 24.3.25\ntosa-tools == 2026.8.0\n"


def test_local_label_nightly_triple_equals_and_inline_comment():
    raw = (b"torch==2.13.0+cpu  # CPU wheel\n"
           b"executorch==1.4.0.dev20260728\n"
           b"torchao===0.18.0\n")
    result, new = bump_file(raw)
    assert new == b"torch==2.14.0+cpu  # CPU wheel\nexecutorch==1.5.1\ntorchao===0.19.0\n"
    # a nightly of upstream's 1.4.0: moved, with an informational nightly-pin flag
    assert [(f.code, f.line, f.blocking) for f in result.flags] == [("nightly-pin", 2, False)]


def test_a_nightly_of_another_version_is_a_different_pin():
    result, _ = bump_file(b"executorch==1.3.0.dev20260101\n")
    assert [f.code for f in result.flags] == ["pin-was-different"]


def test_options_urls_comments_and_blank_lines_left_alone():
    raw = (b"# ExecuTorch 1.4.0 targets torch 2.13.0 and torchao 0.18.0\n"
           b"\n"
           b"-r requirements-base.txt\n"
           b"-c constraints.txt\n"
           b"--extra-index-url https://download.pytorch.org/whl/cpu\n"
           b"-e git+https://github.com/pytorch/executorch.git@v1.4.0#egg=executorch\n"
           b"https://example.invalid/torch-2.13.0-cp311-none-any.whl\n"
           b"./wheels/torchao-0.18.0-py3-none-any.whl\n"
           b"numpy\n"
           b"pyyaml>=6.0\n"
           b"executorch==1.4.0\n")
    result, new = bump_file(raw)
    assert new == raw.replace(b"executorch==1.4.0\n", b"executorch==1.5.1\n")
    assert [e.line for e in result.edits] == [11]


def test_direct_reference_for_a_bumped_package_is_flagged_not_edited():
    raw = b"torch @ https://example.invalid/torch-2.13.0.whl\n"
    result, new = bump_file(raw)
    assert new == raw and result.edits == ()
    # the wheel's URL names the old 2.13.0: a pin left behind, so the item is blocking
    assert [(f.code, f.blocking) for f in result.flags] == [("url-requirement", True)]


def test_range_is_flagged_blocking_not_edited():
    raw = b"executorch>=1.4\ntorch==2.13.0\n"
    result, new = bump_file(raw)
    assert new == b"executorch>=1.4\ntorch==2.14.0\n"
    [flag] = result.flags
    assert (flag.code, flag.line, flag.blocking, flag.path) == ("range-pin", 1, True, "requirements.txt")


def test_pin_already_at_target_is_untouched():
    result, new = bump_file(b"torch==2.14.0\nexecutorch==1.5.1+cpu\n")
    assert result.edits == () and new == b"torch==2.14.0\nexecutorch==1.5.1+cpu\n"


def test_continuation_lines_without_hashes_are_kept():
    raw = b'torch==2.13.0 \\\n    ; python_version >= "3.10"\nexecutorch==1.4.0\n'
    _, new = bump_file(raw)
    assert new == b'torch==2.14.0 \\\n    ; python_version >= "3.10"\nexecutorch==1.5.1\n'


def test_unparsable_requirement_names_file_and_line():
    doc = TextDocument.from_bytes("requirements.txt", b"numpy\n\ntorch==2.13.0 ;; oops\n")
    with pytest.raises(ManagerError) as info:
        M.update(doc, BUMP)
    assert (info.value.path, info.value.line) == ("requirements.txt", 3)
    assert str(info.value).startswith("requirements.txt:3: cannot parse requirement")


def test_extract_every_pinned_requirement():
    raw = b"# torch==9.9.9\nexecutorch==1.4.0\nTorchAO>=0.17.0\nnumpy\n-r x.txt\nml_dtypes == 0.5.1  # serializer\n"
    found = [(f.line, f.kind, f.name, f.version, f.exact) for f in M.extract(TextDocument.from_bytes("requirements.txt", raw))]
    assert found == [(2, "requirement", "executorch", "1.4.0", True),
                     (3, "requirement", "torchao", ">=0.17.0", False),
                     (6, "requirement", "ml-dtypes", "0.5.1", True)]


def test_check_catches_a_dropped_marker():
    raw = b'torch==2.13.0 ; platform_machine == "x86_64"\n'
    doc = TextDocument.from_bytes("requirements.txt", raw)
    edits = list(M.update(doc, BUMP).edits)
    after = TextDocument.from_bytes("requirements.txt", b"torch==2.14.0\n")
    with pytest.raises(ManagerError) as info:
        M.check(doc, after, edits)
    assert info.value.line == 1 and info.value.path == "requirements.txt"


def test_check_catches_an_edit_that_changes_the_operator():
    raw = b"executorch==1.4.0\n"
    doc = TextDocument.from_bytes("requirements.txt", raw)
    wrong = Edit("requirements.txt", 10, 17, "==1.4.0", ">=1.5.1", 1, "requirement")
    with pytest.raises(ManagerError):
        M.check(doc, TextDocument.from_bytes("requirements.txt", doc.apply([wrong])), [wrong])


def test_check_catches_an_unplanned_version_change_and_a_lost_continuation():
    raw = b"ml_dtypes == 0.5.1\ntosa-tools == 2026.5.0\n"
    doc = TextDocument.from_bytes("requirements-arm-tosa.txt", raw)
    edits = list(M.update(doc, BUMP).edits)
    sloppy = TextDocument.from_bytes("requirements-arm-tosa.txt", doc.apply(edits).replace(b"0.5.1", b"0.5.2"))
    with pytest.raises(ManagerError) as info:
        M.check(doc, sloppy, edits)
    assert info.value.line == 1

    cont = b"torch==2.13.0 \\\n    --hash=sha256:ab\nnumpy==2.1.0\n"
    doc = TextDocument.from_bytes("requirements.txt", cont)
    broken = TextDocument.from_bytes("requirements.txt", cont.replace(b" \\\n", b"\n"))
    with pytest.raises(ManagerError):
        M.check(doc, broken, [])


def test_matches_patterns():
    for p in ("requirements.txt", "requirements-executorch.txt", "requirements-arm-tosa.txt",
              "env/dev-requirements.txt", "constraints.txt", "requirements.in", "dev-requirements.in",
              "requirements/base.txt", "py/requirements/dev.in"):
        assert M.matches(p)
    for p in ("README.md", "notes.in", "requirements/README.md", "docs/base.txt"):
        assert not M.matches(p)
