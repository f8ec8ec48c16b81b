"""Benchmark of verify-pack: the whole process beside a reference, growth with size, peak memory.

Run: ``python tests/bench/bench_verify_pack.py [--repeat R] [--bot-root DIR]`` (prints figures, asserts nothing).

* ``executorch-pack-bot verify-pack`` as a whole process, every default check on, on a
  real-size generated pack (:func:`bot.sample.packgen.realistic_spec`: about 1,000
  entries, about 200 components), interleaved with the reference
  ``tests/bench/reference_validate.py`` (zipfile + xml.etree on the same pack: the kind
  of work upstream's validate_pack.py does; upstream's script is not available offline);
  medians and the ratio;
* the same at 10x and 100x (``realistic_spec(10)``, ``realistic_spec(100)``): time per
  1,000 entries;
* peak RSS (GNU ``/usr/bin/time -f %M``) of both processes on the 1x
  and 100x packs, and on a pack of the 1x entries plus 200 MB of incompressible members:
  the ratio to the 1x pack.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parents[1]))

from benchkit import bot_cmd, bot_root, compile_bot, interleaved, machine, row  # noqa: E402

from bot.sample.packgen import make_pack, realistic_spec  # noqa: E402

REFERENCE = HERE / "reference_validate.py"


def peak_rss_kib(argv: list[str], cwd: Path) -> int:
    """Peak resident set (KiB) of one run of ``argv``, measured by GNU time (``%M``).

    Not this process's ``wait4``: a child forked from this (large) process starts its
    high-water mark at the parent's size, and Linux carries it across ``exec``.
    """
    with tempfile.NamedTemporaryFile("r") as out:
        subprocess.run(["/usr/bin/time", "-f", "%M", "-o", out.name] + argv, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, cwd=cwd)
        return int(out.read().split()[-1])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=11)
    ap.add_argument("--bot-root")
    a = ap.parse_args()
    root = bot_root(a.bot_root)
    compile_bot(root)
    print(f"machine: {machine()}")
    print(f"bot: {root}; {a.repeat} interleaved runs each (3 at 10x, 1 at 100x), medians")
    tmp = Path(tempfile.mkdtemp(prefix="bench-verify-pack-"))
    try:
        packs = {scale: make_pack(tmp / f"x{scale}", realistic_spec(scale)) for scale in (1, 10, 100)}
        big = make_pack(tmp / "big", realistic_spec(1), big_members=(52 << 20,) * 4)
        rss: dict[str, tuple[int, int]] = {}
        for scale, pack in packs.items():
            entries = len(zipfile.ZipFile(pack).infolist())
            verify = bot_cmd(root) + ["verify-pack", "--version", "1.5.1", str(pack)]
            ref = [sys.executable, str(REFERENCE), str(pack)]
            repeat = a.repeat if scale == 1 else (3 if scale == 10 else 1)
            res = interleaved([("reference", ref, root, (0,)), ("verify-pack", verify, root, (0,))], repeat)
            print(f"\n{scale}x pack: {entries} entries, {pack.stat().st_size / 1e6:.1f} MB")
            print(row("reference (zipfile + xml.etree)", res["reference"]))
            print(row("verify-pack (whole process)", res["verify-pack"], res["reference"]))
            print(f"{'per 1,000 entries':<44} verify-pack {res['verify-pack'] / entries * 1e6:7.1f} ms, "
                  f"reference {res['reference'] / entries * 1e6:7.1f} ms")
            if scale in (1, 100):
                rss[f"{scale}x"] = (peak_rss_kib(verify, root), peak_rss_kib(ref, root))
        verify_big = bot_cmd(root) + ["verify-pack", "--version", "1.5.1", str(big)]
        rss["1x + 200 MB"] = (peak_rss_kib(verify_big, root), peak_rss_kib([sys.executable, str(REFERENCE), str(big)], root))
        print("\npeak RSS (MiB): verify-pack / reference, and verify-pack's ratio to the 1x pack")
        base = rss["1x"][0]
        for label, (v, r) in rss.items():
            print(f"  {label:<12} {v / 1024:7.1f} / {r / 1024:7.1f}   ratio {v / base:5.2f}x")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"\nmachine after: {machine()}")


if __name__ == "__main__":
    main()
