"""Time a real build-pack of an ExecuTorch release: the default (only the targets the pack takes) against
--full-build (the documented full build), and compare the two packs byte by byte.

Needs a real ExecuTorch tree (a folder named ``executorch`` at the tag, with the submodules the
Cortex-M build needs: third-party/flatbuffers, flatcc, gflags, json and
backends/xnnpack/third-party/FXdiv, at the commits ``git ls-tree <tag> third-party/`` names),
arm-none-eabi-gcc, cmake, and a Python for PYTHON_EXECUTABLE that imports ``yaml`` and ``torchgen``.
Not part of the test suite; figures depend on the machine (print them with the machine's load).

    python tests/bench/bench_build_pack.py --executorch-root /path/to/executorch \\
        --python /path/to/venv/bin/python --work /tmp/bench --version 1.4.1 -j 2 \\
        [--cmake-arg EXECUTORCH_BUILD_ARM_BAREMETAL=OFF]

Each build starts from an empty build directory (cold; run it with CCACHE_DISABLE=1 when ccache is on
PATH). The packs are compared entry by entry; the PDSC's ``<release date>`` (the build day) is masked.

``--ccache`` instead times the default build twice with ccache and an empty ``CCACHE_DIR`` under
``--work``: cold, then warm (a fresh build directory, the same version), and prints the ratio and
the hit rate build-pack reports.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import time
import zipfile
from pathlib import Path

DATE = re.compile(rb'date="\d{4}-\d{2}-\d{2}"')


def build(args, name: str, *extra: str, env: dict | None = None) -> tuple[float, Path, str]:
    work = Path(args.work)
    bdir, odir = work / f"build-{name}", work / f"out-{name}"
    for d in (bdir, odir):
        shutil.rmtree(d, ignore_errors=True)
    argv = [sys.executable, "-m", "bot", "build-pack", "--executorch-root", args.executorch_root,
            "--build-dir", str(bdir), "--output-dir", str(odir), "--version", args.version,
            "--python", args.python, "-j", str(args.jobs), *[f"--cmake-arg={a}" for a in args.cmake_arg], *extra]
    log = work / f"{name}.log"
    start = time.monotonic()
    with open(log, "w") as f:
        rc = subprocess.call(argv, stdout=f, stderr=subprocess.STDOUT, cwd=Path(__file__).resolve().parents[2],
                             env=env)
    seconds = time.monotonic() - start
    if rc != 0:
        sys.exit(f"{name} build failed (exit {rc}); see {log}")
    steps = [line.strip() for line in log.read_text().splitlines()
             if re.match(r"^(configure|build|package|total)\s+\d", line) or line.startswith("ccache: ")]
    return seconds, odir / f"PyTorch.ExecuTorch.{args.version}.pack", "; ".join(steps)


def entries(pack: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(pack) as zf:
        return {i.filename: zf.read(i) for i in zf.infolist() if not i.is_dir()}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--executorch-root", required=True)
    p.add_argument("--python", required=True)
    p.add_argument("--work", required=True)
    p.add_argument("--version", default="1.4.1")
    p.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1)
    p.add_argument("--cmake-arg", action="append", default=[])
    p.add_argument("--ccache", action="store_true", help="time a cold and a warm default build with ccache")
    args = p.parse_args()
    Path(args.work).mkdir(parents=True, exist_ok=True)
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f} at start; -j{args.jobs}")
    print(f"extra CMake settings: {' '.join(args.cmake_arg) or '(none)'}")
    if args.ccache:
        cache = Path(args.work) / "ccache"
        shutil.rmtree(cache, ignore_errors=True)
        env = {k: v for k, v in os.environ.items() if k != "CCACHE_DISABLE"}
        env["CCACHE_DIR"] = str(cache)
        t_cold, _p, steps_cold = build(args, "ccache-cold", env=env)
        print(f"default build-pack, ccache cold: {t_cold:.1f} s  [{steps_cold}]")
        t_warm, _p, steps_warm = build(args, "ccache-warm", env=env)
        print(f"default build-pack, ccache warm: {t_warm:.1f} s  [{steps_warm}]")
        print(f"ratio warm / cold: {t_warm / t_cold:.2f} (goal: at most 0.20)")
        print(f"load average at the end: {os.getloadavg()[0]:.2f}")
        return
    t_default, pack_default, steps_default = build(args, "default")
    print(f"default build-pack (targets the pack takes): {t_default:.1f} s  [{steps_default}]")
    t_full, pack_full, steps_full = build(args, "full", "--full-build")
    print(f"--full-build:                                 {t_full:.1f} s  [{steps_full}]")
    print(f"ratio default / full: {t_default / t_full:.2f} (goal: at most 0.25)")
    print(f"load average at the end: {os.getloadavg()[0]:.2f}")
    a, b = entries(pack_default), entries(pack_full)
    only_a, only_b = sorted(set(a) - set(b)), sorted(set(b) - set(a))
    differ = sorted(n for n in set(a) & set(b) if a[n] != b[n])
    masked = [n for n in differ if n.endswith(".pdsc") and DATE.sub(b"", a[n]) == DATE.sub(b"", b[n])]
    print(f"packs: {len(a)} and {len(b)} files; only in default: {len(only_a)}; only in full: {len(only_b)}; "
          f"differing: {len(differ)} ({len(masked)} of them only in the PDSC release date)")
    for n in (only_a + only_b + [n for n in differ if n not in masked])[:20]:
        print(f"  differs: {n}")
    print("byte-identical apart from the release date" if not (only_a or only_b or set(differ) - set(masked))
          else "NOT identical")


if __name__ == "__main__":
    main()
