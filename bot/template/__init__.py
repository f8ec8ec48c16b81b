"""Template "managers": one module per file kind, each knowing how to find and rewrite pins.

Every format's knowledge sits in its own module (the Renovate layout); nothing
else parses that format.  See :mod:`bot.template.interface`.
"""
