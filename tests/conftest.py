"""Shared pytest fixtures: the sample upstream and template, and the fake GitHub server with a template remote (fake, tpl, world)."""

from __future__ import annotations

import ctypes
import shutil
import sys
from contextlib import contextmanager
from pathlib import Path

import pytest

# The tests live in folders that mirror bot/ (tests/README.md), the shared worlds in tests/worlds/; tests import the
# worlds and each other by module name, so every such folder is on sys.path before any test module is imported.
_TESTS = Path(__file__).resolve().parent
for _folder in sorted(p for p in _TESTS.iterdir() if p.is_dir() and p.name not in ("fixtures", "bench", "mutation")
                      and not p.name.startswith((".", "_"))):
    if str(_folder) not in sys.path:
        sys.path.insert(0, str(_folder))


def pytest_configure(config):
    """The ``needs`` mark: the optional parts a test needs (tests/worlds/optional_parts.py)."""
    config.addinivalue_line("markers", "needs(*parts): optional parts the test needs (tests/worlds/optional_parts.py): "
                            "missing, it is skipped with how to get them, or fails when CI=true")


def pytest_runtest_setup(item):
    """Each part a ``needs`` mark names (function, class or module) is there, or the test skips (fails when CI=true)."""
    import optional_parts
    parts = [p for mark in item.iter_markers("needs") for p in mark.args]
    if item.get_closest_marker("workflow"):   # a scenario under act: act and the bot's locked wheels
        parts += ["act", "wheelhouse"]
    optional_parts.require(*parts, item=item)


@pytest.fixture(scope="session")
def upstream_repo(tmp_path_factory):
    """A local ExecuTorch-like git repository with the sample release tags (built once per session)."""
    from bot.sample import build_upstream_repo
    return build_upstream_repo(tmp_path_factory.mktemp("upstream") / "executorch.git")


@pytest.fixture
def template(tmp_path):
    """A fresh copy of the shipped sample template (on ExecuTorch 1.4.0)."""
    from bot.commands.demo import copy_template
    return copy_template(tmp_path / "template")


@pytest.fixture
def tags(tmp_path) -> Path:
    """A writable copy of the sample upstream tag folders (v1.4.0, v1.5.1), for a DirectorySource."""
    from bot.sample import UPSTREAM_DIR
    root = tmp_path / "tags"
    for name in ("v1.4.0", "v1.5.1"):
        shutil.copytree(UPSTREAM_DIR / name, root / name)
    return root


@pytest.fixture(autouse=True)
def _no_public_pack_index(monkeypatch):
    """Tests never ask the real public CMSIS pack index: off unless a test (or ``fake``) points it at a local server."""
    monkeypatch.setenv("EXECUTORCH_PACK_BOT_PACK_INDEX_URL", "off")


def _process_flags() -> tuple[int, int] | None:
    """This process's ``(PR_GET_CHILD_SUBREAPER, PR_GET_DUMPABLE)`` (man 2 prctl), or None where there is no prctl."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        flag = ctypes.c_int(0)
        if libc.prctl(37, ctypes.byref(flag), 0, 0, 0) != 0:
            return None
        return flag.value, libc.prctl(3, 0, 0, 0, 0)
    except (OSError, AttributeError):
        return None


@contextmanager
def process_flags_kept():
    """Put back this process's child-subreaper and dumpable flags as they were, on leaving the block."""
    before = _process_flags()
    try:
        yield
    finally:
        now = _process_flags()
        if before is not None and now is not None and now != before:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(36, before[0], 0, 0, 0)    # PR_SET_CHILD_SUBREAPER
            libc.prctl(4, before[1], 0, 0, 0)     # PR_SET_DUMPABLE


@pytest.fixture(autouse=True)
def _process_flags_restored():
    """A test that runs :func:`bot.contain.guest` (or ``bot.contain.main``) in this process makes it a child
    subreaper and non-dumpable; both are set back afterwards, so the process running the tests (pytest, or
    mutmut, which forks a worker per mutant and waits for exactly those pids) adopts no orphan of a later test."""
    with process_flags_kept():
        yield


