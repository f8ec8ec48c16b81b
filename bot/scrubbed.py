"""The environment upstream code runs in: the bot's own, minus every token and every Actions file command.

Upstream code (CMake, ``build_pack.sh``, ``validate_pack.py``, the compiler
on pack sources, ``cpackget`` on a pack) must not be able to act as the
workflow: a token would let it push or call the API, and the file-command
variables (``GITHUB_OUTPUT``, ``GITHUB_ENV``, ``GITHUB_PATH``,
``GITHUB_STATE``, ``GITHUB_STEP_SUMMARY``; GitHub docs, "Workflow commands
for GitHub Actions", "Environment files") name files whose content the
runner turns into step outputs, environment variables and the job summary.
:func:`scrubbed_env` drops them; the bot writes its own outputs only after
the upstream processes have exited.  This is no sandbox (a process can
still look for those files on disk): the pull-request job therefore trusts
nothing from a job where upstream code ran except the pack itself, which it
verifies again (docs/security.md).
"""

from __future__ import annotations

import os
import re
from typing import Mapping

#: Exact names dropped: Actions file commands, runtime and OIDC tokens, the bot's token.
DROPPED = frozenset({
    "GITHUB_TOKEN", "GH_TOKEN", "GITHUB_OUTPUT", "GITHUB_ENV", "GITHUB_PATH", "GITHUB_STATE",
    "GITHUB_STEP_SUMMARY", "ACTIONS_RUNTIME_TOKEN", "ACTIONS_RUNTIME_URL", "ACTIONS_ID_TOKEN_REQUEST_TOKEN",
    "ACTIONS_ID_TOKEN_REQUEST_URL", "ACTIONS_CACHE_URL", "ACTIONS_RESULTS_URL", "INPUT_TOKEN",
    "INPUT_APP-PRIVATE-KEY", "INPUT_PRIVATE-KEY",
    "EXECUTORCH_PACK_BOT_STOP_COMMANDS",   # the step's stop-commands token (bot/logstream.py)
})
#: Any other variable whose name says it holds a credential.
_SECRET_NAME = re.compile(r"(?i)(TOKEN|SECRET|PASSWORD|PASSWD|PRIVATE[_-]?KEY|CREDENTIAL|API[_-]?KEY)")


def scrubbed_env(env: Mapping[str, str] | None = None) -> dict[str, str]:
    """A copy of ``env`` (default ``os.environ``) without :data:`DROPPED` and credential-named variables."""
    src = os.environ if env is None else env
    return {k: v for k, v in src.items() if k.upper() not in DROPPED and not _SECRET_NAME.search(k)}
