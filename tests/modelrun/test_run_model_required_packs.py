"""run-model on an int8 Cortex-M operator whose component requires CMSIS:NN Lib, which the pack does not ship.

The sample pack's ``Cortex-M quantized_add`` requires ``Cclass="CMSIS" Cgroup="NN Lib"`` (as the real pack's
``op_cortex_m_*`` conditions do); a sample NN pack of our own (``ARM.CMSIS-NN.V.pack``) provides it. It comes
from ``--dep-pack``, or from a fake CMSIS pack index on 127.0.0.1 (``index.pidx`` -> pack), at the version the
template's ``*.cbuild-pack.yml`` pins or else the index's newest; the image is built with the real
arm-none-eabi-gcc (MVE on Cortex-M55) and booted in the real qemu-system-arm."""

from __future__ import annotations

import json
import socket

import pytest

import ptekit
from bot.cli import main
from bot.modelrun.host import dump, value
from bot.modelrun.packdeps import external_requirements, lock_pins
from bot.modelrun.qemu import Tensor
from bot.pack.pdsc import parse_pdsc
from bot.sample.packgen import DEMO_OPS, make_nn_pack, make_pack, pdsc_text, PackSpec

N = 20   # 16 lanes through MVE's vqaddq_s8, 4 through the scalar tail


def int8_add_pte() -> bytes:
    values = [ptekit.tensor((N,), 1), ptekit.tensor((N,), 1), ptekit.tensor((N,), 1)]
    return ptekit.program(ptekit.plan(values, [0, 1], [2], [("cortex_m::quantized_add", "out")], [(0, [0, 1, 2, 2])]))


def expected() -> list[Tensor]:
    """The sample kernel's reference: saturating int8 a + b of the runner's fixed inputs."""
    return [Tensor(1, (N,), bytes(max(-128, min(127, value(0, i) + value(1, i))) & 0xFF for i in range(N)))]


def pidx(base: str, version: str) -> bytes:
    """An index.pidx (Open-CMSIS-Pack "Pack Index Files") listing ARM::CMSIS-NN and another pack."""
    return ('<?xml version="1.0" encoding="UTF-8" ?>\n<index schemaVersion="1.1.0">\n  <vendor>Keil</vendor>\n'
            f'  <pindex>\n    <pdsc url="{base}" vendor="ARM" name="CMSIS" version="6.2.0"/>\n'
            f'    <pdsc url="{base}" vendor="ARM" name="CMSIS-NN" version="{version}"/>\n  </pindex>\n</index>\n'
            ).encode()


@pytest.fixture(scope="module")
def packs(tmp_path_factory):
    d = tmp_path_factory.mktemp("packs")
    et = make_pack(d, operators=DEMO_OPS, cmsis_nn=True)
    return {"et": et, "nn": make_nn_pack(d / "nn"), "nn6": make_nn_pack(d / "nn6", "6.0.0"),
            "nocomp": make_nn_pack(d / "nocomp", component=False)}


@pytest.fixture(scope="module")
def ccache_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("ccache")


@pytest.fixture
def run(tmp_path, capsys, packs, ccache_dir, monkeypatch):
    monkeypatch.setenv("EXECUTORCH_PACK_BOT_ATTEMPTS", "1")
    monkeypatch.delenv("EXECUTORCH_PACK_BOT_CACHE", raising=False)
    monkeypatch.setenv("EXECUTORCH_PACK_BOT_PACK_INDEX_URL", "off")   # never the public index
    pte = tmp_path / "q.pte"
    pte.write_bytes(int8_add_pte())
    (tmp_path / "e.json").write_text(dump(expected()))

    def go(*extra):
        (tmp_path / "r.json").unlink(missing_ok=True)
        code = main(["run-model", str(packs["et"]), "--pte", str(pte), "--expected", str(tmp_path / "e.json"),
                     "--cache-dir", str(ccache_dir), "--json", str(tmp_path / "r.json"), *extra])
        out = capsys.readouterr()
        r = tmp_path / "r.json"
        return code, out.out + out.err, json.loads(r.read_text()) if r.exists() else None
    return go


def serve_pack(httpserver, pack, version="7.0.0"):
    httpserver.expect_request("/pack/index.pidx").respond_with_data(pidx(httpserver.url_for("/nn/"), version))
    httpserver.expect_request(f"/nn/{pack.name}").respond_with_data(pack.read_bytes())


