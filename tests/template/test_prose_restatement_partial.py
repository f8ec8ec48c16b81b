"""A sentence restating several pins moves whole or not at all: when one restated pin (torch, PyTorch,
torchao, Vela / ethos-u-vela, tosa-tools, as "name X.Y.Z" or "name==X.Y.Z") cannot move with the
others, the sentence keeps every version and gets one whole restatement-partial flag
(rules: bot/template/prose/__init__.py; bot/template/prose/manager.py _stuck_restatements)."""

from __future__ import annotations

import dataclasses

import pytest

from bot.model import Edit, Flag
from bot.template.prose.manager import ProseManager
from bot.textfile import TextDocument
from helpers import SAMPLE_BUMP, assert_flags, minor_bump

M = ProseManager()


def update(path: str, text: str, bump=SAMPLE_BUMP):
    return M.update(TextDocument.from_bytes(path, text.encode()), bump)


def partial(stuck: str, sentence: str, path: str = "README.md", line: int = 3) -> Flag:
    return Flag("restatement-partial", f"left as written: this sentence restates several pins and {stuck} cannot "
                "move with the others (no new value for it in this bump), so none is moved (a half-edited sentence "
                f"is worse than none); edit it by hand: {sentence}", path=path, line=line, blocking=False)


@pytest.mark.parametrize("restated, stuck", [
    ("torch 2.12.0", "torch 2.12.0"),
    ("torch==2.12.0", "torch 2.12.0"),
    ("PyTorch 2.12.0", "torch 2.12.0"),            # PyTorch is the torch package
    ("torchao 0.17.0", "torchao 0.17.0"),
    ("Vela 5.0.0", "ethos-u-vela 5.0.0"),          # Vela is the ethos-u-vela package
    ("ethos_u_vela 5.0.0", "ethos-u-vela 5.0.0"),  # the name as PEP 503 spells it
    ("TOSA-tools 2026.1.0", "tosa-tools 2026.1.0"),
    ("torch 2.12.0 and torchao 0.17.0", "torch 2.12.0, torchao 0.17.0"),
])
def test_a_restated_pin_that_cannot_move_keeps_the_whole_sentence(restated, stuck):
    sentence = f"ExecuTorch 1.4.0 targets {restated}"
    result = update("README.md", f"# A\n\n{sentence}.\n")
    assert result.edits == ()
    assert_flags(result.flags, partial(stuck, sentence))


@pytest.mark.parametrize("restated, stuck", [
    ("torch 2.12.0", "torch 2.12.0"),
    ("torch==2.12.0", "torch 2.12.0"),
    ("torchao 0.17.0", "torchao 0.17.0"),
    ("Vela 5.0.0", "ethos-u-vela 5.0.0"),
    ("TOSA-tools 2026.1.0", "tosa-tools 2026.1.0"),
])
def test_each_restated_name_alone_beside_the_pack_form_is_found(restated, stuck):
    # "PyTorch::ExecuTorch@1.4.0" holds neither "torch " nor "torch=": the one restated name is the only hint
    sentence = f"The PyTorch::ExecuTorch@1.4.0 pack targets {restated}"
    result = update("README.md", f"# A\n\n{sentence}.\n")
    assert result.edits == ()
    assert_flags(result.flags, partial(stuck, sentence))


def test_a_restated_pin_of_a_package_the_bump_does_not_move_is_stuck():
    # minor_bump() moves torch and torchao but has no ethos-u-vela pin: Vela 5.1.0 has no new value
    sentence = "ExecuTorch 1.4.0 targets Vela 5.1.0"
    result = update("README.md", f"# A\n\n{sentence}.\n", minor_bump())
    assert result.edits == ()
    assert_flags(result.flags, partial("ethos-u-vela 5.1.0", sentence))


def test_a_restated_pin_already_at_the_new_value_lets_the_sentence_move():
    result = update("README.md", "# A\n\nExecuTorch 1.4.0 targets torch 2.14.0.\n")
    assert result.edits == (Edit("README.md", 16, 21, "1.4.0", "1.5.1", 3, "prose",
                                 'prose: "ExecuTorch X" in text names the current ExecuTorch 1.4.0'),)
    assert result.flags == ()


