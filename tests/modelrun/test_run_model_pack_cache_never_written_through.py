"""run-model writes its pack cache (``--pack-cache``) only through new files renamed into place.

A symbolic link planted in the cache folder where a download is staged (``ARM.CMSIS-NN.V.pack.part``), or where
the pack index and its ETag are kept (``pack-index-KEY.pidx``/``.json``), must never be written through: the file
it points at keeps its bytes.  A folder in the way of ``ARM.CMSIS-NN.V.pack`` fails at select naming it (exit 1),
never an internal error.  The index and the pack come from a fake index on 127.0.0.1 (pytest-httpserver).
"""

from __future__ import annotations

import hashlib

import pytest

from test_run_model_required_packs import ccache_dir, packs, pidx, run, serve_pack  # noqa: F401

pytestmark = pytest.mark.needs("arm-gcc", "qemu")


def test_a_symlink_planted_as_the_download_part_is_not_written_through(run, packs, httpserver, tmp_path):  # noqa: F811
    serve_pack(httpserver, packs["nn"])
    cache = tmp_path / "c"
    cache.mkdir()
    victim = tmp_path / "victim"
    victim.write_text("keep")
    (cache / "ARM.CMSIS-NN.7.0.0.pack.part").symlink_to(victim)
    code, out, result = run("--pack-index-url", httpserver.url_for("/pack/index.pidx"), "--pack-cache", str(cache))
    assert (code, result["status"]) == (0, "match"), out
    assert victim.read_text() == "keep"
    assert (cache / "ARM.CMSIS-NN.7.0.0.pack").read_bytes() == packs["nn"].read_bytes()
    assert not (cache / "ARM.CMSIS-NN.7.0.0.pack").is_symlink()
    assert sorted(p.name for p in cache.iterdir() if ".part" in p.name) == ["ARM.CMSIS-NN.7.0.0.pack.part"]


def test_a_symlink_planted_as_the_cached_pack_is_replaced_not_followed(run, packs, httpserver, tmp_path):  # noqa: F811
    serve_pack(httpserver, packs["nn"])
    cache = tmp_path / "c"
    cache.mkdir()
    victim = tmp_path / "victim"
    victim.write_text("keep")
    (cache / "ARM.CMSIS-NN.7.0.0.pack").symlink_to(victim)   # not a pack: removed as a bad copy, then fetched
    code, out, result = run("--pack-index-url", httpserver.url_for("/pack/index.pidx"), "--pack-cache", str(cache))
    assert (code, result["status"]) == (0, "match"), out
    assert victim.read_text() == "keep"
    assert (cache / "ARM.CMSIS-NN.7.0.0.pack").read_bytes() == packs["nn"].read_bytes()


def test_a_symlink_planted_as_the_kept_index_is_not_written_through(run, packs, httpserver, tmp_path):  # noqa: F811
    url = httpserver.url_for("/pack/index.pidx")
    httpserver.expect_request("/pack/index.pidx").respond_with_data(pidx(httpserver.url_for("/nn/"), "7.0.0"),
                                                                     headers={"ETag": '"v1"'})
    httpserver.expect_request("/nn/ARM.CMSIS-NN.7.0.0.pack").respond_with_data(packs["nn"].read_bytes())
    cache = tmp_path / "c"
    cache.mkdir()
    key = hashlib.sha256(url.encode()).hexdigest()[:16]   # the name bot.pack.public_index keeps the index under
    victims = {}
    for suffix in ("pidx", "json"):
        victims[suffix] = tmp_path / f"victim.{suffix}"
        victims[suffix].write_text("keep")
        (cache / f"pack-index-{key}.{suffix}").symlink_to(victims[suffix])
    code, out, result = run("--pack-index-url", url, "--pack-cache", str(cache))
    assert (code, result["status"]) == (0, "match"), out
    assert [v.read_text() for v in victims.values()] == ["keep", "keep"]
    assert (cache / f"pack-index-{key}.pidx").read_bytes() == pidx(httpserver.url_for("/nn/"), "7.0.0")


def test_a_folder_in_the_way_of_the_cached_pack_fails_at_select_naming_it(run, packs, httpserver,  # noqa: F811
                                                                          tmp_path):
    serve_pack(httpserver, packs["nn"])
    cache = tmp_path / "c"
    (cache / "ARM.CMSIS-NN.7.0.0.pack").mkdir(parents=True)
    (cache / "ARM.CMSIS-NN.7.0.0.pack" / "mine.txt").write_text("keep")
    code, out, result = run("--pack-index-url", httpserver.url_for("/pack/index.pidx"), "--pack-cache", str(cache))
    assert (code, result["status"], result["stage"]) == (1, "fail", "select")
    assert result["error"] == (f"ARM::CMSIS-NN@7.0.0 from {httpserver.url_for('/nn/ARM.CMSIS-NN.7.0.0.pack')}: "
                               f"cannot keep the pack as {cache / 'ARM.CMSIS-NN.7.0.0.pack'}: Is a directory")
    assert "internal error" not in out
    assert (cache / "ARM.CMSIS-NN.7.0.0.pack" / "mine.txt").read_text() == "keep"
    assert sorted(p.name for p in cache.iterdir()) == ["ARM.CMSIS-NN.7.0.0.pack"]   # no staged file left