@pytest.mark.needs("arm-gcc", "qemu")
def test_int8_operator_builds_with_a_local_nn_pack_and_matches(run, packs):
    code, out, result = run("--dep-pack", str(packs["nn"]), "--pack-index-url", "off")
    assert code == 0, out
    assert result["status"] == "match" and result["outputs"][0]["exact"] is True
    assert result["operators"] == ["cortex_m::quantized_add"]
    assert result["packs"] == [f"ARM::CMSIS-NN@7.0.0 (local pack {packs['nn'].name})"]
    assert result["instructions"] > 0
    assert "required packs: ARM::CMSIS-NN@7.0.0" in out


@pytest.mark.needs("arm-gcc", "qemu")
def test_nn_pack_comes_from_the_pack_index_and_is_cached(run, packs, httpserver, tmp_path):
    serve_pack(httpserver, packs["nn"])
    index = httpserver.url_for("/pack/index.pidx")
    cache = tmp_path / "packs"
    code, out, result = run("--pack-index-url", index, "--pack-cache", str(cache))
    assert code == 0, out
    assert result["packs"] == [f"ARM::CMSIS-NN@7.0.0 (pack index {index})"]
    assert [r.path for r, _ in httpserver.log] == ["/pack/index.pidx", "/nn/ARM.CMSIS-NN.7.0.0.pack"]
    # the pack and the sha256 of what was downloaded and verified (a reuse checks it)
    assert sorted(p.name for p in cache.iterdir()) == ["ARM.CMSIS-NN.7.0.0.pack", "ARM.CMSIS-NN.7.0.0.pack.sha256"]
    assert (cache / "ARM.CMSIS-NN.7.0.0.pack.sha256").read_text() == (
        __import__("hashlib").sha256((cache / "ARM.CMSIS-NN.7.0.0.pack").read_bytes()).hexdigest() + "\n")
    # pinned by the lock file and already in the cache: nothing is asked
    lock = tmp_path / "s.cbuild-pack.yml"
    lock.write_text("cbuild-pack:\n  resolved-packs:\n    - resolved-pack: ARM::CMSIS-NN@7.0.0\n"
                    "      selected-by-pack:\n        - ARM::CMSIS-NN\n")
    code, out, result = run("--pack-index-url", index, "--pack-cache", str(cache), "--cbuild-pack", str(lock))
    assert (code, result["packs"]) == (0, ["ARM::CMSIS-NN@7.0.0 (cache ARM.CMSIS-NN.7.0.0.pack)"]), out
    assert len(httpserver.log) == 2


@pytest.mark.needs("arm-gcc", "qemu")
def test_the_lock_file_pin_wins_over_the_index_newest(run, packs, httpserver, tmp_path):
    serve_pack(httpserver, packs["nn6"], version="7.0.0")
    lock = tmp_path / "s.cbuild-pack.yml"
    lock.write_text("cbuild-pack:\n  resolved-packs:\n    - resolved-pack: ARM::CMSIS-NN@6.0.0\n"
                    "    - resolved-pack: ARM::CMSIS@6.2.0\n")
    code, out, result = run("--pack-index-url", httpserver.url_for("/pack/index.pidx"), "--cbuild-pack", str(lock),
                            "--pack-cache", str(tmp_path / "c"))
    assert code == 0, out
    assert result["packs"][0].startswith("ARM::CMSIS-NN@6.0.0 (pack index ")
    assert httpserver.log[-1][0].path == "/nn/ARM.CMSIS-NN.6.0.0.pack"


def closed_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


@pytest.mark.needs("arm-gcc", "qemu")
def test_an_unreachable_index_fails_at_select_naming_it(run, tmp_path):
    url = f"http://127.0.0.1:{closed_port()}/pack/index.pidx"
    code, out, result = run("--pack-index-url", url, "--pack-cache", str(tmp_path / "c"))
    assert (code, result["status"], result["stage"]) == (1, "fail", "select")
    assert result["error"].startswith(f"CMSIS:NN Lib (ARM::CMSIS-NN): the pack index {url} cannot be read")
    assert result["build_seconds"] is None and "Traceback" not in out


@pytest.mark.needs("arm-gcc", "qemu")
def test_a_pack_without_the_component_fails_at_select(run, packs, httpserver, tmp_path):
    serve_pack(httpserver, packs["nocomp"])
    code, out, result = run("--pack-index-url", httpserver.url_for("/pack/index.pidx"),
                            "--pack-cache", str(tmp_path / "c"))
    assert (code, result["stage"]) == (1, "select")
    assert "ARM::CMSIS-NN has no component CMSIS:NN Lib (required by Machine Learning:ExecuTorch Operators:" \
           "Cortex-M quantized_add" in result["error"]
    assert list((tmp_path / "c").iterdir()) == []   # a refused download is not kept


