"""Benchmark: the fixed cost of starting the bot, beside bare ``python -c pass``.

Whole processes, interleaved, medians (:mod:`benchkit`):

* ``executorch-pack-bot --version`` and ``--help`` as the console script pip
  writes (which imports :mod:`re` before the bot), ``--version`` as the
  script uv writes (no ``re``), and ``--version`` with no wrapper at all
  (``from bot.cli import entry``), to show the bot's own share;
* the start-up share of ``update --dry-run`` and ``verify-pack``: a process
  that imports exactly the modules the command loads (listed from one real run
  of it: ``update --dry-run`` of the shipped sample template against the
  sample upstream, ``verify-pack`` of a real-size generated pack), in the order
  it loads them, and does nothing else; then the whole command beside it;
* where the CPU time of ``update --dry-run`` goes (medians): the interpreter's
  own start, imports (each outermost module execution, the libraries' and the
  bot's), patterns compiled outside imports (on first use), and the rest (the
  plan's work and the output).  ``--template DIR --upstream DIR`` measures
  ``update`` on another template (for example a tree ``bench_plan.py --keep``
  built) instead of the shipped sample;
* with ``--against DIR`` (another checkout, for example ``git archive main | tar
  -x -C DIR``), the whole commands of both bots interleaved in one run, and
  the CPU time of this one against the other's.

Also prints how many modules each loads (the test suite asserts which ones:
tests/project/test_startup_imports.py).

Run: ``python tests/bench/bench_startup.py [--repeat R] [--bot-root DIR] [--template DIR --upstream DIR]
[--against DIR]``
"""

from __future__ import annotations

import argparse
import ast
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parents[1]))

from benchkit import bot_cmd, bot_root, compile_bot, interleaved, machine, row  # noqa: E402

#: The console script uv writes for ``executorch-pack-bot`` (uv 0.13; no ``re``).
UV_SCRIPT = ("import sys\nfrom bot.cli import entry\nif __name__ == \"__main__\":\n"
             "    if sys.argv[0].endswith(\"-script.pyw\"):\n        sys.argv[0] = sys.argv[0][:-11]\n"
             "    elif sys.argv[0].endswith(\".exe\"):\n        sys.argv[0] = sys.argv[0][:-4]\n"
             "    sys.exit(entry())\n")

#: Runs ``bot.cli.main(argv)``, then prints the names of the modules loaded, in load order.
LIST_MODULES = ("import sys\nbare = set(sys.modules)\nfrom bot import cli\ntry:\n    cli.main(sys.argv[1:])\n"
                "except SystemExit:\n    pass\nsys.stdout.flush()\n"
                "print('\\n@@' + repr([m for m in sys.modules if m not in bare]), file=sys.stderr)")

#: Imports the modules named in argv[1] (a repr'd list), in order; a module only a C extension can
#: load (``_cython_...``) is skipped.
IMPORT_ONLY = ("import importlib, sys\nfor name in eval(sys.argv[1]):\n    try:\n"
               "        importlib.import_module(name)\n    except Exception:\n        pass\n")


#: Runs the console script's code like :data:`benchkit.CONSOLE_SCRIPT` and prints the CPU split of the
#: run (ms): the interpreter's start, outermost module executions, patterns compiled outside imports, the rest.
SPLIT = """import time
T0 = time.process_time()
import importlib._bootstrap as bs
state = {"depth": 0, "imports": 0.0, "re": 0.0}
load_unlocked = bs._load_unlocked
def load(spec):
    t = time.process_time()
    state["depth"] += 1
    try:
        return load_unlocked(spec)
    finally:
        state["depth"] -= 1
        if not state["depth"]:
            state["imports"] += time.process_time() - t
bs._load_unlocked = load
t = time.process_time()
import re
state["imports"] += time.process_time() - t
compile_ = re._compile
def timed_compile(pattern, flags):
    if state["depth"]:
        return compile_(pattern, flags)
    t = time.process_time()
    try:
        return compile_(pattern, flags)
    finally:
        state["re"] += time.process_time() - t
re._compile = timed_compile
import sys
from bot.cli import entry
try:
    entry()
except SystemExit:
    pass
total = time.process_time()
sys.stdout.flush()
print("\\n@@", repr([T0 * 1e3, state["imports"] * 1e3, state["re"] * 1e3,
                      (total - T0 - state["imports"] - state["re"]) * 1e3]), file=sys.stderr)
"""


def cpu_split(root: Path, argv: list[str], repeat: int) -> list[float]:
    """Medians (ms) of :data:`SPLIT`'s four figures over ``repeat`` runs of ``executorch-pack-bot ARGV``."""
    runs = []
    for _ in range(repeat):
        proc = subprocess.run([sys.executable, "-c", SPLIT, *argv], capture_output=True, text=True, cwd=root)
        runs.append(ast.literal_eval(proc.stderr.rsplit("@@", 1)[1].strip()))
    return [statistics.median(r[i] for r in runs) for i in range(4)]


