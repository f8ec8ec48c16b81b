"""Benchmark: ``update --dry-run`` as a whole process beside ``git grep -n ExecuTorch`` on two trees.

Builds (in a temporary folder, committed to git) the two trees of
:mod:`trees`: the project's plan tree (about 4,981 files, the vendored
headers in a skipped folder) and a template of about 4,900 files with vendored
headers, sources, docs and binaries all in folders the bot scans.  On each,
interleaved runs (:mod:`benchkit`) of:

* ``git grep -n ExecuTorch`` (the reference, a whole process);
* ``executorch-pack-bot update --dry-run`` as a whole process;

then ``bot.engine.plan`` in-process (best of 3), to show what start-up costs.  Figures and
ratios only: the targets are in docs/performance.md.

Run: ``python tests/bench/bench_plan.py [--repeat R] [--bot-root DIR]``
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parents[1]))

from benchkit import bot_cmd, bot_root, compile_bot, interleaved, machine, row  # noqa: E402
from trees import plan_tree, vendored_tree  # noqa: E402

from bot import engine  # noqa: E402
from bot.sample import build_upstream_repo  # noqa: E402
from bot.upstream.git import GitSource  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--files", type=int, default=5000, help="size of the plan tree (the other: 98%%)")
    ap.add_argument("--repeat", type=int, default=11)
    ap.add_argument("--bot-root")
    ap.add_argument("--keep", metavar="DIR", help="build the trees in DIR and keep them (reused when present)")
    a = ap.parse_args()
    root = bot_root(a.bot_root)
    compile_bot(root)
    print(f"machine: {machine()}")
    print(f"bot: {root}; {a.repeat} interleaved runs each, medians")
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(a.keep) if a.keep else Path(tmp)
        base.mkdir(parents=True, exist_ok=True)
        upstream = base / "executorch.git"
        if not upstream.exists():
            build_upstream_repo(upstream)
        for name, build, size in (("plan tree", plan_tree, a.files),
                                  ("vendored template", vendored_tree, a.files * 49 // 50)):
            tpl = base / f"{name.replace(' ', '-')}-{size}"
            t0 = time.perf_counter()
            if not tpl.exists():
                build(tpl, size)
            nfiles = subprocess.run(["git", "-C", str(tpl), "ls-files"], capture_output=True, text=True,
                                    check=True).stdout.count("\n")
            print(f"\n{name}: {nfiles} files (ready in {time.perf_counter() - t0:.1f} s)")
            grep = ["git", "-C", str(tpl), "grep", "-n", "ExecuTorch"]
            update = bot_cmd(root) + ["update", "--repo", str(tpl), "--upstream", str(upstream), "--dry-run"]
            res = interleaved([("git grep", grep, None, (0,)), ("update", update, root, (0, 1))], a.repeat)
            print(row("git grep -n ExecuTorch (reference)", res["git grep"]))
            print(row("update --dry-run (whole process)", res["update"], res["git grep"]))
            if root == HERE.parents[1]:
                source = GitSource(upstream)
                best = min(_timed(lambda: engine.plan(tpl, source)) for _ in range(3))
                print(row("engine.plan in-process (best of 3)", best, res["git grep"]))
    print(f"\nmachine after: {machine()}")


def _timed(fn) -> float:
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


if __name__ == "__main__":
    main()
