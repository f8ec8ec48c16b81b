"""The parts of run-model that need no toolchain: the .pte reader, the component selection and the
headers generated from the PDSC, and the reading of the runner's semihosting lines."""

from __future__ import annotations

import pytest

import ptekit
from bot.modelrun import StageError
from bot.modelrun.pte import PteError, read_program
from bot.modelrun.qemu import parse_lines
from bot.modelrun.select import define_blocks, generated_headers, select
from bot.pack.pdsc import parse_pdsc
from bot.sample.packgen import DEMO_OPS, PackSpec, pdsc_text


def test_reader_lists_operators_delegates_and_inputs():
    p = read_program(ptekit.single("aten::_softmax", delegates=("EthosUBackend",)))
    assert (p.method, p.operators, p.delegates) == ("forward", ("aten::_softmax.out",), ("EthosUBackend",))
    assert [(t.dtype, t.sizes) for t in p.inputs] == [("float32", (4,))]
    assert read_program(ptekit.add_mul()).operator_names() == ["aten::add", "aten::mul"]


@pytest.mark.parametrize("data, message", [
    (b"\x08\x00\x00\x00TFL3\x00\x00", "file identifier b'TFL3', expected b'ET12'"),
    (b"\x10", "too short"),
    (b"\xff\xff\x00\x00ET12", "is outside the file"),
])
def test_reader_refuses_other_or_damaged_files(data, message):
    with pytest.raises(PteError, match=message.replace("(", r"\(").replace("[", r"\[")):
        read_program(data)


def test_truncated_program_is_refused_not_crashed():
    data = ptekit.add_mul()
    with pytest.raises(PteError, match="outside the file"):
        read_program(data[: len(data) // 2])


PRE = """<Pre_Include_Global_h>
#define C10_USING_CUSTOM_GENERATED_MACROS
#define FLATBUFFERS_MAX_ALIGNMENT 1024
</Pre_Include_Global_h>"""


def test_selection_takes_exactly_the_operators_and_headers_come_from_the_pdsc():
    text = pdsc_text(PackSpec(operators=DEMO_OPS)).replace(
        "<description>Runtime</description>", "<description>Runtime</description>" + PRE, 1).encode()
    pdsc = parse_pdsc(text, "PyTorch.ExecuTorch.pdsc")
    s = select(pdsc, ["aten::mul", "cortex_m::quantized_add"])
    assert [c.csub for c in s.components] == ["Runtime", "Kernel Utils", "Kernel Registration", "Portable mul",
                                              "Cortex-M quantized_add"]
    h = generated_headers(s, define_blocks(text))
    assert "#define RTE_ML_EXECUTORCH_OP_PORTABLE_MUL\n" in h["RTE_Components.h"]
    assert "PORTABLE_ADD" not in h["RTE_Components.h"]
    assert ("/* Machine Learning:ExecuTorch:Runtime */\n#define C10_USING_CUSTOM_GENERATED_MACROS\n"
            "#define FLATBUFFERS_MAX_ALIGNMENT 1024\n") in h["Pre_Include_Global.h"]
    assert "C10_USING" not in h["RTE_Components.h"]


def test_selection_names_every_missing_operator():
    pdsc = parse_pdsc(pdsc_text(PackSpec(operators=DEMO_OPS)).encode(), "PyTorch.ExecuTorch.pdsc")
    with pytest.raises(StageError) as exc:
        select(pdsc, ["aten::add", "aten::relu", "custom::op", "aten::sym_size"])
    assert exc.value.stage == "select"
    assert exc.value.lines == ["aten::relu (no operator component Portable relu)",
                               "custom::op (namespace 'custom' maps to no kernel library of the pack)",
                               "aten::sym_size (a prim op: no component of the pack holds the prim-op library)"]


@pytest.mark.parametrize("lines, stage, message", [
    ([], "boot", "did not boot"),
    (["ET_BOOT", "ET_LOG E program.cpp:10 bad header", "ET_LOAD_FAIL Program::load: Error 0x23"], "load",
     "Program::load: Error 0x23"),
    (["ET_BOOT", "ET_LOADED", "ET_FAULT a processor fault"], "execute", "the processor faulted"),
    (["ET_BOOT", "ET_LOADED", "ET_TICKS 3"], "execute", "before printing every output"),
])
def test_runner_lines_name_the_stage(lines, stage, message):
    with pytest.raises(StageError) as exc:
        parse_lines(lines)
    assert exc.value.stage == stage and message in exc.value.message


def test_runner_lines_give_outputs_and_ticks():
    outputs, ticks, _ = parse_lines(["ET_BOOT", "ET_LOADED", "ET_TICKS 19", "ET_OUT 0 6 2,3 0000803f", "ET_DONE"])
    assert ticks == 19 and outputs[0].sizes == (2, 3) and outputs[0].data == b"\x00\x00\x80\x3f"


def test_quantized_operator_maps_to_the_family_component_holding_it():
    ops = (("Portable", "add"), ("Quantized", "quantize"), ("Quantized", "quantized_x"), ("Quantized", "dequantize"))
    pdsc = parse_pdsc(pdsc_text(PackSpec(operators=ops)).encode(), "PyTorch.ExecuTorch.pdsc")
    s = select(pdsc, ["quantized_decomposed::quantize_per_tensor", "quantized_decomposed::dequantize_per_channel"])
    assert [c.csub for _, c in s.operators] == ["Quantized quantize", "Quantized dequantize"]
    with pytest.raises(StageError, match="no operator component Quantized choose_qparams_tensor"):
        select(pdsc, ["quantized_decomposed::choose_qparams_tensor"])