def loaded_modules(root: Path, argv: list[str]) -> list[str]:
    """The modules (not loaded by bare Python) that ``executorch-pack-bot ARGV`` of ``root`` loads, in order."""
    proc = subprocess.run([sys.executable, "-c", LIST_MODULES, *argv], capture_output=True, text=True, cwd=root)
    return ast.literal_eval(proc.stderr.rsplit("@@", 1)[1])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=21)
    ap.add_argument("--bot-root")
    ap.add_argument("--template", help="measure update on this template checkout (default: the shipped sample)")
    ap.add_argument("--upstream", help="the upstream git repository for --template")
    ap.add_argument("--against", metavar="DIR", help="also run the bot of checkout DIR, interleaved, and compare")
    a = ap.parse_args()
    root = bot_root(a.bot_root)
    compile_bot(root)
    cmd = bot_cmd(root)
    print(f"machine: {machine()}")
    print(f"bot: {root}; {a.repeat} interleaved runs each, medians")
    own = [sys.executable, "-c", "import sys\nfrom bot.cli import entry\nsys.exit(entry())"]
    uv = [sys.executable, "-c", UV_SCRIPT]
    res = interleaved([("python -c pass", [sys.executable, "-c", "pass"], root, (0,)),
                       ("executorch-pack-bot --version", cmd + ["--version"], root, (0,)),
                       ("executorch-pack-bot --help", cmd + ["--help"], root, (0,)),
                       ("--version, uv's wrapper", uv + ["--version"], root, (0,)),
                       ("--version without a wrapper", own + ["--version"], root, (0,))], a.repeat)
    bare = res["python -c pass"]
    print(row("python -c pass (reference)", bare))
    for label in ("executorch-pack-bot --version", "executorch-pack-bot --help", "--version, uv's wrapper",
                  "--version without a wrapper"):
        print(row(label, res[label], bare))
    for args in (["--version"], ["--help"]):
        print(f"modules loaded by {' '.join(args):<10}: {len(loaded_modules(root, args))} beyond bare python")

    from bot.commands.demo import copy_template
    from bot.sample import build_upstream_repo
    from bot.sample.packgen import make_pack, realistic_spec

    with tempfile.TemporaryDirectory() as tmp:
        tpl = Path(a.template) if a.template else copy_template(Path(tmp) / "template")
        upstream = Path(a.upstream) if a.upstream else build_upstream_repo(Path(tmp) / "executorch")
        pack = make_pack(Path(tmp) / "pack", realistic_spec(1))
        commands = {"update --dry-run": (["update", "--repo", str(tpl), "--upstream", str(upstream), "--dry-run"],
                                         (0, 1)),
                    "verify-pack": (["verify-pack", "--version", "1.5.1", str(pack)], (0,))}
        for name, (argv, ok) in commands.items():
            mods = loaded_modules(root, argv)
            imports = [sys.executable, "-c", IMPORT_ONLY, repr(mods)]
            res = interleaved([("bare", [sys.executable, "-c", "pass"], root, (0,)),
                               ("imports", imports, root, (0,)),
                               ("whole", cmd + argv, root, ok)], a.repeat)
            what = "real-size pack, 1x" if name == "verify-pack" else a.template or "sample template"
            print(f"\n{name} ({what}): "
                  f"{len(mods)} modules beyond bare python, {sum(m.startswith('bot') for m in mods)} of them the bot's")
            print(row("python -c pass (reference)", res["bare"]))
            print(row(f"its imports only", res["imports"], res["bare"]))
            print(row(f"{name} (whole process)", res["whole"], res["bare"]))
            interp, imports, patterns, rest = cpu_split(root, argv, a.repeat)
            print(f"{'CPU split (medians)':<40} interpreter {interp:5.1f} ms, imports {imports:6.1f} ms, patterns "
                  f"compiled outside imports {patterns:5.1f} ms, the rest {rest:6.1f} ms")
        if a.against:
            other = bot_root(a.against)
            compile_bot(other)
            print(f"\nthis bot against {other}, interleaved (CPU: this / that)")
            for label, argv, ok in [("--version", ["--version"], (0,)), ("--help", ["--help"], (0,))] + [
                    (name, argv, ok) for name, (argv, ok) in commands.items()]:
                res = interleaved([("this", cmd + argv, root, ok), ("that", bot_cmd(other) + argv, other, ok)],
                                  a.repeat)
                print(row(f"{label} (that)", res["that"]))
                print(row(f"{label} (this)", res["this"], res["that"]))
    print(f"\nmachine after: {machine()}")


if __name__ == "__main__":
    main()
