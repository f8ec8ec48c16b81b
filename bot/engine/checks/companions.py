"""The companion-pin check: torchvision/torchaudio pins to re-check when the bump moves torch."""

from __future__ import annotations

from bot.engine.current import template_values
from bot.engine.read import REQUIREMENT_KINDS, Template
from bot.model import Bump, Flag, norm
from bot.template.publicversion import same_release


#: Packages built against one torch release: their pins must follow torch, but the bot cannot know how.
COMPANIONS = ("torchvision", "torchaudio")


def companions(tpl: Template, bump: Bump) -> list[Flag]:
    """Non-blocking ``companion-pin`` flags for exact torchvision/torchaudio pins when torch changes.

    Their versions are tied to a torch release, which upstream ExecuTorch does
    not pin (public CMSIS ExecuTorch templates such as Arm-Examples/CMSIS-Executorch, "torchvision/torchaudio pins" in the wild):
    the bot never computes or guesses one, it says which pin to check.
    """
    torch = bump.change_for("torch")
    if torch is None:
        return []
    # torch==2.14.0+cpu is upstream's 2.14.0 (the local label is a build of that release): not moved
    moved = (torch.old is not None and not same_release(torch.old, torch.new)) \
        or any(not same_release(v, torch.new) for v in template_values(tpl, "torch"))
    if not moved:
        return []
    return [Flag("companion-pin", f"{f.name}=={f.version} stays at its version: check it against torch "
                 f"{torch.new} (the bot does not choose companion versions)", path=f.path, line=f.line,
                 blocking=False)
            for f in tpl.findings
            if f.kind in REQUIREMENT_KINDS and f.exact and f.version and norm(f.name) in COMPANIONS]

