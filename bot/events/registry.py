"""The router the behaviour modules register their handlers on: :class:`Router` and :data:`router`.

The behaviour modules (:mod:`bot.events.automerge`, :mod:`bot.events.comment_commands`,
:mod:`bot.events.dashboard`) import this module to register; :mod:`bot.events.router` imports them
(:func:`bot.events.router.load_behaviours`), so imports only go from the router down to its handlers.
"""

from __future__ import annotations

from typing import Callable, Optional

Handler = Callable[..., None]


class Router:
    """(event name, action) -> list of handlers.  ``action=None`` registers for every action of the event."""

    def __init__(self) -> None:
        self._routes: dict[tuple[str, Optional[str]], list[Handler]] = {}

    def register(self, event: str, action: Optional[str] = None) -> Callable[[Handler], Handler]:
        """Decorator: call the function for ``event`` (and ``action`` when given)."""
        def deco(fn: Handler) -> Handler:
            self._routes.setdefault((event, action), []).append(fn)
            return fn
        return deco

    def handlers(self, event: str, action: str) -> list[Handler]:
        """The handlers for ``event``/``action``: the action's own, then those for every action."""
        return [*self._routes.get((event, action), ()), *self._routes.get((event, None), ())]

    def dispatch(self, event, ctx) -> int:
        """Call every handler for ``event`` (a :class:`~bot.events.event.Event`); returns how many ran."""
        found = self.handlers(event.name, event.action)
        for fn in found:
            fn(event, ctx)
        return len(found)


router = Router()
"""The bot's one router; the behaviour modules register on it when imported (:func:`load_behaviours`)."""
