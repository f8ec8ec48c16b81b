"""CmsisManager: PyTorch::ExecuTorch pack pins in csolution / cproject / clayer files.

Fixtures are written here, modelled on public CMSIS ExecuTorch templates such as Arm-Examples/CMSIS-Executorch; expected bytes
keep CRLF line ends (dependabot/dependabot-core#8693) and YAML comments
(updatecli/updatecli#1351).
"""

from __future__ import annotations

import pytest

from bot.model import Edit
from bot.template.cmsis import CmsisManager
from bot.template.interface import ManagerError
from bot.textfile import TextDocument
from helpers import SAMPLE_BUMP

BUMP = SAMPLE_BUMP

M = CmsisManager()


def bump_file(raw: bytes, path: str = "template.csolution.yml"):
    """Run update on ``raw``, apply the edits, run check(); return (result, new bytes)."""
    doc = TextDocument.from_bytes(path, raw)
    result = M.update(doc, BUMP)
    new = doc.apply(result.edits)
    M.check(doc, TextDocument.from_bytes(path, new), list(result.edits))
    return result, new


def test_comments_blank_line_and_alignment_survive():
    raw = (b"# yaml-language-server: $schema=https://example.invalid/csolution.schema.json\n"
           b"# Copyright placeholder\n"
           b"solution:\n"
           b"  packs:\n"
           b"    # Keep equal to requirements-executorch.txt\n"
           b"    - pack: PyTorch::ExecuTorch@1.4.0    # exact pin\n"
           b"\n"
           b"    - pack: ARM::CMSIS\n")
    result, new = bump_file(raw)
    assert new == raw.replace(b"ExecuTorch@1.4.0    #", b"ExecuTorch@1.5.1    #")
    assert [(e.old, e.new, e.line, e.kind) for e in result.edits] == [("1.4.0", "1.5.1", 6, "pack-pin")]
    assert result.edits[0].why == "PyTorch::ExecuTorch pack pin"
    assert result.flags == ()


def test_crlf_kept_on_every_line():
    raw = b"solution:\r\n  packs:\r\n    - pack: PyTorch::ExecuTorch@1.4.0\r\n    - pack: ARM::CMSIS\r\n"
    _, new = bump_file(raw)
    assert new == b"solution:\r\n  packs:\r\n    - pack: PyTorch::ExecuTorch@1.5.1\r\n    - pack: ARM::CMSIS\r\n"


def test_bom_and_no_final_newline_kept():
    raw = b"\xef\xbb\xbfproject:\n  packs:\n    - pack: PyTorch::ExecuTorch@1.4.0"
    _, new = bump_file(raw, "app.cproject.yml")
    assert new == b"\xef\xbb\xbfproject:\n  packs:\n    - pack: PyTorch::ExecuTorch@1.5.1"


def test_traps_stay_byte_identical():
    raw = (b"solution:\n"
           b"  created-for: CMSIS-Toolbox@2.15.0\n"
           b"  packs:\n"
           b"    - pack: ARM::V2M_MPS3_SSE_300_BSP@1.5.0\n"
           b"    - pack: ARM::SSE_320_BSP@1.0.0\n"
           b"    - pack: Vendor::Pack@^2.2.0-0\n"
           b"    - pack: Other::Pack@~1.4.0\n"
           b"    - pack: Other::Min@>=1.4.0\n"
           b"    - pack: ARM::CMSIS\n"
           b"    - pack: ARM::Ethos-U\n"
           b"      path: ../packs/ethos-u/release/3.1.5-rc.1\n"
           b"    - pack: PyTorch::ExecuTorchExtras@1.4.0\n"
           b"    - pack: pytorch::executorch@1.4.0\n"
           b"    - pack: PyTorch::ExecuTorch@1.4.0\n")
    result, new = bump_file(raw)
    assert new == raw.replace(b"PyTorch::ExecuTorch@1.4.0\n", b"PyTorch::ExecuTorch@1.5.1\n")
    assert new.count(b"1.5.1") == 1
    assert len(result.edits) == 1 and result.edits[0].line == 14


def test_quoted_values_keep_their_quotes():
    raw = (b"solution:\n  packs:\n"
           b"    - pack: \"PyTorch::ExecuTorch@1.4.0\"\n"
           b"    - pack: 'PyTorch::ExecuTorch@1.4.0'\n")
    _, new = bump_file(raw)
    assert new == raw.replace(b"@1.4.0", b"@1.5.1")
    assert b"\"PyTorch::ExecuTorch@1.5.1\"" in new and b"'PyTorch::ExecuTorch@1.5.1'" in new


