"""Template trees of real size for the scan benchmarks, committed to git.

* :func:`plan_tree`: the sample template plus about 5,000 files: 3,000 small
  vendored headers under ``ai_layer/engine/include`` (a folder the bot skips),
  1,900 small source/doc files, four 4 MB model binaries and a long guide with
  800 mentions (the project's plan benchmark since the first release);
* :func:`vendored_tree`: the sample template plus about 4,900 files, ALL in
  folders the bot scans: vendored ExecuTorch runtime headers and sources (each
  naming ``executorch`` in its includes and namespaces, some with float
  constants, one ``#define ET_VERSION_STRING``), application sources, Markdown
  docs (a fifth of them naming ExecuTorch, some with the pinned version),
  JSON/YAML configuration, and binaries (models, images) up to 4 MB.
"""

from __future__ import annotations

import os
import random
import subprocess
from pathlib import Path

from bot.commands.demo import copy_template

GIT_ENV = dict(os.environ, GIT_AUTHOR_NAME="bench", GIT_AUTHOR_EMAIL="bench@example.invalid",
               GIT_COMMITTER_NAME="bench", GIT_COMMITTER_EMAIL="bench@example.invalid")

LICENSE = ("/*\n * Copyright (c) Meta Platforms, Inc. and affiliates.\n * All rights reserved.\n *\n"
           " * This source code is licensed under the BSD-style license found in the\n"
           " * LICENSE file in the root directory of this source tree.\n */\n\n")


def _commit(tpl: Path) -> Path:
    subprocess.run(["git", "init", "-q", str(tpl)], check=True)
    subprocess.run(["git", "-C", str(tpl), "add", "-A"], check=True)
    subprocess.run(["git", "-C", str(tpl), "commit", "-qm", "bench tree"], check=True, env=GIT_ENV)
    return tpl


def plan_tree(dest: Path, files: int = 5000) -> Path:
    """The sample template grown to about ``files`` files (see the module docstring); returns its path."""
    tpl = copy_template(dest)
    headers = int(files * 0.6)
    inc = tpl / "ai_layer" / "engine" / "include"
    for i in range(headers):
        d = inc / f"mod{i % 40:02d}"
        d.mkdir(parents=True, exist_ok=True)
        (d / f"h{i}.h").write_text(f"// vendored header {i} of ExecuTorch 1.4.0\n#pragma once\nint f{i}(void);\n")
    other = files - headers - 40
    for i in range(other):
        d = tpl / "src" / f"part{i % 30:02d}"
        d.mkdir(parents=True, exist_ok=True)
        suffix = (".c", ".md", ".txt", ".py")[i % 4]
        (d / f"f{i}{suffix}").write_text(f"# file {i}\nsome text without versions\n" * 5)
    big = os.urandom(4 * 1024 * 1024)
    for i in range(4):
        (tpl / "model" / f"weights{i}.bin").write_bytes(big)
    para = ("The pack and the exporter must be the same ExecuTorch version. Install it with "
            "`cpackget add PyTorch::ExecuTorch@1.4.0` and `pip install executorch==1.4.0`.\n\n")
    (tpl / "documentation" / "guide.md").write_text("# Guide\n\n" + para * 400)
    return _commit(tpl)


def _runtime_header(i: int) -> str:
    body = (f"#pragma once\n\n#include <executorch/runtime/core/error.h>\n"
            f"#include <executorch/runtime/core/span.h>\n\nnamespace executorch {{\nnamespace runtime {{\n\n"
            f"/// Returns the size of the part {i} in bytes.\nsize_t part_{i}_size(const void* p);\n")
    if i % 10 == 0:
        body += f"constexpr float kScale{i} = 0.5f;\nconstexpr double kEps{i} = 1.0e-6;\n"
    return LICENSE + body + "\n}  // namespace runtime\n}  // namespace executorch\n"


