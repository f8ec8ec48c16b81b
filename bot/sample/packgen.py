"""Invented ``PyTorch.ExecuTorch.<V>.pack`` files with a realistic layout, for the demo and the tests.

Everything written here is invented, modelled on the v1.4.1 release asset and ExecuTorch's cmsis_pack/templates/PyTorch.ExecuTorch.pdsc.tpl at v1.4.1;
no upstream content is copied.  A pack holds a root
``PyTorch.ExecuTorch.pdsc`` with Runtime, Kernel Utils, Kernel Registration
and Backend EthosU components plus operator components (``Portable add`` ->
``src/kernels/portable/cpu/op_add.cpp``), ``LICENSE``,
``Documentation/overview.md``, ``include/flatbuffers/`` headers, the two
flatc-style generated headers (twice: ``include/executorch/schema/`` and
``src/schema/``), Runtime sources that include them, and a
``src/registration/RegisterAllKernels.cpp`` with ``#ifdef`` guards.  The Runtime and the
Portable add/mul kernels are a small working runtime (:mod:`bot.sample.sample_runtime`)
that ``run-model`` boots in QEMU.

The tiny C++ really compiles against the generated headers (and fails
without them, as a real pack built without the CMake cross-compile does).
Every bad variant the tests need is a knob of :class:`PackSpec`;
:func:`make_pack` builds one.  :func:`write_demo_packs` writes the two packs
the ``demo`` command offers to ``verify-pack``: a good one and the trap (no
``include/flatbuffers/``, no generated headers: reproduced with build_pack.sh at v1.4.1).
"""

from __future__ import annotations

import os
import stat
import struct
import warnings
import zipfile
from dataclasses import dataclass, field, replace
from pathlib import Path

from bot.sample import sample_runtime

URL = "https://github.com/pytorch/executorch/releases/download/{tag}/"

DEFAULT_OPS = (
    ("Portable", "add"), ("Portable", "mul"), ("Portable", "_adaptive_avg_pool2d"), ("Portable", "softmax"),
    ("Quantized", "quantize_per_tensor"), ("Cortex-M", "quantized_add"),
)


@dataclass
class PackSpec:
    """Knobs of a generated pack.  Defaults give a good pack for ``version``.

    Sizes (``filler_headers`` is a count; ``big_members``, ``bomb``,
    ``truncate`` are bytes) exist for the benchmarks and the bad-archive tests;
    every other knob breaks one fact of a real pack (the v1.4.1 release asset) on purpose.
    """

    version: str = "1.5.1"
    file_name: str | None = None            # default PyTorch.ExecuTorch.<version>.pack
    releases: list | None = None            # [(version, date)], newest first; default [version, 1.4.0]
    url: str | None = None                  # default .../download/v<version>/
    vendor: str = "PyTorch"
    name: str = "ExecuTorch"
    pdsc_name: str | None = None            # default <vendor>.<name>.pdsc
    pdsc_bytes: bytes | None = None         # replace the PDSC text entirely
    flatbuffers: bool = True
    generated_headers: bool = True
    generated_header_text: str | None = None  # replace both include/executorch/schema headers
    operators: tuple = DEFAULT_OPS
    unregistered: tuple = ("_adaptive_avg_pool2d",)  # ops without a registration guard
    cversion: dict = field(default_factory=dict)      # Csub -> Cversion override
    duplicate_component: str | None = None  # Csub to declare twice
    extra_refs: tuple = ()                  # file names the PDSC references in Kernel Utils
    drop_entries: tuple = ()                # entry names not to write
    extra_entries: tuple = ()               # (name, bytes) written as is (duplicates allowed)
    leak_py: bool = False
    symlink: bool = False
    license: bool = True
    overview: bool = True
    filler_headers: int = 4                 # extra include/c10/util/*.h entries (scale knob)
    big_members: tuple = ()                 # sizes of incompressible stored members (bench)
    bomb: int = 0                           # bytes of zeros in one deflated member
    lying_size: bool = False                # central directory under-declares a member's size
    truncate: int = 0                       # bytes cut from the end of the file
    runtime_define: bool = True
    cmsis_nn: bool = False                  # Cortex-M operators require CMSIS:NN Lib (the real pack's condition)

    def csub(self, kind: str, op: str) -> str:
        """The operator component's Csub: ``("Portable", "_adaptive_avg_pool2d")`` -> ``"Portable adaptive_avg_pool2d"``."""
        return f"{kind} {op.lstrip('_')}"


