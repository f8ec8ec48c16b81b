"""Event-driven behaviour: comment commands, approval that enables auto-merge, the dashboard issue.

Modelled on CPython's GitHub bot (bedevere): one small module per
behaviour, each registering its handlers on the :class:`~bot.events.router.Router`
keyed by (event, action) and stating its rule in the handler's docstring;
the entry point (``executorch-pack-bot command``) only reads the event and
dispatches.  A handler decides from the event and the GitHub API; it owns
no other state.  The workflow acts on what was decided (the ``action``,
``version`` and ``pr`` step outputs); the job reading the event never checks
out or runs code from a pull request's branch.

Modules:

- :mod:`bot.events.event`: the webhook payload from ``$GITHUB_EVENT_PATH``.
- :mod:`bot.events.router`: (event, action) -> handlers.
- :mod:`bot.events.registry`: the router the handlers register on (imported by them, never importing them).
- :mod:`bot.events.context`: what a handler may ask and do (permission, the bot's PR, reply, react).
- :mod:`bot.events.verbs`: ``/executorch-pack-bot VERB [ARGS]`` parsing and the help text.
- :mod:`bot.events.comment_commands`: comment commands on the bot's PR.
- :mod:`bot.events.ignored`: where ignored versions are kept.
- :mod:`bot.events.store`: which store a repository keeps them in (the dashboard's or the PRs').
- :mod:`bot.events.automerge`: an approval enables auto-merge (opt-in).
- :mod:`bot.events.dashboard`: the dashboard issue and its "Check now" box (opt-in).
"""
