"""Reference for the verify-pack benchmark: the kind of work upstream's validate_pack.py does.

Upstream's ``backends/arm/cmsis_pack/test/validate_pack.py`` is not available
offline; this minimal stand-in opens the same pack with :mod:`zipfile`, finds
the ``.pdsc`` at the pack root, parses it with :mod:`xml.etree.ElementTree`,
reads the release version, and checks that every ``<file name=...>`` of every
component is a member of the archive.  Exit 0 when all are present, 1 otherwise.

Run: ``python tests/bench/reference_validate.py PACK``
"""

from __future__ import annotations

import sys
import xml.etree.ElementTree as ET
import zipfile


def main(path: str) -> int:
    with zipfile.ZipFile(path) as zf:
        names = set(zf.namelist())
        pdsc = next(n for n in names if n.endswith(".pdsc") and "/" not in n)
        root = ET.fromstring(zf.read(pdsc))
    release = root.find("releases/release")
    version = release.get("version") if release is not None else None
    components = root.findall(".//components//component")
    missing = [f.get("name") for c in components for f in c.iter("file") if f.get("name") not in names]
    print(f"{pdsc}: version {version}, {len(components)} components, {len(names)} entries, "
          f"{len(missing)} missing file(s)")
    return 1 if missing or version is None else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