@pytest.mark.needs("arm-gcc", "qemu")
def test_a_corrupt_zip_fails_at_select(run, packs, httpserver, tmp_path):
    httpserver.expect_request("/pack/index.pidx").respond_with_data(pidx(httpserver.url_for("/nn/"), "7.0.0"))
    httpserver.expect_request("/nn/ARM.CMSIS-NN.7.0.0.pack").respond_with_data(packs["nn"].read_bytes()[:-300])
    code, out, result = run("--pack-index-url", httpserver.url_for("/pack/index.pidx"),
                            "--pack-cache", str(tmp_path / "c"))
    assert (code, result["stage"]) == (1, "select")
    assert "ARM::CMSIS-NN@7.0.0 from " in result["error"] and "is not a usable pack (zip)" in result["error"]


@pytest.mark.needs("arm-gcc", "qemu")
def test_index_off_and_no_local_pack_fails_at_select_naming_the_component(run):
    code, out, result = run("--pack-index-url", "off")
    assert (code, result["stage"]) == (1, "select")
    assert result["error"] == ("Machine Learning:ExecuTorch Operators:Cortex-M quantized_add requires CMSIS:NN Lib "
                               "from ARM::CMSIS-NN: no local pack gives it (--dep-pack) and the pack index is off")


@pytest.mark.parametrize("text, message", [
    ("cbuild-pack: [unclosed\n", "is not a cbuild-pack lock file (YAML)"),
    ("cbuild-pack: [ARM::CMSIS-NN@7.0.0]\n", "is not a cbuild-pack lock file (YAML): cbuild-pack: is a list, "
                                           "not a mapping with resolved-packs:"),
    ("cbuild-pack: ARM::CMSIS-NN@7.0.0\n", "cbuild-pack: is a string, not a mapping"),
    ("cbuild-pack:\n  resolved-packs: 7\n", "resolved-packs: is a number, not a list of resolved-pack: items"),
    ("- resolved-pack: ARM::CMSIS-NN@7.0.0\n", "the document is a list, not a mapping with cbuild-pack:"),
])
def test_an_unreadable_lock_file_is_bad_input(run, tmp_path, text, message):
    lock = tmp_path / "bad.cbuild-pack.yml"
    lock.write_text(text)
    code, out, result = run("--cbuild-pack", str(lock))
    assert code == 2 and result is None and message in out and "Traceback" not in out


def test_two_lock_files_pinning_different_versions_are_bad_input(run, tmp_path):
    template = tmp_path / "template"
    for folder, version in (("a", "6.0.0"), ("b", "7.0.0")):
        (template / folder).mkdir(parents=True)
        (template / folder / f"{folder}.cbuild-pack.yml").write_text(
            f"cbuild-pack:\n  resolved-packs:\n    - resolved-pack: ARM::CMSIS-NN@{version}\n")
    code, out, result = run("--cbuild-pack", str(template), "--pack-cache", str(tmp_path / "c"))
    assert (code, result) == (2, None)
    assert (f"--cbuild-pack: {template / 'a/a.cbuild-pack.yml'} pins ARM::CMSIS-NN@6.0.0 but "
            f"{template / 'b/b.cbuild-pack.yml'} pins ARM::CMSIS-NN@7.0.0") in out
    assert not (tmp_path / "c").exists()


@pytest.mark.parametrize("option, message", [("--dep-pack", "not a pack file or folder"),
                                             ("--cbuild-pack", "no such lock file or template folder")])
def test_a_fifo_given_as_a_pack_or_lock_file_is_bad_input_without_reading_it(run, tmp_path, option, message):
    import os

    fifo = tmp_path / "ARM.CMSIS-NN.7.0.0.pack"
    os.mkfifo(fifo)   # opening it to read would wait for a writer forever
    code, out, result = run(option, str(fifo))
    assert (code, result) == (2, None)
    assert f"{option}: {fifo}: {message}" in out


