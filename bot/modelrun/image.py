"""Build the bare-metal Cortex-M55 image: the selected pack sources, our runner, the ``.pte`` as bytes.

Every source of the selected components is compiled with Debian's Arm GNU
toolchain (``arm-none-eabi-gcc``/``g++`` 12, newlib) for
``-mcpu=cortex-m55 -mfloat-abi=hard``, with the pack's include folders, the
generated ``RTE_Components.h`` folder, ``-include Pre_Include_Global.h`` and
``-D`` for each ``<RTE_Components_h>`` define (as the compile check does),
and ``-ffp-contract=off`` so that a multiply-add rounds twice, as on the host.
Objects are linked directly, not through an archive: ExecuTorch's kernels
register in static initialisers, which an archive member nobody references
would drop.  Linked with ``--specs=rdimon.specs`` (newlib semihosting) and
our start-up code and linker script (:mod:`bot.modelrun.runner`).

Compiles go through ``ccache`` when it is on PATH (``CCACHE_BASEDIR`` is
the folder holding both the unpacked pack and the build, so a new temporary
folder still hits), which makes a warm build a link step.  A failed compile raises :class:`StageError` at stage
``compile`` naming the source and the compiler's first error lines (a
missing header is named by the compiler: ``fatal error: X: No such file or
directory``); a failed link at stage ``link``.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from bot import inert
from bot.modelrun import StageError, runner
from bot.scrubbed import scrubbed_env

ARCH = ("-mcpu=cortex-m55", "-mfloat-abi=hard", "-mthumb")
#: -ffp-contract=off: GCC fuses a*b+c into one rounding (VFMA) by default, the host runtime's x86-64 build does
#: not; without it a portable addmm differs from the host in the last bit.
COMMON = ("-O2", "-g0", "-ffp-contract=off", "-ffunction-sections", "-fdata-sections", "-fno-diagnostics-show-caret",
          "-fdiagnostics-color=never", "-Wno-psabi")
CXX_ONLY = ("-std=c++17", "-fno-exceptions", "-fno-rtti", "-fno-unwind-tables", "-fno-use-cxa-atexit")
ERROR_LINES = 4
_DEFINE = re.compile(r"#[ \t]*define[ \t]+([A-Za-z_]\w*)(?:[ \t]+(.*))?")


@dataclass(frozen=True)
class Tools:
    """The compilers (absolute paths) and ``ccache`` (None when absent)."""

    cc: str
    cxx: str
    ccache: str | None

    @classmethod
    def find(cls, cc: str = "arm-none-eabi-gcc", cxx: str = "arm-none-eabi-g++", use_ccache: bool = True) -> "Tools":
        """Find the toolchain on PATH; raises :class:`StageError` (stage ``compile``) when a compiler is absent."""
        found = []
        for name in (cc, cxx):
            path = shutil.which(name)
            if not path:
                raise StageError("compile", f"compiler {name} not found on PATH (Debian: gcc-arm-none-eabi, "
                                            "libstdc++-arm-none-eabi-newlib, libnewlib-arm-none-eabi)")
            found.append(path)
        return cls(found[0], found[1], shutil.which("ccache") if use_ccache else None)


@dataclass(frozen=True)
class Image:
    """A built image: the ELF, seconds spent, objects compiled, and the ccache hits among them (None: no ccache)."""

    elf: Path
    seconds: float
    objects: int
    cache_hits: int | None


def rte_defines(header_text: str) -> list[str]:
    """``NAME`` / ``NAME=VALUE`` for each ``#define`` line of a generated ``RTE_Components.h`` (comments dropped:
    the v1.4.1 PDSC writes ``#define RTE_ML_EXECUTORCH_RUNTIME     /* ExecuTorch Runtime */``)."""
    out = []
    text = re.sub(r"/\*.*?\*/", " ", header_text, flags=re.S)
    for line in text.splitlines():
        m = _DEFINE.fullmatch(line.split("//", 1)[0].strip())
        if m and m.group(1) != "RTE_COMPONENTS_H":
            out.append(m.group(1) + (f"={m.group(2).strip()}" if m.group(2) and m.group(2).strip() else ""))
    return out


def _errors(stderr: str, roots: list[Path]) -> list[str]:
    text = stderr
    for r in roots:
        text = text.replace(str(r) + "/", "")
    lines = [ln for ln in text.splitlines() if ln.strip()]
    errs = [ln for ln in lines if "error" in ln] or lines
    return [inert.line(ln, cap=300) for ln in errs[:ERROR_LINES]]


