"""Benchmark: a no-op scheduled `run` (template already on the newest release) against the fake GitHub server.

Prints the number of HTTP requests the run made and its wall time, beside one
bare ``requests.get`` of the releases endpoint on the same server, as a ratio.
Run: ``python tests/bench/bench_noop_run.py``.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "worlds"))

from fakegithub import (TEMPLATE, UPSTREAM, FakeGitHub, add_sample_release, fresh_checkout,  # noqa: E402
                        make_template_remote)


def main() -> int:
    import requests

    from bot.cli import main as cli

    fake = FakeGitHub()
    url = fake.start()
    add_sample_release(fake, "v1.4.0", created_at="2026-06-01T00:00:00Z")
    fake.repo(TEMPLATE)
    os.environ.update({"GITHUB_API_URL": url, "EXECUTORCH_PACK_BOT_INDEX_URL": url, "GITHUB_REPOSITORY": TEMPLATE,
                       "EXECUTORCH_PACK_BOT_MAX_WAIT": "0", "EXECUTORCH_PACK_BOT_WRITE_PAUSE": "0"})
    with tempfile.TemporaryDirectory() as tmp:
        remote = make_template_remote(tmp)
        runs = []
        for i in range(5):
            co = fresh_checkout(remote, Path(tmp) / f"co{i}")
            fake.requests.clear()
            t0 = time.perf_counter()
            code = cli(["run", "--repo", str(co), "--upstream", f"github:{UPSTREAM}"])
            runs.append(time.perf_counter() - t0)
            assert code == 0
        n = len(fake.requests)
        bare = []
        for _ in range(5):
            t0 = time.perf_counter()
            requests.get(f"{url}/repos/{UPSTREAM}/releases", timeout=10).raise_for_status()
            bare.append(time.perf_counter() - t0)
    fake.stop()
    run_t, bare_t = min(runs), min(bare)
    print(f"no-op run: {n} HTTP requests, {run_t * 1000:.1f} ms wall (best of 5)")
    print(f"bare requests.get of the releases endpoint: {bare_t * 1000:.1f} ms (best of 5)")
    print(f"ratio run/bare: {run_t / bare_t:.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