def _define(kind: str, op: str) -> str:
    return "RTE_ML_EXECUTORCH_OP_" + f"{kind}_{op.lstrip('_')}".upper().replace("-", "_")


def _op_path(kind: str, op: str) -> str:
    return {"Portable": "src/kernels/portable/cpu/", "Quantized": "src/kernels/quantized/cpu/",
            "Cortex-M": "src/backends/cortex_m/ops/"}[kind] + f"op_{op}.cpp"


FLATBUFFERS_HEADERS = {
    "base.h": "#include <cstdint>\n#include <cstddef>\n#define FLATBUFFERS_VERSION_MAJOR 24\n"
              "#define FLATBUFFERS_VERSION_MINOR 3\n#define FLATBUFFERS_VERSION_REVISION 25\n"
              "#define FLATBUFFERS_FINAL_CLASS final\nnamespace flatbuffers { typedef uint16_t voffset_t; }\n",
    "table.h": "#include \"flatbuffers/base.h\"\nnamespace flatbuffers {\nclass Table {\n public:\n"
               "  template <typename T> T GetField(voffset_t, T defaultval) const { return defaultval; }\n};\n}\n",
    "vector.h": "#include \"flatbuffers/base.h\"\nnamespace flatbuffers { template <typename T> struct Vector { uint32_t size() const { return 0; } }; }\n",
    "string.h": "#include \"flatbuffers/vector.h\"\nnamespace flatbuffers { struct String : Vector<char> {}; }\n",
    "flatbuffers.h": "#include \"flatbuffers/base.h\"\n#include \"flatbuffers/table.h\"\n#include \"flatbuffers/vector.h\"\n"
                     "#include \"flatbuffers/string.h\"\n",
}


def _guarded(name: str, body: str) -> str:
    g = name.upper().replace("/", "_").replace(".", "_") + "_"
    return f"#ifndef {g}\n#define {g}\n{body}#endif  // {g}\n"


def generated_header(schema: str, struct_name: str) -> str:
    """A flatc-style header for ``schema`` declaring one table ``struct_name``."""
    guard = f"FLATBUFFERS_GENERATED_{schema.upper()}_EXECUTORCH_FLATBUFFER_H_"
    return (
        "// automatically generated by the FlatBuffers compiler, do not modify\n\n\n"
        f"#ifndef {guard}\n#define {guard}\n\n#include \"flatbuffers/flatbuffers.h\"\n\n"
        "static_assert(FLATBUFFERS_VERSION_MAJOR == 24 &&\n              FLATBUFFERS_VERSION_MINOR == 3 &&\n"
        "              FLATBUFFERS_VERSION_REVISION == 25,\n             \"Non-compatible flatbuffers version included\");\n\n"
        "namespace executorch_flatbuffer {\n\n"
        f"struct {struct_name} FLATBUFFERS_FINAL_CLASS : private flatbuffers::Table {{\n"
        "  uint32_t version() const { return GetField<uint32_t>(4, 0); }\n};\n\n"
        f"}}  // namespace executorch_flatbuffer\n\n#endif  // {guard}\n")


RUNTIME_SOURCES = {
    "src/runtime/executor/program.cpp":
        "#include <cstdint>\n#include <executorch/schema/program_generated.h>\n"
        "#include <executorch/runtime/core/error.h>\n"
        "#ifndef RTE_ML_EXECUTORCH_RUNTIME\n#error \"RTE_ML_EXECUTORCH_RUNTIME is not defined\"\n#endif\n"
        "namespace executorch { namespace runtime {\n"
        "Error program_version(const executorch_flatbuffer::Program* p, uint32_t* out) {\n"
        "  *out = p->version();\n  return Error::Ok;\n}\n}}  // namespace executorch::runtime\n"
        + sample_runtime.EXECUTOR_CPP,
    "src/runtime/core/scalar_type.cpp":
        "#include <executorch/schema/scalar_type_generated.h>\n#include <executorch/runtime/core/error.h>\n"
        "namespace executorch { namespace runtime {\n"
        "uint32_t scalar_version(const executorch_flatbuffer::ScalarTypeInfo& s) { return s.version(); }\n"
        "}}  // namespace executorch::runtime\n",
}


