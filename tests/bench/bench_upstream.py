"""Benchmark: the upstream datasources on the shipped sample.

Prints, as medians over ``--repeat`` runs:

* ``build_upstream_repo`` (clone-like and bare);
* ``GitSource`` start-up plus ``select_target`` and ``resolve_pinset`` of both
  sample tags (one ``git cat-file --batch`` process for every read);
* ``plan_changes`` in-process.

Run: ``python tests/bench/bench_upstream.py [--repeat R]``
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bot.sample import build_upstream_repo  # noqa: E402
from bot.upstream.pins import plan_changes, resolve_pinset  # noqa: E402
from bot.upstream.releases import select_target  # noqa: E402
from bot.upstream.git import GitSource  # noqa: E402


def timed(fn) -> tuple[float, object]:
    t = time.perf_counter()
    out = fn()
    return time.perf_counter() - t, out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=10)
    args = ap.parse_args()
    figures: dict[str, list[float]] = {"build (clone)": [], "build (bare)": [], "select+resolve 2 tags": [],
                                       "plan_changes": []}
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(args.repeat):
            dt, _ = timed(lambda: build_upstream_repo(Path(tmp) / f"c{i}"))
            figures["build (clone)"].append(dt)
            dt, repo = timed(lambda: build_upstream_repo(Path(tmp) / f"b{i}", bare=True))
            figures["build (bare)"].append(dt)

            def resolve():
                with GitSource(repo) as src:
                    tag = select_target(src, to=None, current="1.4.0")
                    return resolve_pinset(src, "v1.4.0"), resolve_pinset(src, tag)

            dt, (old, new) = timed(resolve)
            figures["select+resolve 2 tags"].append(dt)
            dt, _ = timed(lambda: plan_changes(old, new))
            figures["plan_changes"].append(dt)
    for name, values in figures.items():
        print(f"{name:24s} median {statistics.median(values) * 1000:8.2f} ms   max {max(values) * 1000:8.2f} ms")


if __name__ == "__main__":
    main()
