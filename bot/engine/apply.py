"""Writing a plan: all-or-nothing, refused when a planned file changed on disk since."""

from __future__ import annotations

from pathlib import Path

from bot.errors import TemplateError
from bot.plan import Plan
from bot.textfile import write_all


def apply(plan: Plan) -> None:
    """Write ``plan.contents`` all-or-nothing.

    Raises :class:`TemplateError` when a file changed on disk since the plan
    was made, or when a file cannot be replaced (read-only, a link): in every
    case nothing is written.
    """
    for path, original in plan.originals.items():
        try:
            now = (Path(plan.repo) / path).read_bytes()
        except OSError as exc:
            raise TemplateError(f"cannot read: {exc.strerror}", path=path) from None
        if now != original:
            raise TemplateError("changed on disk since the plan was made; run again", path=path)
    write_all(Path(plan.repo), plan.contents)
