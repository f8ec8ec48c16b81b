"""The optional parts some tests need, and the one rule for a missing one.

The README's test command (``pip install -e '.[test]' && python -m pytest``) must pass on a fresh machine that
has only Python and git. What it cannot run there needs a part that ``.ci/run`` installs: the executorch host
venv, nektos/act and the bot's locked wheels, the npm data (GitHub's REST description, its example webhook
payloads, its expression evaluator), the Arm GNU toolchain, qemu-system-arm, ccache, cmake, a git with PCRE.

A test declares what it needs with ``@pytest.mark.needs("host-venv", ...)`` (a decorator, a class mark or the
module's ``pytestmark``); the conftest hook :func:`require`\\ s each before the test runs. A missing part is a
skip whose reason names the part and how to get it (the step of ``.ci/run`` that installs it), or, when
``CI=true`` (``.ci/run`` exports it), a failure with the same text: CI never passes by skipping.
Helpers that find a part at run time (tests/worlds/actworld.py, tests/worlds/webhook_payloads.py ...) call :func:`require`
too, so there is one decision. tests/project/test_optional_parts_are_marked.py checks that every test using a part's
helper carries its mark.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Callable, Optional

import pytest

ROOT = Path(__file__).resolve().parents[2]
#: The executorch host venv run-model compares with (EXECUTORCH_PACK_BOT_HOST_PYTHON overrides it).
HOST = os.environ.get("EXECUTORCH_PACK_BOT_HOST_PYTHON") or str(ROOT / ".venv/executorch-host/bin/python")
APT = "sudo apt-get install gcc-arm-none-eabi libstdc++-arm-none-eabi-newlib libnewlib-arm-none-eabi " \
      "qemu-system-arm ccache cmake (.ci/run does, as root or through sudo)"


def _on_path(name: str) -> Callable[[], bool]:
    return lambda: shutil.which(name) is not None


def _file(path: Path | str) -> Callable[[], bool]:
    return lambda: Path(path).is_file()


def _act() -> bool:
    return shutil.which("act", path=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}") \
        is not None


@lru_cache(maxsize=1)
def _git_pcre() -> bool:
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        try:
            p = subprocess.run(["git", "grep", "--no-index", "-q", "-P", "-e", "x"], capture_output=True, cwd=tmp,
                               check=False)
        except OSError:
            return False
    return p.returncode in (0, 1) and not p.stderr


def _openapi() -> bool:
    import openapi_contract
    return openapi_contract.missing_reason() is None


def _webhooks() -> bool:
    import webhook_payloads
    return webhook_payloads.examples_path().is_file()


def _expressions() -> bool:
    import actions_expressions
    return shutil.which("node") is not None and actions_expressions.MODULE.is_file()


@dataclass(frozen=True)
class Part:
    """One optional part: ``what`` it is, ``present()`` whether this machine has it, ``how`` to get it."""

    what: str
    present: Callable[[], bool]
    how: str


PARTS: dict[str, Part] = {
    "host-venv": Part(f"the executorch host venv ({HOST})", _file(HOST),
                      ".ci/run's step 'the host runtime run-model compares with': python3 -m venv "
                      ".venv/executorch-host, then pip install torch==2.13.0 executorch==1.4.1 and "
                      "--no-deps tosa-tools==2026.5.0 ethos-u-vela==5.1.0 ml_dtypes==0.5.1 (about 1.5 GB), or set EXECUTORCH_PACK_BOT_HOST_PYTHON"),
    "act": Part("nektos/act", _act, "pip install --require-hashes --no-deps -r .ci/act-requirements.txt "
                "(.ci/run's workflow-scenarios step)"),
    "wheelhouse": Part(f"the bot's locked wheels in {ROOT / '.venv/wheelhouse'}",
                       lambda: any((ROOT / ".venv/wheelhouse").glob("*.whl")),
                       "pip download --require-hashes --no-deps -r requirements.lock -d .venv/wheelhouse "
                       "(.ci/run's workflow-scenarios step)"),
    "expressions": Part("GitHub's expression evaluator (@actions/expressions) and node", _expressions,
                        "npm install --no-save --prefix .venv/actions-expressions @actions/expressions@0.3.61 "
                        "(.ci/run does)"),
    "openapi": Part("GitHub's REST description (@octokit/openapi)", _openapi,
                    "npm install --no-save --prefix .venv/octokit-openapi @octokit/openapi@23.0.2 (.ci/run does), "
                    "or set EXECUTORCH_PACK_BOT_OPENAPI_DIR"),
    "webhooks": Part("GitHub's example webhook payloads (@octokit/webhooks-examples)", _webhooks,
                     "npm install --no-save --prefix .venv/webhooks-examples @octokit/webhooks-examples@7.6.1 "
                     "(.ci/run does), or set OCTOKIT_WEBHOOKS_EXAMPLES"),
    "arm-gcc": Part("the Arm GNU toolchain (arm-none-eabi-g++)", _on_path("arm-none-eabi-g++"), APT),
    "qemu": Part("qemu-system-arm", _on_path("qemu-system-arm"), APT),
    "ccache": Part("ccache", _on_path("ccache"), APT),
    "cmake": Part("cmake", _on_path("cmake"), APT),
    "git-pcre": Part("a git with PCRE (git grep -P)", _git_pcre, "Debian's git package (built with PCRE)"),
}


def missing(name: str) -> Optional[str]:
    """Why part ``name`` (a key of :data:`PARTS`) cannot be used here, naming how to get it; None when present.

    Raises KeyError for a name that is not a part (a typo in a mark fails loudly)."""
    part = PARTS[name]
    if part.present():
        return None
    return f"needs {part.what}, which is not installed: {part.how}"


def require(*names: str, item=None) -> None:
    """Skip the running test when a part is missing, or fail it when ``CI=true``; the reason says how to get it.

    ``item`` (the conftest hook passes it) reports the skip at the test rather than here."""
    for name in names:
        reason = missing(name)
        if reason is None:
            continue
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI=true: {reason}", pytrace=False)
        if item is not None:
            raise pytest.skip.Exception(reason, _use_item_location=True)
        pytest.skip(reason)
