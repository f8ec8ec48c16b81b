"""Is PyTorch::ExecuTorch@V on the public CMSIS pack index? Asked of a local index.pidx server (pytest-httpserver)."""

from __future__ import annotations

import pytest

from bot.errors import UsageError
from bot.github.client import RetryPolicy
from bot.pack.public_index import (DEFAULT_PACK_INDEX, PackIndexAnswer, check_pack_index, index_entry,
                                   pack_index_url)

PACK = "PyTorch::ExecuTorch@1.5.1"


def pidx(*entries: tuple[str, str, str, str]) -> bytes:
    """An index.pidx (Open-CMSIS-Pack spec, "Pack Index Files") with ``(url, vendor, name, version)`` entries."""
    rows = "".join(f'    <pdsc url="{u}" vendor="{v}" name="{n}" version="{ver}"/>\n' for u, v, n, ver in entries)
    return ('<?xml version="1.0" encoding="UTF-8" ?>\n'
            '<index schemaVersion="1.1.0" xmlns:xs="http://www.w3.org/2001/XMLSchema-instance">\n'
            '  <vendor>Keil</vendor>\n  <url>https://www.keil.com/pack/</url>\n'
            '  <timestamp>2026-11-30T08:00:00+00:00</timestamp>\n  <pindex>\n'
            f'{rows}  </pindex>\n</index>\n').encode()


def pdsc(*versions: str) -> bytes:
    """A PyTorch.ExecuTorch.pdsc with these ``<release version>`` entries (newest first)."""
    rel = "".join(f'    <release version="{v}" date="2026-09-01">ExecuTorch {v}</release>\n' for v in versions)
    return ('<?xml version="1.0" encoding="UTF-8"?>\n<package schemaVersion="1.7.36">\n'
            '  <vendor>PyTorch</vendor>\n  <name>ExecuTorch</name>\n'
            f'  <releases>\n{rel}  </releases>\n</package>\n').encode()


def policy(waits=None, attempts=3):
    return RetryPolicy(attempts=attempts, backoff=0.0, max_wait=1.0, sleep=(waits.append if waits is not None
                                                                             else lambda s: None))


def ask(httpserver, version="1.5.1", **kw):
    kw.setdefault("policy", policy())
    kw.setdefault("cache", None)
    return check_pack_index(version, url=httpserver.url_for("/pack/index.pidx"), **kw)


def other_packs(httpserver):
    base = httpserver.url_for("/pack/")
    return [(base, "ARM", "CMSIS", "6.2.0"), (base, "ARM", "CMSIS-NN", "7.0.0")]


def test_the_index_naming_the_version_and_its_pdsc_listing_it_is_a_yes(httpserver):
    httpserver.expect_request("/pack/index.pidx").respond_with_data(
        pidx(*other_packs(httpserver), (httpserver.url_for("/pytorch/"), "PyTorch", "ExecuTorch", "1.5.1")))
    httpserver.expect_request("/pytorch/PyTorch.ExecuTorch.pdsc").respond_with_data(pdsc("1.5.1", "1.4.0"))
    ans = ask(httpserver)
    assert ans == PackIndexAnswer(PACK, True, "the index lists PyTorch::ExecuTorch 1.5.1, and its PDSC has a "
                                  "release 1.5.1", httpserver.url_for("/pack/index.pidx"))
    assert ans.state == "yes"
    assert [r.path for r, _ in httpserver.log] == ["/pack/index.pidx", "/pytorch/PyTorch.ExecuTorch.pdsc"]


def test_an_older_index_version_whose_pdsc_lists_the_release_is_a_yes(httpserver):
    httpserver.expect_request("/pack/index.pidx").respond_with_data(
        pidx((httpserver.url_for("/pytorch"), "PyTorch", "ExecuTorch", "1.6.0")))
    httpserver.expect_request("/pytorch/PyTorch.ExecuTorch.pdsc").respond_with_data(pdsc("1.6.0", "1.5.1", "1.4.0"))
    ans = ask(httpserver)
    assert (ans.listed, ans.why) == (True, "the index lists PyTorch::ExecuTorch 1.6.0, and its PDSC has a release 1.5.1")