def pdsc_text(spec: PackSpec) -> str:
    """The ``PyTorch.ExecuTorch.pdsc`` text of ``spec`` (PDSC schema 1.7 layout of ExecuTorch's cmsis_pack/templates/PyTorch.ExecuTorch.pdsc.tpl at v1.4.1)."""
    v = spec.version
    releases = spec.releases if spec.releases is not None else [(v, "2026-09-30"), ("1.4.0", "2026-08-06")]
    url = spec.url if spec.url is not None else URL.format(tag=f"v{v}")
    rel = "\n".join(f'    <release version="{rv}" date="{d}">Upstream {rv}</release>' for rv, d in releases)

    def cver(csub: str) -> str:
        return spec.cversion.get(csub, v)

    def comp(cgroup, csub, files, define=None, cond=None):
        rte = f"\n      <RTE_Components_h>#define {define}</RTE_Components_h>" if define else ""
        c = f' condition="{cond}"' if cond else ""
        f = "\n".join(f'        <file category="{cat}" name="{n}"/>' for cat, n in files)
        return (f'    <component Cclass="Machine Learning" Cgroup="{cgroup}" Csub="{csub}" Cversion="{cver(csub)}"{c}>\n'
                f'      <description>{csub}</description>{rte}\n      <files>\n{f}\n      </files>\n    </component>')

    comps = [
        comp("ExecuTorch", "Runtime", [("include", "include/")] + [("sourceCpp", s) for s in RUNTIME_SOURCES],
             "RTE_ML_EXECUTORCH_RUNTIME" if spec.runtime_define else None),
        comp("ExecuTorch", "Kernel Utils", [("include", "include/")] + [("sourceCpp", n) for n in spec.extra_refs]),
        comp("ExecuTorch", "Kernel Registration", [("sourceCpp", "src/registration/RegisterAllKernels.cpp")],
             cond="et_runtime"),
        comp("ExecuTorch", "Backend EthosU", [("sourceCpp", "src/backends/arm/runtime/EthosUBackend.cpp")],
             "RTE_ML_EXECUTORCH_BACKEND_ETHOSU"),
    ]
    conds = ['    <condition id="et_runtime">\n      <require Cclass="Machine Learning" Cgroup="ExecuTorch" Csub="Runtime"/>\n    </condition>']
    if spec.cmsis_nn:
        conds.append('    <condition id="CMSIS-NN">\n      <require condition="et_runtime"/>\n'
                     '      <require Cclass="CMSIS" Cgroup="NN Lib"/>\n    </condition>')
    for kind, op in spec.operators:
        csub = spec.csub(kind, op)
        cid = "op_" + csub.lower().replace(" ", "_").replace("-", "_")
        comps.append(comp("ExecuTorch Operators", csub, [("sourceCpp", _op_path(kind, op))], _define(kind, op), cid))
        need = "CMSIS-NN" if spec.cmsis_nn and kind == "Cortex-M" else "et_runtime"
        conds.append(f'    <condition id="{cid}">\n      <require condition="{need}"/>\n    </condition>')
        if spec.duplicate_component == csub:
            comps.append(comps[-1])
    overview = ' overview="Documentation/overview.md"' if spec.overview else ""
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<package schemaVersion="1.7" xmlns:xs="http://www.w3.org/2001/XMLSchema-instance" '
        'xs:noNamespaceSchemaLocation="https://example.invalid/PACK.xsd">\n'
        f"  <vendor>{spec.vendor}</vendor>\n  <name>{spec.name}</name>\n"
        f"  <description{overview}>ExecuTorch runtime and operators (invented sample)</description>\n"
        f"  <url>{url}</url>\n  <license>LICENSE</license>\n"
        f"  <releases>\n{rel}\n  </releases>\n"
        '  <requirements>\n    <packages>\n      <package vendor="ARM" name="CMSIS"/>\n    </packages>\n  </requirements>\n'
        '  <taxonomy>\n    <description Cclass="Machine Learning">Machine learning</description>\n  </taxonomy>\n'
        "  <conditions>\n" + "\n".join(conds) + "\n  </conditions>\n"
        "  <components>\n" + "\n".join(comps) + "\n  </components>\n</package>\n")


def build_pack_sh_spec(version: str, *, date: str = "2026-09-30", **knobs) -> PackSpec:
    """The pack upstream's ``build_pack.sh --version VERSION`` writes (ExecuTorch's backends/arm/cmsis_pack/scripts/build_pack.sh at v1.4.1).

    The script accepts any label (``1.4.1``, ``1.4.1-local``) and puts it
    verbatim into the file name, the one ``<release version>``, every
    ``Cversion`` and the ``<url>`` (``.../releases/download/VERSION/``).
    Other :class:`PackSpec` knobs pass through.
    """
    return PackSpec(version=version, releases=[(version, date)], url=URL.format(tag=version), **knobs)


