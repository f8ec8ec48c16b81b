"""build-pack: only the targets the pack takes, --full-build, --cmake-arg, ccache, the traps refused before a build,
and the compile check of the written pack.

Small generated ExecuTorch trees, a fake ``cmake`` and ``ccache`` (Python scripts that log
their argv) and a fake ``build_pack.sh``; the compile check runs the real
arm-none-eabi-g++ on an invented pack (skipped without it).
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

import pytest

from bot import cli
from bot.pack import build
from test_build_pack import FAKE_CMAKE, _calls, _cmake_path, _write_exec, et_root, fake_cmake  # noqa: F401  (fixtures)

FAKE_CCACHE = """\
#!{python}
import json, os, sys
from pathlib import Path
state = Path(os.environ["FAKE_CCACHE_STATE"])
n = int(state.read_text()) if state.exists() else 0
if sys.argv[1:] == ["--print-stats"]:
    # each reading after the first: 3 more direct hits, 1 more preprocessed hit, 1 more miss
    print(f"direct_cache_hit\\t{{3 * n}}\\npreprocessed_cache_hit\\t{{n}}\\ncache_miss\\t{{n}}\\nstats_updated_timestamp\\t0")
    state.write_text(str(n + 1))
"""

# build_pack.sh that writes an invented, compilable pack with bot.sample.packgen (as build_pack.sh would)
PACKGEN_BUILD_PACK_SH = """\
#!/usr/bin/env bash
set -euo pipefail
while [ $# -gt 0 ]; do
  case "$1" in
    --executorch-root) shift 2;; --build-dir) shift 2;;
    --version) VERSION="$2"; shift 2;; --output-dir) OUT="$2"; shift 2;;
  esac
