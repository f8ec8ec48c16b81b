"""run-model's dependency packs (ARM::CMSIS-NN) come over https only and are reused from the pack cache only with
the sha256 kept when they were downloaded and verified (bot/modelrun/packdeps.py).

Plain http is refused before any request, for the index and for the pack URL the index gives, except to a loopback
address (the fake index of these tests on 127.0.0.1).  A kept pack whose bytes were replaced (by another valid pack
of the same name and version: verification is structural and would pass it) or that has no kept sha256 is removed
and downloaded again.
"""

from __future__ import annotations

import hashlib

import pytest

from bot.modelrun import StageError
from bot.modelrun.packdeps import https_only
from test_run_model_required_packs import ccache_dir, packs, pidx, run, serve_pack  # noqa: F401

NN = "ARM.CMSIS-NN.7.0.0.pack"


@pytest.mark.parametrize("url, ok", [
    ("https://www.keil.com/pack/index.pidx", True),
    ("http://127.0.0.1:8080/index.pidx", True),
    ("http://localhost/index.pidx", True),
    ("http://[::1]/index.pidx", True),
    ("http://www.keil.com/pack/index.pidx", False),
    ("HTTP://mirror.example/pack/", False),
    ("ftp://mirror.example/pack/", False),
    ("http://127.0.0.1.evil.example/x", False),
    ("https:///x", False),
])
def test_only_https_or_loopback_http(url, ok):
    if ok:
        https_only(url, "the index")
    else:
        with pytest.raises(StageError) as exc:
            https_only(url, "the index")
        assert "is not an https:// URL (dependency packs are fetched over https only)" in exc.value.message


@pytest.mark.needs("arm-gcc", "qemu")
def test_a_plain_http_index_is_refused_before_any_request(run, tmp_path):
    code, out, result = run("--pack-index-url", "http://bot:s3cr3t@packs.example/index.pidx",
                            "--pack-cache", str(tmp_path / "c"))
    assert (code, result["stage"]) == (1, "select")
    assert result["error"] == ("CMSIS:NN Lib (ARM::CMSIS-NN): the pack index: 'http://***@packs.example/index.pidx' "
                               "is not an https:// URL (dependency packs are fetched over https only)")
    assert "s3cr3t" not in out


@pytest.mark.needs("arm-gcc", "qemu")
def test_a_plain_http_pack_url_from_the_index_is_refused(run, httpserver, tmp_path):
    httpserver.expect_request("/pack/index.pidx").respond_with_data(pidx("http://mirror.example/nn/", "7.0.0"))
    code, out, result = run("--pack-index-url", httpserver.url_for("/pack/index.pidx"),
                            "--pack-cache", str(tmp_path / "c"))
    assert (code, result["stage"]) == (1, "select")
    assert result["error"] == ("ARM::CMSIS-NN: the pack index gives a URL: 'http://mirror.example/nn/' is not an "
                               "https:// URL (dependency packs are fetched over https only)")
    assert [r.path for r, _ in httpserver.log] == ["/pack/index.pidx"]


def _pinned(tmp_path):
    lock = tmp_path / "s.cbuild-pack.yml"
    lock.write_text("cbuild-pack:\n  resolved-packs:\n    - resolved-pack: ARM::CMSIS-NN@7.0.0\n"
                    "      selected-by-pack:\n        - ARM::CMSIS-NN\n")
    return lock


@pytest.mark.needs("arm-gcc", "qemu")
@pytest.mark.parametrize("tamper", ["replaced", "no sha256"])
def test_a_kept_pack_is_reused_only_with_its_sha256(run, packs, httpserver, tmp_path, tamper):
    serve_pack(httpserver, packs["nn"])
    index, cache = httpserver.url_for("/pack/index.pidx"), tmp_path / "packs"
    code, out, _ = run("--pack-index-url", index, "--pack-cache", str(cache))
    assert code == 0, out
    served = packs["nn"].read_bytes()
    if tamper == "replaced":
        # other bytes that still open as the same CMSIS-NN 7.0.0 pack (a zip with trailing bytes): structural
        # verification passes them, the kept sha256 does not
        (cache / NN).write_bytes(served + b"\0")
    else:
        (cache / (NN + ".sha256")).unlink()
    before = len(httpserver.log)
    code, out, result = run("--pack-index-url", index, "--pack-cache", str(cache), "--cbuild-pack",
                            str(_pinned(tmp_path)))
    assert code == 0, out
    assert result["packs"] == [f"ARM::CMSIS-NN@7.0.0 (pack index {index})"]   # downloaded again, not the cache
    assert [r.path for r, _ in httpserver.log][before:] == ["/pack/index.pidx", f"/nn/{NN}"]
    assert (cache / NN).read_bytes() == served
    assert (cache / (NN + ".sha256")).read_text() == hashlib.sha256(served).hexdigest() + "\n"
