"""Where the ignored versions are kept for a repository: the dashboard issue (``dashboard: true``,
:mod:`bot.events.dashboard`) or the bot's pull requests (:class:`bot.events.ignored.PullStore`).

It imports both stores; neither imports it, so the dashboard, which reads the ignore list's format
from :mod:`bot.events.ignored`, is never imported back by it.
"""

from __future__ import annotations

from bot.events.ignored import PullStore, versions


def open_store(api, config):
    """The store for this repository: the dashboard's when ``dashboard: true``, else the PRs'."""
    if config.dashboard:
        from bot.events.dashboard import DashboardStore
        return DashboardStore(api, config)
    return PullStore(api, config)


def read_ignored(gh, full_name: str, config) -> list[str]:
    """The ignored versions of ``full_name`` (for ``check``/``run --respect-ignored``): one or two API requests."""
    from bot.events.context import Api

    return versions(open_store(Api(gh, full_name), config).read())
