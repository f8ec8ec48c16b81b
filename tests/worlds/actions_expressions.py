"""GitHub's own expression evaluator (npm ``@actions/expressions``, from actions/languageservices) run from tests.

:func:`evaluate` hands a batch of ``(expression, contexts)`` pairs to one
``node`` process and returns each result as JSON (``true``, a string, ...).
The contexts are plain JSON (``{"github": {...}}``) turned into the
evaluator's data with its own ``data.reviver``, as ``fromJSON`` does.  The
package is installed by ``.ci/run`` under ``.venv/actions-expressions``; a
test using it is skipped with the command to install it when it is absent.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path


ROOT = Path(__file__).resolve().parents[2]
MODULE = Path(os.environ.get("EXECUTORCH_PACK_BOT_EXPRESSIONS")
              or ROOT / ".venv/actions-expressions/node_modules/@actions/expressions/dist/index.js")

_SCRIPT = r"""
const { Lexer, Parser, Evaluator, data } = await import(process.argv[1]);
const chunks = [];
for await (const c of process.stdin) chunks.push(c);
const jobs = JSON.parse(Buffer.concat(chunks).toString("utf8"));
const out = [];
for (const [expr, ctx] of jobs) {
  const lr = new Lexer(expr).lex();
  const names = Object.keys(ctx);
  const tree = new Parser(lr.tokens, names, []).parse();
  const dict = JSON.parse(JSON.stringify(ctx), data.reviver);
  const result = new Evaluator(tree, dict).evaluate();
  out.push(JSON.parse(JSON.stringify(result, data.replacer)));
}
process.stdout.write(JSON.stringify(out));
"""


def strip_braces(text: str) -> str:
    """An ``if:`` value without its optional ``${{ }}`` (GitHub: "you can omit the expression syntax")."""
    t = text.strip()
    return t[3:-2].strip() if t.startswith("${{") and t.endswith("}}") and t.count("${{") == 1 else t


def template_to_expression(text: str) -> str:
    """A string with ``${{ X }}`` parts (``concurrency.group``) as one expression: ``format('...{0}...', X)``."""
    parts, args, rest = [], [], text
    while "${{" in rest:
        before, _, after = rest.partition("${{")
        inner, _, rest = after.partition("}}")
        parts.append(before.replace("'", "''").replace("{", "{{").replace("}", "}}") + "{%d}" % len(args))
        args.append(f"({inner.strip()})")
    parts.append(rest.replace("'", "''").replace("{", "{{").replace("}", "}}"))
    return f"format('{''.join(parts)}'{''.join(', ' + a for a in args)})"


def evaluate(jobs: list[tuple[str, dict]]) -> list:
    """The value of each expression with its contexts (one node process for the whole batch).

    Missing evaluator or node: the test is skipped, or fails when CI=true (.ci/run installs both)."""
    import optional_parts
    optional_parts.require("expressions")
    node = shutil.which("node")
    p = subprocess.run([node, "--input-type=module", "-e", _SCRIPT, MODULE.as_uri()],
                       input=json.dumps(jobs).encode(), capture_output=True, timeout=300, check=False)
    assert p.returncode == 0, p.stderr.decode("utf-8", "replace")
    return json.loads(p.stdout)


def evaluate_templates(cases: list[tuple[str, dict]]) -> list[str]:
    """``[(template, contexts)]`` -> the string GitHub makes of each value with ``${{ }}`` parts (an ``args:``,
    a ``concurrency.group``): evaluated as the runner does, as ``format()`` of its parts
    (:func:`template_to_expression`)."""
    return evaluate([(template_to_expression(t), c) for t, c in cases])
