"""The ``compile`` check: compile the Runtime component's sources straight from the unpacked pack.

This proves what the structural checks cannot: that the pack compiles.  The
quiet-failure pack (reproduced with build_pack.sh at v1.4.1) fails here with
``fatal error: executorch/schema/program_generated.h: No such file or directory``.

The Runtime component is ``Cclass="Machine Learning" Cgroup="ExecuTorch"
Csub="Runtime"``.  Its ``sourceCpp``/``sourceC`` files are compiled with
``-c``; include paths are its ``include`` files (directories) and the
directories of its ``header`` files; defines come from its
``<RTE_Components_h>`` (as CMSIS-Toolbox would put them in RTE_Components.h).
The compiler is ``arm-none-eabi-g++`` unless another is given.

Pack sources are foreign text that the compiler reads, so it reads nothing
else of the host: ``-nostdinc`` with only the toolchain's own include
folders (asked from the compiler, ``-E -v``) and the pack's; an ``#include``
whose target is absolute or climbs out of the pack is refused before any
compile; ``-H`` lists every header actually opened (a macro can compute a
target), and a header outside the pack and the toolchain fails the check
with the compiler's lines withheld (they would quote the host file).  Each
compile runs with resource limits (address space, CPU time, file size;
``setrlimit(2)``) and the scrubbed environment of :mod:`bot.scrubbed`;
its output is neutralised (:func:`bot.inert.line`).

With a ``ccache`` executable the compiles go through it (a warm runner's
cache serves them).  The pack is unpacked into a new temporary folder each
time, so ccache runs with that folder as ``CCACHE_BASEDIR`` and
``CCACHE_NOHASHDIR=1`` (ccache 4.x manual, "Compiling in different
directories"): it hands the compiler paths relative to the folder, and the
cached ``-H`` lines and errors name ``pack/...`` paths, which are resolved
against the folder.
"""

from __future__ import annotations

import functools
import os
import posixpath
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from bot import inert
from bot.scrubbed import scrubbed_env

from bot.errors import UsageError
from bot.model import CheckResult
from bot.pack.archive import Limits, extract_safely, pdsc_file_name
from bot.pack.pdsc import Component, Pdsc

DEFAULT_CXX = "arm-none-eabi-g++"
RUNTIME = ("Machine Learning", "ExecuTorch", "Runtime")
ERROR_LINES = 3
#: File categories whose names reach the compiler (as ``-I`` or as a source).
COMPILED = ("include", "header", "sourceCpp", "sourceC")
#: Per-compile resource limits: bytes of address space, seconds of CPU, bytes of any file written.
MEMORY_LIMIT = 2 << 30
CPU_LIMIT = 240
FILE_LIMIT = 256 << 20
#: Longest compiler line kept in a report (characters).
LINE_CAP = 300

# ``#include "x"`` / ``#include <x>`` on one stripped, spliced line (C11 6.10.2); linear.
_INCLUDE = re.compile(r'#[ \t]*include(?:_next)?[ \t]*(?:"([^"]*)"|<([^>]*)>)')
_HEADER_LINE = re.compile(r"\.+ (.+)")   # one line of ``-H`` output: dots (depth), a space, the path
_DRIVE = re.compile(r"[A-Za-z]:")

# Run as ``python -c _LIMITED MEM CPU FSIZE COMPILER ARGS...``: set the limits, then become the compiler
# (a separate exec, not preexec_fn: the compiles run in threads).
_LIMITED = ("import os, resource, sys\n"
            "m, c, f = (int(x) for x in sys.argv[1:4])\n"
            "resource.setrlimit(resource.RLIMIT_AS, (m, m))\n"
            "resource.setrlimit(resource.RLIMIT_CPU, (c, c))\n"
            "resource.setrlimit(resource.RLIMIT_FSIZE, (f, f))\n"
            "resource.setrlimit(resource.RLIMIT_CORE, (0, 0))\n"
            "os.execv(sys.argv[4], sys.argv[4:])\n")


