"""Every place in bot/ that sends text to GitHub or to the Actions runner passes it through the one writer,
bot.limits (fit / fit_payload / fit_output), right at the call that sends it.

What counts as a send (found in the source, not listed by hand):
- a PyGithub write that carries text (create_issue, create_issue_comment, create_comment, create_pull,
  create_review, create_git_commit, create_git_tag, create_check_run, and edit(...) with text or positional
  arguments): each text argument must be a writer call, or a name every assignment of which is one;
- a raw REST or GraphQL request (requestJsonAndCheck, requestJson, requestJsonAndCheck's siblings,
  graphql_query) that is not a GET: its ``input=`` likewise, or a dict literal whose text keys are;
- ``git commit-tree`` / ``git commit`` run with a message (``input=``);
- the runner's files and commands: only bot/actions.py may name ``GITHUB_STEP_SUMMARY`` or ``GITHUB_OUTPUT``
  in an environment lookup, only bot/actions.py and bot/logstream.py may write a ``::command::`` string, and
  bot/actions.py's own ``_append`` must get writer output.
A short string literal is allowed (its size is known).  The test is shown to fail on a copy of bot/ with a
deliberate bypass.
"""

from __future__ import annotations

import ast
import shutil
from pathlib import Path

import pytest

BOT = Path(__file__).resolve().parents[2] / "bot"
WRITERS = {"fit", "fit_payload", "fit_output", "_annotation"}
TEXT_KEYS = {"body", "title", "message", "text", "summary", "output"}
PYGITHUB_TEXT = {"create_issue", "create_issue_comment", "create_comment", "create_pull", "create_review",
                 "create_git_commit", "create_git_tag", "create_check_run", "edit"}
RAW = {"requestJsonAndCheck", "requestJson", "requestMultipartAndCheck", "graphql_query"}
RUNNER_FILES = {"GITHUB_STEP_SUMMARY", "GITHUB_OUTPUT"}
#: the workflow commands that carry a message (a fold's ``::group::``/``::stop-commands::`` carry only the bot's name)
COMMANDS = ("::error", "::warning", "::notice", "::set-output", "::debug", "::add-mask")
RUNNER_OWNERS = {"actions.py", "logstream.py", "limits.py"}


def _name(func: ast.AST) -> str:
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""


class _Scan(ast.NodeVisitor):
    def __init__(self, rel: str):
        self.rel, self.found, self.fn = rel, [], []

    def visit_FunctionDef(self, node):
        self.fn.append(node)
        self.generic_visit(node)
        self.fn.pop()

    visit_AsyncFunctionDef = visit_FunctionDef

    def _assigned(self, name: str) -> list:
        """The values assigned to ``name`` in the enclosing function (its parameters: an unknown value)."""
        if not self.fn:
            return [None]
        fn = self.fn[-1]
        if name in {a.arg for a in fn.args.args + fn.args.kwonlyargs + fn.args.posonlyargs}:
            return [None]
        out = []
        for n in ast.walk(fn):
            if isinstance(n, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in n.targets):
                out.append(n.value)
            elif isinstance(n, (ast.AnnAssign, ast.AugAssign)) and isinstance(n.target, ast.Name) \
                    and n.target.id == name:
                out.append(n.value if not isinstance(n, ast.AugAssign) else None)
        return out or [None]

    def fitted(self, node) -> bool:
        if node is None:
            return False
        if isinstance(node, ast.Constant):
            return not isinstance(node.value, str) or len(node.value) < 1000
        if isinstance(node, ast.Call):
            if _name(node.func) in WRITERS:
                return True
            if isinstance(node.func, ast.Attribute) and node.func.attr == "encode":   # fit(...).encode()
                return self.fitted(node.func.value)
            return False
        if isinstance(node, ast.Name):
            return all(self.fitted(v) for v in self._assigned(node.id))
        if isinstance(node, ast.Dict):
            return all(self.fitted(v) for k, v in zip(node.keys, node.values)
                       if isinstance(k, ast.Constant) and k.value in TEXT_KEYS)
        return False

    def bad(self, node, what):
        self.found.append(f"{self.rel}:{node.lineno}: {what}")

    def visit_Call(self, node):
        name = _name(node.func)
        kw = {k.arg: k.value for k in node.keywords if k.arg}
        if name in PYGITHUB_TEXT and isinstance(node.func, ast.Attribute):
            texts = [v for k, v in kw.items() if k in TEXT_KEYS]
            if name != "edit" or node.args:
                texts += list(node.args) if name in ("create_issue_comment", "create_comment", "edit") else []
                if name in ("create_git_commit", "create_issue"):
                    texts += node.args[:1] + (node.args[1:2] if name == "create_issue" else [])
                if name == "create_git_tag":
                    texts += node.args[1:2]
            for t in texts:
                if not self.fitted(t):
                    self.bad(node, f".{name}(...) sends text not passed through bot.limits")
        if name in RAW:
            method = node.args[0] if node.args else kw.get("verb")
            is_get = isinstance(method, ast.Constant) and method.value == "GET"
            payload = kw.get("input") if name != "graphql_query" else (node.args[1] if len(node.args) > 1 else None)
            if not is_get and payload is not None and not self.fitted(payload):
                self.bad(node, f".{name}(...) sends a payload not passed through bot.limits")
        if any(isinstance(a, ast.Constant) and a.value in ("commit-tree", "commit") for a in node.args) \
                and "input" in kw and not self.fitted(kw["input"]):
            self.bad(node, "git commit with a message not passed through bot.limits")
        if Path(self.rel).name not in RUNNER_OWNERS:
            lookup = (name in ("get", "getenv") and node.args and isinstance(node.args[0], ast.Constant)
                      and node.args[0].value in RUNNER_FILES)
            if lookup:
                self.bad(node, f"reads ${node.args[0].value} itself: write through bot.actions")
        if self.rel == "actions.py" and name == "_append" and len(node.args) >= 3 and not self.fitted(node.args[2]):
            self.bad(node, "bot.actions writes a runner file with text not passed through bot.limits")
        self.generic_visit(node)

    def visit_Subscript(self, node):
        if (Path(self.rel).name not in RUNNER_OWNERS and isinstance(node.slice, ast.Constant)
                and node.slice.value in RUNNER_FILES):
            self.bad(node, f"reads ${node.slice.value} itself: write through bot.actions")
        self.generic_visit(node)

    def visit_Constant(self, node):
        if (Path(self.rel).name not in RUNNER_OWNERS and isinstance(node.value, str)
                and node.value.startswith(COMMANDS)):
            self.bad(node, f"writes the workflow command {node.value.split('::')[1]!r} itself: use bot.actions")



