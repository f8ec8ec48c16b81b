"""The template's own model: the ``.pte`` its settings name (``model:`` in ``.github/executorch-pack-bot.yml``).

``run-model --suite DIR --template REPO`` runs it after the bot's suite, with
the same pack, host runtime and result folder.  The file is the program the
template ships (exported by the template's current ExecuTorch, so on a bump
it is an *older* exporter's ``.pte`` on the new pack's runtime).  A program
that names a delegate (its execution plan's ``delegates``, e.g.
``EthosUBackend``) needs an NPU that QEMU does not have: ``run-model``
reports it as not runnable in QEMU, which neither fails the run nor blocks
the pull request (:mod:`bot.report.modelrun`).
"""

from __future__ import annotations

import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from bot.errors import UsageError

#: The result file and the model's name in the PR section start with this.
RESULT_NAME = "template"


@dataclass(frozen=True)
class TemplateModel:
    """``name``: the model's name in the report (``template model/model.pte``); ``pte``: its absolute path."""

    name: str
    pte: Path


def template_model(repo: Path) -> Optional[TemplateModel]:
    """The template's model named by ``model:`` in ``repo``'s settings file, or None when the key is absent.

    Raises:
        UsageError: the settings file is bad (:func:`bot.config.load_config`: file and line), or ``model:``
            names a file that is missing, not a regular file, a symbolic link, outside ``repo``, or not an
            ExecuTorch program: ``SETTINGS:LINE: model: ...``, exit 2, before anything is built.
    """
    from bot.config import load_config
    from bot.modelrun.run import read_pte

    repo = Path(repo)
    if not repo.is_dir():
        raise UsageError(f"--template {repo}: not a folder (the template's checkout)")
    config = load_config(repo)
    if config.model is None:
        return None
    where = {"path": config.path, "line": config.model_line}
    path = repo / config.model
    try:
        st = path.lstat()
    except OSError as exc:
        raise UsageError(f"model: {config.model}: {exc.strerror or 'cannot be read'} in the template",
                         **where) from None
    if stat.S_ISLNK(st.st_mode) or not stat.S_ISREG(st.st_mode):
        kind = "a symbolic link" if stat.S_ISLNK(st.st_mode) else "not a regular file"
        raise UsageError(f"model: {config.model} is {kind}; give the .pte file itself", **where)
    if not path.resolve().is_relative_to(repo.resolve()):
        raise UsageError(f"model: {config.model} is outside the template", **where)
    try:
        read_pte(path)
    except UsageError as exc:
        raise UsageError(f"model: {exc.message}", **where) from None
    # the name bot.report.modelrun recognises (TEMPLATE_PREFIX) to say what the row shows
    return TemplateModel(f"{RESULT_NAME} {config.model}", path.resolve())
