"""docs/example-pr.md is the PR body the bot writes for the shipped sample's bump, and stays so.

When the body changes on purpose, rewrite the page with
``EXECUTORCH_PACK_BOT_REWRITE_EXAMPLES=1 python -m pytest tests/report/test_example_pr.py``.
"""

from __future__ import annotations

import os

from bot.report import parse_fingerprint
from bot.report.body import MAX_BODY
from bot.report.example import DOC, example_body, example_page

REWRITE = "EXECUTORCH_PACK_BOT_REWRITE_EXAMPLES"


def test_docs_example_pr_is_the_body_for_the_sample_bump():
    page = example_page()
    if os.environ.get(REWRITE) == "1":
        DOC.write_text(page, encoding="utf-8")
    assert DOC.read_text(encoding="utf-8") == page, (
        f"{DOC.name} is stale: rerun with {REWRITE}=1 and review the diff")


def test_the_sample_body_answers_the_reviewer_without_the_compare_view():
    body = example_body()
    heads = [line for line in body.splitlines() if line.startswith("### ")]
    assert heads == ["### Verdict", "### For the reviewer (4)", "### Maintenance procedure", "### Upstream changes that matter",
                     "### Pins", "### Files changed", "### Pack verification: `PyTorch.ExecuTorch.1.5.1.pack`",
                     "### Template CI", "### Hardware test plan", "### Reproduce locally"]
    assert "Only comments or white space changed (no table, field or type of the `.pte` format)." in body
    assert "loads as before" not in body
    assert ("- `Machine Learning:ExecuTorch Operators:Portable add`: 1 source file of its own changed: "
            "`kernels/portable/cpu/op_add.cpp`") in body
    assert ("- `backends/cortex_m/`: 1 file changed (0 test files): `backends/cortex_m/ops/op_quantized_add.cpp`; "
            "operator sources added: `op_quantized_add`") in body.split("<details><summary>Arm backend changes in detail")[1]
    assert "pass classes added: `FuseQuantizedActivationPass`" in body
    # the sample template's own venv script, then the rewritten requirements file it does not install
    assert "  python3 setup_venv.py\n  . .venv/bin/activate\n  pip install --no-deps -r requirements-arm-tosa.txt\n" in body
    assert "10 pin edits, 18 prose edits, 2 lock entries in 11 files." in body
    assert len(body) < MAX_BODY and parse_fingerprint(body) is not None


def test_the_sample_body_claims_no_more_than_was_proven_and_counts_alike():
    # the sample's pack is verified but the index was not asked and neither compile nor model run ran: no ✅;
    # the measured-numbers note cites both measured lines with the releases they name; the components counts agree
    body = example_body()
    verdict = body.split("### Verdict\n\n", 1)[1].split("\n\n", 1)[0].splitlines()
    assert verdict[2].startswith("- ➖ **Pack**: ") and verdict[2].endswith("the public index was not asked")
    assert verdict[4] == ("- ➖ **Proofs**: pack verification passed; compile of the Runtime sources not run; model run "
                          "not run")
    assert ("2 lines name the ExecuTorch release each was measured with (`1.3.0`, `1.4.1`). Re-measure them on hardware "
            "or mark them as history.") in body
    assert "- `documentation/results.md:5`: " in body and "- `documentation/results.md:6`: " in body
    assert "1 of the 4 ExecuTorch components the template selects has upstream source files that changed" in body
    assert verdict[5].startswith("- ➖ **Not proven by this pull request**: the template's own build")
    assert "all 4 ExecuTorch components the template selects \\(5 selections in 2 files\\) are in the pack" in body