@pytest.mark.needs("arm-gcc", "qemu")
@pytest.mark.parametrize("served", [True, False])
def test_an_index_url_with_credentials_never_shows_them(run, packs, httpserver, tmp_path, served):
    if served:
        serve_pack(httpserver, packs["nn"])
    else:   # the index answers 404: the error names its URL
        httpserver.expect_request("/pack/index.pidx").respond_with_data("", status=404)
    index = httpserver.url_for("/pack/index.pidx").replace("http://", "http://bot:s3cr3t-token@")
    code, out, result = run("--pack-index-url", index, "--pack-cache", str(tmp_path / "c"))
    shown = index.replace("bot:s3cr3t-token@", "***@")
    if served:
        assert (code, result["packs"]) == (0, [f"ARM::CMSIS-NN@7.0.0 (pack index {shown})"])
    else:
        assert (code, result["stage"]) == (1, "select")
        assert result["error"] == f"CMSIS:NN Lib (ARM::CMSIS-NN): the pack index {shown} answered 404 (not found)"
    assert "s3cr3t" not in out and "s3cr3t" not in json.dumps(result)


def test_a_template_lock_file_linking_outside_the_template_is_refused_unread(run, tmp_path):
    outside = tmp_path / "elsewhere.yml"
    outside.write_text("cbuild-pack:\n  resolved-packs:\n    - resolved-pack: ARM::CMSIS-NN@6.0.0\n")
    template = tmp_path / "template"
    (template / "solution").mkdir(parents=True)
    (template / "solution" / "app.cbuild-pack.yml").symlink_to(outside)
    code, out, result = run("--cbuild-pack", str(template), "--pack-cache", str(tmp_path / "c"))
    assert (code, result) == (2, None)
    assert (f"--cbuild-pack: {template / 'solution/app.cbuild-pack.yml'} is a symbolic link leading outside "
            f"{template}") in out


def test_requirements_are_the_components_the_pack_lacks():
    spec = PackSpec(operators=DEMO_OPS, cmsis_nn=True)
    data = pdsc_text(spec).encode()
    pdsc = parse_pdsc(data, "PyTorch.ExecuTorch.pdsc")
    ops = {c.csub: c for c in pdsc.operators()}
    reqs = external_requirements(pdsc, data, [ops["Portable add"], ops["Cortex-M quantized_add"],
                                              ops["Cortex-M quantize_per_tensor"]])
    # the Runtime the CMSIS-NN condition also requires is in the pack; NN Lib is asked once
    assert [(r.ident, r.needed_by) for r in reqs] == [
        ("CMSIS:NN Lib", "Machine Learning:ExecuTorch Operators:Cortex-M quantized_add")]
    assert external_requirements(pdsc, data, [ops["Portable add"]]) == []


def test_lock_pins_read_resolved_packs():
    text = ("cbuild-pack:\n  resolved-packs:\n    - resolved-pack: ARM::CMSIS@6.2.0\n      selected-by-pack: [ARM::CMSIS]\n"
            "    - resolved-pack: ARM::CMSIS-NN@7.0.0\n    - resolved-pack: no-version\n")
    assert lock_pins(text) == {"ARM::CMSIS": "6.2.0", "ARM::CMSIS-NN": "7.0.0"}
    assert lock_pins("") == {}


@pytest.mark.needs("arm-gcc", "qemu")
def test_an_unpacked_local_pack_folder_is_used(run, packs, tmp_path):
    import zipfile

    folder = tmp_path / "cmsis-nn"
    with zipfile.ZipFile(packs["nn"]) as zf:
        zf.extractall(folder)
    code, out, result = run("--dep-pack", str(folder), "--pack-index-url", "off")
    assert (code, result["packs"]) == (0, ["ARM::CMSIS-NN@7.0.0 (local pack cmsis-nn)"]), out


@pytest.mark.needs("arm-gcc", "qemu")
def test_local_packs_of_other_names_are_skipped_and_a_non_zip_fails(run, packs, tmp_path):
    code, out, result = run("--dep-pack", str(packs["et"]), "--pack-index-url", "off")
    assert (code, result["stage"]) == (1, "select")
    assert "(--dep-pack) (1 local pack(s) given, none is ARM::CMSIS-NN) and the pack index is off" in result["error"]
    junk = tmp_path / "ARM.CMSIS-NN.7.0.0.pack"
    junk.write_bytes(b"not a zip")
    code, out, result = run("--dep-pack", str(junk), "--pack-index-url", "off")
    assert (code, result["stage"]) == (1, "select")
    assert result["error"].startswith(f"the local pack {junk} is not a usable pack (zip): ")


