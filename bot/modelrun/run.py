"""One ``run-model`` run: select, build, boot in QEMU, compare; returns a :class:`~bot.modelrun.result.ModelResult`.

Bad input (a pack or ``.pte`` that cannot be read) raises
:class:`~bot.errors.UsageError` (exit 2) before anything runs; every later
failure is a result with ``status: fail`` and the stage it stopped at.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from pathlib import Path

from bot.errors import PackError, UsageError
from bot.modelrun import StageError
from bot.modelrun.result import NOT_RUNNABLE, ModelResult

#: A selected source whose presence says the pack holds ExecuTorch's own runtime (runtime/executor/method.cpp).
EXECUTORCH_MARKER = "runtime/executor/method.cpp"


def _unpack(pack: Path, dest: Path) -> Path:
    """The pack root: ``pack`` itself when it is a folder, else the ``.pack`` unpacked safely under ``dest``."""
    from bot.pack.archive import Limits, UnsafeArchive, extract_safely, open_zip, scan_archive

    if pack.is_dir():
        return pack
    if not pack.is_file():
        raise UsageError(f"{pack}: no such pack file or folder")
    try:
        with open_zip(pack) as zf:
            scan = scan_archive(zf, Limits())
            if scan.problems:
                raise UsageError(f"{pack}: unsafe archive: {scan.problems[0]}")
            root = dest / "pack"
            root.mkdir(parents=True)
            extract_safely(zf, root, Limits())
    except (UnsafeArchive, PackError) as exc:
        raise UsageError(f"{pack}: {exc}") from None
    except OSError as exc:
        raise UsageError(f"{pack}: cannot read: {exc.strerror or exc}") from None
    return root


def _pdsc(root: Path):
    from bot.pack.pdsc import PdscError, parse_pdsc

    found = sorted(p for p in root.glob("*.pdsc"))
    if len(found) != 1:
        raise UsageError(f"{root}: expected one .pdsc at the pack root, found {len(found)}")
    data = found[0].read_bytes()
    try:
        return parse_pdsc(data, found[0].name), data
    except PdscError as exc:
        raise UsageError(str(exc)) from None


#: The largest .pte read (bytes): the image links it in whole, and QEMU's mps3-an547 has far less memory.
MAX_PTE = 256 << 20
#: The file run-model leaves in a --work-dir it made, so that a later run may empty that folder again.
WORK_MARK = ".run-model-work"


def prepare_work_dir(work_dir: Path, inputs: list[Path]) -> Path:
    """``work_dir`` resolved, emptied and marked; raises :class:`UsageError` before removing anything else.

    The folder is emptied only when it is missing, empty, or holds :data:`WORK_MARK` (an earlier
    run-model made it): any other folder (``.``, a home, a checkout) is refused, as is a file, and a
    folder holding one of ``inputs`` (the pack, the ``.pte``, the expected outputs).
    """
    work = work_dir.resolve()
    if work.exists() and not work.is_dir():
        raise UsageError(f"--work-dir {work_dir}: not a folder")
    for p in inputs:
        if p.resolve().is_relative_to(work):
            raise UsageError(f"--work-dir {work_dir}: holds {p}, which run-model reads (the folder is emptied first)")
    if work.is_dir():
        try:
            entries = list(work.iterdir())
        except OSError as exc:
            raise UsageError(f"--work-dir {work_dir}: cannot read: {exc.strerror or exc}") from None
        if entries and not (work / WORK_MARK).is_file():
            raise UsageError(f"--work-dir {work_dir}: a folder that run-model did not make and that is not empty "
                             f"(it would be emptied; give a new or empty folder)")
        shutil.rmtree(work)
    try:
        work.mkdir(parents=True)
        (work / WORK_MARK).write_text("made by executorch-pack-bot run-model; emptied by its next run\n",
                                      encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"--work-dir {work_dir}: cannot create: {exc.strerror or exc}") from None
    return work


def inside_pack(root: Path, entries: list[str]) -> None:
    """Raise :class:`UsageError` naming the first PDSC entry that is absolute or resolves outside ``root``.

    A PDSC ``<file name=...>`` is relative to the pack root (Open-CMSIS-Pack PDSC format, "/package/components":
    "file path relative to the pack root"); run-model compiles the selected sources and adds the include folders
    to the compiler's search path, so an entry ``/usr/include`` or ``../../x.c`` (or a symbolic link leading out)
    would compile, or include, files that are not the pack's.
    """
    base = root.resolve()
    for e in entries:
        if e.startswith("/") or not (root / e).resolve().is_relative_to(base):
            raise UsageError(f"{root}: the PDSC names {e!r}, which is outside the pack root")


def read_pte(pte: Path):
    """The :class:`~bot.modelrun.pte.Program` of ``pte``; raises :class:`UsageError` naming the file."""
    from bot.modelrun.pte import PteError, read_program

    import stat

    try:
        st = Path(pte).stat()
        if not stat.S_ISREG(st.st_mode):
            raise UsageError(f"{pte}: not a regular file (a .pte is read whole)")
        if st.st_size > MAX_PTE:
            raise UsageError(f"{pte}: {st.st_size} bytes, over the {MAX_PTE >> 20} MiB a program linked into the "
                             "Cortex-M55 image can have")
        data = Path(pte).read_bytes()
    except OSError as exc:
        raise UsageError(f"{pte}: cannot read: {exc.strerror or exc}") from None
    try:
        return read_program(data)
    except PteError as exc:
        raise UsageError(f"{pte}: not an ExecuTorch program: {exc}") from None


def _dependencies(pdsc, pdsc_bytes: bytes, selection, deps, work: Path) -> list:
    """The packs providing what the selected components require and the pack lacks (:mod:`bot.modelrun.packdeps`),
    each checked to name only entries inside its own root."""
    from bot.modelrun import packdeps

    out = []
    for req in packdeps.external_requirements(pdsc, pdsc_bytes, selection.components):
        dep = packdeps.resolve(req, deps or packdeps.DepOptions(), work)
        inside_pack(dep.root, packdeps.entries(dep))
        out.append(dep)
    return out


def run_model(pack: Path, pte: Path, *, name: str | None = None, label: str | None = None,
              host_python: str | None = None, expected: Path | None = None, tolerance: float = 0.0,
              timeout: float = 60, work_dir: Path | None = None, cache_dir: Path | None = None,
              flavour: str = "auto", jobs: int | None = None, keep_host: Path | None = None,
              deps=None) -> ModelResult:
    """Run ``pte`` on ``pack``'s runtime in QEMU and compare with the host runtime (or ``expected``).

    Args:
        pack: a ``.pack`` file or an unpacked pack folder.
        name / label: the model's and the pack's names in the result (default: file names).
        host_python: interpreter of a venv with the ``executorch`` wheel (:mod:`bot.modelrun.host`).
        expected: recorded host outputs instead of ``host_python``; neither: no comparison (a fail at compare).
        tolerance: largest absolute difference accepted (0: bit-exact).
        timeout: seconds QEMU may run.
        work_dir: keep the build here (default: a temporary folder, removed); see :func:`prepare_work_dir`.
        cache_dir: ccache's folder.
        flavour: ``auto``, ``executorch`` or ``sample`` (the runner's ``main``).
        keep_host: write the host runtime's outputs here (the file ``expected`` reads).
        deps: a :class:`bot.modelrun.packdeps.DepOptions`: where a pack that a selected component requires
            (CMSIS-NN's ``CMSIS:NN Lib``) comes from (default: nowhere, a fail at select naming it).

    Raises:
        UsageError: the pack or the ``.pte`` cannot be read, or ``work_dir`` is refused.
    """
    from bot.modelrun import packdeps
    from bot.modelrun import select as sel
    from bot.modelrun.compare import compare, matches
    from bot.modelrun.fingerprint import runtime_digest
    from bot.modelrun.host import dump, host_outputs, read_expected
    from bot.modelrun.image import Tools, build_image
    from bot.modelrun.qemu import run_image

    program = read_pte(pte)
    result = ModelResult(model=name or Path(pte).stem, pack=label or Path(pack).name, status="fail",
                         operators=program.operator_names(), tolerance=tolerance)
    own = work_dir is None
    if not own:
        work = prepare_work_dir(Path(work_dir), [Path(pack), Path(pte), *([Path(expected)] if expected else [])])
    else:
        work = Path(tempfile.mkdtemp(prefix="et-run-model-"))
    try:
        root = _unpack(Path(pack).resolve(), work)
        pdsc, pdsc_bytes = _pdsc(root)
        try:
            if program.delegates:
                # an NPU QEMU lacks: not a failure of the pack (docs/model-run.md: run it on an Arm FVP)
                result.status, result.stage = NOT_RUNNABLE, "select"
                result.error = ("not runnable in QEMU: the program is delegated to "
                                + ", ".join(sorted(set(program.delegates)))
                                + " (run it on an Arm Corstone FVP with the NPU instead)")
                return result
            selection = sel.select(pdsc, program.operator_names())
            headers = sel.generated_headers(selection, sel.define_blocks(pdsc_bytes))
            sources = sel.sources(selection)
            includes = sel.include_dirs(selection)
            inside_pack(root, [src for _, src in sources] + includes)
            result.runtime_sha256 = runtime_digest(root, [src for _, src in sources], includes)
            for dep in _dependencies(pdsc, pdsc_bytes, selection, deps, work):
                sources += packdeps.component_sources(dep)   # absolute paths: pack_root / abs is abs
                includes += packdeps.component_include_dirs(dep)
                result.packs.append(f"{dep.pdsc.vendor}::{dep.pdsc.name}@{dep.version} ({dep.origin})")
            if flavour == "auto":
                flavour = "executorch" if any(s.endswith(EXECUTORCH_MARKER) for _, s in sources) else "sample"
            image = build_image(root, sources, includes, headers, Path(pte), work / "build",
                                flavour=flavour, tools=Tools.find(), jobs=jobs,
                                cache_dir=Path(cache_dir).resolve() if cache_dir is not None else None)
            result.build_seconds = round(image.seconds, 3)
            run = run_image(image.elf, timeout=timeout)
            result.qemu_seconds = round(run.seconds, 3)
            result.ticks, result.instructions = run.ticks, run.instructions
            if expected is not None:
                host = read_expected(expected)
            elif host_python:
                host = host_outputs(Path(pte), list(program.inputs), host_python)
                if keep_host is not None:
                    try:
                        Path(keep_host).write_text(dump(host), encoding="utf-8")
                    except OSError as exc:
                        raise UsageError(f"--write-expected: cannot write {keep_host}: {exc.strerror}") from None
            else:
                raise StageError("compare", "no reference: give --host-python (a venv with the executorch wheel) "
                                            "or --expected")
            diffs = compare(list(run.outputs), host)
            result.outputs = [{"index": d.index, "exact": d.exact, "max_abs_diff": d.max_abs_diff,
                               "problem": d.problem, "device": list(d.device), "host": list(d.host),
                               "elements": d.elements} for d in diffs]
            if matches(diffs, tolerance):
                result.status = "match"
            else:
                result.status, result.stage = "mismatch", "compare"
                bad = next((d for d in diffs if not d.exact), diffs[0] if diffs else None)
                result.error = ("no outputs" if bad is None else
                                f"output {bad.index}: {bad.problem or f'max difference {bad.max_abs_diff:g}'} "
                                f"(tolerance {tolerance:g})")
        except StageError as exc:
            result.status, result.stage, result.error, result.error_lines = "fail", exc.stage, exc.message, exc.lines
        return result
    finally:
        if own:
            shutil.rmtree(work, ignore_errors=True)
