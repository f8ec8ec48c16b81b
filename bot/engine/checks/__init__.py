"""Cross-file checks run after planning, one module each; every one returns non-blocking flags.

- :mod:`~bot.engine.checks.leftovers`: strong forms of the old version no edit rewrites;
- :mod:`~bot.engine.checks.downgrades`: Python pins the bump moves down (upstream pins older);
- :mod:`~bot.engine.checks.companions`: torchvision/torchaudio pins to re-check when torch moves;
- :mod:`~bot.engine.checks.python_range`: a changed upstream ``requires-python``, and Pythons the
  template states outside the target's range.

A new check is a module here with one function ``(Template, Bump, ...) -> list[Flag]``,
called from :func:`bot.engine.planner.plan`.
"""
