"""Benchmark of verify-pack: time per pack and per 1,000 entries, peak memory, start-up.

Run: ``python tests/bench/bench_verify_pack.py`` (prints figures, asserts nothing).

* the offline checks (archive to template components) on generated packs at real scale (about 1,000 entries and 200
  components, FORMATS.md section 3) and at 10x and 100x: growth must be linear;
* peak RSS of a whole ``verify-pack`` process on the real-scale pack and on a
  pack of at least 200 MB (incompressible members): memory must not grow with size;
* start-up of ``executorch-pack-bot verify-pack`` as a process, and the
  real-scale pack verified as a whole process (upstream's validate_pack.py
  needs about 0.2 s for a real pack).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))          # tests/ for packgen
sys.path.insert(0, str(HERE.parent.parent))   # the repository, when not installed

from packgen import make_pack, realistic_spec  # noqa: E402

from bot.pack.verify import verify_pack  # noqa: E402

# VmHWM is the high-water mark of this process's own address space (ru_maxrss would
# carry the parent's peak across fork/exec); tracemalloc gives the Python heap peak.
PEAK = """
import sys, tracemalloc
from bot.pack.verify import verify_pack
tracemalloc.start()
r = verify_pack(sys.argv[1], "1.5.1")
heap = tracemalloc.get_traced_memory()[1] // 1024
hwm = next(int(l.split()[1]) for l in open("/proc/self/status") if l.startswith("VmHWM:"))
print(hwm, heap, int(r.failed))
"""


def best_of(n: int, fn) -> float:
    times = []
    for _ in range(n):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def peak_kib(pack: Path) -> tuple[int, int, int]:
    """(peak RSS KiB, peak traced Python heap KiB, failed) of a fresh process verifying ``pack``."""
    out = subprocess.run([sys.executable, "-c", PEAK, str(pack)], capture_output=True, text=True, check=True).stdout
    rss, heap, failed = out.split()
    return int(rss), int(heap), int(failed)


def main() -> None:
    tmp = Path(tempfile.mkdtemp(prefix="bench-verify-pack-"))
    try:
        print("verify-pack benchmark (offline checks, in process, best of runs)")
        print(f"{'scale':>6} {'entries':>8} {'components':>10} {'MB zip':>7} {'gen s':>6} {'verify s':>9} {'s/1k entries':>12}")
        small = None
        for scale in (1, 10, 100):
            t = time.perf_counter()
            pack = make_pack(tmp / f"x{scale}", realistic_spec(scale))
            gen = time.perf_counter() - t
            entries = len(zipfile.ZipFile(pack).infolist())
            report = verify_pack(pack, "1.5.1")
            comps = report.check("component-ids").detail.split()[0]
            assert not report.failed, report.to_text()
            secs = best_of(3 if scale < 100 else 1, lambda: verify_pack(pack, "1.5.1"))
            print(f"{scale:>5}x {entries:>8} {comps:>10} {pack.stat().st_size / 1e6:>7.2f} {gen:>6.1f} "
                  f"{secs:>9.3f} {secs / entries * 1000:>12.4f}")
            if scale == 1:
                small = pack

        t = time.perf_counter()
        big = make_pack(tmp / "big", realistic_spec(1), big_members=(52 << 20,) * 4)
        gen = time.perf_counter() - t
        secs = best_of(1, lambda: verify_pack(big, "1.5.1"))
        rss_small, heap_small, _ = peak_kib(small)
        rss_big, heap_big, failed = peak_kib(big)
        print("\npeak memory of a fresh verify process (VmHWM RSS / tracemalloc Python heap peak)")
        print(f"  real-scale pack {small.stat().st_size / 1e6:8.1f} MB: {rss_small / 1024:6.1f} MiB / {heap_small / 1024:5.1f} MiB")
        print(f"  big pack        {big.stat().st_size / 1e6:8.1f} MB: {rss_big / 1024:6.1f} MiB / {heap_big / 1024:5.1f} MiB "
              f"(verified in {secs:.2f} s, generated in {gen:.1f} s, failed={bool(failed)})")

        exe = shutil.which("executorch-pack-bot")
        cmd = [exe] if exe else [sys.executable, "-m", "bot"]
        bare = best_of(5, lambda: subprocess.run([sys.executable, "-c", "pass"], check=True))
        help_s = best_of(5, lambda: subprocess.run(cmd + ["verify-pack", "--help"], capture_output=True, check=True))
        whole = best_of(5, lambda: subprocess.run(cmd + ["verify-pack", str(small), "--version", "1.5.1"],
                                                   capture_output=True))
        probe = ("import sys, bot.cli; bot.cli.build_parser(); "
                 "import bot.commands.verify_pack; print(sorted(m for m in ('github', 'requests', 'lxml') if m in sys.modules))")
        heavy = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True).stdout.strip()
        print(f"\nstart-up: bare `python -c pass` {bare:.3f} s; `verify-pack --help` as a process {help_s:.3f} s; "
              f"heavy modules at start-up: {heavy}")
        print(f"whole process, real-scale pack (offline checks): {whole:.3f} s (upstream validate_pack.py: about 0.2 s)")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