def upstream_release_spec(github_ref: str, **knobs) -> PackSpec:
    """The pack upstream's release workflow attaches to a tag (``.github/workflows/build-cmsis-pack.yml``, v1.4.1).

    The workflow runs ``PACK_VERSION="${GITHUB_REF#refs/tags/v}"`` and then
    ``build_pack.sh --version "$PACK_VERSION"``: for ``refs/tags/v1.4.1`` the
    pack is ``PyTorch.ExecuTorch.1.4.1.pack`` whose ``<url>`` says
    ``.../download/1.4.1/`` while the release's assets live under
    ``.../download/v1.4.1/``.
    """
    ref = github_ref
    pack_version = ref[len("refs/tags/v"):] if ref.startswith("refs/tags/v") else ref  # ${GITHUB_REF#refs/tags/v}
    return build_pack_sh_spec(pack_version, **knobs)


def _registration(spec: PackSpec) -> str:
    out = ["// Generated kernel registration (invented sample).", "#include <executorch/runtime/core/error.h>",
           "namespace { void reg(const char*) {} }", "void register_all_kernels() {"]
    for kind, op in spec.operators:
        if op in spec.unregistered or spec.csub(kind, op) in spec.unregistered:
            continue
        out += [f"#ifdef {_define(kind, op)}", f'  reg("{op.lstrip("_")}");', "#endif"]
    out.append("}")
    return "\n".join(out) + "\n"


def files_of(spec: PackSpec) -> list[tuple[str, bytes]]:
    """Every (entry name, bytes) of the pack in write order, directories excluded."""
    files: list[tuple[str, str | bytes]] = []
    pdsc_name = spec.pdsc_name or f"{spec.vendor}.{spec.name}.pdsc"
    files.append((pdsc_name, spec.pdsc_bytes if spec.pdsc_bytes is not None else pdsc_text(spec)))
    if spec.license:
        files.append(("LICENSE", "BSD-style licence text (invented sample)\n"))
    if spec.overview:
        files.append(("Documentation/overview.md", "# ExecuTorch pack\n\nAn invented sample pack.\n"))
    files.append(("armclang_shims/shim.h", _guarded("shim.h", "")))
    files.append(("include/executorch/runtime/core/error.h",
                  _guarded("error.h", "namespace executorch { namespace runtime { enum class Error { Ok = 0 }; }}\n")))
    files.append(("include/torch/library.h", _guarded("torch_library.h", "")))
    files.append(("include/executorch/runtime/kernel/sample_kernel.h",
                  _guarded("sample_kernel.h", sample_runtime.KERNEL_H)))
    for i in range(spec.filler_headers):
        files.append((f"include/c10/util/h{i}.h", _guarded(f"c10_h{i}", f"// c10 helper {i}\n")))
    if spec.flatbuffers:
        for n, body in FLATBUFFERS_HEADERS.items():
            files.append((f"include/flatbuffers/{n}", _guarded(f"flatbuffers_{n}", body)))
    if spec.generated_headers:
        for d in ("include/executorch/schema/", "src/schema/"):
            for schema, struct_name in (("program", "Program"), ("scalar_type", "ScalarTypeInfo")):
                text = generated_header(schema, struct_name)
                if spec.generated_header_text is not None and d.startswith("include"):
                    text = spec.generated_header_text
                files.append((f"{d}{schema}_generated.h", text))
    files += list(RUNTIME_SOURCES.items())
    files.append(("src/backends/arm/runtime/EthosUBackend.cpp", "// Ethos-U backend (invented sample)\n"))
    files.append(("src/registration/RegisterAllKernels.cpp", _registration(spec)))
    for kind, op in spec.operators:
        kernel = sample_runtime.KERNELS.get(op) if kind == "Portable" else None
        if spec.cmsis_nn and (kind, op) == ("Cortex-M", "quantized_add"):
            kernel = sample_runtime.INT8_ADD_KERNEL
        files.append((_op_path(kind, op), kernel or f"// operator {op} (invented sample)\n"))
    if spec.leak_py:
        files.append(("src/tools/gen_registration.py", "print('left behind')\n"))
    drop = set(spec.drop_entries)
    return [(n, b.encode() if isinstance(b, str) else b) for n, b in files if n not in drop]


