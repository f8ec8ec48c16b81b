"""Time a real build-pack of an ExecuTorch release: the default (flatc of the release's wheel, nothing compiled
for the host) against --full-build (the documented full build), compare the two packs byte by byte; and the
build job end to end (clone + venv + build + verify).

Needs a real ExecuTorch tree (a folder named ``executorch`` at the tag, with the submodules the documented
build needs: third-party/flatbuffers, flatcc, gflags, json and backends/xnnpack/third-party/FXdiv, at the
commits ``git ls-tree <tag> third-party/`` names), arm-none-eabi-gcc, cmake, and a venv for ``--python``
with the release's executorch wheel and torch (``torchgen`` and ``yaml`` for the full build's kernel code
generation). Not part of the test suite; figures depend on the machine: the load average is printed
before and after each run (the machine may be shared).

    python tests/bench/bench_build_pack.py --executorch-root /path/to/executorch \\
        --python /path/to/venv/bin/python --work /tmp/bench --version 1.4.1-local -j 2 \\
        [--cmake-arg FETCH_ETHOS_U_CONTENT=OFF --cmake-arg ETHOS_SDK_PATH=/path/to/ethos-u]

Both builds start from an empty build directory with ccache off (cold). The packs are compared entry by
entry (directory entries too); the PDSC's ``<release date>`` (the build day) is masked. ``--cmake-arg``
reaches the full build (the default path compiles nothing and says so); the bare-metal option downloads
the Ethos-U core driver at configure time, so offline give a local copy of it with the two settings above.

``--ccache`` instead times the default build twice with ccache and an empty ``CCACHE_DIR`` under
``--work``: cold, then warm (a fresh build directory), with the compile proof's hit rate.

``--job URL`` instead times the build job as the reusable workflow runs it: ``git clone --depth 1 --branch
TAG --no-recurse-submodules URL executorch``, ``git submodule update --init --depth 1`` of the submodules
the workflow names, a new venv with ``pip install --requirement REQS`` (``--requirements``), build-pack
(default path) and ``verify-pack --compile-check``. ``--url-map URL=PATH`` (repeatable) makes git fetch
``URL`` from a local mirror (``url.PATH.insteadOf``) on a machine without GitHub.
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
REPO = Path(__file__).resolve().parents[2]
#: The submodules the workflow's build job initialises (.github/workflows/executorch-pack-bot.yml).
JOB_SUBMODULES = ("third-party/flatbuffers", "third-party/flatcc", "third-party/gflags", "third-party/json",
                  "backends/xnnpack/third-party/FXdiv")


def load() -> str:
    one, five, _ = os.getloadavg()
    return f"load average {one:.2f} (1 min), {five:.2f} (5 min)"


def build(args, name: str, *extra: str, env: dict | None = None, root: str | None = None,
          python: str | None = None) -> tuple[float, Path, str]:
    work = Path(args.work)
    bdir, odir = work / f"build-{name}", work / f"out-{name}"
    for d in (bdir, odir):
        shutil.rmtree(d, ignore_errors=True)
    argv = [sys.executable, "-m", "bot", "build-pack", "--executorch-root", root or args.executorch_root,
            "--build-dir", str(bdir), "--output-dir", str(odir), "--version", args.version,
            "--python", python or args.python, "-j", str(args.jobs),
            *[f"--cmake-arg={a}" for a in args.cmake_arg], *extra]
    log = work / f"{name}.log"
    start = time.monotonic()
    with open(log, "w") as f:
        rc = subprocess.call(argv, stdout=f, stderr=subprocess.STDOUT, cwd=REPO, env=env)
    seconds = time.monotonic() - start
    if rc != 0:
        sys.exit(f"{name} build failed (exit {rc}); see {log}")
    keep = re.compile(r"^(flatc|headers|configure|build|package|total)\s+\d")
    steps = [line.strip() for line in log.read_text().splitlines()
             if keep.match(line) or "ccache: " in line or line.startswith("compile ")]
    return seconds, odir / f"PyTorch.ExecuTorch.{args.version}.pack", "; ".join(re.sub(r"\s+", " ", s) for s in steps)


def entries(pack: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(pack) as zf:
        return {i.filename: zf.read(i) for i in zf.infolist()}


def compare(a_path: Path, b_path: Path) -> None:
    a, b = entries(a_path), entries(b_path)
    only_a, only_b = sorted(set(a) - set(b)), sorted(set(b) - set(a))
    differ = sorted(n for n in set(a) & set(b) if a[n] != b[n])
    masked = [n for n in differ if n.endswith(".pdsc") and DATE.sub(b"", a[n]) == DATE.sub(b"", b[n])]
    print(f"packs: {len(a)} and {len(b)} entries; only in default: {len(only_a)}; only in full: {len(only_b)}; "
          f"differing: {len(differ)} ({len(masked)} of them only in the PDSC release date)")
    for n in (only_a + only_b + [n for n in differ if n not in masked])[:20]:
        print(f"  differs: {n}")
    print("byte-identical apart from the release date" if not (only_a or only_b or set(differ) - set(masked))
          else "NOT identical")


def timed(what: str, argv: list[str], **kw) -> float:
    start = time.monotonic()
    proc = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, **kw)
    seconds = time.monotonic() - start
    if proc.returncode != 0:
        sys.exit(f"{what} failed (exit {proc.returncode}):\n{proc.stdout[-3000:]}")
    print(f"  {what:<34} {seconds:7.1f} s")
    return seconds


def job(args) -> None:
    """The build job end to end, in a fresh folder under --work."""
    work = Path(args.work) / "job"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    git = ["git"] + [a for m in args.url_map for a in ("-c", f"url.{m.split('=', 1)[1]}.insteadOf={m.split('=', 1)[0]}")]
    git += ["-c", "protocol.file.allow=always", "-c", "advice.detachedHead=false"]
    root = work / "executorch"
    print(f"build job end to end ({load()})")
    total = timed("clone --depth 1 (no submodules)", [*git, "clone", "--quiet", "--depth", "1", "--branch", args.tag,
                                                     "--no-recurse-submodules", args.job, str(root)])
    total += timed(f"{len(JOB_SUBMODULES)} submodules, --depth 1",
                   [*git, "-C", str(root), "submodule", "update", "--quiet", "--init", "--depth", "1", "--",
                    *JOB_SUBMODULES])
    venv = work / "venv"
    total += timed("python -m venv", [sys.executable, "-m", "venv", str(venv)])
    total += timed("pip install -r REQUIREMENTS", [str(venv / "bin/python"), "-m", "pip", "install", "--quiet",
                                       *[a for r in args.requirements for a in ("-r", r)]])
    env = {k: v for k, v in os.environ.items() if k != "CCACHE_DIR"}
    env["CCACHE_DIR"] = str(work / "ccache")
    t, pack, steps = build(args, "job", "--no-compile-check", env=env, root=str(root), python=str(venv / "bin/python"))
    print(f"  {'build-pack (default path)':<34} {t:7.1f} s  [{steps}]")
    total += t
    total += timed("verify-pack --compile-check", [sys.executable, "-m", "bot", "verify-pack", str(pack),
                                                   "--version", args.version, "--compile-check"], cwd=REPO, env=env)
    print(f"  {'total':<34} {total:7.1f} s  ({load()})")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--executorch-root", required=True)
    p.add_argument("--python", required=True)
    p.add_argument("--work", required=True)
    p.add_argument("--version", default="1.4.1-local")
    p.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1)
    p.add_argument("--cmake-arg", action="append", default=[])
    p.add_argument("--ccache", action="store_true", help="time a cold and a warm default build with ccache")
    p.add_argument("--job", metavar="URL", help="time the build job end to end, cloning URL")
    p.add_argument("--tag", default="v1.4.1", help="the tag --job clones")
    p.add_argument("--requirements", action="append", default=[], help="requirement file of the job's venv")
    p.add_argument("--url-map", action="append", default=[], metavar="URL=PATH")
    args = p.parse_args()
    Path(args.work).mkdir(parents=True, exist_ok=True)
    print(f"machine: {os.cpu_count()} cores, {load()} at start; -j{args.jobs}")
    print(f"extra CMake settings: {' '.join(args.cmake_arg) or '(none)'}")
    if args.job:
        job(args)
        return
    if args.ccache:
        cache = Path(args.work) / "ccache"
        shutil.rmtree(cache, ignore_errors=True)
        env = {k: v for k, v in os.environ.items() if k != "CCACHE_DISABLE"}
        env["CCACHE_DIR"] = str(cache)
        t_cold, _p, steps_cold = build(args, "ccache-cold", env=env)
        print(f"default build-pack, ccache cold: {t_cold:.1f} s  [{steps_cold}]")
        t_warm, _p, steps_warm = build(args, "ccache-warm", env=env)
        print(f"default build-pack, ccache warm: {t_warm:.1f} s  [{steps_warm}]")
        print(f"ratio warm / cold: {t_warm / t_cold:.2f}; {load()} at the end")
        return
    cold = dict(os.environ, CCACHE_DISABLE="1")
    print(f"default build-pack, cold ({load()})")
    t_default, pack_default, steps_default = build(args, "default", "--no-ccache", env=cold)
    print(f"  {t_default:.1f} s  [{steps_default}]")
    print(f"--full-build, cold ({load()})")
    t_full, pack_full, steps_full = build(args, "full", "--full-build", "--no-ccache", env=cold)
    print(f"  {t_full:.1f} s  [{steps_full}]")
    print(f"ratio default / full: {t_default / t_full:.3f} (goal: at most 0.15); {load()} at the end")
    compare(pack_default, pack_full)


if __name__ == "__main__":
    main()
