"""Benchmark: start-up of ``executorch-pack-bot --version`` and ``--help`` beside bare ``python -c pass``.

Whole processes, interleaved, medians (:mod:`benchkit`), run as the console
script pip writes (which imports :mod:`re` before the bot), and ``--version``
once more without that wrapper, to show the bot's own share.  Also prints how many modules each loads (the counts the
test suite asserts: tests/test_startup_imports.py).

Run: ``python tests/bench/bench_startup.py [--repeat R] [--bot-root DIR]``
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from benchkit import bot_cmd, bot_root, compile_bot, interleaved, machine, row  # noqa: E402

COUNT = "import sys; from bot import cli\ntry: cli.main(sys.argv[1:])\nexcept SystemExit: pass\nprint(len(sys.modules), file=sys.stderr)"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=21)
    ap.add_argument("--bot-root")
    a = ap.parse_args()
    root = bot_root(a.bot_root)
    compile_bot(root)
    cmd = bot_cmd(root)
    print(f"machine: {machine()}")
    print(f"bot: {root}; {a.repeat} interleaved runs each, medians")
    own = [sys.executable, "-c", "import sys\nfrom bot.cli import entry\nsys.exit(entry())"]
    res = interleaved([("python -c pass", [sys.executable, "-c", "pass"], root, (0,)),
                       ("executorch-pack-bot --version", cmd + ["--version"], root, (0,)),
                       ("executorch-pack-bot --help", cmd + ["--help"], root, (0,)),
                       ("--version without pip's wrapper", own + ["--version"], root, (0,))], a.repeat)
    bare = res["python -c pass"]
    print(row("python -c pass (reference)", bare))
    for label in ("executorch-pack-bot --version", "executorch-pack-bot --help", "--version without pip's wrapper"):
        print(row(label, res[label], bare))
    for args in (["--version"], ["--help"]):
        base = subprocess.run([sys.executable, "-c", "import sys; print(len(sys.modules), file=sys.stderr)"],
                              capture_output=True, text=True, cwd=root).stderr.strip()
        n = subprocess.run([sys.executable, "-c", COUNT] + args, capture_output=True, text=True, cwd=root).stderr.strip()
        print(f"modules loaded by {' '.join(args):<10}: {n.splitlines()[-1]} (bare python: {base})")
    print(f"machine after: {machine()}")


if __name__ == "__main__":
    main()