def test_comments_and_block_scalars_are_not_pins():
    raw = (b"# - pack: PyTorch::ExecuTorch@1.4.0 (built with cbuild)\n"
           b"solution:\n"
           b"  description: |\n"
           b"    - pack: PyTorch::ExecuTorch@1.4.0\n"
           b"  packs:\n"
           b"    # - pack: PyTorch::ExecuTorch@1.4.0\n"
           b"    - pack: PyTorch::ExecuTorch@1.4.0  # PyTorch::ExecuTorch@1.4.0\n")
    result, new = bump_file(raw)
    assert len(result.edits) == 1 and result.edits[0].line == 7
    assert new.splitlines()[6] == b"    - pack: PyTorch::ExecuTorch@1.5.1  # PyTorch::ExecuTorch@1.4.0"
    assert new.splitlines()[:6] == raw.splitlines()[:6]


def test_solution_and_several_projects():
    files = {
        "fw.csolution.yml": b"solution:\n  packs:\n    - pack: PyTorch::ExecuTorch@1.4.0\n"
                            b"  projects:\n    - project: a/a.cproject.yml\n    - project: b/b.cproject.yml\n",
        "a/a.cproject.yml": b"project:\n  packs:\n    - pack: PyTorch::ExecuTorch@1.4.0\n  groups: []\n",
        "b/b.cproject.yaml": b"project:\n  packs:\n    - pack: ARM::CMSIS-NN\n    - pack: PyTorch::ExecuTorch@1.4.0\n",
        "c/c.cproject.yml": b"project:\n  components:\n    - component: ARM::CMSIS:CORE\n",
    }
    changed = {}
    for path, raw in files.items():
        assert M.matches(path)
        result, new = bump_file(raw, path)
        if result.edits:
            changed[path] = [e.line for e in result.edits]
        assert new == raw.replace(b"@1.4.0", b"@1.5.1")
    assert changed == {"fw.csolution.yml": [3], "a/a.cproject.yml": [3], "b/b.cproject.yaml": [4]}


def test_clayer_with_and_without_version():
    versioned = (b"# generated by create_ai_layer.py - do not edit\n"
                 b"layer:\n  packs:\n    - pack: PyTorch::ExecuTorch@1.4.0\n"
                 b"  components:\n    - component: Machine Learning:ExecuTorch:Runtime\n"
                 b"    - component: Machine Learning:ExecuTorch Operators:Portable add\n")
    _, new = bump_file(versioned, "ai_layer/ai_layer.clayer.yml")
    assert new == versioned.replace(b"@1.4.0", b"@1.5.1")

    bare = b"layer:\n  packs:\n    - pack: PyTorch::ExecuTorch\n"
    doc = TextDocument.from_bytes("ai_layer/ai_layer.clayer.yml", bare)
    [finding] = M.extract(doc)
    assert (finding.version, finding.line, finding.kind, finding.name) == (None, 3, "pack-pin", "PyTorch::ExecuTorch")
    result, new = bump_file(bare, "ai_layer/ai_layer.clayer.yml")
    assert result.edits == () and result.flags == () and new == bare


@pytest.mark.parametrize("pin", ["^1.4.0", "~1.4.0", ">=1.4.0"])
def test_range_pin_is_flagged_blocking_and_not_edited(pin):
    raw = f"solution:\n  packs:\n    - pack: PyTorch::ExecuTorch@{pin}\n".encode()
    doc = TextDocument.from_bytes("t.csolution.yml", raw)
    [finding] = M.extract(doc)
    assert finding.exact is False and finding.version == pin
    result = M.update(doc, BUMP)
    assert result.edits == ()
    [flag] = result.flags
    assert (flag.code, flag.path, flag.line, flag.blocking) == ("range-pin", "t.csolution.yml", 3, True)


def test_pin_at_another_version_moves_with_a_non_blocking_flag():
    raw = b"project:\n  packs:\n    - pack: PyTorch::ExecuTorch@1.3.1\n"
    result, new = bump_file(raw, "x.cproject.yml")
    assert new == raw.replace(b"1.3.1", b"1.5.1")
    [flag] = result.flags
    assert flag.code == "pin-was-different" and not flag.blocking and flag.line == 3
    # the location is the flag's path and line; the message no longer repeats it (printed twice before)
    assert "1.3.1" in flag.message and "1.4.0" in flag.message and flag.path == "x.cproject.yml"


def test_pin_already_at_target_gives_no_edit():
    raw = b"project:\n  packs:\n    - pack: PyTorch::ExecuTorch@1.5.1\n"
    result, new = bump_file(raw, "x.cproject.yml")
    assert result.edits == () and result.flags == () and new == raw


def test_local_path_pack_is_edited_and_flagged():
    raw = b"solution:\n  packs:\n    - pack: PyTorch::ExecuTorch@1.4.0\n      path: ./packs/PyTorch.ExecuTorch\n"
    result, new = bump_file(raw)
    assert new == raw.replace(b"@1.4.0", b"@1.5.1")
    assert [f.code for f in result.flags] == ["pack-path"]


