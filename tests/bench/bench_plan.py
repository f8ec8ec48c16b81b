"""Benchmark: ``update --dry-run`` as a whole process beside ``git grep -n ExecuTorch`` on two trees.

Builds (in a temporary folder, committed to git) the two trees of
:mod:`trees`: the project's plan tree (about 4,981 files, the vendored
headers in a skipped folder) and a template of about 4,900 files with vendored
headers, sources, docs and binaries all in folders the bot scans.  On each,
interleaved runs (:mod:`benchkit`) of:

* ``git grep -n ExecuTorch`` (the reference, a whole process);
* ``executorch-pack-bot update --dry-run`` as a whole process;

then ``bot.engine.plan`` in-process (``--repeat`` fresh processes per bot, each timing one plan
after a plan of the sample template: imports done, no file of the tree cached; median
wall and CPU), to show what start-up costs.  With
``--before DIR`` (another checkout of the bot, for example ``git archive main | tar -x -C DIR``)
both bots run in the same interleaved rounds, so one run prints the before/after pair.  Figures and
ratios only: the targets are in docs/performance.md.

Run: ``python tests/bench/bench_plan.py [--repeat R] [--keep DIR] [--bot-root DIR] [--before DIR]``
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parents[1]))

from benchkit import Figure, bot_cmd, bot_root, compile_bot, interleaved, machine, row  # noqa: E402
from trees import plan_tree, vendored_tree  # noqa: E402

from bot.sample import build_upstream_repo  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--files", type=int, default=5000, help="size of the plan tree (the other: 98%%)")
    ap.add_argument("--repeat", type=int, default=11)
    ap.add_argument("--bot-root")
    ap.add_argument("--keep", metavar="DIR", help="build the trees in DIR and keep them (reused when present)")
    ap.add_argument("--before", metavar="DIR", help="another checkout of the bot, run in the same rounds")
    a = ap.parse_args()
    root = bot_root(a.bot_root)
    compile_bot(root)
    before = Path(a.before).resolve() if a.before else None
    if before:
        compile_bot(before)
    print(f"machine: {machine()}")
    print(f"bot: {root}" + (f"; before: {before}" if before else "") + f"; {a.repeat} interleaved runs each, medians")
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
            args = ["update", "--repo", str(tpl), "--upstream", str(upstream), "--dry-run"]
            cases = [("git grep", grep, None, (0,)), ("update", bot_cmd(root) + args, root, (0, 1))]
            if before:
                cases.append(("update before", bot_cmd(before) + args, before, (0, 1)))
            res = interleaved(cases, a.repeat)
            print(row("git grep -n ExecuTorch (reference)", res["git grep"]))
            if before:
                print(row("update --dry-run, before", res["update before"], res["git grep"]))
            print(row("update --dry-run (whole process)", res["update"], res["git grep"]))
            for label, bot in ((("engine.plan in-process, before", before),) if before else ()) + (
                    ("engine.plan in-process", root),):
                print(row(label, in_process(bot, tpl, upstream, a.repeat), res["git grep"]))
    print(f"\nmachine after: {machine()}")


#: Run in a fresh process with the bot's checkout as the working folder: one plan of the sample
#: template first (imports, compiled patterns), then one timed plan of the tree, whose files no cache
#: has seen (as in a user's run); prints ``wall cpu`` seconds.
_IN_PROCESS = """
import sys, tempfile, time
from pathlib import Path
from bot import engine
from bot.commands.demo import copy_template
from bot.upstream.git import GitSource
tpl, source = Path(sys.argv[1]), GitSource(Path(sys.argv[2]))
with tempfile.TemporaryDirectory() as tmp:
    engine.plan(copy_template(Path(tmp) / "t"), source)
t, c = time.perf_counter(), time.process_time()
engine.plan(tpl, source)
print(time.perf_counter() - t, time.process_time() - c)
"""


def in_process(bot: Path, tpl: Path, upstream: Path, repeat: int) -> Figure:
    """Median seconds (with the median CPU seconds) of one ``bot.engine.plan`` of checkout ``bot`` on ``tpl``
    in ``repeat`` fresh processes (after a plan of the sample: imports done, no file of ``tpl`` cached)."""
    walls, cpus = [], []
    for _ in range(repeat):
        out = subprocess.run([sys.executable, "-c", _IN_PROCESS, str(tpl), str(upstream)], cwd=bot,
                             capture_output=True, text=True, check=True).stdout.split()
        walls.append(float(out[0]))
        cpus.append(float(out[1]))
    fig = Figure(statistics.median(walls))
    fig.cpu = statistics.median(cpus)
    return fig


if __name__ == "__main__":
    main()
