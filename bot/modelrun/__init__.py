"""Run a ``.pte`` model on a pack's runtime in QEMU's simulated Cortex-M55 (``run-model``).

One job per module: :mod:`~bot.modelrun.pte` reads the operators a program
needs, :mod:`~bot.modelrun.select` picks the pack's operator components and
writes ``RTE_Components.h`` and the ``Pre_Include_Global_h`` header,
:mod:`~bot.modelrun.image` builds the bare-metal image (our start-up code,
linker script and runner in :mod:`~bot.modelrun.runner`),
:mod:`~bot.modelrun.qemu` runs it in ``qemu-system-arm -M mps3-an547``,
:mod:`~bot.modelrun.host` runs the same program with the host runtime, and
:mod:`~bot.modelrun.compare` compares the two.  :mod:`~bot.modelrun.result`
is the JSON handed to the pull-request job; :mod:`~bot.modelrun.run` chains
the stages and :mod:`~bot.modelrun.suite` exports the bot's own models.

Every failure is a :class:`StageError` naming its stage (one of
:data:`STAGES`) and carrying the tool's or runtime's own error lines.
"""

from __future__ import annotations

#: The stages of one run, in order; a failure names one of them.
STAGES = ("export", "select", "compile", "link", "boot", "load", "execute", "compare")


class StageError(Exception):
    """A run stopped at ``stage`` (one of :data:`STAGES`, or ``host`` for the host runtime).

    ``message`` says what failed in the bot's words; ``lines`` are the tool's
    or runtime's own error lines (already made inert by the caller).
    """

    def __init__(self, stage: str, message: str, lines: list[str] | tuple = ()):
        super().__init__(f"{stage}: {message}")
        self.stage = stage
        self.message = message
        self.lines = list(lines)