def test_a_pdsc_without_the_release_is_a_no(httpserver):
    httpserver.expect_request("/pack/index.pidx").respond_with_data(
        pidx((httpserver.url_for("/pytorch/"), "PyTorch", "ExecuTorch", "1.4.0")))
    httpserver.expect_request("/pytorch/PyTorch.ExecuTorch.pdsc").respond_with_data(pdsc("1.4.0"))
    ans = ask(httpserver)
    assert (ans.listed, ans.state, ans.why) == (
        False, "no", "the index lists PyTorch::ExecuTorch 1.4.0, and its PDSC has no release 1.5.1")


def test_an_index_without_the_pack_is_a_no(httpserver):
    httpserver.expect_request("/pack/index.pidx").respond_with_data(pidx(*other_packs(httpserver)))
    ans = ask(httpserver)
    assert (ans.listed, ans.why) == (False, "the index lists no PyTorch::ExecuTorch pack")
    assert ans.summary() == ("PyTorch::ExecuTorch@1.5.1 is not on the public pack index: the index lists no "
                             "PyTorch::ExecuTorch pack")


def test_vendor_and_name_match_exactly(httpserver):
    httpserver.expect_request("/pack/index.pidx").respond_with_data(
        pidx((httpserver.url_for("/p/"), "pytorch", "executorch", "1.5.1")))
    assert ask(httpserver).listed is False


def test_a_missing_index_is_could_not_tell(httpserver):
    httpserver.expect_request("/pack/index.pidx").respond_with_data("no", status=404)
    ans = ask(httpserver)
    assert (ans.listed, ans.state) == (None, "unknown")
    assert ans.why == f"the index {httpserver.url_for('/pack/index.pidx')} answered 404 (not found)"


def test_a_missing_pdsc_is_could_not_tell(httpserver):
    httpserver.expect_request("/pack/index.pidx").respond_with_data(
        pidx((httpserver.url_for("/gone/"), "PyTorch", "ExecuTorch", "1.4.0")))
    httpserver.expect_request("/gone/PyTorch.ExecuTorch.pdsc").respond_with_data("", status=404)
    ans = ask(httpserver)
    assert ans.listed is None
    assert ans.why.endswith("PyTorch.ExecuTorch.pdsc answered 404 (not found)")


def test_a_server_error_that_outlasts_the_retries_is_could_not_tell_after_the_policy_waits(httpserver):
    httpserver.expect_request("/pack/index.pidx").respond_with_data("busy", status=503)
    waits = []
    ans = ask(httpserver, policy=policy(waits, attempts=3))
    assert (ans.listed, ans.state) == (None, "unknown")
    assert ans.why.startswith("gave up trying to read the public pack index after 3 attempts (last: HTTP 503)")
    assert len(httpserver.log) == 3 and waits == [0.0, 0.0]


def test_a_transient_error_is_retried(httpserver):
    httpserver.expect_ordered_request("/pack/index.pidx").respond_with_data("busy", status=502)
    httpserver.expect_ordered_request("/pack/index.pidx").respond_with_data(
        pidx((httpserver.url_for("/p/"), "PyTorch", "ExecuTorch", "1.5.1")))
    httpserver.expect_request("/p/PyTorch.ExecuTorch.pdsc").respond_with_data(pdsc("1.5.1"))
    assert ask(httpserver).listed is True
    assert [r.path for r, _ in httpserver.log] == ["/pack/index.pidx", "/pack/index.pidx", "/p/PyTorch.ExecuTorch.pdsc"]


def test_a_refusal_is_could_not_tell_without_retries(httpserver):
    httpserver.expect_request("/pack/index.pidx").respond_with_data("no", status=403)
    ans = ask(httpserver)
    assert (ans.listed, ans.why) == (None, "cannot read the public pack index: HTTP 403")
    assert len(httpserver.log) == 1


def test_an_unreachable_index_is_could_not_tell():
    ans = check_pack_index("1.5.1", url="http://127.0.0.1:9/index.pidx", policy=policy(attempts=2), cache=None)
    assert (ans.listed, ans.state) == (None, "unknown")
    # a refused connection is not retried: a second attempt would be refused too
    assert ans.why == ("cannot read the public pack index: the connection to 127.0.0.1:9 is refused (nothing "
                       "listens there, or a firewall refuses it)")


@pytest.mark.parametrize("body, why", [
    (b"<html><body>maintenance", "is not XML"),
    (b"<package><name>x</name></package>", "is not a pack index (root element <package>, expected <index>)"),
])
def test_a_body_that_is_not_an_index_is_could_not_tell(httpserver, body, why):
    httpserver.expect_request("/pack/index.pidx").respond_with_data(body)
    ans = ask(httpserver)
    assert ans.listed is None and why in ans.why