def build_image(pack_root: Path, sources: list[tuple[str, str]], include_dirs: list[str], headers: dict,
                pte: Path, work: Path, *, flavour: str, tools: Tools, jobs: int | None = None,
                cache_dir: Path | None = None, timeout: float = 600) -> Image:
    """Compile and link one image under ``work``; returns an :class:`Image`.

    Args:
        pack_root: the unpacked pack (sources are pack-relative entries).
        sources: ``[(language, entry)]`` from :func:`bot.modelrun.select.sources`.
        include_dirs: pack-relative include folders.
        headers: ``{"RTE_Components.h": text, "Pre_Include_Global.h": text}``.
        pte: the program linked in as ``et_model_pte`` bytes.
        flavour: ``executorch`` or ``sample`` (which runner ``main``).
        cache_dir: ``CCACHE_DIR`` (default: ccache's own).

    Raises:
        StageError: stage ``compile`` (first failing source and its errors) or ``link``.
    """
    start = time.monotonic()
    gen = work / "RTE"
    gen.mkdir(parents=True, exist_ok=True)
    for name, text in headers.items():
        (gen / name).write_text(text, encoding="utf-8")
    run_dir = work / "runner"
    run_dir.mkdir(exist_ok=True)
    (run_dir / "et_runner_common.h").write_text(runner.COMMON_H, encoding="utf-8")
    (run_dir / "startup.c").write_text(runner.STARTUP_C, encoding="utf-8")
    main_src = runner.RUNNER_EXECUTORCH if flavour == "executorch" else runner.RUNNER_SAMPLE
    (run_dir / "runner.cpp").write_text(main_src, encoding="utf-8")
    (run_dir / "link.ld").write_text(runner.LINKER_SCRIPT, encoding="utf-8")
    # the program is copied next to the runner and named relative to the compile's folder (cwd ``work``):
    # its own path may hold a quote, a backslash or a line break, which would end the .incbin string
    shutil.copyfile(pte, run_dir / "model.pte")
    (run_dir / "model.S").write_text(runner.PTE_ASM.format(path="runner/model.pte"), encoding="utf-8")
    incs = [f"-I{gen}"] + [f"-I{pack_root / d}" for d in include_dirs]
    defines = [f"-D{d}" for d in rte_defines(headers.get("RTE_Components.h", ""))]
    pre = ["-include", str(gen / "Pre_Include_Global.h")]
    env = scrubbed_env()
    if tools.ccache:
        # the pack and the build folder both under the base: their paths hash as relative ones
        env["CCACHE_BASEDIR"] = os.path.commonpath([str(pack_root.resolve()), str(work.resolve())])
        env["CCACHE_NOHASHDIR"] = "1"
        env["CCACHE_SLOPPINESS"] = "include_file_mtime,include_file_ctime,time_macros"
        if cache_dir is not None:
            env["CCACHE_DIR"] = str(cache_dir)
    objs = work / "obj"
    objs.mkdir(exist_ok=True)
    # a source of another pack (an absolute path under ``work``: bot.modelrun.packdeps) is named relative to it
    items = [(lang, pack_root / src, os.path.relpath(src, work) if os.path.isabs(src) else src)
             for lang, src in sources]
    items += [("c", run_dir / "startup.c", "runner/startup.c"), ("c++", run_dir / "runner.cpp", "runner/runner.cpp"),
              ("assembler-with-cpp", run_dir / "model.S", "runner/model.S")]

    def one(i_item):
        i, (lang, path, label) = i_item
        compiler = tools.cxx if lang == "c++" else tools.cc
        std = list(CXX_ONLY) if lang == "c++" else (["-std=gnu11"] if lang == "c" else [])
        out = objs / f"{i:04d}_{Path(label).stem}.o"
        extra = [f"-I{run_dir}"] if label.startswith("runner/") else []
        cmd = ([tools.ccache] if tools.ccache else []) + [compiler, "-x", lang, *ARCH, *COMMON, *std, *incs, *extra,
                                                          *defines, *pre, "-c", str(path), "-o", str(out)]
        try:
            p = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, text=True, errors="replace",
                               env=env, cwd=work, timeout=timeout)
        except subprocess.TimeoutExpired:
            return label, out, [f"timed out after {timeout:.0f} s"]
        except OSError as exc:   # E2BIG: a PDSC naming thousands of include folders makes the command too long
            return label, out, [f"cannot run the compiler: {exc.strerror or exc} ({len(cmd)} arguments, "
                                f"{len(incs)} include folders)"]
        return label, out, (None if p.returncode == 0 else _errors(p.stderr, [pack_root, work, work.parent]))

    hits_before = _ccache_hits(tools, env)
    with ThreadPoolExecutor(max_workers=jobs or os.cpu_count() or 2) as pool:
        results = list(pool.map(one, enumerate(items)))
    failed = [(label, errs) for label, _, errs in results if errs is not None]
    if failed:
        label, errs = failed[0]
        errs = [e if e.startswith(label) else f"{label}: {e}" for e in errs] or [f"{label}: failed"]
        raise StageError("compile", f"{len(failed)} of {len(items)} sources fail to compile; first: {errs[0]}", errs)
    hits = None
    if hits_before is not None:
        after = _ccache_hits(tools, env)
        hits = None if after is None else after - hits_before
    elf = work / "image.elf"
    cmd = [tools.cxx, *ARCH, "--specs=rdimon.specs", "-nostartfiles", "-T", str(run_dir / "link.ld"),
           *[str(o) for _, o, _ in results], "-Wl,--gc-sections", f"-Wl,-Map={work / 'image.map'}", "-o", str(elf)]
    try:
        p = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, text=True, errors="replace",
                           env=env, cwd=work, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise StageError("link", f"the link timed out after {timeout:.0f} s") from None
    except OSError as exc:   # E2BIG: a PDSC naming thousands of sources makes the command too long
        raise StageError("link", f"cannot run the linker: {exc.strerror or exc} ({len(results)} objects)") from None
    if p.returncode != 0:
        errs = _errors(p.stderr, [pack_root, work])
        raise StageError("link", f"the image does not link: {errs[0] if errs else 'failed'}", errs)
    return Image(elf, time.monotonic() - start, len(items), hits)


def _ccache_hits(tools: Tools, env: dict) -> int | None:
    """ccache's cumulative direct+preprocessed hit count (``ccache --print-stats``), or None."""
    if not tools.ccache:
        return None
    try:
        p = subprocess.run([tools.ccache, "--print-stats"], capture_output=True, text=True, env=env, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    total = 0
    for line in p.stdout.splitlines():
        key, _, value = line.partition("\t")
        if key in ("direct_cache_hit", "preprocessed_cache_hit"):
            total += int(value or 0)
    return total
