"""The ``upstream-validator`` check: run upstream's own ``validate_pack.py`` on the pack.

Fact (ExecuTorch's backends/arm/cmsis_pack/test/validate_pack.py at v1.4.1): upstream ships
``backends/arm/cmsis_pack/test/validate_pack.py PACK``, a structural check
that passes the quiet-failure pack too -- so its verdict is included for the
record, never relied on alone.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from bot.errors import UsageError
from bot.model import CheckResult

SCRIPT = Path("backends/arm/cmsis_pack/test/validate_pack.py")
TAIL_LINES = 40


def validator_script(executorch_root: Path) -> Path:
    """The validator under ``executorch_root``; raises :class:`UsageError` (exit 2) when it is not there."""
    if not executorch_root.is_dir():
        raise UsageError(f"--executorch-root: {executorch_root} is not a directory")
    script = executorch_root / SCRIPT
    if not script.is_file():
        raise UsageError(f"--executorch-root: {script} not found (upstream ships it from v1.4.0 on)")
    return script


def run_validator(executorch_root: Path, pack: Path, *, timeout: float = 300,
                  python: str | None = None) -> CheckResult:
    """Run ``python validate_pack.py PACK`` (cwd ``executorch_root``); exit 0 is a pass, anything else a fail.

    ``data["output"]`` holds the last :data:`TAIL_LINES` lines of its
    combined output; the detail line quotes its last non-empty line.
    """
    script = validator_script(executorch_root)
    cmd = [python or sys.executable, str(script.resolve()), str(pack.resolve())]
    from bot.contain import guest, guest_user
    from bot.scrubbed import scrubbed_env
    try:
        # upstream's script: no token, no Actions file command (bot/scrubbed.py), nothing left running (bot/contain.py),
        # as a user of its own where the step asks for it and the runner allows it (bot.contain.guest_user)
        with guest(SCRIPT.name), guest_user(executorch_root) as sep:
            run_cmd, run_env, extra = cmd, scrubbed_env(), {}
            if sep is not None:
                run_cmd, run_env, extra = sep.command(cmd, run_env)
            proc = subprocess.run(run_cmd, cwd=executorch_root, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                  timeout=timeout, text=True, errors="replace", env=run_env,
                                  stdin=subprocess.DEVNULL, **extra)
    except subprocess.TimeoutExpired:
        return CheckResult("upstream-validator", "fail", f"{SCRIPT} did not finish within {timeout:.0f} s")
    except OSError as exc:
        return CheckResult("upstream-validator", "fail", f"{SCRIPT} could not be run: {exc}")
    lines = proc.stdout.splitlines()
    from bot import inert
    last = inert.line(next((ln.strip() for ln in reversed(lines) if ln.strip()), "(no output)"), cap=300)
    data = {"exit_code": proc.returncode, "output": lines[-TAIL_LINES:]}
    if proc.returncode != 0:
        return CheckResult("upstream-validator", "fail", f"{SCRIPT.name} exited {proc.returncode}: {last}", data)
    return CheckResult("upstream-validator", "pass", f"{SCRIPT.name} passed: {last}", data)