def _runtime_source(i: int) -> str:
    return (LICENSE + f"#include <executorch/kernels/portable/cpu/op_{i}.h>\n\nnamespace executorch {{\n"
            f"Error op_{i}(KernelRuntimeContext& ctx, const Tensor& in, Tensor& out) {{\n"
            "  ET_KERNEL_CHECK(ctx, in.dim() == out.dim(), InvalidArgument, out);\n"
            f"  for (size_t j = 0; j < in.numel(); ++j) out.mutable_data_ptr<float>()[j] = {i % 7}.0f;\n"
            "  return Error::Ok;\n}\n}  // namespace executorch\n")


def vendored_tree(dest: Path, files: int = 4900, seed: int = 7) -> Path:
    """The sample template plus about ``files`` files in scanned folders (module docstring); returns its path."""
    rnd = random.Random(seed)
    tpl = copy_template(dest)
    n_headers, n_sources = int(files * 0.49), int(files * 0.2)
    n_app, n_docs, n_conf = int(files * 0.12), int(files * 0.12), int(files * 0.03)
    n_bin = files - n_headers - n_sources - n_app - n_docs - n_conf
    lib = tpl / "lib" / "executorch"
    for i in range(n_headers):
        d = lib / "include" / "executorch" / ("runtime", "kernels", "extension", "backends")[i % 4] / f"m{i % 25:02d}"
        d.mkdir(parents=True, exist_ok=True)
        (d / f"part_{i}.h").write_text(_runtime_header(i))
    (lib / "include" / "executorch" / "version.h").write_text(
        LICENSE + '#pragma once\n#define ET_VERSION_STRING "1.4.0"\n')
    for i in range(n_sources):
        d = lib / "src" / f"k{i % 20:02d}"
        d.mkdir(parents=True, exist_ok=True)
        (d / f"op_{i}.cpp").write_text(_runtime_source(i))
    for i in range(n_app):
        d = tpl / "app" / "src" / f"g{i % 12:02d}"
        d.mkdir(parents=True, exist_ok=True)
        suffix = (".c", ".h", ".cpp")[i % 3]
        (d / f"unit_{i}{suffix}").write_text(
            f"/* application unit {i}, board support v2 */\n#include \"unit_{i}.h\"\n"
            f"static const int table_{i}[] = {{{', '.join(str(rnd.randrange(1000)) for _ in range(40))}}};\n"
            f"int unit_{i}(int x) {{ return table_{i}[x % 40] * 3; }}\n")
    for i in range(n_docs):
        d = tpl / "docs" / f"s{i % 15:02d}"
        d.mkdir(parents=True, exist_ok=True)
        text = f"# Topic {i}\n\nThis page explains part {i} of the firmware, build 2.3 of the board files.\n\n"
        if i % 5 == 0:
            text += "The model runs on the ExecuTorch runtime through the Ethos-U delegate.\n\n"
        if i % 25 == 0:
            text += "Export models with `pip install executorch==1.4.0` on the host.\n\n"
        text += "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor.\n" * 20
        (d / f"page_{i}.md").write_text(text)
    for i in range(n_conf):
        d = tpl / "config" / f"c{i % 5}"
        d.mkdir(parents=True, exist_ok=True)
        if i % 2:
            (d / f"settings_{i}.json").write_text('{"threads": 2, "arena": 262144, "profile": "release"}\n')
        else:
            (d / f"settings_{i}.yml").write_text("threads: 2\narena: 262144\nprofile: release\n")
    big = os.urandom(4 * 1024 * 1024)
    small = os.urandom(64 * 1024)
    for i in range(n_bin):
        d = tpl / "assets" / ("models", "images")[i % 2]
        d.mkdir(parents=True, exist_ok=True)
        (d / f"blob_{i}.{('pte', 'png')[i % 2]}").write_bytes(big if i < 4 else small[: 4096 + i * 97])
    return _commit(tpl)
