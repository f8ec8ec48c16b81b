"""Benchmark of run-model: image build cold (empty ccache) and warm, and the QEMU run, per model.

Run: ``python tests/bench/bench_run_model.py [--pack PACK --pte A.pte ...] [--host-python PY] [--repeat R]``
(prints figures, asserts nothing).  Without ``--pack``: the sample pack (:mod:`bot.sample.packgen`)
and the suite's add/mul program (tests/worlds/ptekit.py), compared with outputs computed here.  With a real
pack (for example the v1.4.1 pack built by ``build-pack``) and programs exported by the executorch
wheel, give ``--host-python`` (a venv with the wheel).  Cold: a new ccache folder; warm: the same
folder again.  The host runtime's time (importing torch) is not part of the figures.
A program with ``NAME.expected.json`` beside it (the suite's int8 model: the wheel's reference) is compared
with that file instead of the host runtime; ``--dep-pack`` gives a local pack a selected component
requires (``ARM.CMSIS-NN.V.pack`` for the Cortex-M operators), ``--pack-index-url`` the index otherwise.
"""

from __future__ import annotations

import argparse
import os
import statistics
import struct
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent.parent), str(HERE.parent / "worlds")]

from bot.modelrun.run import run_model  # noqa: E402


def _sample(tmp: Path):
    import ptekit
    from bot.modelrun.host import dump
    from bot.modelrun.qemu import Tensor
    from bot.sample.packgen import write_demo_packs

    pack = write_demo_packs(tmp / "packs").good
    pte = tmp / "addmul.pte"
    pte.write_bytes(ptekit.add_mul())

    def f32(x):
        return struct.unpack("<f", struct.pack("<f", x))[0]

    vals = [f32(f32(ptekit.fixed(0, i) + ptekit.fixed(1, i)) * ptekit.fixed(1, i)) for i in range(6)]
    exp = tmp / "addmul.expected.json"
    exp.write_text(dump([Tensor(6, (2, 3), struct.pack("<6f", *vals))]))
    return pack, [(pte, exp)]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pack", type=Path)
    ap.add_argument("--pte", type=Path, action="append", default=[])
    ap.add_argument("--host-python")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--dep-pack", type=Path, action="append", default=[])
    ap.add_argument("--pack-index-url", default="off")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-run-model-") as t:
        tmp = Path(t)
        if args.pack:
            pack = args.pack
            models = [(p, p.with_name(p.stem + ".expected.json") if p.with_name(p.stem + ".expected.json").is_file()
                       else None) for p in args.pte]
        else:
            pack, models = _sample(tmp)
        from bot.modelrun.packdeps import DepOptions

        deps = DepOptions(local=tuple(args.dep_pack), index_url=args.pack_index_url, cache=tmp / "packs")
        print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}")
        for pte, exp in models:
            cold, warm, runs = [], [], []
            for i in range(args.repeat):
                cache = tmp / f"ccache-{pte.stem}-{i}"
                for kind, bucket in (("cold", cold), ("warm", warm)):
                    r = run_model(pack, pte, host_python=None if exp else args.host_python, expected=exp,
                                  cache_dir=cache, deps=deps)
                    if r.build_seconds is None:
                        print(f"{pte.name}: {r.status} at {r.stage}: {r.error}")
                        return
                    bucket.append(r.build_seconds)
                    runs.append(r.qemu_seconds)
            print(f"{pte.name}: {r.status} (max difference {r.max_abs_diff}), {r.instructions} instructions per "
                  f"inference{' with ' + ', '.join(r.packs) if r.packs else ''}; image build cold "
                  f"{statistics.median(cold):.2f} s, warm {statistics.median(warm):.2f} s; QEMU run "
                  f"{statistics.median(runs):.2f} s (medians of {args.repeat})")


if __name__ == "__main__":
    main()