def test_restated_old_pins_move_with_the_sentence():
    result = update("README.md", "# A\n\nExecuTorch 1.4.0 targets torch 2.13.0 and Vela 5.1.0.\n")
    assert result.edits == (
        Edit("README.md", 16, 21, "1.4.0", "1.5.1", 3, "prose",
             'prose: "ExecuTorch X" in text names the current ExecuTorch 1.4.0'),
        Edit("README.md", 36, 42, "2.13.0", "2.14.0", 3, "prose",
             'prose: "torch Y" restates the torch pin of ExecuTorch 1.4.0'),
        Edit("README.md", 52, 57, "5.1.0", "5.2.0", 3, "prose",
             'prose: "ethos-u-vela Y" restates the ethos-u-vela pin of ExecuTorch 1.4.0'),
    )
    assert result.flags == ()


def test_a_stuck_pin_on_the_second_comment_line_of_a_sentence_keeps_it_whole():
    # the sentence spans two comment regions; the first names no derived pin (PyTorch::ExecuTorch is the pack)
    text = "# The PyTorch::ExecuTorch@1.4.0 pack of this build\n# targets torchao 0.17.0.\nimport os\n"
    result = update("setup.py", text)
    assert result.edits == ()
    assert_flags(result.flags, partial(
        "torchao 0.17.0", "# The PyTorch::ExecuTorch@1.4.0 pack of this build # targets torchao 0.17.0",
        path="setup.py", line=1))


def test_a_pack_name_is_not_a_restated_pin():
    # PyTorch::ExecuTorch names the pack, not torch: the sentence moves
    result = update("README.md", "# A\n\nThe PyTorch::ExecuTorch pack follows ExecuTorch 1.4.0.\n")
    assert [(e.start, e.end, e.old, e.new) for e in result.edits] == [(53, 58, "1.4.0", "1.5.1")]
    assert result.flags == ()


def test_a_sentence_after_a_restatement_partial_one_still_moves():
    result = update("README.md", "# A\n\nExecuTorch 1.4.0 targets torchao 0.17.0.\n\nInstall ExecuTorch 1.4.0.\n")
    assert result.edits == (Edit("README.md", 66, 71, "1.4.0", "1.5.1", 5, "prose",
                                 'prose: "ExecuTorch X" in text names the current ExecuTorch 1.4.0'),)
    assert_flags(result.flags, partial("torchao 0.17.0", "ExecuTorch 1.4.0 targets torchao 0.17.0"))


def test_the_templates_own_old_pin_is_restated_and_moves():
    # Bump.restated: the template pins torch 2.12.0 where upstream had 2.13.0; an ExecuTorch pin there is ignored
    bump = dataclasses.replace(SAMPLE_BUMP, restated=(("torch", "2.12.0"), ("executorch", "1.3.0")))
    result = update("README.md", "# A\n\nExecuTorch 1.4.0 targets torch 2.12.0.\n", bump)
    assert result.edits == (
        Edit("README.md", 16, 21, "1.4.0", "1.5.1", 3, "prose",
             'prose: "ExecuTorch X" in text names the current ExecuTorch 1.4.0'),
        Edit("README.md", 36, 42, "2.12.0", "2.14.0", 3, "prose",
             'prose: "torch Y" restates the torch pin of ExecuTorch 1.4.0'),
    )
    assert result.flags == ()


def test_the_templates_own_pin_of_a_package_the_bump_does_not_move_is_stuck():
    bump = dataclasses.replace(minor_bump(), restated=(("ethos-u-vela", "5.0.0"),))
    sentence = "ExecuTorch 1.4.0 targets Vela 5.0.0"
    result = update("README.md", f"# A\n\n{sentence}.\n", bump)
    assert result.edits == ()
    assert_flags(result.flags, partial("ethos-u-vela 5.0.0", sentence))