def find_compiler(cxx: str | None) -> str:
    """Absolute path of the C++ compiler (default ``arm-none-eabi-g++``); raises :class:`UsageError` when absent."""
    name = cxx or DEFAULT_CXX
    path = shutil.which(name)
    if not path:
        raise UsageError(f"--compile-check: compiler {name} not found on PATH (choose one with --cxx)")
    return path


@functools.lru_cache(maxsize=8)
def toolchain_includes(compiler: str, lang: str) -> tuple[str, ...]:
    """The compiler's own ``#include <...>`` folders for ``lang`` (``c`` or ``c++``), in search order.

    Read from ``COMPILER -x LANG -E -v -`` (GCC prints them between
    ``#include <...> search starts here:`` and ``End of search list.``).
    Empty when the compiler prints no such list.
    """
    try:
        p = subprocess.run([compiler, "-x", lang, "-E", "-v", "-"], stdin=subprocess.DEVNULL,
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, errors="replace",
                           timeout=60, env=scrubbed_env())
    except (OSError, subprocess.TimeoutExpired):
        return ()
    out, inside = [], False
    for ln in p.stderr.splitlines():
        if ln.startswith("#include <...> search starts here:"):
            inside = True
        elif ln.startswith("End of search list."):
            break
        elif inside and ln.startswith(" "):
            out.append(os.path.normpath(ln.strip()))
    return tuple(out)


def _inside(path: str, roots: list[str]) -> bool:
    real = os.path.realpath(path)
    return any(real == r or real.startswith(r.rstrip("/") + "/") for r in roots)


def refused_includes(root: Path, names: list[str], include_dirs: list[str]) -> list[str]:
    """``"ENTRY:LINE: #include TARGET (why)"`` for each literal ``#include`` that would leave the pack.

    ``names`` are the unpacked entries under ``root`` that the compile can
    read; ``include_dirs`` the ``-I`` folders.  A target is refused when it is
    absolute (``/``, ``\\`` or a drive letter) or when, joined to the
    including file's folder or to any include folder, it resolves outside
    ``root``.  Backslash-newline splices are joined first (C11 5.1.1.2).
    Computed includes (``#include MACRO``) are left to the ``-H`` check of
    :func:`compile_check`.
    """
    out: list[str] = []
    base = os.path.realpath(root)
    for name in names:
        path = root / name
        if not path.is_file():
            continue
        text = path.read_bytes().decode("utf-8", "replace")
        if "include" not in text:
            continue
        text = text.replace("\\\r\n", "").replace("\\\n", "")
        for no, line in enumerate(text.splitlines(), 1):
            s = line.lstrip()
            if not s.startswith("#"):
                continue
            m = _INCLUDE.match(s)
            if m is None:
                continue
            target = m.group(1) if m.group(1) is not None else m.group(2)
            why = None
            if target.startswith(("/", "\\")) or _DRIVE.match(target) or "\\" in target:
                why = "an absolute path"
            elif ".." in target.split("/"):
                bases = [str(path.parent)] + include_dirs
                if not all(_inside(os.path.join(b, target), [base]) for b in bases):
                    why = "it leaves the pack"
            if why:
                out.append(f"{name}:{no}: #include {inert.line(target, cap=120)!r} ({why})")
    return out


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
    # relative paths (under ccache, CCACHE_BASEDIR): "pack/src/x.cpp:3:1: error", "from pack/include/..."
    rel = re.compile(rf"(^|[\s(\"']){re.escape(root.name)}/")
    lines = [rel.sub(r"\1", ln.replace(prefix, "")) for ln in stderr.splitlines() if not _HEADER_LINE.fullmatch(ln)]
    errs = [ln for ln in lines if "error" in ln]
    return [inert.line(ln, cap=LINE_CAP) for ln in (errs or [ln for ln in lines if ln.strip()])[:ERROR_LINES]]


