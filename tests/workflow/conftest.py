"""The act scenarios' shared, session-wide parts (tests/worlds/actworld.py): the bot's repository at this checkout's
commit, the template's empty requirement wheels, and the site-packages every scenario venv adds.  Built once for
the whole session, whichever scenario file asks first."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def bot_repo(tmp_path_factory):
    from actworld import bot_commit
    return bot_commit(tmp_path_factory.mktemp("bot"))


@pytest.fixture(scope="session")
def wheels(tmp_path_factory):
    from actworld import TEMPLATE_WHEELS, empty_wheel
    d = tmp_path_factory.mktemp("wheels")
    for name, version in TEMPLATE_WHEELS:
        empty_wheel(d, name, version)
    return d


@pytest.fixture(scope="session")
def site(tmp_path_factory):
    from actworld import session_site
    return session_site(tmp_path_factory.mktemp("site") / "venv")
