"""Shared helpers of the whole-process benchmarks: interleaved runs, medians, the machine's load.

Every figure is a whole process as a user runs it, measured in the same run as
its reference, the two interleaved (A B A B ...) so that a burst of load on a
shared machine hits both; the median of the runs is reported with the ratio.

``--bot-root DIR`` (every script) runs the bot from another checkout (for
example ``git archive main | tar -x -C DIR``) to measure a before/after pair.
The bot's modules are byte-compiled first (:func:`compile_bot`), as a regular
``pip install`` does, so that an environment with ``PYTHONDONTWRITEBYTECODE``
does not compile every module on every run.
"""

from __future__ import annotations

import compileall
import os
import platform
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def bot_root(argv_root: str | None) -> Path:
    """The checkout whose ``bot`` package is run (default: this one)."""
    return Path(argv_root).resolve() if argv_root else ROOT


def compile_bot(root: Path) -> None:
    """Byte-compile ``root/bot`` (what ``pip install`` does for a regular install), leaving out the
    shipped sample template and upstream tag folders (data copied into repositories, not code)."""
    compileall.compile_dir(str(root / "bot"), quiet=1, rx=re.compile(r"[/\\]sample[/\\](?:template|upstream)[/\\]"))


#: The console script ``pip install`` writes for ``executorch-pack-bot`` (its whole text, as of pip 23/24).
CONSOLE_SCRIPT = ("import re\nimport sys\nfrom bot.cli import entry\n"
                  "sys.argv[0] = re.sub(r'(-script\\.pyw|\\.exe)?$', '', sys.argv[0])\nsys.exit(entry())\n")


def bot_cmd(root: Path) -> list[str]:
    """The command line running ``executorch-pack-bot`` of ``root`` as its console script does
    (run with ``cwd=root``): the same Python code as the script ``pip install`` writes."""
    return [sys.executable, "-c", CONSOLE_SCRIPT]


class Figure(float):
    """A median of wall seconds (the float itself) with the median of CPU seconds (``.cpu``: user +
    system of the process, threads summed), which a loaded machine disturbs less."""

    cpu: float = 0.0


def run_once(argv: list[str], cwd: Path | None = None, ok=(0,)) -> tuple[float, float]:
    """``(wall, cpu)`` seconds of one whole process ``argv`` (output discarded); raises when its
    exit code is not in ``ok``."""
    t = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=cwd)
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    dt = time.perf_counter() - t
    proc.returncode = os.waitstatus_to_exitcode(status)
    proc.stderr.close()
    if proc.returncode not in ok:
        raise SystemExit(f"{argv!r} exited {proc.returncode}: {err.decode(errors='replace')[-2000:]}")
    return dt, usage.ru_utime + usage.ru_stime


def interleaved(cases: list[tuple[str, list[str], Path | None, tuple]], repeat: int) -> dict[str, Figure]:
    """Median wall seconds (with the median CPU seconds) of each case ``(label, argv, cwd, ok exit
    codes)``, run in turn ``repeat`` times.

    One warm-up round first (file cache, byte-code); the order rotates every
    round so that no case always runs right after another.
    """
    for _, argv, cwd, ok in cases:
        run_once(argv, cwd, ok)
    times: dict[str, list[tuple[float, float]]] = {label: [] for label, *_ in cases}
    for r in range(repeat):
        k = r % len(cases)
        for label, argv, cwd, ok in cases[k:] + cases[:k]:
            times[label].append(run_once(argv, cwd, ok))
    out = {}
    for label, ts in times.items():
        fig = Figure(statistics.median(w for w, _ in ts))
        fig.cpu = statistics.median(c for _, c in ts)
        out[label] = fig
    return out


def machine() -> str:
    """One line: CPU count, load average now, Python and platform."""
    try:
        load = " ".join(f"{x:.1f}" for x in os.getloadavg())
    except OSError:
        load = "unknown"
    model = ""
    try:
        for line in open("/proc/cpuinfo", encoding="utf-8"):
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return (f"{os.cpu_count()} cores ({model or platform.machine()}), load average {load} (1/5/15 min), "
            f"Python {platform.python_version()}, {platform.system()} {platform.release()}")


def row(label: str, secs: float, ref: float | None = None) -> str:
    """One printed figure: the median wall time in ms and its ratio to ``ref``, then the same for CPU
    time when both are :class:`Figure` (no verdict: the targets are in docs/performance.md)."""
    text = f"{label:<40} median {secs * 1000:7.1f} ms"
    if ref:
        text += f"  ratio {secs / ref:5.2f}x"
    cpu = getattr(secs, "cpu", None)
    if cpu is not None:
        text += f"  | cpu {cpu * 1000:7.1f} ms"
        ref_cpu = getattr(ref, "cpu", None)
        if ref_cpu:
            text += f"  ratio {cpu / ref_cpu:5.2f}x"
    return text
