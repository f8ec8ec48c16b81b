"""run-model's printed summary is inert: a .pte's operator names and the runtime's error lines can start no
workflow command, carry no terminal escape and are capped."""

from __future__ import annotations

from bot.commands.run_model import summary
from bot.modelrun.result import ModelResult


def test_hostile_names_and_errors_print_as_inert_single_lines():
    r = ModelResult(model="m\n::error::model", pack="p", status="fail", tolerance=0,
                    operators=["aten::add\n::error::op", "\x1b[31mred", "x" * 5000])
    r.stage, r.error = "select", "no operator aten::add\r\n::add-mask::secret"
    r.error_lines = ["##[error]legacy", "y" * 5000]
    out = summary(r).splitlines()
    assert out[0] == "run-model: m ::error::model on p: FAILED at select: no operator aten::add ::add-mask::secret"
    assert out[1].startswith("  operators: aten::add ::error::op, \ufffd[31mred, xxx") and len(out[1]) == 13 + 2001 and out[1].endswith("x…")
    assert out[2] == "  | ##\u200b[error]legacy"
    assert out[3] == "  | " + "y" * 500 + "…"
    assert len(out) == 4
