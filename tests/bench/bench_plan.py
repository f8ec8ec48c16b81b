"""Benchmark: a dry-run plan on a realistic template tree, beside `git grep -n ExecuTorch`.

Builds (in a temporary folder) the sample template plus about 5,000 files:
3,000 small vendored headers under ``ai_layer/engine/include``, 1,900 small
source/doc files elsewhere, a few multi-MB model binaries, and real-size
YAML/Markdown files; commits it to git; then measures, in the same run:

* ``git grep -n ExecuTorch`` on the tree (a whole process);
* ``executorch-pack-bot update --dry-run`` as a whole process;
* ``bot.engine.plan`` in-process (scan + upstream + managers + validation).

and prints the figures and the ratios to git grep (the target is in docs/architecture.md).

Run: ``python tests/bench/bench_plan.py [--files N] [--repeat R]``
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bot import engine  # noqa: E402
from bot.commands.demo import copy_template  # noqa: E402
from bot.sample import build_upstream_repo  # noqa: E402
from bot.upstream.git import GitSource  # noqa: E402

GIT_ENV = dict(os.environ, GIT_AUTHOR_NAME="bench", GIT_AUTHOR_EMAIL="bench@example.invalid",
               GIT_COMMITTER_NAME="bench", GIT_COMMITTER_EMAIL="bench@example.invalid")


def build_tree(dest: Path, files: int) -> Path:
    """The sample template grown to about ``files`` files; returns its path."""
    tpl = copy_template(dest)
    headers = int(files * 0.6)
    inc = tpl / "ai_layer" / "engine" / "include"
    for i in range(headers):
        d = inc / f"mod{i % 40:02d}"
        d.mkdir(parents=True, exist_ok=True)
        (d / f"h{i}.h").write_text(f"// vendored header {i} of ExecuTorch 1.4.0\n#pragma once\nint f{i}(void);\n")
    other = files - headers - 40
    for i in range(other):
        d = tpl / "src" / f"part{i % 30:02d}"
        d.mkdir(parents=True, exist_ok=True)
        suffix = (".c", ".md", ".txt", ".py")[i % 4]
        (d / f"f{i}{suffix}").write_text(f"# file {i}\nsome text without versions\n" * 5)
    big = os.urandom(4 * 1024 * 1024)
    for i in range(4):
        (tpl / "model" / f"weights{i}.bin").write_bytes(big)
    # real-size docs: a long README and a long docs page with many mentions
    para = ("The pack and the exporter must be the same ExecuTorch version. Install it with "
            "`cpackget add PyTorch::ExecuTorch@1.4.0` and `pip install executorch==1.4.0`.\n\n")
    (tpl / "documentation" / "guide.md").write_text("# Guide\n\n" + para * 400)
    subprocess.run(["git", "init", "-q", str(tpl)], check=True)
    subprocess.run(["git", "-C", str(tpl), "add", "-A"], check=True)
    subprocess.run(["git", "-C", str(tpl), "commit", "-qm", "bench tree"], check=True, env=GIT_ENV)
    return tpl


def best_of(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times), statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--files", type=int, default=5000)
    ap.add_argument("--repeat", type=int, default=5)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        t0 = time.perf_counter()
        tpl = build_tree(tmp / "template", a.files)
        upstream = build_upstream_repo(tmp / "executorch.git")
        nfiles = int(subprocess.run(["git", "-C", str(tpl), "ls-files"], capture_output=True, text=True,
                                    check=True).stdout.count("\n"))
        print(f"tree: {nfiles} files (built in {time.perf_counter() - t0:.1f} s)")

        def grep():
            subprocess.run(["git", "-C", str(tpl), "grep", "-n", "ExecuTorch"], stdout=subprocess.DEVNULL,
                           check=True)

        def cli():
            subprocess.run([sys.executable, "-m", "bot", "update", "--repo", str(tpl), "--upstream",
                            str(upstream), "--dry-run"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                           check=True, cwd=ROOT)

        source = GitSource(upstream)

        def inproc():
            p = engine.plan(tpl, source)
            assert p.contents

        g_best, g_med = best_of(grep, a.repeat)
        c_best, c_med = best_of(cli, a.repeat)
        i_best, i_med = best_of(inproc, a.repeat)
        print(f"git grep -n ExecuTorch      : best {g_best * 1000:7.1f} ms  median {g_med * 1000:7.1f} ms")
        print(f"update --dry-run (process)  : best {c_best * 1000:7.1f} ms  median {c_med * 1000:7.1f} ms"
              f"  ratio {c_best / g_best:5.2f}x")
        print(f"engine.plan (in-process)    : best {i_best * 1000:7.1f} ms  median {i_med * 1000:7.1f} ms"
              f"  ratio {i_best / g_best:5.2f}x")


if __name__ == "__main__":
    main()
