"""Benchmark: what the mentions accounting costs inside a plan, measured against the same plan without it.

Builds the tree of ``bench_plan.py`` (the sample template grown to about 5,000 files), then
measures in the same run, as CPU time of this process (less sensitive than wall time to other
work on a shared machine):

* ``bot.engine.plan`` as shipped;
* the same plan with the accounting (``bot.engine.mentions.account``) replaced by an empty one;
* the accounting alone, on the plan's own edits and flags;

and prints the figures and the ratio.  Run: ``python tests/bench/bench_mentions.py [--files N] [--repeat R]``
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from trees import plan_tree as build_tree  # noqa: E402
from bot import engine  # noqa: E402
from bot.engine import mentions, planner  # noqa: E402
from bot.engine.read import read_template  # noqa: E402
from bot.sample import build_upstream_repo  # noqa: E402
from bot.upstream.git import GitSource  # noqa: E402


def cpu_best(fn, repeat: int) -> tuple[float, float]:
    """(best, median) CPU seconds of ``fn()`` over ``repeat`` calls."""
    times = []
    for _ in range(repeat):
        t0 = time.process_time()
        fn()
        times.append(time.process_time() - t0)
    times.sort()
    return times[0], times[len(times) // 2]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--files", type=int, default=5000)
    ap.add_argument("--repeat", type=int, default=11)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        tpl = build_tree(tmp / "template", a.files)
        source = GitSource(build_upstream_repo(tmp / "executorch.git"))
        plan = engine.plan(tpl, source)  # warm caches
        print(f"tree: {a.files} files; {plan.mentions.summary()}")
        real = planner.account
        with_acc = cpu_best(lambda: engine.plan(tpl, source), a.repeat)
        planner.account = lambda tpl_, bump, *rest, **kw: mentions.Accounting(bump.old_executorch)
        try:
            without = cpu_best(lambda: engine.plan(tpl, source), a.repeat)
        finally:
            planner.account = real
        read = read_template(tpl)
        alone = cpu_best(lambda: mentions.account(read, plan.bump, plan.edits, plan.flags), a.repeat)
        print(f"engine.plan with the accounting    : cpu best {with_acc[0] * 1000:7.1f} ms  median {with_acc[1] * 1000:7.1f} ms")
        print(f"engine.plan without the accounting : cpu best {without[0] * 1000:7.1f} ms  median {without[1] * 1000:7.1f} ms")
        print(f"the accounting alone               : cpu best {alone[0] * 1000:7.1f} ms  median {alone[1] * 1000:7.1f} ms")
        print(f"ratio with/without: {with_acc[0] / without[0]:.3f}")


if __name__ == "__main__":
    main()