def _outside_headers(stderr: str, allowed: list[str], cwd: str) -> list[str]:
    """Headers the ``-H`` lines of ``stderr`` name that are neither in the pack nor in the toolchain.

    A relative path (ccache with ``CCACHE_BASEDIR``) is taken relative to ``cwd``, the compiler's folder.
    """
    out = []
    for ln in stderr.splitlines():
        m = _HEADER_LINE.fullmatch(ln)
        if m and not _inside(os.path.join(cwd, m.group(1)), allowed) and m.group(1) not in out:
            out.append(m.group(1))
    return out


def compile_check(zf: zipfile.ZipFile, pdsc: Pdsc, cxx: str | None = None, *, limits: Limits = Limits(),
                  jobs: int | None = None, timeout: float = 300, memory_limit: int = MEMORY_LIMIT,
                  cpu_limit: int = CPU_LIMIT, ccache: str | None = None) -> CheckResult:
    """Unpack the pack into a temporary directory and compile every Runtime source; see the module docstring.

    Fails naming each failing file and its first :data:`ERROR_LINES` error
    lines (``data["failures"]`` maps entry -> lines).  Fails without running
    the compiler when a Runtime file name points outside the pack
    (:func:`unsafe_files`) or a source includes a file outside it
    (:func:`refused_includes`), and fails withholding the compiler's lines
    when a header outside the pack and the toolchain was opened anyway.
    ``memory_limit`` (bytes) and ``cpu_limit`` (seconds) bound each compile.
    ``jobs`` compiles run at once (default: one per source, at most 8);
    ``ccache`` is the ccache executable the compiles go through, or None.
    Only call on an archive :func:`~bot.pack.archive.scan_archive` found clean.
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
        needed = sorted(_needed(zf, comp))
        extract_safely(zf, root, limits, names=set(needed))
        if not sources:
            return CheckResult("compile", "fail", f"{pdsc.path}:{comp.line}: the Runtime component lists no sources")
        include_dirs = [f[2:] for f in flags if f.startswith("-I")]
        refused = refused_includes(root, needed, include_dirs)
        if refused:
            return CheckResult("compile", "fail", "not run: a pack source includes a file outside the pack: "
                               + "; ".join(refused[:3]), {"refused": refused})
        out_dir = Path(tmp) / "obj"
        out_dir.mkdir()
        allowed_roots = [os.path.realpath(root)]
        system = {lang: toolchain_includes(compiler, lang) for lang in {lang for lang, _ in sources}}
        for dirs in system.values():
            allowed_roots += [os.path.realpath(d) for d in dirs]
        env = scrubbed_env()
        launcher: list[str] = []
        if ccache:
            launcher = [ccache]
            env.update(CCACHE_BASEDIR=os.path.realpath(tmp), CCACHE_NOHASHDIR="1")

        def one(item):
            i, (lang, src) = item
            std = ["-std=c++17"] if lang == "c++" else ["-std=c11"]
            isystem = [a for d in system[lang] for a in ("-isystem", d)]
            cmd = [sys.executable, "-c", _LIMITED, str(memory_limit), str(cpu_limit), str(FILE_LIMIT),
                   *launcher, compiler, "-x", lang, *std, "-nostdinc", *isystem, *flags, "-H",
                   "-fno-diagnostics-show-caret", "-fdiagnostics-color=never",
                   "-c", str(root / src), "-o", str(out_dir / f"{i}.o")]
            try:
                p = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   text=True, errors="replace", timeout=timeout, env=env, cwd=tmp)
            except subprocess.TimeoutExpired:
                return src, [f"timed out after {timeout:.0f} s"]
            outside = _outside_headers(p.stderr, allowed_roots, tmp)
            if outside:
                return src, [f"includes a file outside the pack and the toolchain: {inert.line(outside[0], cap=200)} "
                             "(the compiler's output is withheld)"]
            if p.returncode < 0:
                return src, [f"stopped by signal {-p.returncode} (memory limit {memory_limit >> 20} MiB, "
                             f"CPU limit {cpu_limit} s)"]
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
