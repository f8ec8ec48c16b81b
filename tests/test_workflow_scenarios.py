"""The reusable workflow run whole under nektos/act (tests/actworld.py): each scenario is one event
on the template, and asserts the job results and GitHub's final state on the fake."""

from __future__ import annotations

import pytest

from actworld import TEMPLATE, TEMPLATE_WHEELS, ActWorld, bot_commit, empty_wheel, session_site

pytestmark = pytest.mark.workflow

BOT_BRANCH = "executorch-pack-bot/executorch"


@pytest.fixture(scope="session")
def bot_repo(tmp_path_factory):
    return bot_commit(tmp_path_factory.mktemp("bot"))


@pytest.fixture(scope="session")
def wheels(tmp_path_factory):
    d = tmp_path_factory.mktemp("wheels")
    for name, version in TEMPLATE_WHEELS:
        empty_wheel(d, name, version)
    return d


@pytest.fixture(scope="session")
def site(tmp_path_factory):
    return session_site(tmp_path_factory.mktemp("site") / "venv")


@pytest.fixture
def aw(tmp_path, bot_repo, wheels, site):
    w = ActWorld(tmp_path, bot_repo, wheels, site)
    yield w
    w.fake.stop()


def test_a_scheduled_run_with_a_good_release_asset_opens_the_pr(aw):
    aw.release("good")
    run = aw.run("schedule")
    print(run.log[-60000:])
    assert run.jobs == {}
