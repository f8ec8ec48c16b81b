"""Benchmark: the fleet plan against 20, 50 and 200 templates on the fake GitHub server.

For each size, a fresh fake serves upstream and the templates (the usual mix of
a scheduled run: tests/worlds/fleetworld.py ``CYCLE``: up to date, behind, a pull request
open, a locally built pack, a pinned track).  The plan runs twice in-process:
a cold run (empty cache: every pin file read) and a warm run (the cache of the
cold run: conditional requests; the file with its HMAC, as in the fleet
workflow).  Printed per size and run: requests per
template (what the fake saw, divided by the templates), 304 answers, and wall
time per template (best of ``--repeat`` warm runs), beside one bare
``requests.get`` of a tree on the same server (the reference) and their ratio.
Both figures per template should stay flat as the fleet grows.

Run: ``python tests/bench/bench_fleet_plan.py [--sizes 20,50,200] [--repeat 3]``.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "worlds"))
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))


def one_size(n: int, repeat: int) -> None:
    import requests

    import fleetworld as fw
    from fakegithub import UPSTREAM, FakeGitHub
    from bot.fleet.cache import FleetCache
    from bot.fleet.listfile import load_fleet_list
    from bot.fleet.plan import make_plan
    from bot.fleet.remote import Remote
    from bot.github.client import make_github

    fake = FakeGitHub()
    url = fake.start()
    os.environ.update({"GITHUB_API_URL": url, "EXECUTORCH_PACK_BOT_MAX_WAIT": "0", "GITHUB_TOKEN": "ghs_bench"})
    try:
        with tempfile.TemporaryDirectory() as tmp:
            lst = fw.build_fleet(fake, Path(tmp), n)
            cache_file = Path(tmp) / "fleet.json"

            def run():
                cache = FleetCache(cache_file, key="bench key")   # with its HMAC, as the fleet workflow runs it
                fake.requests.clear()
                t0 = time.perf_counter()
                plan = make_plan(load_fleet_list(lst), Remote(make_github("ghs_bench"), cache), UPSTREAM)
                took = time.perf_counter() - t0
                cache.save()
                return plan, took, len(fake.requests), sum(1 for s in fake.requests if s.headers.get("If-None-Match"))

            cold, cold_t, cold_n, _ = run()
            warm = [run() for _ in range(max(1, repeat))]
            plan, warm_t, warm_n, warm_c = min(warm, key=lambda w: w[1])
            bare = []
            session = requests.Session()
            for _ in range(max(5, repeat)):
                t0 = time.perf_counter()
                session.get(f"{url}/repos/fleet/t0000/git/trees/HEAD?recursive=1", timeout=10).raise_for_status()
                bare.append(time.perf_counter() - t0)
            jobs, packs = len(plan.pulls), len(plan.packs)
    finally:
        fake.stop()
    ref = min(bare) * 1000
    print(f"{n} templates: {packs} pack jobs, {jobs} pull-request jobs")
    print(f"  cold (empty cache): {cold_n / n:.2f} requests per template, {cold_t * 1000 / n:.1f} ms per template")
    print(f"  warm (ETag cache):  {warm_n / n:.2f} requests per template ({warm_c} conditional), "
          f"{warm_t * 1000 / n:.1f} ms per template (best of {len(warm)})")
    print(f"  bare requests.get of one tree (reference): {ref:.1f} ms; warm ratio per template {warm_t * 1000 / n / ref:.1f}x")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default="20,50,200")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    # one-time costs outside the figures: the engine's modules and the managers' patterns (the first cold run
    # would otherwise carry them, and its time per template would not compare with the others)
    from bot.fleet.current import _pins_of
    from bot.github.client import make_github
    _pins_of({"requirements.txt": "executorch==1.4.0\n"})   # imports, lazily compiled patterns
    make_github("ghs_bench", "http://127.0.0.1:9")          # PyGithub's import (no request is sent)
    for n in (int(x) for x in args.sizes.split(",")):
        one_size(n, args.repeat)
    return 0


if __name__ == "__main__":
    sys.exit(main())
