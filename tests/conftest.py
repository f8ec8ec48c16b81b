"""Shared pytest fixtures: the sample upstream git repository and a fresh copy of the sample template."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest


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
def github_contract(request):
    """Every request any test sends to the fake GitHub, and every answer it gets, must match GitHub's REST
    description (tests/openapi_contract.py); skipped when the description is not installed."""
    import fakegithub
    import openapi_contract

    start = len(fakegithub.EXCHANGES)
    yield
    new = fakegithub.EXCHANGES[start:]
    if not new or openapi_contract.missing_reason():
        return
    problems = openapi_contract.check_exchanges(new)
    if problems:
        pytest.fail("the fake GitHub or the bot departs from GitHub's REST description:\n"
                    + "\n".join(problems[:20]), pytrace=False)
