"""Every list the bot takes from GitHub is read through the one reader (bot.github.pages), found in the code.

The scan walks every module of ``bot/`` and finds each list call:

- a PyGithub method that returns a ``PaginatedList`` (found from PyGithub's
  own return annotations: ``get_pulls``, ``get_issue_comments``,
  ``get_reviews``, ``get_releases``, ``get_branches``, ``get_repos``, ...):
  it must be the first argument of :func:`bot.github.pages.every`;
- a REST GET (``api.get``, ``remote.get``, ``requester.requestJsonAndCheck("GET", ...)``,
  ``requester.requestJson("GET", ...)``, a local ``get(path)``) whose path is a
  paginated list in GitHub's OpenAPI description (a GET operation taking
  ``per_page``): it must go through ``Api.list``, ``pages.rest`` or
  ``Remote.get_pages`` instead;
- a GraphQL connection asked with ``first:``: its module must read it with
  :func:`bot.github.pages.connection`, and the query must ask ``pageInfo``.

It fails on a deliberate bypass: a copy of ``bot/`` with one reader call
turned back into a one-page GET, and synthetic modules of each kind.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import json
import pkgutil
import re
import shutil
from functools import lru_cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
OPENAPI = ROOT / ".venv/octokit-openapi/node_modules/@octokit/openapi/generated/api.github.com.json"
READER = "bot/github/pages.py"


@lru_cache(maxsize=1)
def paginated_methods() -> frozenset:
    """Names of PyGithub methods annotated to return a ``PaginatedList``."""
    import github

    names = set()
    for info in pkgutil.iter_modules(github.__path__):
        try:
            mod = importlib.import_module(f"github.{info.name}")
        except Exception:  # noqa: BLE001 - an optional part of PyGithub
            continue
        for _, cls in inspect.getmembers(mod, inspect.isclass):
            if cls.__module__ != mod.__name__:
                continue
            for fname, fn in inspect.getmembers(cls, inspect.isfunction):
                if "PaginatedList" in str(fn.__annotations__.get("return", "")) and fname.startswith(("get_", "search_")):
                    names.add(fname)
    return frozenset(names)


@lru_cache(maxsize=1)
def paginated_paths() -> tuple:
    """Regexes of the paths of GitHub's GET operations that take ``per_page`` (OpenAPI, api.github.com)."""
    if not OPENAPI.is_file():
        pytest.skip(f"GitHub's OpenAPI description is not installed ({OPENAPI}); .ci/run installs it with npm")
    d = json.loads(OPENAPI.read_text(encoding="utf-8"))
    out = []
    for path, ops in d["paths"].items():
        op = ops.get("get")
        if not op:
            continue
        params = [p.get("$ref", "").rsplit("/", 1)[-1] or p.get("name") for p in op.get("parameters", ())]
        if "per-page" in params or "per_page" in params:
            out.append(re.compile(re.sub(r"\\\{[^}]+\\\}", "[^/]+", re.escape(path))))
    return tuple(out)


