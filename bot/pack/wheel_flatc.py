"""flatc from the release's own ``executorch`` wheel: find it, check its version, generate the schema headers.

The pack takes two things from a CMake build tree (``copy_sources.sh`` in
ExecuTorch's backends/arm/cmsis_pack/scripts/ at v1.4.1): the flatc-generated
``program_generated.h`` and ``scalar_type_generated.h`` (looked for under
``BUILD/schema/include/executorch/schema/``) and the flatbuffers headers
(``BUILD/third-party/flatc_ep/include/flatbuffers/``, what the ExternalProject
``flatbuffers_ep`` installs).  The CMake build compiles flatc for the host to
make them.  The ``executorch`` wheel ships that flatc as
``executorch/data/bin/flatc`` (1.4.1: flatc 24.3.25, the same as the tag's
``third-party/flatbuffers``), and the installed flatbuffers headers are a
copy of the tag's ``third-party/flatbuffers/include/flatbuffers/``.  So when
the wheel's flatc has the tree's flatbuffers version, the same headers come
out without compiling anything for the host:

- :func:`tree_flatbuffers_version` reads the tree's version from
  ``third-party/flatbuffers/include/flatbuffers/base.h``
  (``FLATBUFFERS_VERSION_MAJOR/MINOR/REVISION``; the header the pack ships),
  else ``third-party/flatbuffers/CMake/Version.cmake``
  (``set(VERSION_MAJOR 24)`` ...);
- :func:`package_flatc` asks an interpreter where its ``executorch`` package is
  (``importlib.util.find_spec``, which does not import it) and which version it is;
  :func:`index_flatc` instead fetches the wheel of a release from the package
  index (``pip download --no-deps``) and takes flatc out of it;
- :func:`flatc_version` runs ``flatc --version`` (``flatc version 24.3.25``);
- :func:`generate_headers` runs flatc with the flags of ExecuTorch's
  schema/CMakeLists.txt at v1.4.1 (``--cpp --cpp-std c++11 --gen-mutable
  --scoped-enums -o OUT FILE.fbs``, in ``ROOT/schema``) for each of
  :data:`SCHEMAS`, into a folder of the caller's;
- :func:`lay_out` puts the headers and the flatbuffers include tree where
  ``copy_sources.sh`` reads them.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

from bot.contain import run_guest
from bot.errors import PackError
from bot.scrubbed import scrubbed_env

#: The schema files and the headers flatc makes of them (ExecuTorch's schema/CMakeLists.txt at v1.4.1:
#: ``common_schema`` from scalar_type.fbs, ``program_schema`` from program.fbs).
SCHEMAS = (("scalar_type.fbs", "scalar_type_generated.h"), ("program.fbs", "program_generated.h"))
#: flatc's flags in ExecuTorch's schema/CMakeLists.txt at v1.4.1 (also backends/arm/cmsis_pack/README.md).
FLATC_FLAGS = ("--cpp", "--cpp-std", "c++11", "--gen-mutable", "--scoped-enums")
#: Where the wheel keeps flatc, relative to the ``executorch`` package folder (the 1.4.1 wheel).
WHEEL_FLATC = Path("data/bin/flatc")
#: The tree's flatbuffers sources: the include folder the pack ships, and the two files naming its version.
FLATBUFFERS_INCLUDE = Path("third-party/flatbuffers/include/flatbuffers")
VERSION_FILES = (Path("third-party/flatbuffers/include/flatbuffers/base.h"),
                 Path("third-party/flatbuffers/CMake/Version.cmake"))
#: Where copy_sources.sh reads the generated headers and the flatbuffers folder, relative to the build dir
#: (ExecuTorch's backends/arm/cmsis_pack/scripts/copy_sources.sh at v1.4.1).
SCHEMA_OUT = Path("schema/include/executorch/schema")
FLATBUFFERS_OUT = Path("third-party/flatc_ep/include/flatbuffers")
#: Seconds allowed to the interpreter query, ``flatc --version`` and each generation.
TIMEOUT = 60
# Version numbers: at most 9 digits (a longer run is no version, and int() refuses one over 4300 digits).
_BASE_H = {part: re.compile(rf"^\s*#\s*define\s+FLATBUFFERS_VERSION_{part}\s+(\d{{1,9}})\b", re.M)
           for part in ("MAJOR", "MINOR", "REVISION")}
_CMAKE = {part: re.compile(rf"^\s*set\(\s*VERSION_{part}\s+(\d{{1,9}})\s*\)", re.M)
          for part in ("MAJOR", "MINOR", "PATCH")}
# What an installed executorch's metadata version may be to be shown (PEP 440 characters, bounded).
_SHOWN_VERSION = re.compile(r"[0-9A-Za-z.+!_-]{1,64}")
_FLATC_VERSION = re.compile(r"\bflatc version (\d+\.\d+\.\d+)\b")
# Run by the --python interpreter: where its executorch package is, without importing it.
_QUERY = ("import importlib.util, importlib.metadata, json\n"
          "s = importlib.util.find_spec('executorch')\n"
          "locs = list(s.submodule_search_locations or []) if s else []\n"
          "try:\n    v = importlib.metadata.version('executorch')\n"
          "except Exception:\n    v = None\n"
          "print(json.dumps({'locations': locs, 'version': v}))\n")


@dataclass(frozen=True)
class Flatc:
    """A flatc executable and where it came from.

    Attributes:
        path: the executable.
        origin: for the log, e.g. ``"the executorch 1.4.1 package of /venv/bin/python"``.
        version: ``flatc --version``'s X.Y.Z, or None before :func:`flatc_version` ran.
    """

    path: Path
    origin: str
    version: str | None = None


def tree_flatbuffers_version(root: Path) -> tuple[str, Path] | None:
    """(``X.Y.Z``, the file it was read from) of the tree's ``third-party/flatbuffers``, or None.

    Tries :data:`VERSION_FILES` in order: ``include/flatbuffers/base.h``'s
    ``#define FLATBUFFERS_VERSION_MAJOR 24`` / ``_MINOR 3`` / ``_REVISION 25``
    (flatbuffers v24.3.25), then ``CMake/Version.cmake``'s ``set(VERSION_MAJOR 24)``
    / ``MINOR`` / ``PATCH``.  None when neither names all three numbers.
    """
    for rel, patterns in zip(VERSION_FILES, (_BASE_H, _CMAKE)):
        try:
            text = (root / rel).read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        parts = [p.search(text) for p in patterns.values()]
        if all(parts):
            return ".".join(str(int(m.group(1))) for m in parts), rel
    return None


def package_flatc(python: str) -> Flatc:
    """The flatc of ``python``'s ``executorch`` package (``<package>/data/bin/flatc``).

    Runs ``python -c`` with :func:`importlib.util.find_spec` (the package is
    not imported, so torch is not loaded) and :func:`importlib.metadata.version`.

    Raises:
        PackError (exit 2) naming the interpreter: it cannot run, has no
        ``executorch`` package, or the package has no ``data/bin/flatc``.
    """
    try:
        # the template venv's python runs its .pth files: upstream code, contained (bot.contain.run_guest)
        proc = run_guest([python, "-c", _QUERY], capture_output=True, text=True, errors="replace",
                         timeout=TIMEOUT, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError) as exc:
        raise PackError(f"--python {python}: cannot run it to find its executorch package: {exc}") from None
    try:
        found = json.loads(proc.stdout.strip().splitlines()[-1]) if proc.returncode == 0 else None
    except (ValueError, IndexError):
        found = None
    if not isinstance(found, dict):
        tail = (proc.stderr.strip().splitlines() or ["(no output)"])[-1][:300]
        raise PackError(f"--python {python}: asking it for its executorch package failed "
                        f"(exit {proc.returncode}): {tail}")
    locations = [Path(p) for p in found.get("locations") or [] if isinstance(p, str)]
    version = found.get("version") if isinstance(found.get("version"), str) else None
    if version is not None and not _SHOWN_VERSION.fullmatch(version):
        version = None   # it reaches the log in the flatc's origin: nothing that could hold a workflow command
    if not locations:
        raise PackError(f"--python {python} has no executorch package: build-pack takes flatc from the "
                        "release's executorch wheel (executorch/data/bin/flatc); install it there "
                        "(pip install executorch==X.Y.Z), or pass --python of a venv that has it, or "
                        "--cmake-targets to compile flatc with CMake instead")
    for loc in locations:
        if (loc / WHEEL_FLATC).is_file():
            what = f"executorch {version}" if version else "executorch"
            return Flatc(loc / WHEEL_FLATC, f"the {what} package of {python}")
    raise PackError(f"--python {python}: its executorch package ({locations[0]}) has no {WHEEL_FLATC} "
                    "(an executorch built from source without flatc?); pass --cmake-targets to compile "
                    "flatc with CMake instead")


def index_flatc(release: str, dest: Path, *, python: str = sys.executable) -> Flatc | str:
    """flatc out of the ``executorch==release`` wheel from the package index, or why there is none.

    Runs ``python -m pip download --no-deps --only-binary=:all: executorch==RELEASE
    --dest TMP`` (pip's own index settings apply), takes ``executorch/data/bin/flatc``
    out of the wheel into ``dest`` (mode 0755) and returns it.  Returns a
    reason (str) instead when pip finds no such wheel (a nightly, a local
    version) or the wheel has no flatc; the caller then builds with CMake.
    """
    with tempfile.TemporaryDirectory(prefix="et-wheel-") as tmp:
        argv = [python, "-m", "pip", "download", "--no-deps", "--only-binary=:all:", "--disable-pip-version-check",
                "--quiet", f"executorch=={release}", "--dest", tmp]
        try:
            proc = subprocess.run(argv, capture_output=True, text=True, errors="replace", timeout=600,
                                  stdin=subprocess.DEVNULL, env=scrubbed_env())
        except (OSError, subprocess.SubprocessError) as exc:
            return f"pip download executorch=={release} could not run: {exc}"
        wheels = sorted(Path(tmp).glob("executorch-*.whl"))
        if proc.returncode != 0 or not wheels:
            tail = (proc.stderr.strip().splitlines() or ["(no output)"])[-1][:300]
            return f"no executorch {release} wheel on the package index (pip download: {tail})"
        member = "executorch/" + WHEEL_FLATC.as_posix()
        try:
            with zipfile.ZipFile(wheels[0]) as zf:
                data = zf.read(member)
        except (KeyError, OSError, zipfile.BadZipFile):
            return f"the wheel {wheels[0].name} has no {member}"
    dest.mkdir(parents=True, exist_ok=True)
    out = dest / "flatc"
    out.write_bytes(data)
    out.chmod(0o755)
    return Flatc(out, f"the executorch {release} wheel from the package index ({wheels[0].name})")


def flatc_version(flatc: Flatc) -> Flatc:
    """``flatc --version`` -> the same :class:`Flatc` with ``version`` set (``flatc version 24.3.25``).

    Raises:
        PackError (exit 2) naming the executable: it cannot run, exits
        non-zero, or prints no ``flatc version X.Y.Z``.
    """
    try:
        proc = run_guest([str(flatc.path), "--version"], capture_output=True, text=True, errors="replace",
                         timeout=TIMEOUT, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError) as exc:
        raise PackError(f"flatc of {flatc.origin} cannot run: {exc}", path=str(flatc.path)) from None
    m = _FLATC_VERSION.search(proc.stdout + "\n" + proc.stderr)
    if proc.returncode != 0 or m is None:
        tail = ((proc.stderr + proc.stdout).strip().splitlines() or ["(no output)"])[-1][:300]
        raise PackError(f"flatc of {flatc.origin}: `flatc --version` failed (exit {proc.returncode}): {tail}",
                        path=str(flatc.path))
    return Flatc(flatc.path, flatc.origin, m.group(1))


def generate_headers(flatc: Flatc, root: Path, out: Path) -> list[Path]:
    """Run flatc on each of :data:`SCHEMAS` (in ``root/schema``) into ``out``; return the headers made.

    The command of ExecuTorch's schema/CMakeLists.txt at v1.4.1:
    ``flatc --cpp --cpp-std c++11 --gen-mutable --scoped-enums -o OUT FILE.fbs``.

    Raises:
        PackError (exit 2): a schema file is missing, flatc fails, or it
        exits 0 without writing a non-empty header (its last output line quoted).
    """
    made = []
    for fbs, header in SCHEMAS:
        if not (root / "schema" / fbs).is_file():
            raise PackError(f"schema/{fbs} not found: flatc has nothing to compile", path=str(root / "schema" / fbs))
        argv = [str(flatc.path), *FLATC_FLAGS, "-o", str(out), fbs]
        try:
            proc = run_guest(argv, cwd=root / "schema", writable=[out], capture_output=True, text=True,
                             errors="replace", timeout=TIMEOUT, stdin=subprocess.DEVNULL)
        except (OSError, subprocess.SubprocessError) as exc:
            raise PackError(f"flatc of {flatc.origin} cannot run: {exc}", path=str(flatc.path)) from None
        target = out / header
        if proc.returncode != 0 or not target.is_file() or target.stat().st_size == 0:
            tail = ((proc.stderr + proc.stdout).strip().splitlines() or ["(no output)"])[-1][:300]
            how = f"exit {proc.returncode}" if proc.returncode else f"exit 0 without writing {header}"
            raise PackError(f"flatc of {flatc.origin} failed on schema/{fbs} ({how}): {tail}",
                            path=str(flatc.path))
        made.append(target)
    return made


def lay_out(headers: list[Path], root: Path, build_dir: Path) -> tuple[Path, Path]:
    """Copy the generated headers and the tree's flatbuffers headers where copy_sources.sh reads them.

    ``BUILD/`` :data:`SCHEMA_OUT` gets the headers; ``BUILD/`` :data:`FLATBUFFERS_OUT`
    becomes a copy of ``ROOT/`` :data:`FLATBUFFERS_INCLUDE` (an older copy is
    replaced).  Returns the two folders.
    """
    schema_dir, fb_dir = build_dir / SCHEMA_OUT, build_dir / FLATBUFFERS_OUT
    schema_dir.mkdir(parents=True, exist_ok=True)
    for h in headers:
        shutil.copyfile(h, schema_dir / h.name)
    if fb_dir.is_symlink() or fb_dir.is_file():
        fb_dir.unlink()
    elif fb_dir.exists():
        shutil.rmtree(fb_dir)
    fb_dir.parent.mkdir(parents=True, exist_ok=True)
    shutil.copytree(root / FLATBUFFERS_INCLUDE, fb_dir, symlinks=True)
    return schema_dir, fb_dir


def release_of(version_txt: str) -> str | None:
    """The X.Y.Z release a tree's ``version.txt`` names (``1.4.1``), or None for a pre-release (``1.5.0a0``)."""
    m = re.fullmatch(r"(\d+\.\d+\.\d+)", version_txt.strip())
    return m.group(1) if m else None