@pytest.mark.needs("arm-gcc", "qemu")
def test_the_index_newest_already_cached_is_not_downloaded_again(run, packs, httpserver, tmp_path):
    serve_pack(httpserver, packs["nn"])
    cache = tmp_path / "c"
    for _ in range(2):
        code, out, result = run("--pack-index-url", httpserver.url_for("/pack/index.pidx"), "--pack-cache", str(cache))
        assert code == 0, out
    assert result["packs"] == ["ARM::CMSIS-NN@7.0.0 (cache ARM.CMSIS-NN.7.0.0.pack)"]
    assert [r.path for r, _ in httpserver.log] == ["/pack/index.pidx", "/nn/ARM.CMSIS-NN.7.0.0.pack",
                                                   "/pack/index.pidx"]


@pytest.mark.needs("arm-gcc", "qemu")
@pytest.mark.parametrize("what, error", [
    ("no-entry", "CMSIS:NN Lib: the pack index {index} lists no ARM::CMSIS-NN pack"),
    ("pack-404", "ARM::CMSIS-NN@7.0.0 from {base}ARM.CMSIS-NN.7.0.0.pack: answered 404 (not found)"),
    ("index-404", "CMSIS:NN Lib (ARM::CMSIS-NN): the pack index {index} answered 404 (not found)"),
])
def test_what_the_index_lacks_fails_at_select(run, httpserver, tmp_path, what, error):
    index, base = httpserver.url_for("/pack/index.pidx"), httpserver.url_for("/nn/")
    if what == "no-entry":
        httpserver.expect_request("/pack/index.pidx").respond_with_data(pidx(base, "7.0.0").replace(b"CMSIS-NN", b"DSP"))
    elif what == "pack-404":
        httpserver.expect_request("/pack/index.pidx").respond_with_data(pidx(base, "7.0.0"))
        httpserver.expect_request("/nn/ARM.CMSIS-NN.7.0.0.pack").respond_with_data("", status=404)
    else:
        httpserver.expect_request("/pack/index.pidx").respond_with_data("", status=404)
    code, out, result = run("--pack-index-url", index, "--pack-cache", str(tmp_path / "c"))
    assert (code, result["stage"], result["error"]) == (1, "select", error.format(index=index, base=base))


@pytest.mark.needs("arm-gcc", "qemu")
def test_a_nn_source_that_does_not_compile_fails_at_compile_naming_it(run, tmp_path):
    bad = make_nn_pack(tmp_path / "bad", source='#include "nn_sample_functions.h"\n'
                       'int nn_sample_add_s8(const int8_t *a, const int8_t *b, int8_t *o, int32_t n) { return gone; }\n')
    code, out, result = run("--dep-pack", str(bad), "--pack-index-url", "off")
    assert (code, result["stage"]) == (1, "compile")
    # named relative to the build folder, as the pack's own sources are relative to the pack root
    assert result["error"].startswith("1 of 8 sources fail to compile; first: "
                                      "../deps/ARM.CMSIS-NN/Source/BasicMathFunctions/nn_sample_add_s8.c:")
    assert "error: 'gone' undeclared" in result["error"] and "/tmp" not in result["error"]


def test_the_pr_section_names_the_required_pack_once():
    from bot.modelrun.result import ModelResult
    from bot.report.modelrun import modelrun_section

    nn = "ARM::CMSIS-NN@7.0.0 (pack index https://example.invalid/index.pidx)"
    new = [ModelResult("add_mul", "1.5.1", "match"), ModelResult("linear_int8", "1.5.1", "match", packs=[nn]),
           ModelResult("conv_int8", "1.5.1", "match", packs=[nn])]
    text = modelrun_section(new)
    assert text.count("ARM::CMSIS-NN@7.0.0") == 1
    assert f"Built with, besides the new pack: `{nn}`." in text
    assert "besides the new pack" not in modelrun_section(new[:1])


@pytest.mark.needs("arm-gcc", "qemu")
def test_a_pinned_version_that_is_not_a_pack_version_is_refused_before_any_file_is_touched(run, tmp_path):
    cache = tmp_path / "c"
    cache.mkdir()
    victim = tmp_path / "x.pack"
    victim.write_bytes(b"keep")
    lock = tmp_path / "s.cbuild-pack.yml"
    lock.write_text("cbuild-pack:\n  resolved-packs:\n    - resolved-pack: ARM::CMSIS-NN@/../../x\n")
    code, out, result = run("--pack-index-url", "http://127.0.0.1:9/index.pidx", "--pack-cache", str(cache),
                            "--cbuild-pack", str(lock))
    assert (code, result["stage"]) == (1, "select")
    assert result["error"] == "ARM::CMSIS-NN: the lock file pins '/../../x', which is not a pack version"
    assert victim.read_bytes() == b"keep"
