"""Run an image in ``qemu-system-arm -M mps3-an547`` and read the runner's lines (:mod:`bot.modelrun.runner`).

Command: ``qemu-system-arm -M mps3-an547 -nographic -semihosting
-icount shift=0 -kernel IMAGE`` (QEMU 7.2 docs, "Arm MPS2 and MPS3
boards"; ``-icount shift=0``: one instruction per nanosecond of virtual
time, which makes the SysTick count an instruction count).  Semihosting
output arrives on stdout.  The run stops at the time limit.

Stages: no ``ET_BOOT`` line -> ``boot``; ``ET_LOAD_FAIL`` or no
``ET_LOADED`` -> ``load``; ``ET_EXEC_FAIL``, ``ET_FAULT``, a time-out or no
``ET_DONE`` after loading -> ``execute``.  The runtime's own lines
(``ET_LOG`` and the failure text) are kept as the error.
"""

from __future__ import annotations

import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from bot import inert
from bot.modelrun import StageError
from bot.modelrun.runner import INSTRUCTIONS_PER_TICK
from bot.scrubbed import scrubbed_env

QEMU = "qemu-system-arm"
MAX_OUTPUT = 4 << 20


@dataclass(frozen=True)
class Tensor:
    """One output as the runner printed it: ScalarType number, sizes and raw little-endian bytes."""

    scalar_type: int
    sizes: tuple
    data: bytes


@dataclass(frozen=True)
class QemuRun:
    """A completed run: outputs, SysTick ticks of one ``execute()``, instructions (ticks x 31.25), seconds."""

    outputs: tuple
    ticks: int
    instructions: int
    seconds: float
    log: tuple


def qemu_command(elf: Path, qemu: str = QEMU) -> list[str]:
    """The QEMU command line for ``elf``."""
    return [qemu, "-M", "mps3-an547", "-nographic", "-monitor", "none", "-serial", "none", "-semihosting",
            "-icount", "shift=0", "-kernel", str(elf)]


def parse_lines(lines: list[str]) -> tuple[list[Tensor], int | None, list[str]]:
    """(outputs, ticks, runtime log lines) from the runner's lines; raises :class:`StageError` on a failure line."""
    outputs, ticks, log = [], None, []
    booted = loaded = done = False
    for line in lines:
        if line.startswith("ET_BOOT"):
            booted = True
        elif line.startswith("ET_LOG "):
            log.append(inert.line(line[7:], cap=300))
        elif line.startswith("ET_LOAD_FAIL"):
            raise StageError("load", "the runtime refused the program: " + inert.line(line[13:], cap=300),
                             log[-5:] + [inert.line(line[13:], cap=300)])
        elif line.startswith("ET_LOADED"):
            loaded = True
        elif line.startswith("ET_EXEC_FAIL"):
            raise StageError("execute", "the program failed: " + inert.line(line[13:], cap=300),
                             log[-5:] + [inert.line(line[13:], cap=300)])
        elif line.startswith("ET_FAULT"):
            raise StageError("execute" if loaded else ("load" if booted else "boot"),
                             "the processor faulted: " + inert.line(line[9:], cap=300), log[-5:])
        elif line.startswith(("ET_TICKS ", "ET_OUT ")):
            try:
                if line.startswith("ET_TICKS "):
                    ticks = int(line.split()[1])
                else:
                    parts = line.split()
                    sizes = () if parts[3] == "-" else tuple(int(s) for s in parts[3].split(","))
                    data = b"" if parts[4] == "-" else bytes.fromhex(parts[4])
                    outputs.append(Tensor(int(parts[2]), sizes, data))
            except (ValueError, IndexError):
                raise StageError("execute", "the runner printed a line it does not write: "
                                 + inert.line(line, cap=120), log[-5:]) from None
        elif line.startswith("ET_DONE"):
            done = True
    if not booted:
        raise StageError("boot", "the image printed nothing: it did not boot", log[-5:])
    if not loaded:
        raise StageError("load", "the runner stopped before the program loaded", log[-5:])
    if not done or ticks is None:
        raise StageError("execute", "the runner stopped before printing every output", log[-5:])
    return outputs, ticks, log


def _bounded_run(argv: list[str], timeout: float) -> tuple[bytes, bytes, bool, bool]:
    """Run ``argv``; (stdout, stderr, timed out, stdout overflowed): each stream keeps at most
    :data:`MAX_OUTPUT` bytes, and the process is killed at ``timeout`` seconds or when its stdout overflows
    (``subprocess.run(capture_output=True)`` would hold all of a runaway image's output in memory)."""
    import threading

    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=scrubbed_env())
    got = {"out": bytearray(), "err": bytearray()}
    overflow = threading.Event()

    def drain(stream, buf, is_out):
        while chunk := stream.read1(1 << 16):
            room = MAX_OUTPUT - len(buf)
            buf += chunk[:max(room, 0)]
            if len(chunk) > room and is_out:
                overflow.set()
                proc.kill()

    readers = [threading.Thread(target=drain, args=(proc.stdout, got["out"], True), daemon=True),
               threading.Thread(target=drain, args=(proc.stderr, got["err"], False), daemon=True)]
    for t in readers:
        t.start()
    timed_out = False
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
        proc.kill()
        proc.wait()
    for t in readers:
        t.join()
    proc.stdout.close(), proc.stderr.close()
    return bytes(got["out"]), bytes(got["err"]), timed_out and not overflow.is_set(), overflow.is_set()


def run_image(elf: Path, *, timeout: float = 60, qemu: str = QEMU) -> QemuRun:
    """Run ``elf`` under the time limit; returns a :class:`QemuRun` or raises :class:`StageError`."""
    exe = shutil.which(qemu)
    if not exe:
        raise StageError("boot", f"{qemu} not found on PATH (Debian: qemu-system-arm)")
    start = time.monotonic()
    out, err, timed_out, overflow = _bounded_run(qemu_command(elf, exe), timeout)
    seconds = time.monotonic() - start
    lines = out.decode("utf-8", "replace").splitlines()
    try:
        if overflow:
            raise StageError("execute", f"the image printed more than {MAX_OUTPUT >> 20} MiB: stopped",
                             [inert.line(ln, cap=300) for ln in lines[:3]])
        outputs, ticks, log = parse_lines(lines)
    except StageError as exc:
        if timed_out:
            exc.message += f" (stopped at the time limit of {timeout:.0f} s)"
        qerr = [inert.line(ln, cap=300) for ln in err.decode("utf-8", "replace").splitlines() if ln.strip()][:3]
        exc.lines += qerr
        raise
    return QemuRun(tuple(outputs), ticks, round(ticks * INSTRUCTIONS_PER_TICK), seconds, tuple(log))
