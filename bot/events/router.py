"""Dispatch an event to the handlers registered for its (event, action).

The shape of bedevere's router (gidgethub.routing): a behaviour module
registers ``@router.register("issue_comment", action="created")`` handlers;
:meth:`Router.dispatch` calls every handler registered for the event's name
and action, in registration order.  A handler takes ``(event, ctx)`` and
returns nothing: it records its decision on the context.
"""

from __future__ import annotations

# The Router and the one router live in bot/events/registry.py, which the behaviour modules import (they
# register on it); this module imports them, never the other way.
from bot.events.registry import Handler, Router, router  # noqa: F401


def load_behaviours() -> Router:
    """Import every behaviour module (each registers its handlers on :data:`router`) and return the router."""
    from bot.events import automerge, comment_commands, dashboard  # noqa: F401 - registration on import

    return router