def bypasses(root: Path) -> list[str]:
    """Every send in the package at ``root`` that does not go through the writer, as ``path:line: what``."""
    found = []
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        if rel == "limits.py" or "/sample/" in f"/{rel}":
            continue
        scan = _Scan(rel)
        scan.visit(ast.parse(path.read_text(encoding="utf-8"), str(path)))
        found += scan.found
    return found


def test_every_text_the_bot_sends_goes_through_the_writer():
    assert bypasses(BOT) == []


def test_the_scan_finds_the_sends_it_must_cover():
    """The scan is not vacuous: the known senders are seen (a send it does not recognise would pass unnoticed)."""
    import re
    text = {p.relative_to(BOT).as_posix(): p.read_text() for p in BOT.rglob("*.py")}
    assert re.search(r"create_pull\(.*title=fit\(", text["github/publish.py"], re.S)
    assert "fit_payload(body)" in text["events/context.py"]
    assert 'fit(f"{MARKER}' in text["fleet/summary.py"]


BYPASSES = [
    ("github/publish.py", "def _bypass_comment(pr, text):\n    pr.create_issue_comment(text)\n",
     ".create_issue_comment(...) sends text not passed through bot.limits"),
    ("github/publish.py", "def _bypass_edit(pr, body):\n    pr.edit(title='x', body=body)\n",
     ".edit(...) sends text not passed through bot.limits"),
    ("events/context.py", "def _bypass_raw(gh, body):\n    gh.requester.requestJsonAndCheck('POST', '/x', input=body)\n",
     ".requestJsonAndCheck(...) sends a payload not passed through bot.limits"),
    ("fleet/summary.py", "def _bypass_dict(req, body):\n    req.requestJsonAndCheck('PATCH', '/x', input={'body': body})\n",
     ".requestJsonAndCheck(...) sends a payload not passed through bot.limits"),
    ("commands/run.py", "def _bypass_summary():\n    import os\n    open(os.environ.get('GITHUB_STEP_SUMMARY'), 'a')\n",
     "reads $GITHUB_STEP_SUMMARY itself"),
    ("commands/run.py", "def _bypass_annotation(m):\n    print(f'::error::{m}')\n",
     "writes the workflow command 'error' itself"),
]


@pytest.mark.parametrize("rel, code, expected", BYPASSES, ids=[b[2].split(" ")[0] + "-" + b[0] for b in BYPASSES])
def test_a_deliberate_bypass_on_a_copy_of_the_package_is_found(tmp_path, rel, code, expected):
    copy = tmp_path / "bot"
    shutil.copytree(BOT, copy, ignore=shutil.ignore_patterns("__pycache__"))
    with open(copy / rel, "a", encoding="utf-8") as fh:
        fh.write("\n\n" + code)
    found = bypasses(copy)
    assert len(found) == 1 and found[0].startswith(f"{rel}:") and expected in found[0], found
