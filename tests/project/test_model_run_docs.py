"""docs/model-run.md and docs/getting-started.md say what run-model does with the demo's program: the
--expected example is the demo program's real reference, the run-model command getting-started shows is the one
``demo --keep`` prints, the --pack-cache default is the one --help gives, and the sample packs' limits are said."""

from __future__ import annotations

import json
import re
from pathlib import Path

from bot.sample.pte import add_mul_expected

ROOT = Path(__file__).resolve().parents[2]
MODEL_RUN = (ROOT / "docs" / "model-run.md").read_text()
GETTING_STARTED = (ROOT / "docs" / "getting-started.md").read_text()


def _flat(text: str) -> str:
    return " ".join(text.split())


def test_the_expected_example_is_the_demo_programs_reference():
    block = re.search(r"## The `--expected` file\n.*?```json\n(.*?)```", MODEL_RUN, re.S).group(1)
    assert json.loads(block) == add_mul_expected()
    assert '"scalar_type": 6' in block and "ExecuTorch's `ScalarType` number" in MODEL_RUN


def test_getting_started_shows_the_run_model_command_the_demo_prints(tmp_path, capsys):
    from helpers import run_cli
    keep = tmp_path / "demo-files"
    rc, out, _ = run_cli(capsys, "demo", "--keep", keep, "--dry-run")
    assert rc == 0
    printed = [ln.strip().replace(str(keep), "demo-files") for ln in out.splitlines()
               if ln.strip().startswith("executorch-pack-bot run-model ")]
    shown = [ln.split("   #")[0] for ln in GETTING_STARTED.splitlines() if ln.startswith("executorch-pack-bot run-model ")]
    assert shown == printed == ["executorch-pack-bot run-model demo-files/packs/PyTorch.ExecuTorch.1.5.1.pack "
                                "--pte demo-files/model/add_mul.pte --expected demo-files/model/add_mul.expected.json"]


def test_model_run_doc_says_the_sample_packs_limits_the_reference_rule_and_the_cache_default():
    flat = _flat(MODEL_RUN)
    assert "matches `add_mul` while `linear_relu_add` fails at select" in flat
    assert "With neither, or with a `--host-python` that names no program, `run-model` stops with exit 2" in flat
    assert "`doctor` reads the `model:` setting the same way" in flat
    assert "(default `$EXECUTORCH_PACK_BOT_CACHE/packs`, else not kept)" in flat