done
mkdir -p "$OUT"
"{python}" -c "import sys; from pathlib import Path; from bot.sample.packgen import build_pack_sh_spec, make_pack; \\
make_pack(Path(sys.argv[1]), build_pack_sh_spec(sys.argv[2]))" "$OUT" "$VERSION"
"""


def _argv(root: Path, tmp_path: Path, *extra: str, version: str = "1.5.1", check: bool = False) -> list[str]:
    return ["build-pack", "--executorch-root", str(root), "--build-dir", str(tmp_path / "build"),
            "--version", version, "--output-dir", str(tmp_path / "out"), "--python", sys.executable,
            *([] if check else ["--no-compile-check"]), *_cmake_path(extra), *extra]


def test_default_builds_only_the_pack_targets(et_root, tmp_path, fake_cmake, capsys):
    assert cli.main(_argv(et_root, tmp_path, "-j", "2")) == 0
    _configure, build_call = _calls(fake_cmake)
    assert build_call == ["--build", str(tmp_path / "build"), "--config", "Release", "-j2",
                          "--target", "program_schema", "flatbuffers_ep"]
    out = capsys.readouterr().out
    assert "build: only the CMake targets the pack takes: program_schema flatbuffers_ep (--full-build for everything)" \
        in out.splitlines()


def test_full_build_is_the_documented_build(et_root, tmp_path, fake_cmake, capsys):
    assert cli.main(_argv(et_root, tmp_path, "-j", "2", "--full-build")) == 0
    _configure, build_call = _calls(fake_cmake)
    assert build_call == ["--build", str(tmp_path / "build"), "--config", "Release", "-j2"]
    assert "build: the documented full build (--full-build)" in capsys.readouterr().out.splitlines()


def test_cmake_args_follow_the_documented_settings_and_are_logged(et_root, tmp_path, fake_cmake, capsys):
    argv = _argv(et_root, tmp_path, "--cmake-arg=-DEXECUTORCH_BUILD_ARM_BAREMETAL=OFF",
                 "--cmake-arg", "FOO:BOOL=ON")
    assert cli.main(argv) == 0
    configure = _calls(fake_cmake)[0]
    assert configure[-3:] == [f"-DPYTHON_EXECUTABLE={sys.executable}", "-DEXECUTORCH_BUILD_ARM_BAREMETAL=OFF",
                              "-DFOO:BOOL=ON"]
    assert ("extra CMake settings (--cmake-arg), after the documented ones: "
            "-DEXECUTORCH_BUILD_ARM_BAREMETAL=OFF -DFOO:BOOL=ON") in capsys.readouterr().out.splitlines()


@pytest.mark.parametrize("bad", ["-S/elsewhere", "--fresh", "-DNO_VALUE", "NO_VALUE", "-D=1", "A=1\nB=2"])
def test_bad_cmake_arg_refused_before_anything_runs(et_root, tmp_path, fake_cmake, capsys, bad):
    assert cli.main(_argv(et_root, tmp_path, f"--cmake-arg={bad}")) == 2
    assert f"--cmake-arg {bad!r}: expected one -DNAME=VALUE setting" in capsys.readouterr().err
    assert not fake_cmake.exists() and not (tmp_path / "build").exists()


def test_ccache_on_path_is_the_launcher_and_its_hit_rate_is_reported(et_root, tmp_path, fake_cmake, monkeypatch,
                                                                      capsys):
    _write_exec(tmp_path / "bin" / "ccache", FAKE_CCACHE.format(python=sys.executable))
    monkeypatch.setattr(build, "find_ccache", lambda: str(tmp_path / "bin" / "ccache"))   # as found on PATH
    monkeypatch.setenv("FAKE_CCACHE_STATE", str(tmp_path / "ccache-state"))
    monkeypatch.delenv("CMAKE_C_COMPILER_LAUNCHER", raising=False)
    monkeypatch.delenv("CMAKE_CXX_COMPILER_LAUNCHER", raising=False)
    gh_out = tmp_path / "gh_output"
    monkeypatch.setenv("GITHUB_OUTPUT", str(gh_out))
    assert cli.main(_argv(et_root, tmp_path)) == 0
    ccache = str(tmp_path / "bin" / "ccache")
    configure = _calls(fake_cmake)[0]
    assert configure[-2:] == [f"-DCMAKE_C_COMPILER_LAUNCHER={ccache}", f"-DCMAKE_CXX_COMPILER_LAUNCHER={ccache}"]
    out = capsys.readouterr().out.splitlines()
    # counters read before (0) and after (3 direct + 1 preprocessed hits, 1 miss): 4 of 5
    assert "ccache: 4 hits, 1 misses (80.0% hit rate)" in out
    from eventworld import read_outputs
    assert read_outputs(gh_out)["ccache-hit-rate"] == "0.800"


def test_no_ccache_builds_without_a_launcher(et_root, tmp_path, fake_cmake, monkeypatch):
    monkeypatch.setattr(build, "find_ccache", lambda: "/usr/bin/ccache")
    assert cli.main(_argv(et_root, tmp_path, "--no-ccache")) == 0
    assert not any("LAUNCHER" in a for a in _calls(fake_cmake)[0])


def test_ccache_launcher_reaches_the_steps_environment(tmp_path):
    cfg = build.BuildConfig.create(executorch_root=tmp_path / "executorch", build_dir=tmp_path / "b",
                                   version="1.5.1", output_dir=tmp_path / "o", python=sys.executable,
                                   ccache="/usr/bin/ccache")
    env = build.step_env(cfg, {"PATH": "/bin", "CMAKE_C_COMPILER_LAUNCHER": "mine"})
    assert env == {"PATH": "/bin", "CMAKE_C_COMPILER_LAUNCHER": "mine", "CMAKE_CXX_COMPILER_LAUNCHER": "/usr/bin/ccache"}
    assert build.step_env(build.BuildConfig.create(executorch_root=tmp_path / "executorch", build_dir=tmp_path / "b",
                                                   version="1.5.1", output_dir=tmp_path / "o",
                                                   python=sys.executable)) is None


def test_ccache_stats():
    assert build.ccache_delta({"direct_cache_hit": 2, "cache_miss": 1},
                              {"direct_cache_hit": 10, "preprocessed_cache_hit": 2, "cache_miss": 1}) \
        == build.CcacheStats(hits=10, misses=0)
    assert build.CcacheStats(0, 0).line() == "ccache: no compilation went through ccache"
    assert build.ccache_delta(None, {}) is None


def test_tree_folder_not_named_executorch_is_refused(et_root, tmp_path, fake_cmake, capsys):
    other = et_root.rename(tmp_path / "executorch-1.5.1")
    assert cli.main(_argv(other, tmp_path)) == 2
    err = capsys.readouterr().err
    assert "folder named 'executorch-1.5.1'" in err and "actions/checkout with `path: executorch`" in err
    assert not fake_cmake.exists() and not (tmp_path / "build").exists()


def test_tree_without_the_flatbuffers_submodule_is_refused(et_root, tmp_path, fake_cmake, capsys):
    shutil.rmtree(et_root / "third-party/flatbuffers")
    (et_root / "third-party/flatbuffers").mkdir()   # an uninitialised submodule is an empty folder
    assert cli.main(_argv(et_root, tmp_path)) == 2
    err = capsys.readouterr().err
    assert "the flatbuffers submodule is missing" in err
    assert "git submodule update --init --depth 1 third-party/flatbuffers" in err
    assert not fake_cmake.exists()


def test_build_dir_from_another_version_is_refused(et_root, tmp_path, fake_cmake, capsys):
    assert cli.main(_argv(et_root, tmp_path)) == 0
    stamp = json.loads((tmp_path / "build" / build.STAMP).read_text())
    assert stamp == {"root": str(et_root), "version": "1.5.1"}
    calls = len(_calls(fake_cmake))
    (et_root / "version.txt").write_text("1.6.0\n")   # the tree moved to another release
    (tmp_path / "build" / "CMakeCache.txt").write_text("CMAKE_HOME_DIRECTORY:INTERNAL=x\n")
    assert cli.main(_argv(et_root, tmp_path)) == 2
    err = capsys.readouterr().err
    assert "configured for ExecuTorch '1.5.1'" in err and "is '1.6.0'" in err
    assert len(_calls(fake_cmake)) == calls   # nothing ran


def test_same_version_build_dir_is_reused(et_root, tmp_path, fake_cmake):
    assert cli.main(_argv(et_root, tmp_path)) == 0
    (tmp_path / "build" / "CMakeCache.txt").write_text("x\n")
    assert cli.main(_argv(et_root, tmp_path, version="1.5.1-local")) == 0


def test_build_dir_with_a_foreign_cmake_cache_is_refused(et_root, tmp_path, fake_cmake, capsys):
    (tmp_path / "build").mkdir()
    (tmp_path / "build" / "CMakeCache.txt").write_text("CMAKE_HOME_DIRECTORY:INTERNAL=/elsewhere\n")
    assert cli.main(_argv(et_root, tmp_path)) == 2
    assert "did not configure, so its ExecuTorch version is unknown" in capsys.readouterr().err
    assert not fake_cmake.exists()


@pytest.mark.needs("arm-gcc")
def test_written_pack_is_verified_with_the_compile_check(et_root, tmp_path, fake_cmake, monkeypatch, capsys):
    repo = Path(__file__).resolve().parents[2]
    monkeypatch.setenv("PYTHONPATH", str(repo))
    _write_exec(et_root / build.BUILD_PACK_SCRIPT, PACKGEN_BUILD_PACK_SH.format(python=sys.executable))
    assert cli.main(_argv(et_root, tmp_path, version="1.5.1-local", check=True)) == 0
    out = capsys.readouterr().out
    assert "PyTorch.ExecuTorch.1.5.1-local.pack passed" in out
    assert any(line.startswith("compile ") and " pass " in line for line in out.splitlines())


def test_missing_compiler_refused_before_the_build(et_root, tmp_path, fake_cmake, capsys):
    assert cli.main(_argv(et_root, tmp_path, "--cxx", "no-such-g++", check=True)) == 2
    assert "compiler no-such-g++ not found on PATH" in capsys.readouterr().err
    assert not fake_cmake.exists()