def make_pack(dest: Path, spec: PackSpec | None = None, **knobs) -> Path:
    """Write the pack described by ``spec`` (or ``PackSpec(**knobs)``) into directory ``dest``; returns its path."""
    spec = replace(spec, **knobs) if spec is not None else PackSpec(**knobs)
    dest.mkdir(parents=True, exist_ok=True)
    path = dest / (spec.file_name or f"{spec.vendor}.{spec.name}.{spec.version}.pack")
    files = files_of(spec)
    dirs = sorted({p for n, _ in files for p in _parents(n)})
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as zf:
        for d in dirs:
            zf.writestr(zipfile.ZipInfo(d), b"")
        for n, data in files:
            zf.writestr(n, data)
        for i, size in enumerate(spec.big_members):
            info = zipfile.ZipInfo(f"Documentation/assets/blob{i}.bin")
            info.compress_type = zipfile.ZIP_STORED
            with zf.open(info, "w", force_zip64=True) as out:
                left = size
                while left:
                    n = min(left, 8 << 20)
                    out.write(os.urandom(n))
                    left -= n
        if spec.bomb:
            info = zipfile.ZipInfo("Documentation/zeros.bin")
            info.compress_type = zipfile.ZIP_DEFLATED
            with zf.open(info, "w", force_zip64=True) as out:
                block = bytes(1 << 20)
                for _ in range(spec.bomb >> 20):
                    out.write(block)
        if spec.lying_size:
            info = zipfile.ZipInfo("Documentation/lying.bin")
            info.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info, bytes(4 << 20))
        if spec.symlink:
            info = zipfile.ZipInfo("include/escape")
            info.create_system = 3
            info.external_attr = (stat.S_IFLNK | 0o777) << 16
            zf.writestr(info, "../../../../etc/passwd")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # duplicate names are a variant on purpose
            for n, data in spec.extra_entries:
                zf.writestr(zipfile.ZipInfo(n), data)
    if spec.lying_size:
        _patch_declared_size(path, "Documentation/lying.bin", 64 << 10)
    if spec.truncate:
        size = path.stat().st_size
        with open(path, "r+b") as fh:
            fh.truncate(size - spec.truncate)
    return path


NN_VERSION = "7.0.0"


def nn_pack_pdsc(version: str = NN_VERSION, *, component: bool = True) -> str:
    """The ``ARM.CMSIS-NN.pdsc`` of the sample NN pack (invented; the layout of ARM's CMSIS-NN pack: one
    component ``Cclass="CMSIS" Cgroup="NN Lib"`` with ``header`` and ``source`` files)."""
    comp = ('    <component Cclass="CMSIS" Cgroup="NN Lib" Cversion="{v}" condition="NN">\n'
            '      <description>Sample NN library (invented sample)</description>\n      <files>\n'
            '        <file category="header" name="Include/nn_sample_functions.h"/>\n'
            '        <file category="source" name="Source/BasicMathFunctions/nn_sample_add_s8.c"/>\n'
            '        <file category="doc" name="Documentation/index.md"/>\n'
            '      </files>\n    </component>\n').format(v=version) if component else ""
    return ('<?xml version="1.0" encoding="UTF-8"?>\n<package schemaVersion="1.7.36">\n'
            "  <name>CMSIS-NN</name>\n  <description>Sample NN kernels (invented sample)</description>\n"
            "  <vendor>ARM</vendor>\n  <license>LICENSE</license>\n  <url>https://example.invalid/pack/</url>\n"
            f'  <releases>\n    <release version="{version}" date="2026-06-01">Sample {version}</release>\n'
            '    <release version="6.0.0" date="2025-06-01">Sample 6.0.0</release>\n  </releases>\n'
            '  <conditions>\n    <condition id="NN">\n      <description>nothing else</description>\n'
            '    </condition>\n  </conditions>\n'
            f"  <components>\n{comp}  </components>\n</package>\n")


