"""Build a ``PyTorch::ExecuTorch`` CMSIS pack from an ExecuTorch checkout.

``build_pack.sh`` takes two things from a CMake build tree besides the sources
(``copy_sources.sh`` in ExecuTorch's backends/arm/cmsis_pack/scripts/ at v1.4.1):
the flatc-generated ``program_generated.h`` and ``scalar_type_generated.h``, and
the flatbuffers headers.  Run on an empty build directory it still exits 0 and
writes a pack without them (reproduced with build_pack.sh at v1.4.1).  A build
here provides them in one of three ways, each step streamed and timed:

- **the release's own flatc** (default, :mod:`bot.pack.wheel_flatc`): flatc from
  the ``executorch`` package of ``--python`` (or the wheel fetched from the
  package index), when ``flatc --version`` equals the tree's
  ``third-party/flatbuffers`` version: step ``flatc`` generates the two headers
  (``--cpp --cpp-std c++11 --gen-mutable --scoped-enums``) and step ``headers``
  lays them and ``third-party/flatbuffers/include/flatbuffers/`` where
  copy_sources.sh reads them.  Nothing is compiled for the host.  When the
  versions differ or no wheel exists (a nightly, a local version), the build
  falls back to the CMake pack targets and the log says why;
- **the CMake pack targets** (:data:`PACK_TARGETS`, the fallback, or
  ``cmake_targets``): ``configure`` with the documented settings
  (``cmake -S ROOT -B BUILD -DCMAKE_TOOLCHAIN_FILE=...
  -DEXECUTORCH_BUILD_ARM_BAREMETAL=ON -DEXECUTORCH_BUILD_KERNELS_QUANTIZED=ON
  -DEXECUTORCH_BUILD_FLATC=ON -DEXECUTORCH_BUILD_EXECUTOR_RUNNER=OFF
  -DPYTHON_EXECUTABLE=PY``, ExecuTorch's backends/arm/cmsis_pack/README.md at
  v1.4.1), any ``--cmake-arg`` settings and the ccache launchers, then
  ``build``: ``cmake --build BUILD --config Release -jN --target program_schema
  flatbuffers_ep``;
- **the documented full build** (``full_build``): the same configure, then
  ``cmake --build BUILD --config Release -jN``.

Then the trap guard (:func:`check_build_tree`) and ``package``: ``bash
ROOT/backends/arm/cmsis_pack/scripts/build_pack.sh --executorch-root ROOT
--build-dir BUILD --version V --output-dir OUT`` (all four arguments required,
ExecuTorch's backends/arm/cmsis_pack/scripts/build_pack.sh at v1.4.1); then
``OUT/PyTorch.ExecuTorch.V.pack`` must exist.

Known traps and bad input are refused before anything is written
(:func:`preflight`): a tree without the flatbuffers submodule, a ``--python``
without an ``executorch`` package, a flatc that fails, a build directory left
from another ExecuTorch version (:data:`STAMP`); on the CMake paths also a
tree whose folder is not named ``executorch`` (CMake refuses it, ExecuTorch's
CMakeLists.txt at v1.4.1) and a missing cmake or toolchain file.

The module never prints: output lines go to an ``emit(str)`` callback.  In
GitHub Actions (``GITHUB_ACTIONS=true``) each step is wrapped in
``::group::NAME`` / ``::endgroup::`` workflow commands, and the step's own
output between ``::stop-commands::TOKEN`` and ``::TOKEN::`` so that a line
of build output starting with ``::`` is never run as a workflow command;
elsewhere a plain ``==> NAME`` header is used.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import signal
import stat
import subprocess
import tempfile
import time
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Sequence

from bot.errors import BotError, CheckFailed, PackError
from bot.pack import wheel_flatc

#: Upstream's toolchain file, relative to the ExecuTorch root (ExecuTorch's backends/arm/cmsis_pack/README.md at v1.4.1).
DEFAULT_TOOLCHAIN = Path("examples/arm/ethos-u-setup/arm-none-eabi-gcc.cmake")
#: Upstream's pack script, relative to the ExecuTorch root (ExecuTorch's backends/arm/cmsis_pack/scripts/build_pack.sh at v1.4.1; absent before v1.4.0).
BUILD_PACK_SCRIPT = Path("backends/arm/cmsis_pack/scripts/build_pack.sh")
#: The flatc outputs a complete pack must carry (ExecuTorch's backends/arm/cmsis_pack/scripts/build_pack.sh at v1.4.1).
GENERATED_HEADERS = ("program_generated.h", "scalar_type_generated.h")
#: How many last output lines of a failing step are quoted in the error.
TAIL_LINES = 25
#: The CMake targets whose outputs the pack takes (upstream's CMake at v1.4.1):
#: ``program_schema`` (schema/CMakeLists.txt) runs flatc into
#: ``BUILD/schema/include/executorch/schema/`` and depends on ``common_schema``
#: (``scalar_type_generated.h``) and on ``flatc``, the imported binary of the
#: ExternalProject ``flatbuffers_ep`` (third-party/CMakeLists.txt), whose install
#: step writes ``BUILD/third-party/flatc_ep/include/flatbuffers/``.
#: build_pack.sh's copy_sources.sh copies exactly those two folders from the build tree.
PACK_TARGETS = ("program_schema", "flatbuffers_ep")
#: The folder name CMake requires of the ExecuTorch tree (ExecuTorch's CMakeLists.txt at v1.4.1).
ROOT_NAME = "executorch"
#: A file of the flatbuffers submodule: flatc and the pack's include/flatbuffers/ come from it.
FLATBUFFERS_MARKER = Path("third-party/flatbuffers/include/flatbuffers/flatbuffers.h")
#: Written into the build directory: the ExecuTorch tree and version it was configured for.
STAMP = ".executorch-pack-bot-build.json"
#: The compiler launcher variables CMake reads (CMAKE_<LANG>_COMPILER_LAUNCHER, CMake docs).
LAUNCHER_VARS = ("CMAKE_C_COMPILER_LAUNCHER", "CMAKE_CXX_COMPILER_LAUNCHER")
#: Where the generated headers can come from (:attr:`BuildConfig.flatc_from`).
FLATC_SOURCES = ("python", "index", "cmake")
_CMAKE_ARG = re.compile(r"^-D[A-Za-z_][A-Za-z0-9_.+-]*(?::[A-Za-z]+)?=.*$", re.S)

Emit = Callable[[str], None]


class StepFailed(BotError):
    """A build step exited non-zero; the command exits with that step's exit code.

    Attributes:
        step: the :class:`StepResult` of the failing step (name, argv, exit code, output tail).
    """

    def __init__(self, step: "StepResult"):
        tail = "\n".join(f"    | {line}" for line in step.tail) or "    | (no output)"
        if step.returncode < 0:
            try:
                how = f"was killed by signal {-step.returncode} ({signal.Signals(-step.returncode).name})"
            except ValueError:
                how = f"was killed by signal {-step.returncode}"
        else:
            how = f"failed with exit code {step.returncode}"
        super().__init__(
            f"step {step.name!r} {how} after {step.seconds:.1f} s: "
            f"{' '.join(step.argv)}\n  last lines of its output:\n{tail}")
        self.step = step
        # A signal shows as a negative return code; keep a valid non-zero exit status.
        self.exit_code = step.returncode if 0 < step.returncode < 256 else 1


@dataclass(frozen=True)
class BuildConfig:
    """Everything one pack build needs; paths are absolute after :meth:`create`.

    Attributes:
        executorch_root: the ExecuTorch checkout at the release tag (with submodules).
        build_dir: the CMake build tree (created if missing; reused by ccache-warmed runs).
        version: the pack version in SemVer form (``1.5.1``, ``1.0.0-rc1``), see bot.versions.to_semver.
        output_dir: where ``build_pack.sh`` writes the staging folder and the ``.pack``.
        python: the interpreter passed as ``PYTHON_EXECUTABLE`` (the template's venv python).
        toolchain_file: the CMake toolchain file (default: upstream's arm-none-eabi-gcc.cmake).
        jobs: parallel build jobs (``-jN``), at least 1.
        cmake: the cmake executable (name looked up on PATH, or a path).
        full_build: build every default target (the documented full build)
            instead of :data:`PACK_TARGETS`.
        cmake_args: extra ``-DNAME=VALUE`` settings, after the documented ones.
        ccache: the ccache executable used as compiler launcher, or None.
        flatc_from: where the flatc-generated headers come from: ``"python"``
            (flatc of ``python``'s executorch package), ``"index"`` (flatc of the
            tree's release wheel from the package index) or ``"cmake"`` (the
            CMake pack targets compile flatc); ``full_build`` always uses CMake.
    """

    executorch_root: Path
    build_dir: Path
    version: str
    output_dir: Path
    python: str
    toolchain_file: Path
    jobs: int
    cmake: str = "cmake"
    full_build: bool = False
    cmake_args: tuple[str, ...] = ()
    ccache: str | None = None
    flatc_from: str = "cmake"

    @classmethod
    def create(cls, *, executorch_root: str | Path, build_dir: str | Path, version: str,
               output_dir: str | Path, python: str, toolchain_file: str | Path | None = None,
               jobs: int | None = None, cmake: str = "cmake", full_build: bool = False,
               cmake_args: Sequence[str] = (), ccache: str | None = None,
               flatc_from: str = "cmake") -> "BuildConfig":
        """Normalise paths to absolute ones and fill the defaults (toolchain file, ``jobs`` = CPU count).

        ``python`` becomes absolute without following symbolic links (a venv's
        ``bin/python``); a bare name is looked up on PATH.

        ``cmake_args`` items are ``-DNAME=VALUE`` / ``-DNAME:TYPE=VALUE``, or
        the same without ``-D`` (added); anything else raises
        :class:`PackError` (exit 2), as does a ``flatc_from`` other than
        ``python``, ``index`` or ``cmake``.
        """
        if flatc_from not in FLATC_SOURCES:
            raise PackError(f"flatc_from: expected one of {', '.join(FLATC_SOURCES)}, got {flatc_from!r}")
        settings = []
        for arg in cmake_args:
            d = arg if arg.startswith("-D") else "-D" + arg   # NAME=VALUE: argparse cannot take "-D..." apart
            if not _CMAKE_ARG.match(d) or "\n" in d or "\r" in d:
                raise PackError(f"--cmake-arg {arg!r}: expected one -DNAME=VALUE setting (e.g. "
                                "--cmake-arg=-DEXECUTORCH_BUILD_ARM_BAREMETAL=OFF or --cmake-arg "
                                "EXECUTORCH_BUILD_ARM_BAREMETAL=OFF)")
            settings.append(d)
        root = Path(executorch_root).resolve()
        tc = Path(toolchain_file).resolve() if toolchain_file else root / DEFAULT_TOOLCHAIN
        # the steps run in the ExecuTorch tree: a relative interpreter path would name another file there;
        # abspath, not resolve: a venv's python is a symlink whose own path makes it the venv's
        python = os.path.abspath(python) if os.sep in python else (shutil.which(python) or python)
        return cls(executorch_root=root, build_dir=Path(build_dir).resolve(), version=version,
                   output_dir=Path(output_dir).resolve(), python=python, toolchain_file=tc,
                   jobs=max(1, jobs or os.cpu_count() or 1), cmake=cmake, full_build=full_build,
                   cmake_args=tuple(settings), ccache=ccache,
                   flatc_from="cmake" if full_build else flatc_from)

    @property
    def pack_path(self) -> Path:
        """``OUTPUT_DIR/PyTorch.ExecuTorch.V.pack``, the file ``build_pack.sh`` must write."""
        return self.output_dir / f"PyTorch.ExecuTorch.{self.version}.pack"


def find_ccache() -> str | None:
    """The ccache executable on PATH, or None (build-pack then builds without a compiler launcher)."""
    return shutil.which("ccache")


def configure_command(cfg: BuildConfig) -> list[str]:
    """The documented CMake configure line (ExecuTorch's backends/arm/cmsis_pack/README.md at v1.4.1), flags in their documented order.

    Then the ccache launchers (``-DCMAKE_C_COMPILER_LAUNCHER=ccache`` and the
    CXX one) when ``cfg.ccache`` is set, then ``cfg.cmake_args`` in the order
    given (a later ``-D`` of the same name wins in CMake).
    """
    argv = [
        cfg.cmake, "-S", str(cfg.executorch_root), "-B", str(cfg.build_dir),
        f"-DCMAKE_TOOLCHAIN_FILE={cfg.toolchain_file}",
        "-DEXECUTORCH_BUILD_ARM_BAREMETAL=ON",
        "-DEXECUTORCH_BUILD_KERNELS_QUANTIZED=ON",
        "-DEXECUTORCH_BUILD_FLATC=ON",
        "-DEXECUTORCH_BUILD_EXECUTOR_RUNNER=OFF",
        f"-DPYTHON_EXECUTABLE={cfg.python}",
    ]
    if cfg.ccache:
        argv += [f"-D{var}={cfg.ccache}" for var in LAUNCHER_VARS]
    return argv + list(cfg.cmake_args)


def build_command(cfg: BuildConfig) -> list[str]:
    """``cmake --build BUILD --config Release -jN`` (ExecuTorch's backends/arm/cmsis_pack/README.md at v1.4.1), plus ``--target`` :data:`PACK_TARGETS` unless a full build."""
    argv = [cfg.cmake, "--build", str(cfg.build_dir), "--config", "Release", f"-j{cfg.jobs}"]
    return argv if cfg.full_build else argv + ["--target", *PACK_TARGETS]


def step_env(cfg: BuildConfig, base: dict[str, str] | None = None) -> dict[str, str] | None:
    """The environment of the configure and build steps: ``base`` (default ``os.environ``) plus the ccache launchers.

    CMake reads ``CMAKE_<LANG>_COMPILER_LAUNCHER`` from the environment when a
    project (also an ExternalProject such as ``flatbuffers_ep``, which builds
    the host flatc with its own configure) does not set it; so ccache covers
    the host flatc too.  None (inherit) without ccache.
    """
    if not cfg.ccache:
        return None
    env = dict(os.environ if base is None else base)
    for var in LAUNCHER_VARS:
        env.setdefault(var, cfg.ccache)
    return env


def pack_command(cfg: BuildConfig) -> list[str]:
    """``bash build_pack.sh`` with its four required arguments (ExecuTorch's backends/arm/cmsis_pack/scripts/build_pack.sh at v1.4.1)."""
    return [
        "bash", str(cfg.executorch_root / BUILD_PACK_SCRIPT),
        "--executorch-root", str(cfg.executorch_root),
        "--build-dir", str(cfg.build_dir),
        "--version", cfg.version,
        "--output-dir", str(cfg.output_dir),
    ]


def preflight(cfg: BuildConfig, *, which: Callable[[str], str | None] = shutil.which) -> None:
    """Check that every tool and input exists before anything runs or is written.

    The checks every path needs (:func:`preflight_common`), then, when
    ``cfg.flatc_from`` is ``"cmake"``, those of CMake (:func:`preflight_cmake`).

    Raises:
        PackError (exit 2) naming the first missing thing.
    """
    preflight_common(cfg, which=which)
    if cfg.flatc_from == "cmake":
        preflight_cmake(cfg, which=which)


def preflight_cmake(cfg: BuildConfig, *, which: Callable[[str], str | None] = shutil.which) -> None:
    """The checks of the CMake paths: the folder name ``executorch``, ``cmake``, the toolchain file.

    Raises:
        PackError (exit 2) naming the first missing thing.
    """
    check_root_name(cfg.executorch_root)
    if which(cfg.cmake) is None:
        raise PackError(f"cmake not found on PATH (looked for {cfg.cmake!r}); install it before building a pack "
                        "with CMake")
    if not cfg.toolchain_file.is_file():
        raise PackError("CMake toolchain file not found (pass --toolchain-file to use another one)",
                        path=str(cfg.toolchain_file))


def preflight_common(cfg: BuildConfig, *, which: Callable[[str], str | None] = shutil.which) -> None:
    """The checks of every path, before anything runs or is written.

    Raises:
        PackError (exit 2) naming the first missing thing: the ExecuTorch root,
        the flatbuffers submodule (:func:`check_tree`), ``bash``, the Python
        interpreter, ``build_pack.sh`` (absent before ExecuTorch v1.4.0, no
        backends/arm/cmsis_pack/ at earlier tags); or a build/output directory
        that is a file, lies under a file or cannot be written, or a build
        directory left from another ExecuTorch version.
    """
    if not cfg.executorch_root.is_dir():
        raise PackError("ExecuTorch root is not a directory", path=str(cfg.executorch_root))
    check_tree(cfg.executorch_root)
    if which("bash") is None:
        raise PackError("bash not found on PATH (looked for 'bash'); install it before building a pack")
    if which(cfg.python) is None:
        raise PackError(f"Python interpreter not found (--python, also PYTHON_EXECUTABLE): {cfg.python!r}")
    script = cfg.executorch_root / BUILD_PACK_SCRIPT
    if not script.is_file():
        raise PackError(f"{BUILD_PACK_SCRIPT} not found: this ExecuTorch checkout has no CMSIS pack script "
                        "(it first appears in v1.4.0)", path=str(script))
    for d, what in ((cfg.build_dir, "build directory"), (cfg.output_dir, "output directory")):
        _check_creatable(d, what)
    check_build_dir(cfg)


def check_tree(root: Path) -> None:
    """Refuse an ExecuTorch tree without the flatbuffers submodule, before anything runs.

    Raises:
        PackError (exit 2): :data:`FLATBUFFERS_MARKER` is missing (an
        uninitialised submodule is an empty folder): the pack's
        ``include/flatbuffers/`` is that submodule's include folder, and its
        version decides which flatc may generate the schema headers.
    """
    if not (root / FLATBUFFERS_MARKER).is_file():
        raise PackError(f"the flatbuffers submodule is missing ({FLATBUFFERS_MARKER} not found): the pack's "
                        "include/flatbuffers/ and the flatc version come from it; run `git submodule update "
                        "--init --depth 1 third-party/flatbuffers` in the tree", path=str(root))


def check_root_name(root: Path) -> None:
    """Refuse a tree whose folder is not named ``executorch`` (the CMake paths only).

    Raises:
        PackError (exit 2): ExecuTorch's CMake refuses to configure it
        (ExecuTorch's CMakeLists.txt at v1.4.1).
    """
    if root.name != ROOT_NAME:
        raise PackError(f"the ExecuTorch tree is in a folder named {root.name!r}, but ExecuTorch's CMake "
                        f"refuses to configure unless the folder is named {ROOT_NAME!r}; check it out into "
                        f"a folder named {ROOT_NAME} (in a workflow: actions/checkout with "
                        f"`path: {ROOT_NAME}`; on the command line: git clone --depth 1 "
                        f"--branch vX.Y.Z https://github.com/pytorch/executorch.git {ROOT_NAME})", path=str(root))


def tree_version(root: Path) -> str:
    """The ExecuTorch version of a tree: its ``version.txt`` (``1.4.1``; ``1.5.0a0`` on main), or ``"unknown"``."""
    try:
        return (root / "version.txt").read_text(encoding="utf-8").strip() or "unknown"
    except (OSError, UnicodeDecodeError):
        return "unknown"


def check_build_dir(cfg: BuildConfig) -> None:
    """Refuse a build directory left from another ExecuTorch tree or version (CMake would reuse its cache).

    The bot writes :data:`STAMP` (``{"root", "version"}``) into every build
    directory it configures.  A directory holding a ``CMakeCache.txt``
    without the stamp, or whose stamp names another root or version, raises
    :class:`PackError` (exit 2) naming both; an empty or new one passes.
    """
    b = cfg.build_dir
    cache, stamp = b / "CMakeCache.txt", b / STAMP
    if not cache.exists() and not stamp.exists():
        return
    how = "remove it or choose an empty --build-dir"
    try:
        old = json.loads(stamp.read_text(encoding="utf-8"))
        if not isinstance(old, dict):
            raise ValueError
    except FileNotFoundError:
        raise PackError(f"the build directory holds a CMake tree (CMakeCache.txt) that executorch-pack-bot did "
                        f"not configure, so its ExecuTorch version is unknown; {how}", path=str(b)) from None
    except (OSError, ValueError, UnicodeDecodeError):
        raise PackError(f"the build directory's {STAMP} cannot be read; {how}", path=str(b)) from None
    now = {"root": str(cfg.executorch_root), "version": tree_version(cfg.executorch_root)}
    if old.get("version") != now["version"]:
        raise PackError(f"the build directory was configured for ExecuTorch {old.get('version')!r}, but "
                        f"{cfg.executorch_root} is {now['version']!r}: CMake would reuse the old cache and "
                        f"generated files; {how}", path=str(b))
    if old.get("root") != now["root"]:
        raise PackError(f"the build directory was configured for the ExecuTorch tree {old.get('root')!r}, not "
                        f"{now['root']!r}; {how}", path=str(b))


def write_stamp(cfg: BuildConfig) -> None:
    """Write :data:`STAMP` into the build directory (the tree and version this build is for)."""
    data = {"root": str(cfg.executorch_root), "version": tree_version(cfg.executorch_root)}
    (cfg.build_dir / STAMP).write_text(json.dumps(data) + "\n", encoding="utf-8")


def _check_creatable(path: Path, what: str) -> None:
    """Raise PackError (exit 2) unless ``path`` is a writable directory or can be created as one.

    Walks up to the nearest existing ancestor: it must be a directory and
    writable, so that nothing is created when the other directory cannot be.
    """
    if path.exists():
        if not path.is_dir():
            raise PackError(f"{what} exists and is not a directory", path=str(path))
        if not os.access(path, os.W_OK | os.X_OK):
            raise PackError(f"{what} is not writable", path=str(path))
        return
    parent = path.parent
    while not parent.exists() and parent != parent.parent:
        parent = parent.parent
    if not parent.is_dir():
        raise PackError(f"cannot create the {what}: {parent} is not a directory", path=str(path))
    if not os.access(parent, os.W_OK | os.X_OK):
        raise PackError(f"cannot create the {what}: {parent} is not writable", path=str(path))


@dataclass(frozen=True)
class TreeReport:
    """What the trap guard found in a build tree.

    Attributes:
        headers: header file name -> the non-empty file found in the build tree, or None.
        flatbuffers_include: a directory ``D`` with ``D/flatbuffers/flatbuffers.h``, or None.
    """

    headers: dict[str, Path | None]
    flatbuffers_include: Path | None

    @property
    def missing(self) -> list[str]:
        """Human names of what is missing (empty when the tree can be packaged)."""
        out = [name for name, p in self.headers.items() if p is None]
        if self.flatbuffers_include is None:
            out.append("flatbuffers include directory (flatbuffers/flatbuffers.h)")
        return out


def scan_build_tree(build_dir: Path) -> TreeReport:
    """Walk ``build_dir`` once for the flatc-generated headers and a flatbuffers include dir.

    A generated header counts only when it is a non-empty regular file (a
    symlink to one counts; a dangling symlink does not).  Symlinked
    directories are not followed.  Cost: one ``os.walk`` of the tree.
    """
    headers: dict[str, Path | None] = {name: None for name in GENERATED_HEADERS}
    fb_include: Path | None = None
    for dirpath, _dirnames, filenames in os.walk(build_dir):
        names = set(filenames)
        for name in GENERATED_HEADERS:
            if headers[name] is None and name in names:
                p = Path(dirpath, name)
                try:
                    st = p.stat()  # follows a symlink; a dangling one counts as missing
                except OSError:
                    continue
                if stat.S_ISREG(st.st_mode) and st.st_size > 0:
                    headers[name] = p
        if fb_include is None and "flatbuffers.h" in names and Path(dirpath).name == "flatbuffers":
            fb_include = Path(dirpath).parent
    return TreeReport(headers=headers, flatbuffers_include=fb_include)


def check_build_tree(build_dir: Path) -> TreeReport:
    """The trap guard: refuse to package a build tree without the flatc outputs.

    Returns the :class:`TreeReport` when the two generated headers (non-empty)
    and a flatbuffers include directory are present.

    Raises:
        CheckFailed (exit 1) listing what is missing: packaging such a tree
        yields a pack that passes upstream's validate_pack.py but does not
        compile (reproduced with build_pack.sh at v1.4.1).
    """
    report = scan_build_tree(build_dir)
    if report.missing:
        raise CheckFailed(
            "the build tree lacks " + ", ".join(report.missing)
            + "; refusing to run build_pack.sh, which would produce a pack without them "
              "(did the CMake build run with -DEXECUTORCH_BUILD_FLATC=ON?)",
            path=str(build_dir))
    return report


@dataclass(frozen=True)
class StepResult:
    """One finished step: its name, command line, exit code, wall time in seconds and last output lines."""

    name: str
    argv: tuple[str, ...]
    returncode: int
    seconds: float
    tail: tuple[str, ...] = field(default=())


def run_step(name: str, argv: Sequence[str], *, emit: Emit, cwd: Path | None = None,
             env: dict[str, str] | None = None, tail_lines: int = TAIL_LINES) -> StepResult:
    """Run ``argv``, streaming its merged stdout/stderr line by line to ``emit``.

    Output is decoded as UTF-8 with replacement, so a stray byte never stops a
    build.  Returns a :class:`StepResult` whatever the exit code; raises
    PackError (exit 2) only when the program cannot be started.
    """
    start = time.monotonic()
    tail: deque[str] = deque(maxlen=tail_lines)
    import threading

    from bot.contain import guest, guest_user, kill_strays
    from bot.scrubbed import scrubbed_env
    # upstream code: no token, no Actions file command (bot/scrubbed.py), nothing left running (bot/contain.py),
    # and as a user of its own where the step asks for it and the runner allows it (bot.contain.guest_user)
    with guest(f"step {name!r}") as spare, guest_user(cwd) as sep:
        run_argv, run_env, extra = list(argv), scrubbed_env(env), {}
        if sep is not None:
            run_argv, run_env, extra = sep.command(run_argv, run_env)
        try:
            proc = subprocess.Popen(run_argv, cwd=cwd, env=run_env, stdout=subprocess.PIPE,
                                    stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, **extra)
        except OSError as exc:
            raise PackError(f"cannot start step {name!r}: {argv[0]}: {exc.strerror}") from None
        assert proc.stdout is not None

        def pump() -> None:
            with proc.stdout:
                for raw in proc.stdout:
                    line = raw.decode("utf-8", "replace").rstrip("\r\n")
                    tail.append(line)
                    emit(line)
        # A process left behind may hold the output pipe open: the step ends when its own process does,
        # then what is left is killed (closing the pipe) and the output read to its end.
        reader = threading.Thread(target=pump, daemon=True)
        reader.start()
        rc = proc.wait()
        if sep is not None:
            sep.kill_all()   # a leftover of the guest user may hold the pipe (under sudo the bot cannot kill it)
        kill_strays(spare=spare)
        reader.join()
    return StepResult(name, tuple(argv), rc, time.monotonic() - start, tuple(tail))


@dataclass(frozen=True)
class CcacheStats:
    """ccache counters of one build: compilations served from the cache and compilations that missed it."""

    hits: int
    misses: int

    @property
    def rate(self) -> float | None:
        """Hits over hits + misses (0.0 to 1.0), or None when nothing went through ccache."""
        total = self.hits + self.misses
        return self.hits / total if total else None

    def line(self) -> str:
        """``"ccache: 120 hits, 30 misses (80.0% hit rate)"``."""
        if self.rate is None:
            return "ccache: no compilation went through ccache"
        return f"ccache: {self.hits} hits, {self.misses} misses ({self.rate * 100:.1f}% hit rate)"


def ccache_counters(ccache: str) -> dict[str, int] | None:
    """``ccache --print-stats`` (ccache 4.x: one ``name<TAB>value`` a line) as a dict; None when it cannot be read."""
    try:
        proc = subprocess.run([ccache, "--print-stats"], capture_output=True, text=True, timeout=60, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    if proc.returncode != 0:
        return None
    out = {}
    for line in proc.stdout.splitlines():
        name, _, value = line.partition("\t")
        if value.strip().isdigit():
            out[name.strip()] = int(value)
    return out or None


def ccache_delta(before: dict[str, int] | None, after: dict[str, int] | None) -> CcacheStats | None:
    """The hits and misses between two :func:`ccache_counters` readings (ccache 4.x counter names)."""
    if before is None or after is None:
        return None

    def d(name: str) -> int:
        return max(0, after.get(name, 0) - before.get(name, 0))

    return CcacheStats(hits=d("direct_cache_hit") + d("preprocessed_cache_hit"), misses=d("cache_miss"))


@dataclass(frozen=True)
class BuildOutcome:
    """A finished pack build: the ``.pack`` path, the steps run, the trap guard's findings, the ccache counters,
    and the path taken (``release-flatc``, ``cmake-targets`` or ``full-build``)."""

    pack: Path
    steps: tuple[StepResult, ...]
    tree: TreeReport
    ccache: CcacheStats | None = None
    path: str = "cmake-targets"


Runner = Callable[..., StepResult]


def build_pack(cfg: BuildConfig, *, emit: Emit, github_actions: bool | None = None,
               runner: Runner = run_step,
               on_step: Callable[[StepResult], None] | None = None,
               command: Emit | None = None,
               index_flatc: Callable[[str, Path], "wheel_flatc.Flatc | str"] | None = None) -> BuildOutcome:
    """Provide the flatc outputs, guard against the trap, package; return the pack.

    Args:
        cfg: the build inputs (see :class:`BuildConfig`).
        emit: receives every output line (upstream's: foreign text) and timing lines.
        command: receives the bot's own workflow commands (group and stop-commands
            markers); default ``emit``.
        github_actions: wrap steps in ``::group::`` markers; default from
            ``GITHUB_ACTIONS == "true"``.
        runner: runs one step (tests substitute it); same signature as :func:`run_step`.
        on_step: called with each finished step, also the failing one (for timings).
        index_flatc: fetches flatc of a release's wheel (default
            :func:`bot.pack.wheel_flatc.index_flatc`); tests substitute it.

    The log names the path taken (the release's flatc, with the versions
    compared and the file the tree's version was read from; or the CMake
    pack targets and why; or the full build), the ``--cmake-arg`` settings
    and whether ccache is used; with ccache, the hit rate of configure +
    build follows the build step (:class:`CcacheStats`, also in the outcome).

    Raises:
        PackError (exit 2): a missing tool or input (:func:`preflight`), a
            ``--python`` without executorch, a failing flatc; before anything is written.
        StepFailed (exit code of the step): a step exited non-zero; later steps do not run.
        CheckFailed (exit 1): the trap guard failed (no packaging happened), or
            build_pack.sh exited 0 without writing ``PyTorch.ExecuTorch.V.pack``
            (a pack left in the output directory by an earlier run does not count).
    """
    if github_actions is None:
        github_actions = os.environ.get("GITHUB_ACTIONS") == "true"
    preflight_common(cfg)
    steps: list[StepResult] = []
    command = command or emit

    def record(result: StepResult) -> StepResult:
        emit(f"{result.name}: exit {result.returncode} in {result.seconds:.1f} s")
        steps.append(result)
        if on_step is not None:
            on_step(result)
        return result

    with tempfile.TemporaryDirectory(prefix="et-flatc-") as tmp:
        headers: list[Path] = []
        if cfg.flatc_from != "cmake":
            start = time.monotonic()
            flatc, why = _release_flatc(cfg, Path(tmp), index_flatc or wheel_flatc.index_flatc)
            if flatc is not None:
                emit(f"flatc: {why}")
                headers = wheel_flatc.generate_headers(flatc, cfg.executorch_root, Path(tmp) / "out")
                emit(f"flatc: generated {', '.join(h.name for h in headers)} from schema/ with "
                     f"{' '.join(wheel_flatc.FLATC_FLAGS)}")
                record(StepResult("flatc", (str(flatc.path), *wheel_flatc.FLATC_FLAGS), 0,
                                  time.monotonic() - start))
            else:
                emit(f"flatc: falling back to the CMake pack targets ({' '.join(PACK_TARGETS)}): {why}")
                preflight_cmake(cfg)
        else:
            preflight_cmake(cfg)
        use_cmake = not headers
        for d in (cfg.build_dir, cfg.output_dir):
            try:
                d.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise PackError(f"cannot create the directory: {exc.strerror}", path=str(d)) from None
        write_stamp(cfg)
        if headers:
            start = time.monotonic()
            try:
                schema_dir, fb_dir = wheel_flatc.lay_out(headers, cfg.executorch_root, cfg.build_dir)
            except OSError as exc:
                raise PackError(f"cannot copy the headers into the build directory: {exc}",
                                path=str(cfg.build_dir)) from None
            emit(f"headers: {schema_dir} (generated), {fb_dir} (a copy of {wheel_flatc.FLATBUFFERS_INCLUDE})")
            record(StepResult("headers", ("copy",), 0, time.monotonic() - start))
    env = step_env(cfg)

    def step(name: str, argv: list[str], env: dict[str, str] | None = None) -> StepResult:
        if github_actions:
            command(f"::group::{name}")
        else:
            emit(f"==> {name}: {' '.join(argv)}")
        if github_actions:
            # a build's output is data: a line of it starting with "::" must not run as a workflow command
            resume = secrets.token_hex(16)
            command(f"::stop-commands::{resume}")
            emit(" ".join(argv))
        result = runner(name, argv, emit=emit, cwd=cfg.executorch_root, env=env)
        if github_actions:
            command(f"::{resume}::")
            command("::endgroup::")
        record(result)
        if result.returncode != 0:
            raise StepFailed(result)
        return result

    stats = None
    if use_cmake:
        if cfg.cmake_args:
            emit("extra CMake settings (--cmake-arg), after the documented ones: " + " ".join(cfg.cmake_args))
        emit("ccache: " + (f"{cfg.ccache} as compiler launcher" if cfg.ccache else "not on PATH, not used"))
        emit("build: " + ("the documented full build (--full-build)" if cfg.full_build else
                          "only the CMake targets the pack takes: " + " ".join(PACK_TARGETS)
                          + " (--full-build for everything)"))
        before = ccache_counters(cfg.ccache) if cfg.ccache else None
        step("configure", configure_command(cfg), env)
        step("build", build_command(cfg), env)
        stats = ccache_delta(before, ccache_counters(cfg.ccache)) if cfg.ccache else None
        if stats is not None:
            emit(stats.line())
    elif cfg.cmake_args:
        emit("extra CMake settings (--cmake-arg) not used: nothing is built with CMake")
    tree = check_build_tree(cfg.build_dir)
    emit("trap guard: generated headers and flatbuffers headers present in the build tree")
    signature = _file_signature(cfg.pack_path)
    step("package", pack_command(cfg))
    if not cfg.pack_path.is_file():
        raise CheckFailed("build_pack.sh exited 0 but did not write the pack", path=str(cfg.pack_path))
    if signature is not None and _file_signature(cfg.pack_path) == signature:
        raise CheckFailed("build_pack.sh exited 0 but did not write a new pack: this file is left over from an "
                          "earlier run (unchanged); remove it or use an empty --output-dir", path=str(cfg.pack_path))
    return BuildOutcome(pack=cfg.pack_path, steps=tuple(steps), tree=tree, ccache=stats,
                        path="full-build" if cfg.full_build else "cmake-targets" if use_cmake else "release-flatc")


def _release_flatc(cfg: BuildConfig, tmp: Path, fetch: Callable[[str, Path], "wheel_flatc.Flatc | str"]
                   ) -> tuple["wheel_flatc.Flatc | None", str]:
    """(the release's flatc, a line saying which and why) when it may make the headers, else (None, why not).

    Raises PackError (exit 2) for a ``--python`` without executorch and for a
    flatc whose ``--version`` fails (:mod:`bot.pack.wheel_flatc`).
    """
    root = cfg.executorch_root
    tree = wheel_flatc.tree_flatbuffers_version(root)
    if cfg.flatc_from == "python":
        flatc = wheel_flatc.package_flatc(cfg.python)
    else:
        release = wheel_flatc.release_of(tree_version(root))
        if release is None:
            return None, (f"the tree's version.txt says {tree_version(root)!r}, not a release: no executorch "
                          "wheel of it on the package index")
        got = fetch(release, tmp / "wheel")
        if isinstance(got, str):
            return None, got
        flatc = got
    flatc = wheel_flatc.flatc_version(flatc)
    if tree is None:
        return None, (f"the tree's flatbuffers version cannot be read (looked in "
                      f"{' and '.join(str(p) for p in wheel_flatc.VERSION_FILES)})")
    version, source = tree
    if flatc.version != version:
        return None, (f"flatc {flatc.path} of {flatc.origin} is version {flatc.version}, but the tree's "
                      f"third-party/flatbuffers is {version} ({source}): its headers could differ")
    return flatc, (f"{flatc.path} of {flatc.origin}, version {flatc.version}, the version of the tree's "
                   f"third-party/flatbuffers ({source}): nothing is compiled for the host")


def _file_signature(path: Path) -> tuple[int, int, int, int] | None:
    """(device, inode, size, mtime in ns) of a regular file, or None: tells a rewritten pack from a stale one."""
    try:
        st = path.stat()
    except OSError:
        return None
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns) if stat.S_ISREG(st.st_mode) else None


def timing_table(steps: Sequence[StepResult]) -> list[str]:
    """Per-step timings as aligned text lines (``name  seconds  exit``), plus a total line."""
    lines = [f"{'step':<10} {'seconds':>8}  exit"]
    for s in steps:
        lines.append(f"{s.name:<10} {s.seconds:>8.1f}  {s.returncode}")
    lines.append(f"{'total':<10} {sum(s.seconds for s in steps):>8.1f}")
    return lines