def _text(node) -> str | None:
    """A path argument as text: a string, or an f-string with each ``{...}`` as ``{}``; None otherwise."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant) else "{}" for v in node.values)
    return None


def _candidates(path: str) -> list[str]:
    """The API paths ``path`` may stand for: a relative one under ``/repos/{o}/{r}/``; each ``{}`` one or two
    segments (``{full_name}`` is OWNER/NAME)."""
    path = path.split("?", 1)[0]
    if not path.startswith("/"):
        path = "/repos/x/x/" + path
    elif not re.match(r"/(repos|orgs|users|user|installation|app|search|graphql|rate_limit)\b", path):
        path = "/repos/x/x" + path   # a path under the repository, joined by a local helper
    n = path.count("{}")
    out = []
    for mask in range(2 ** min(n, 6)):
        p, i = "", 0
        for part in re.split(r"(\{\})", path):
            if part == "{}":
                p += "x/x" if mask >> i & 1 else "x"
                i += 1
            else:
                p += part
        out.append(p.rstrip("/") or "/")
    return out


def _is_list_path(path: str) -> bool:
    return any(rx.fullmatch(c) for c in _candidates(path) for rx in paginated_paths())


def _receiver(func) -> str:
    return ast.unparse(func.value) if isinstance(func, ast.Attribute) else ""


def scan(root: Path) -> list[str]:
    """Every list call under ``root/bot`` that bypasses the reader: ``"file:line: what"``."""
    found = []
    methods = paginated_methods()
    for f in sorted((root / "bot").rglob("*.py")):
        rel = f.relative_to(root).as_posix()
        if rel == READER:
            continue
        tree = ast.parse(f.read_text(encoding="utf-8"), filename=rel)
        wrapped = set()
        for node in ast.walk(tree):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "every"
                    and _receiver(node.func) == "pages" and node.args):
                wrapped.add(id(node.args[0]))
        reads_connections = False
        for node in ast.walk(tree):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "connection"
                    and _receiver(node.func) == "pages"):
                reads_connections = True
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and re.search(r"\(\s*first:", node.value):
                if not reads_connections or "pageInfo" not in node.value or "hasNextPage" not in node.value:
                    found.append(f"{rel}:{node.lineno}: a GraphQL connection (first:) not read with pages.connection")
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
            if name in methods and isinstance(func, ast.Attribute) and id(node) not in wrapped:
                found.append(f"{rel}:{node.lineno}: PyGithub {name}() (a PaginatedList) not read with pages.every")
                continue
            args = list(node.args)
            path = None
            if name in ("requestJsonAndCheck", "requestJson") and len(args) >= 2 and _text(args[0]) == "GET":
                path = _text(args[1])
            elif name == "get" and args and (isinstance(func, ast.Name)
                                              or re.search(r"(^|\.)(api|remote)$", _receiver(func))):
                path = _text(args[0])
            if path is not None and _is_list_path(path):
                found.append(f"{rel}:{node.lineno}: GET {path} is a paginated list read as one page "
                             "(use Api.list, pages.rest or Remote.get_pages)")
    return found


def test_every_list_call_in_the_bot_goes_through_the_reader():
    assert scan(ROOT) == []


def test_the_scan_sees_the_list_calls_the_bot_makes():
    """The scan is not vacuous: the paths the bot lists are paginated in the OpenAPI description and the
    PyGithub methods it wraps are known PaginatedList methods."""
    for path in ("pulls", "issues", "issues/{}/comments", "rules/branches/{}", "/repos/{}/releases",
                 "/orgs/{}/repos", "/installation/repositories", "/repos/{}/pulls/{}/reviews",
                 "/repos/{}/issues/{}/events", "/repos/{}/branches"):
        assert _is_list_path(path), path
    for path in ("pulls/{}", "branches/{}", "collaborators/{}/permission", "/repos/{}", "/repos/{}/releases/tags/{}"):
        assert not _is_list_path(path), path
    assert {"get_pulls", "get_issue_comments", "get_reviews", "get_releases", "get_branches", "get_repos",
            "get_comments"} <= paginated_methods()


BYPASSES = {
    "rest_one_page": 'def f(api):\n    return api.get("pulls", "list pull requests", state="all", per_page=100)\n',
    "rest_absolute": 'def f(req, full):\n    return req.requestJsonAndCheck("GET", f"/repos/{full}/pulls/1/reviews")\n',
    "pygithub": 'def f(repo, call):\n    return call(lambda: list(repo.get_pulls(state="all")), "list")\n',
    "installation": 'def f(inst):\n    return list(inst.get_repos())\n',
    "graphql": 'Q = "query { repository(owner: \\"a\\", name: \\"b\\") { pullRequests(first: 100) { nodes { number } } } }"\n',
    "fleet_remote": 'def f(remote, repo):\n    return remote.get(f"/repos/{repo}/issues", {"state": "all"}, what="x")\n',
}


@pytest.mark.parametrize("kind", sorted(BYPASSES))
def test_the_scan_fails_on_a_synthetic_bypass(tmp_path, kind):
    (tmp_path / "bot").mkdir()
    (tmp_path / "bot" / "bypass.py").write_text(BYPASSES[kind], encoding="utf-8")
    [hit] = scan(tmp_path)
    assert hit.startswith("bot/bypass.py:")


def test_the_scan_fails_on_a_copy_of_the_bot_with_one_reader_call_undone(tmp_path):
    shutil.copytree(ROOT / "bot", tmp_path / "bot", ignore=shutil.ignore_patterns("__pycache__", "sample"))
    target = tmp_path / "bot/events/ignored.py"
    text = target.read_text(encoding="utf-8")
    undone = text.replace('self.api.list("pulls", f"list the pull requests of {self.api.full_name}", state="all")',
                          'self.api.get("pulls", "list pull requests", state="all", per_page=100)', 1)
    assert undone != text
    target.write_text(undone, encoding="utf-8")
    hits = scan(tmp_path)
    assert len(hits) == 1 and hits[0].startswith("bot/events/ignored.py:") and "GET pulls" in hits[0]


def test_the_scan_accepts_the_reader_forms(tmp_path):
    (tmp_path / "bot").mkdir()
    (tmp_path / "bot" / "ok.py").write_text(
        "from bot.github import pages\n"
        "def f(api, repo, call, remote):\n"
        '    a = api.list("pulls", "list", state="all")\n'
        '    b = pages.every(repo.get_pulls(state="all"), what="list", call=call)\n'
        '    c = remote.get_pages("/repos/a/b/pulls", {}, what="x", keep=list)\n'
        '    d = api.get("pulls/1", "read")\n'
        '    return pages.connection(lambda after: None, what="x")\n'
        'Q = "query { x { comments(first: 100) { pageInfo { hasNextPage endCursor } nodes { id } } } }"\n',
        encoding="utf-8")
    assert scan(tmp_path) == []