def make_nn_pack(dest: Path, version: str = NN_VERSION, *, component: bool = True, source: str | None = None) -> Path:
    """Write ``dest/ARM.CMSIS-NN.<version>.pack``: the sample NN library (:data:`sample_runtime.NN_ADD_C`) as a
    CMSIS-NN-like pack; ``component=False`` leaves the ``NN Lib`` component out of its PDSC, ``source``
    replaces the library's C source."""
    dest.mkdir(parents=True, exist_ok=True)
    path = dest / f"ARM.CMSIS-NN.{version}.pack"
    files = [("ARM.CMSIS-NN.pdsc", nn_pack_pdsc(version, component=component)),
             ("LICENSE", "Apache-2.0 style licence text (invented sample)\n"),
             ("Documentation/index.md", "# Sample NN library\n"),
             ("Include/nn_sample_functions.h", sample_runtime.NN_HEADER),
             ("Source/BasicMathFunctions/nn_sample_add_s8.c", sample_runtime.NN_ADD_C if source is None else source)]
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for n, text in files:
            zf.writestr(n, text)
    return path


def _parents(name: str) -> list[str]:
    """Directory entries above ``name``: ``"a/b/c.h"`` -> ``["a/", "a/b/"]``."""
    parts = name.split("/")[:-1]
    return ["/".join(parts[:i + 1]) + "/" for i in range(len(parts))]


def _patch_declared_size(path: Path, member: str, size: int) -> None:
    """Rewrite the central directory's uncompressed size of ``member`` (a lie zipfile trusts)."""
    data = bytearray(path.read_bytes())
    at = 0
    target = member.encode()
    while True:
        at = data.find(b"PK\x01\x02", at)
        if at < 0:
            raise ValueError(f"{path}: {member} is not in the central directory")
        nlen = struct.unpack_from("<H", data, at + 28)[0]
        if bytes(data[at + 46: at + 46 + nlen]) == target:
            struct.pack_into("<I", data, at + 24, size)
            path.write_bytes(bytes(data))
            return
        at += 4


def realistic_spec(scale: int = 1, version: str = "1.5.1") -> PackSpec:
    """About 1,000 entries and 200 components times ``scale`` (the v1.4.1 release asset has 172+9+17 operators)."""
    ops = []
    for s in range(scale):
        sfx = "" if s == 0 else f"_x{s}"
        ops += [("Portable", f"op{i}{sfx}") for i in range(172)]
        ops += [("Quantized", f"q{i}{sfx}") for i in range(9)]
        ops += [("Cortex-M", f"cm{i}{sfx}") for i in range(17)]
    # the flatbuffers licence beside its headers, as in the release asset (upstream's validate_pack.py
    # after v1.4.1 requires include/flatbuffers/LICENSE)
    return PackSpec(version=version, operators=tuple(ops), unregistered=(), filler_headers=740 * scale,
                    extra_entries=(("include/flatbuffers/LICENSE", b"Apache License 2.0 (invented sample)\n"),))


_pdsc = pdsc_text  # the name the tests knew first

#: Operators of the demo packs: the ones the sample template's ``ai_layer.clayer.yml`` selects
#: (``Portable add``, ``Cortex-M quantize_per_tensor``) and a few more; ``_adaptive_avg_pool2d``
#: has no registration, as in the real v1.4.1 pack (its release asset).
DEMO_OPS = (
    ("Portable", "add"), ("Portable", "mul"), ("Portable", "_adaptive_avg_pool2d"), ("Portable", "softmax"),
    ("Quantized", "quantize_per_tensor"), ("Cortex-M", "quantize_per_tensor"), ("Cortex-M", "quantized_add"),
)


@dataclass(frozen=True)
class DemoPacks:
    """The two packs :func:`write_demo_packs` wrote: ``good`` and ``trap`` (paths under its ``dest``, same file name)."""

    good: Path
    trap: Path


def write_demo_packs(dest: Path, version: str = "1.5.1") -> DemoPacks:
    """Write ``dest/PyTorch.ExecuTorch.V.pack`` (good) and ``dest/trap/PyTorch.ExecuTorch.V.pack`` (the trap).

    Args:
        dest: a folder (created when missing).
        version: the pack (SemVer) version ``V``; the ``<url>`` is the download
            location of tag ``vV``.

    Both are small (a few kB, about 50 entries) and realistic: the trap is the
    same pack built without the CMake cross-compile, so it lacks
    ``include/flatbuffers/`` and both ``*_generated.h`` headers while its PDSC
    is byte-identical to the good one's (reproduced with build_pack.sh at v1.4.1).

    Raises:
        OSError: ``dest`` cannot be written.
    """
    spec = PackSpec(version=version, operators=DEMO_OPS)
    good = make_pack(Path(dest), spec)
    trap = make_pack(Path(dest) / "trap", spec, flatbuffers=False, generated_headers=False)
    return DemoPacks(good, trap)
