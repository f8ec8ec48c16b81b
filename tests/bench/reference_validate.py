"""Reference for the verify-pack benchmark: a model of upstream's ``validate_pack.py``.

Upstream ships ``backends/arm/cmsis_pack/test/validate_pack.py PACK`` (ExecuTorch
v1.4.0 and v1.4.1, and a longer form on its main branch after v1.4.1).  The
benchmark runs the real script when given ``--reference PATH`` (a local copy,
never part of this project); without it, it runs this model, written here to do
the same kind of work in the same way:

* :mod:`argparse` for the one argument, :mod:`zipfile` to open the pack, the
  list and the set of its entry names;
* a ``.pdsc`` entry exists; some entry names ``runtime``, some entry names
  ``RegisterAllKernels``; the four build-generated files (the flatbuffers
  header and its licence, the two schema headers) end some entry name (the
  main-branch form; v1.4.1 has no such step);
* no duplicate entry names, no ``.py`` entries;
* the PDSC read whole and parsed with :mod:`xml.etree.ElementTree`;
* every directory prefix of every entry collected in a set, then every
  ``<file name>`` in the document looked up as an entry or a directory
  prefix (v1.4.1 scans every entry for a prefix instead: slower on ``include/``);
* the declared uncompressed sizes summed, the portable and quantized operator
  components counted in the PDSC text; a few lines printed.

Where it differs: the messages are shorter, a failure exits 1 without naming
the first offenders, and it stops at the first failed step, as upstream does.
Neither checks a CRC, a zip-safety rule or the manifest's values.

Run: ``python tests/bench/reference_validate.py PACK``
"""

from __future__ import annotations

import argparse
import sys
import xml.etree.ElementTree as ET
import zipfile

#: Files a pack built without the CMake step lacks (the main-branch form of upstream's script checks them).
BUILT_FILES = ("include/flatbuffers/flatbuffers.h", "include/flatbuffers/LICENSE",
               "include/executorch/schema/program_generated.h", "include/executorch/schema/scalar_type_generated.h")


def validate(path: str) -> int:
    """Exit code of the model on the pack at ``path``: 0 when every step passes, else 1."""
    with zipfile.ZipFile(path) as zf:
        names = zf.namelist()
        unique = set(names)
        manifests = [n for n in names if n.endswith(".pdsc")]
        steps = [
            ("a .pdsc entry", bool(manifests)),
            ("runtime sources", any("runtime" in n for n in names)),
            ("kernel registration", any("RegisterAllKernels" in n for n in names)),
        ] + [(f"build-generated {f}", any(n.endswith(f) for n in names)) for f in BUILT_FILES] + [
            ("no duplicate entries", len(unique) == len(names)),
            ("no Python files", not any(n.endswith(".py") for n in names)),
        ]
        for what, ok in steps:
            if not ok:
                print(f"failed: {what}")
                return 1
        text = zf.read(manifests[0]).decode()
        try:
            root = ET.fromstring(text)
        except ET.ParseError as exc:
            print(f"failed: PDSC is not well-formed ({exc})")
            return 1
        prefixes = set()
        for n in names:
            parts = n.split("/")
            for i in range(1, len(parts)):
                prefixes.add("/".join(parts[:i]) + "/")
        unresolved = [el.attrib["name"] for el in root.iter("file") if "name" in el.attrib
                      and el.attrib["name"] not in unique
                      and (el.attrib["name"].rstrip("/") + "/") not in prefixes]
        if unresolved:
            print(f"failed: {len(unresolved)} <file> names resolve to nothing")
            return 1
        unpacked = sum(i.file_size for i in zf.infolist())
        portable, quantized = text.count('Csub="Portable'), text.count('Csub="Quantized')
        print(f"{len(names)} entries, {unpacked // 1024} KiB unpacked; "
              f"{portable} portable, {quantized} quantized operators")
    print("passed")
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description="model of upstream's validate_pack.py (benchmark reference)")
    ap.add_argument("pack")
    return validate(ap.parse_args().pack)


if __name__ == "__main__":
    sys.exit(main())
