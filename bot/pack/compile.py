"""The ``compile`` check: compile the Runtime component's sources straight from the unpacked pack.

This proves what the structural checks cannot: that the pack compiles.  The
quiet-failure pack of FORMATS.md section 3 fails here with
``fatal error: executorch/schema/program_generated.h: No such file or directory``.

The Runtime component is ``Cclass="Machine Learning" Cgroup="ExecuTorch"
Csub="Runtime"``.  Its ``sourceCpp``/``sourceC`` files are compiled with
``-c``; include paths are its ``include`` files (directories) and the
directories of its ``header`` files; defines come from its
``<RTE_Components_h>`` (as CMSIS-Toolbox would put them in RTE_Components.h).
The compiler is ``arm-none-eabi-g++`` unless another is given.
"""

from __future__ import annotations

import posixpath
import shutil
import subprocess
import tempfile
import zipfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from bot.errors import UsageError
from bot.model import CheckResult
from bot.pack.archive import Limits, extract_safely, pdsc_file_name
from bot.pack.pdsc import Component, Pdsc

DEFAULT_CXX = "arm-none-eabi-g++"
RUNTIME = ("Machine Learning", "ExecuTorch", "Runtime")
ERROR_LINES = 3
#: File categories whose names reach the compiler (as ``-I`` or as a source).
COMPILED = ("include", "header", "sourceCpp", "sourceC")


def find_compiler(cxx: str | None) -> str:
    """Absolute path of the C++ compiler (default ``arm-none-eabi-g++``); raises :class:`UsageError` when absent."""
    name = cxx or DEFAULT_CXX
    path = shutil.which(name)
    if not path:
        raise UsageError(f"--compile-check: compiler {name} not found on PATH (choose one with --cxx)")
    return path


def unsafe_files(comp: Component, pdsc_path: str) -> list[str]:
    """``"PDSC:LINE: 'name' (why)"`` for each compiled file of ``comp`` whose name points outside the pack.

    Only the categories that reach the compiler count (:data:`COMPILED`).
    Such a name must never be used: ``root / "/etc/passwd"`` is
    ``/etc/passwd``, ``-I root/../..`` leaves the pack, and the compiler's
    error lines would quote a host file into the report and the PR body.
    """
    out = []
    for f in comp.files:
        why = pdsc_file_name(f.name)[1] if f.category in COMPILED else None
        if why:
            out.append(f"{pdsc_path}:{f.line}: {f.name!r} ({why})")
    return out


def compile_args(comp: Component, root: Path) -> tuple[list[str], list[tuple[str, str]]]:
    """(flags, [(language, source entry)]) for one component unpacked at ``root``.

    Flags are ``-I`` per include directory and ``-D`` per define; languages
    are ``c++`` for ``sourceCpp`` and ``c`` for ``sourceC``.  Call
    :func:`unsafe_files` first: names here are taken as pack-relative.
    """
    flags: list[str] = []
    sources: list[tuple[str, str]] = []
    for f in comp.files:
        name = pdsc_file_name(f.name)[0]
        if f.category == "include":
            inc = f"-I{root / name.rstrip('/')}"
        elif f.category == "header":
            inc = f"-I{root / (posixpath.dirname(name) or '.')}"
        else:
            inc = None
        if inc and inc not in flags:
            flags.append(inc)
        if f.category == "sourceCpp":
            sources.append(("c++", name))
        elif f.category == "sourceC":
            sources.append(("c", name))
    flags += [f"-D{d}" for d in comp.defines]
    return flags, sources


def _needed(zf: zipfile.ZipFile, comp: Component) -> set[str]:
    """Entries the Runtime sources can reach: the sources and everything under its include/header directories."""
    prefixes, names = [], set()
    for f in comp.files:
        name = pdsc_file_name(f.name)[0]
        if f.category == "include":
            prefixes.append(name.rstrip("/") + "/")
        elif f.category == "header":
            d = posixpath.dirname(name)
            prefixes.append(d + "/" if d else "")
        names.add(name)
    return names | {n for n in zf.namelist() if any(n.startswith(p) for p in prefixes)}


def _first_errors(stderr: str, root: Path) -> list[str]:
    prefix = str(root) + "/"
    lines = [ln.replace(prefix, "") for ln in stderr.splitlines()]
    errs = [ln for ln in lines if "error" in ln]
    return (errs or [ln for ln in lines if ln.strip()])[:ERROR_LINES]


def compile_check(zf: zipfile.ZipFile, pdsc: Pdsc, cxx: str | None = None, *, limits: Limits = Limits(),
                  jobs: int | None = None, timeout: float = 300) -> CheckResult:
    """Unpack the pack into a temporary directory and compile every Runtime source; see the module docstring.

    Fails naming each failing file and its first :data:`ERROR_LINES` error
    lines (``data["failures"]`` maps entry -> lines).  Fails without running
    the compiler when a Runtime file name points outside the pack
    (:func:`unsafe_files`).  Only call on an archive
    :func:`~bot.pack.archive.scan_archive` found clean.
    """
    compiler = find_compiler(cxx)
    comp = pdsc.component(*RUNTIME)
    if comp is None:
        return CheckResult("compile", "fail", f"{pdsc.path}: no {':'.join(RUNTIME)} component to compile")
    unsafe = unsafe_files(comp, pdsc.path)
    if unsafe:
        return CheckResult("compile", "fail", "not run: the Runtime component names files outside the pack: "
                           + "; ".join(unsafe[:3]), {"unsafe": unsafe})
    with tempfile.TemporaryDirectory(prefix="et-pack-") as tmp:
        root = Path(tmp) / "pack"
        root.mkdir()
        flags, sources = compile_args(comp, root)
        extract_safely(zf, root, limits, names=_needed(zf, comp))
        if not sources:
            return CheckResult("compile", "fail", f"{pdsc.path}:{comp.line}: the Runtime component lists no sources")
        out_dir = Path(tmp) / "obj"
        out_dir.mkdir()

        def one(item):
            i, (lang, src) = item
            std = ["-std=c++17"] if lang == "c++" else ["-std=c11"]
            cmd = [compiler, "-x", lang, *std, *flags, "-c", str(root / src), "-o", str(out_dir / f"{i}.o")]
            try:
                p = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   text=True, errors="replace", timeout=timeout)
            except subprocess.TimeoutExpired:
                return src, [f"timed out after {timeout:.0f} s"]
            return src, (None if p.returncode == 0 else _first_errors(p.stderr, root))

        with ThreadPoolExecutor(max_workers=jobs or min(8, len(sources))) as pool:
            results = list(pool.map(one, enumerate(sources)))
    failures = {src: errs for src, errs in results if errs is not None}
    name = Path(compiler).name
    if failures:
        src, errs = next(iter(failures.items()))
        first = errs[0] if errs else "failed"
        first = first if src in first else f"{src}: {first}"
        return CheckResult("compile", "fail",
                           f"{len(failures)} of {len(sources)} Runtime sources fail with {name}: {first}",
                           {"compiler": compiler, "failures": failures})
    return CheckResult("compile", "pass", f"all {len(sources)} Runtime sources compile with {name}",
                       {"compiler": compiler, "sources": [s for _, s in sources]})
