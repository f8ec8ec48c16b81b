"""The compile proof of build-pack through ccache: a second proof of the same pack is served from the cache,
with the same verdicts (a pass stays a pass, a missing header stays a failure naming the pack file, not a
temporary folder), although each proof unpacks the pack into a new temporary folder.

Real ccache and arm-none-eabi-g++ (.ci/run installs both) on invented packs (bot/sample/packgen.py).
"""

from __future__ import annotations

import shutil

import pytest

from bot.pack import build
from bot.pack.verify import verify_pack
from bot.sample.packgen import make_pack

V = "1.5.1"
CCACHE = shutil.which("ccache")
pytestmark = pytest.mark.needs("ccache", "arm-gcc")


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("CCACHE_DIR", str(tmp_path / "ccache"))
    monkeypatch.delenv("CCACHE_DISABLE", raising=False)
    monkeypatch.delenv("CCACHE_BASEDIR", raising=False)
    return tmp_path / "ccache"


def _proof(pack):
    before = build.ccache_counters(CCACHE)
    res = verify_pack(pack, V, compile_check=True, compile_jobs=2, ccache=CCACHE).check("compile")
    return res, build.ccache_delta(before, build.ccache_counters(CCACHE))


def test_a_second_proof_is_served_from_the_cache(tmp_path, cache):
    pack = make_pack(tmp_path / "p")
    first, cold = _proof(pack)
    second, warm = _proof(pack)
    assert (first.status, first.detail) == ("pass", "all 2 Runtime sources compile with arm-none-eabi-g++")
    assert (second.status, second.detail) == (first.status, first.detail)
    assert cold == build.CcacheStats(hits=0, misses=2)
    assert warm == build.CcacheStats(hits=2, misses=0)


def test_a_failure_through_the_cache_names_the_pack_file(tmp_path, cache):
    pack = make_pack(tmp_path / "p", flatbuffers=False, generated_headers=False)
    first, _ = _proof(pack)
    second, _ = _proof(pack)
    for res in (first, second):
        assert res.status == "fail"
        assert ("src/runtime/executor/program.cpp:2:10: fatal error: executorch/schema/program_generated.h: "
                "No such file or directory") in res.detail
        assert "/tmp" not in res.detail and "pack/src" not in res.detail


def test_a_compile_error_through_the_cache_names_the_pack_file_not_the_relative_path(tmp_path, cache):
    # ccache hands the compiler paths relative to CCACHE_BASEDIR: the error says pack/include/...
    pack = make_pack(tmp_path / "p", generated_header_text="int broken() { return undeclared_name; }\n")
    res, _ = _proof(pack)
    assert res.status == "fail"
    assert ("include/executorch/schema/program_generated.h:1:23: error: 'undeclared_name' was not declared in this "
            "scope") in res.detail
    assert "pack/include" not in res.detail and "/tmp" not in res.detail


def test_verify_pack_compiles_through_ccache_when_asked(tmp_path, cache, capsys):
    # The build job proves the pack once, with verify-pack --compile-check --ccache: a warm runner's cache serves it.
    from bot.cli import main
    pack = make_pack(tmp_path / "p")
    argv = ["verify-pack", str(pack), "--version", V, "--compile-check", "--ccache"]
    before = build.ccache_counters(CCACHE)
    assert main(argv) == 0
    cold = build.ccache_delta(before, build.ccache_counters(CCACHE))
    assert main(argv) == 0
    warm = build.ccache_delta(before, build.ccache_counters(CCACHE))
    assert cold == build.CcacheStats(hits=0, misses=2)
    assert warm == build.CcacheStats(hits=2, misses=2)


def test_verify_pack_ccache_needs_the_compile_check(tmp_path, capsys):
    from bot.cli import main
    pack = make_pack(tmp_path / "p")
    assert main(["verify-pack", str(pack), "--version", V, "--ccache"]) == 2
    assert "--ccache needs --compile-check" in capsys.readouterr().err