@pytest.fixture
def fake(monkeypatch):
    """The fake GitHub REST server (tests/worlds/fakegithub.py) on 127.0.0.1, and an environment pointing at it.

    $GITHUB_TOKEN is :data:`github_world.TOKEN`; waits and write pauses are zero; the
    Actions files and the cache are unset; the public pack index is the fake's ``/pack/index.pidx``.
    """
    from fakegithub import FakeGitHub
    from github_world import TOKEN
    f = FakeGitHub()
    url = f.start()
    for k, v in {"GITHUB_API_URL": url, "EXECUTORCH_PACK_BOT_INDEX_URL": url, "EXECUTORCH_PACK_BOT_MAX_WAIT": "0",
                 "EXECUTORCH_PACK_BOT_WRITE_PAUSE": "0", "GITHUB_TOKEN": TOKEN,
                 "EXECUTORCH_PACK_BOT_PACK_INDEX_URL": url + "/pack/index.pidx"}.items():
        monkeypatch.setenv(k, v)
    for k in ("GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY", "GITHUB_ACTIONS", "EXECUTORCH_PACK_BOT_CACHE",
              "GITHUB_REPOSITORY", "EXECUTORCH_PACK_BOT_ATTEMPTS"):
        monkeypatch.delenv(k, raising=False)
    yield f
    f.stop()


@pytest.fixture
def tpl(tmp_path):
    """A fresh copy of the sample template (no git remote): the checkout ``check`` reads."""
    from bot.commands.demo import copy_template
    return copy_template(tmp_path / "template")


@pytest.fixture
def world(fake, tmp_path, monkeypatch):
    """Upstream v1.4.0/v1.5.1, the package index ready, and the template as a local bare remote."""
    from fakegithub import TEMPLATE, add_sample_release, make_template_remote, pypi_json
    add_sample_release(fake, "v1.4.0", created_at="2026-06-01T00:00:00Z")
    add_sample_release(fake, "v1.5.1", created_at="2026-09-01T00:00:00Z")
    fake.repo(TEMPLATE)
    for v in ("1.5.1", "1.5.2"):
        fake.pypi[("executorch", v)] = pypi_json("executorch", v, requires_dist=["torch>=2.14.0a0"])
    monkeypatch.setenv("GITHUB_REPOSITORY", TEMPLATE)
    fake.remote = make_template_remote(tmp_path)
    fake.tmp = tmp_path
    fake.runs = 0
    return fake


@pytest.fixture(autouse=True)
def github_contract(request):
    """Every request any test sends to the fake GitHub, and every answer it gets, must match GitHub's REST
    description (tests/worlds/openapi_contract.py); skipped when the description is not installed."""
    import os

    import fakegithub
    import openapi_contract

    start = len(fakegithub.EXCHANGES)
    yield
    new = fakegithub.EXCHANGES[start:]
    if not new:
        return
    if openapi_contract.missing_reason():
        if os.environ.get("CI") == "true":   # CI checks every exchange: the description must be there
            import optional_parts
            optional_parts.require("openapi")
        return
    problems = openapi_contract.check_exchanges(new)
    if problems:
        pytest.fail("the fake GitHub or the bot departs from GitHub's REST description:\n"
                    + "\n".join(problems[:20]), pytrace=False)


def pytest_sessionfinish(session, exitstatus):
    """With $EXECUTORCH_PACK_BOT_RECORD_OPERATIONS=FILE, write the REST operations the whole session used (JSON
    list of [method, path template]) for ``python tests/worlds/openapi_contract.py --suite FILE``.

    Under pytest-xdist (``-n``) each worker saw only its own tests' requests: a worker writes ``FILE.gwN`` and
    the controlling process, which finishes last, writes FILE as the union of those parts and removes them."""
    import glob
    import json
    import os

    out = os.environ.get("EXECUTORCH_PACK_BOT_RECORD_OPERATIONS")
    if not out:
        return
    import fakegithub
    import openapi_contract
    if openapi_contract.missing_reason():
        return
    ops = openapi_contract.operations_used(fakegithub.EXCHANGES, openapi_contract.contract())
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if worker:
        out = f"{out}.{worker}"
    else:
        parts = sorted(glob.glob(glob.escape(out) + ".gw*"))
        for part in parts:
            with open(part, encoding="utf-8") as fh:
                ops = openapi_contract.merged(ops, openapi_contract.operations_of(json.load(fh),
                                                                                  openapi_contract.contract()))
            os.unlink(part)
    with open(out, "w", encoding="utf-8") as fh:
        json.dump([[o.method, o.path] for o in ops], fh)