def test_a_dtd_is_refused_before_parsing(httpserver):
    data = (b'<?xml version="1.0"?><!DOCTYPE index [<!ENTITY v "PyTorch">]>'
            b'<index><pindex><pdsc url="https://x/" vendor="&v;" name="ExecuTorch" version="1.5.1"/></pindex></index>')
    httpserver.expect_request("/pack/index.pidx").respond_with_data(data)
    ans = ask(httpserver)
    assert (ans.listed, ans.why) == (
        None, f"{httpserver.url_for('/pack/index.pidx')} declares a DOCTYPE/ENTITY; DTDs and entities are refused")


def test_index_entry_reads_the_attributes_of_the_pack():
    data = pidx(("https://a/", "ARM", "CMSIS", "6.2.0"), ("https://b/", "PyTorch", "ExecuTorch", "1.4.0"))
    assert index_entry(data, "u") == {"url": "https://b/", "vendor": "PyTorch", "name": "ExecuTorch",
                                      "version": "1.4.0"}


def test_the_etag_makes_the_next_ask_conditional_and_a_304_reuses_the_cached_index(httpserver, tmp_path):
    body = pidx((httpserver.url_for("/p/"), "PyTorch", "ExecuTorch", "1.5.1"))
    httpserver.expect_ordered_request("/pack/index.pidx").respond_with_data(
        body, headers={"ETag": '"v1"', "Last-Modified": "Mon, 30 Nov 2026 08:00:00 GMT"})
    httpserver.expect_ordered_request("/p/PyTorch.ExecuTorch.pdsc").respond_with_data(pdsc("1.5.1"))
    httpserver.expect_ordered_request("/pack/index.pidx", headers={"If-None-Match": '"v1"'}).respond_with_data(
        "", status=304, headers={"ETag": '"v1"'})
    httpserver.expect_ordered_request("/p/PyTorch.ExecuTorch.pdsc").respond_with_data(pdsc("1.5.1"))
    first = ask(httpserver, cache=tmp_path)
    second = ask(httpserver, cache=tmp_path)
    assert first == second and second.listed is True
    asked = [r.headers for r, _ in httpserver.log if r.path == "/pack/index.pidx"]
    assert "If-None-Match" not in asked[0]
    assert (asked[1]["If-None-Match"], asked[1]["If-Modified-Since"]) == ('"v1"', "Mon, 30 Nov 2026 08:00:00 GMT")
    assert [resp.status_code for r, resp in httpserver.log if r.path == "/pack/index.pidx"] == [200, 304]


def test_without_a_cache_nothing_is_conditional(httpserver):
    httpserver.expect_request("/pack/index.pidx").respond_with_data(pidx(), headers={"ETag": '"v1"'})
    ask(httpserver)
    ask(httpserver)
    assert ["If-None-Match" in r.headers for r, _ in httpserver.log] == [False, False]


def test_off_asks_nothing(httpserver):
    ans = check_pack_index("1.5.1", url="off")
    assert (ans.listed, ans.asked, ans.state) == (None, False, "not-checked")
    assert httpserver.log == []


def test_the_url_comes_from_the_flag_then_the_environment_then_the_default():
    env = {"EXECUTORCH_PACK_BOT_PACK_INDEX_URL": "http://127.0.0.1:1/i.pidx"}
    assert pack_index_url("https://mirror.example/index.pidx", env) == "https://mirror.example/index.pidx"
    assert pack_index_url(None, env) == "http://127.0.0.1:1/i.pidx"
    assert pack_index_url(None, {}) == DEFAULT_PACK_INDEX == "https://www.keil.com/pack/index.pidx"
    assert pack_index_url("OFF", env) == "off"


@pytest.mark.parametrize("value, where", [("ftp://x/index.pidx", "--pack-index-url"), ("index.pidx", "--pack-index-url")])
def test_a_bad_url_is_bad_usage(value, where):
    with pytest.raises(UsageError) as e:
        pack_index_url(value, {})
    assert e.value.exit_code == 2 and e.value.message.startswith(where + ": expected an http(s) URL")


def test_a_bad_environment_url_names_the_variable():
    with pytest.raises(UsageError) as e:
        pack_index_url(None, {"EXECUTORCH_PACK_BOT_PACK_INDEX_URL": "www.keil.com/pack/index.pidx"})
    assert e.value.message.startswith("$EXECUTORCH_PACK_BOT_PACK_INDEX_URL: expected")
