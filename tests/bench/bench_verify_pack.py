"""Benchmark of verify-pack: the whole process beside a reference, growth with size, peak memory.

Run: ``python tests/bench/bench_verify_pack.py [--repeat R] [--bot-root DIR] [--reference PATH]``
(prints figures, asserts nothing).

* ``executorch-pack-bot verify-pack`` as a whole process, every default check on, on a
  real-size generated pack (:func:`bot.sample.packgen.realistic_spec`: about 1,000
  entries, about 200 components), interleaved with the reference on the same pack;
  medians and the ratio.  The reference is ``--reference PATH``, a local copy of
  upstream's ``backends/arm/cmsis_pack/test/validate_pack.py`` (ExecuTorch v1.4.1, or its
  main branch), run as ``python PATH PACK``; without it, the model
  ``tests/bench/reference_validate.py`` (the same kind of work; its docstring says where
  it differs);
* the same at 10x and 50x (``realistic_spec(10)``, ``realistic_spec(50)``: 47,000
  entries, the largest under verify-pack's limit of 50,000 entries); time per 1,000 entries;
  at 100x (94,000 entries) verify-pack refuses the pack from its end-of-central-directory
  record (exit 1, the ``archive`` check), so only its peak memory is shown there;
* peak RSS (GNU ``/usr/bin/time -f %M``) of both processes on the 1x, 10x, 50x and 100x
  packs, and on a pack of the 1x entries plus 200 MB of incompressible members:
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

MODEL = HERE / "reference_validate.py"
SCALES = (1, 10, 50)


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
    ap.add_argument("--reference", type=Path, metavar="PATH",
                    help="a local copy of upstream's validate_pack.py (default: the model reference_validate.py)")
    a = ap.parse_args()
    root = bot_root(a.bot_root)
    compile_bot(root)
    reference = (a.reference or MODEL).resolve()
    ref_label = f"reference ({reference.name})" if a.reference else "reference (model of validate_pack.py)"
    print(f"machine: {machine()}")
    print(f"bot: {root}; reference: {reference}")
    print(f"{a.repeat} interleaved runs each (3 at 10x, 1 at 50x), medians")
    tmp = Path(tempfile.mkdtemp(prefix="bench-verify-pack-"))
    try:
        packs = {scale: make_pack(tmp / f"x{scale}", realistic_spec(scale)) for scale in SCALES + (100,)}
        big = make_pack(tmp / "big", realistic_spec(1), big_members=(52 << 20,) * 4)
        rss: dict[str, tuple[int, int]] = {}
        for scale, pack in packs.items():
            entries = len(zipfile.ZipFile(pack).infolist())
            verify = bot_cmd(root) + ["verify-pack", "--version", "1.5.1", str(pack)]
            ref = [sys.executable, str(reference), str(pack)]
            if scale in SCALES:
                repeat = a.repeat if scale == 1 else (3 if scale == 10 else 1)
                res = interleaved([("reference", ref, root, (0,)), ("verify-pack", verify, root, (0,))], repeat)
                print(f"\n{scale}x pack: {entries} entries, {pack.stat().st_size / 1e6:.1f} MB")
                print(row(ref_label, res["reference"]))
                print(row("verify-pack (whole process)", res["verify-pack"], res["reference"]))
                print(f"{'per 1,000 entries':<44} verify-pack {res['verify-pack'] / entries * 1e6:7.1f} ms, "
                      f"reference {res['reference'] / entries * 1e6:7.1f} ms")
            else:
                print(f"\n{scale}x pack: {entries} entries: verify-pack refuses it (entry limit); memory only")
            rss[f"{scale}x"] = (peak_rss_kib(verify, root), peak_rss_kib(ref, root))
        verify_big = bot_cmd(root) + ["verify-pack", "--version", "1.5.1", str(big)]
        rss["1x + 200 MB"] = (peak_rss_kib(verify_big, root), peak_rss_kib([sys.executable, str(reference), str(big)], root))
        print("\npeak RSS (MiB): verify-pack / reference, and each one's ratio to its 1x figure")
        base, ref_base = rss["1x"]
        for label, (v, r) in rss.items():
            print(f"  {label:<12} {v / 1024:7.1f} / {r / 1024:7.1f}   ratio {v / base:5.2f}x / {r / ref_base:5.2f}x")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"\nmachine after: {machine()}")

if __name__ == "__main__":
    main()
