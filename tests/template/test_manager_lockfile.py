"""LockfileManager: the ExecuTorch entries of a cbuild-pack lock file (CMSIS-Toolbox docs/YML-CBuild-Format.md, "Lock Pack Versions")."""

from __future__ import annotations

import pytest

from bot.model import Bump, Edit, PinChange
from bot.template.interface import ManagerError
from bot.template.lockfile import LockfileManager
from bot.textfile import TextDocument

BUMP = Bump("1.4.0", "1.5.1", "1.4.0", "1.5.1", "v1.4.0", "v1.5.1", (
    PinChange("executorch", "1.4.0", "1.5.1", "release v1.5.1"),
    PinChange("torch", "2.13.0", "2.14.0", "torch_pin.py"),
))

M = LockfileManager()
PATH = "fw.cbuild-pack.yml"

LOCK = (b"cbuild-pack:\n"
        b"  resolved-packs:\n"
        b"    - resolved-pack: ARM::CMSIS@6.1.0\n"
        b"      selected-by-pack:\n"
        b"        - ARM::CMSIS\n"
        b"    - resolved-pack: ARM::V2M_MPS3_SSE_300_BSP@1.5.0\n"
        b"      selected-by-pack:\n"
        b"        - ARM::V2M_MPS3_SSE_300_BSP@1.5.0\n"
        b"    - resolved-pack: PyTorch::ExecuTorch@1.4.0\n"
        b"      selected-by-pack:\n"
        b"        - PyTorch::ExecuTorch@1.4.0\n")


def bump_file(raw: bytes, path: str = PATH):
    doc = TextDocument.from_bytes(path, raw)
    result = M.update(doc, BUMP)
    new = doc.apply(result.edits)
    M.check(doc, TextDocument.from_bytes(path, new), list(result.edits))
    return result, new


def test_resolved_pack_and_selected_by_pack_move():
    result, new = bump_file(LOCK)
    assert new == LOCK.replace(b"ExecuTorch@1.4.0", b"ExecuTorch@1.5.1")
    assert b"ARM::V2M_MPS3_SSE_300_BSP@1.5.0\n" in new and b"ARM::CMSIS@6.1.0" in new
    assert [(e.line, e.old, e.new, e.kind) for e in result.edits] == [
        (9, "1.4.0", "1.5.1", "lock"), (11, "1.4.0", "1.5.1", "lock")]
    assert result.flags == ()


def test_older_selected_by_key_is_kept():
    raw = LOCK.replace(b"selected-by-pack:", b"selected-by:")
    result, new = bump_file(raw)
    assert new == raw.replace(b"ExecuTorch@1.4.0", b"ExecuTorch@1.5.1")
    assert new.count(b"selected-by:") == 3 and b"selected-by-pack" not in new
    assert len(result.edits) == 2


def test_crlf_bom_and_no_final_newline():
    raw = b"\xef\xbb\xbf" + LOCK.replace(b"\n", b"\r\n").rstrip(b"\r\n")
    _, new = bump_file(raw)
    assert new == raw.replace(b"ExecuTorch@1.4.0", b"ExecuTorch@1.5.1")
    assert new.count(b"\r\n") == raw.count(b"\r\n") and not new.endswith(b"\n")


def test_range_in_selected_by_is_flagged_and_resolved_pack_moves():
    raw = LOCK.replace(b"        - PyTorch::ExecuTorch@1.4.0\n", b"        - PyTorch::ExecuTorch@^1.4.0\n")
    result, new = bump_file(raw)
    assert new == raw.replace(b"ExecuTorch@1.4.0", b"ExecuTorch@1.5.1")
    assert b"PyTorch::ExecuTorch@^1.4.0" in new
    [flag] = result.flags
    assert (flag.code, flag.line, flag.blocking) == ("range-pin", 11, True)


def test_unversioned_selected_by_and_pin_was_different():
    raw = LOCK.replace(b"ExecuTorch@1.4.0\n      selected-by-pack:\n        - PyTorch::ExecuTorch@1.4.0",
                       b"ExecuTorch@1.4.1\n      selected-by-pack:\n        - PyTorch::ExecuTorch")
    result, new = bump_file(raw)
    assert new == raw.replace(b"ExecuTorch@1.4.1", b"ExecuTorch@1.5.1")
    assert [(f.code, f.blocking, f.line) for f in result.flags] == [("pin-was-different", False, 9)]


def test_extract_findings():
    doc = TextDocument.from_bytes(PATH, LOCK)
    found = [(f.line, f.kind, f.name, f.version, f.exact) for f in M.extract(doc)]
    assert found == [(9, "lock", "PyTorch::ExecuTorch", "1.4.0", True),
                     (11, "lock", "PyTorch::ExecuTorch", "1.4.0", True)]


def test_invalid_yaml_names_line():
    raw = LOCK.replace(b"      selected-by-pack:\n        - PyTorch", b"      selected-by-pack: [\n        - PyTorch")
    with pytest.raises(ManagerError) as info:
        M.extract(TextDocument.from_bytes(PATH, raw))
    assert info.value.path == PATH and info.value.line is not None and "invalid YAML" in str(info.value)


def test_check_catches_an_edit_to_another_resolved_pack():
    doc = TextDocument.from_bytes(PATH, LOCK)
    good = list(M.update(doc, BUMP).edits)
    start = LOCK.decode().index("6.1.0")
    wrong = Edit(PATH, start, start + 5, "6.1.0", "6.2.0", 3, "lock")
    after = TextDocument.from_bytes(PATH, doc.apply(good + [wrong]))
    with pytest.raises(ManagerError) as info:
        M.check(doc, after, good + [wrong])
    assert info.value.line == 3 and "resolved-packs[0].resolved-pack" in str(info.value)


def test_check_catches_a_missing_planned_edit():
    doc = TextDocument.from_bytes(PATH, LOCK)
    edits = list(M.update(doc, BUMP).edits)
    only_first = TextDocument.from_bytes(PATH, doc.apply(edits[:1]))
    with pytest.raises(ManagerError):
        M.check(doc, only_first, edits)


def test_matches_patterns():
    assert M.matches("fw.cbuild-pack.yml") and M.matches("x/fw.cbuild-pack.yaml")
    assert not M.matches("fw.cbuild-mlops.yml") and not M.matches("fw.csolution.yml")