def test_flow_style_list_is_located_exactly():
    raw = b"solution:\n  packs: [{pack: ARM::CMSIS}, {pack: 'PyTorch::ExecuTorch@1.4.0'}]  # flow\n"
    _, new = bump_file(raw)
    assert new == raw.replace(b"@1.4.0", b"@1.5.1")


@pytest.mark.parametrize("raw", [
    b"x: &et PyTorch::ExecuTorch@1.4.0\nsolution:\n  packs:\n    - pack: *et\n",
    b"solution:\n  packs:\n    - pack: &et PyTorch::ExecuTorch@1.4.0\n",
    b"base: &b\n  pack: PyTorch::ExecuTorch@1.4.0\nsolution:\n  packs:\n    - *b\n    - <<: *b\n",
    b"solution:\n  packs:\n    - pack: \"PyTorch::ExecuTorch@1.4\\x2e0\"\n",
])
def test_unsupported_layouts_are_refused(raw):
    doc = TextDocument.from_bytes("t.csolution.yml", raw)
    with pytest.raises(ManagerError) as info:
        M.update(doc, BUMP)
    assert "not supported" in str(info.value)
    assert str(info.value).startswith("t.csolution.yml")


def test_invalid_yaml_names_file_and_line():
    raw = b"solution:\n  packs:\n    - pack: PyTorch::ExecuTorch@1.4.0\n   - pack: [ARM::CMSIS\n"
    doc = TextDocument.from_bytes("bad.csolution.yml", raw)
    with pytest.raises(ManagerError) as info:
        M.extract(doc)
    err = info.value
    assert err.path == "bad.csolution.yml" and err.line == 4 and err.exit_code == 2
    assert str(err).startswith("bad.csolution.yml:4: invalid YAML")


def test_check_catches_an_edit_to_another_pack():
    raw = b"solution:\n  packs:\n    - pack: PyTorch::ExecuTorch@1.4.0\n    - pack: ARM::V2M_MPS3_SSE_300_BSP@1.5.0\n"
    doc = TextDocument.from_bytes("t.csolution.yml", raw)
    good = list(M.update(doc, BUMP).edits)
    start = raw.decode().index("1.5.0")
    wrong = Edit("t.csolution.yml", start, start + 5, "1.5.0", "1.5.1", 4, "pack-pin")
    after = TextDocument.from_bytes("t.csolution.yml", doc.apply(good + [wrong]))
    with pytest.raises(ManagerError) as info:
        M.check(doc, after, good + [wrong])
    assert info.value.line == 4 and "solution.packs[1].pack" in str(info.value)


def test_check_catches_an_edit_that_is_not_just_a_version():
    raw = b"solution:\n  packs:\n    - pack: PyTorch::ExecuTorch@1.4.0\n"
    doc = TextDocument.from_bytes("t.csolution.yml", raw)
    start = raw.decode().index("1.4.0")
    wrong = Edit("t.csolution.yml", start, start + 5, "1.4.0", "^1.5.1", 3, "pack-pin")
    after = TextDocument.from_bytes("t.csolution.yml", doc.apply([wrong]))
    with pytest.raises(ManagerError):
        M.check(doc, after, [wrong])


def test_check_catches_a_broken_file():
    raw = b"solution:\n  packs:\n    - pack: PyTorch::ExecuTorch@1.4.0\n"
    doc = TextDocument.from_bytes("t.csolution.yml", raw)
    edits = list(M.update(doc, BUMP).edits)
    broken = TextDocument.from_bytes("t.csolution.yml", doc.apply(edits) + b"  packs: [\n")
    with pytest.raises(ManagerError) as info:
        M.check(doc, broken, edits)
    assert "no longer parses" in str(info.value)


def test_check_accepts_comment_edits_of_another_manager():
    raw = b"# ExecuTorch 1.4.0\nsolution:\n  packs:\n    - pack: PyTorch::ExecuTorch@1.4.0  # was 1.4.0\n"
    doc = TextDocument.from_bytes("t.csolution.yml", raw)
    edits = list(M.update(doc, BUMP).edits)
    prose = Edit("t.csolution.yml", 13, 18, "1.4.0", "1.5.1", 1, "prose")
    M.check(doc, TextDocument.from_bytes("t.csolution.yml", doc.apply(edits + [prose])), edits + [prose])


def test_matches_patterns():
    for p in ("a.csolution.yml", "x/y.cproject.yaml", "ai_layer/ai_layer.clayer.yml"):
        assert M.matches(p)
    for p in ("a.cbuild-pack.yml", "vcpkg-configuration.json", "csolution.yml", "a.csolution.yml.bak"):
        assert not M.matches(p)
