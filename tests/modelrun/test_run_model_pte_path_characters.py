"""run-model links the .pte in by a path of its own: a .pte whose file name holds a quote, a backslash or a line
break (which ended the assembler's .incbin string and could add directives) builds as any other."""

from __future__ import annotations

import json

import pytest

import ptekit
from bot.cli import main
from bot.modelrun.host import dump
from bot.sample.packgen import write_demo_packs
from test_run_model_on_simulated_cortex_m55 import expected_add_mul

pytestmark = pytest.mark.needs("arm-gcc", "qemu")


def test_a_pte_named_with_quote_backslash_and_newline_runs(tmp_path, capsys):
    pack = write_demo_packs(tmp_path / "packs", "1.5.1").good
    d = tmp_path / 'odd"dir\\\n.incbin "x'
    d.mkdir()
    pte = d / "m.pte"
    pte.write_bytes(ptekit.add_mul())
    (tmp_path / "e.json").write_text(dump(expected_add_mul()))
    code = main(["run-model", str(pack), "--pte", str(pte), "--expected", str(tmp_path / "e.json"),
                 "--json", str(tmp_path / "r.json")])
    out = capsys.readouterr()
    assert code == 0, out.out + out.err
    assert json.loads((tmp_path / "r.json").read_text())["status"] == "match"
