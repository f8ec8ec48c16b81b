"""The ``cpackget`` check: install the pack with cpackget into a fresh pack root and look for it in the list.

Fact (FORMATS.md section 4): ``cpackget add --agree-embedded-license FILE.pack``
can exit 0 without installing (already installed, or it declined) and exit
non-zero after a good install (a failed dependency look-up), so success is
judged only by ``cpackget list`` showing ``PyTorch::ExecuTorch@V``.  The
exit code of ``add`` is reported, never trusted.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from bot.errors import UsageError
from bot.model import CheckResult

PACK_ID = "PyTorch::ExecuTorch"


def find_cpackget(exe: str = "cpackget") -> str:
    """Absolute path of cpackget; raises :class:`UsageError` (exit 2) when it is not on PATH."""
    path = shutil.which(exe)
    if not path:
        raise UsageError(f"--cpackget: {exe} is not on PATH (it comes with CMSIS-Toolbox; "
                         "install it or drop --cpackget)")
    return path


def listed(output: str, version: str) -> bool:
    """True when ``cpackget list`` output names ``PyTorch::ExecuTorch@version`` exactly (not 1.5.10 for 1.5.1)."""
    pat = re.compile(re.escape(f"{PACK_ID}@{version}") + r"(?![0-9A-Za-z.+-])")
    return any(pat.search(line) for line in output.splitlines())


def _run(cmd: list[str], env: dict, timeout: float) -> tuple[int | None, str]:
    try:
        p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           errors="replace", timeout=timeout)
        return p.returncode, p.stdout
    except subprocess.TimeoutExpired:
        return None, f"timed out after {timeout:.0f} s"


def cpackget_check(pack: Path, version: str, *, exe: str = "cpackget", timeout: float = 600) -> CheckResult:
    """Install ``pack`` into a temporary pack root and judge by ``cpackget list``.

    Runs ``cpackget add --agree-embedded-license --pack-root R PACK`` then
    ``cpackget list --pack-root R`` with ``CMSIS_PACK_ROOT=R``.  Pass when the
    list shows ``PyTorch::ExecuTorch@version`` (the detail notes a non-zero
    ``add`` exit), fail otherwise (the detail notes an ``add`` that exited 0).
    """
    tool = find_cpackget(exe)
    with tempfile.TemporaryDirectory(prefix="et-pack-root-") as root:
        from bot.scrubbed import scrubbed_env
        env = dict(scrubbed_env(), CMSIS_PACK_ROOT=root)
        add_rc, add_out = _run([tool, "add", "--agree-embedded-license", "--pack-root", root,
                                str(pack.resolve())], env, timeout)
        list_rc, list_out = _run([tool, "list", "--pack-root", root], env, timeout)
    data = {"add_exit": add_rc, "add_output": add_out.splitlines()[-20:], "list_exit": list_rc,
            "list_output": list_out.splitlines()[-20:]}
    want = f"{PACK_ID}@{version}"
    if listed(list_out, version):
        note = "" if add_rc == 0 else f" (cpackget add exited {add_rc}, but the pack is installed)"
        return CheckResult("cpackget", "pass", f"cpackget list shows {want}{note}", data)
    last = next((ln.strip() for ln in reversed(add_out.splitlines()) if ln.strip()), "no output")
    lie = " although cpackget add exited 0" if add_rc == 0 else f"; cpackget add exited {add_rc}"
    return CheckResult("cpackget", "fail", f"cpackget list does not show {want}{lie}: {last}", data)
