"""The ``<url>`` of the official pack: upstream's release workflow writes ``.../download/X.Y.Z/`` for tag ``vX.Y.Z``.

Upstream's ``build-cmsis-pack.yml`` (v1.4.1) sets ``PACK_VERSION="${GITHUB_REF#refs/tags/v}"``
and the PDSC template writes ``.../releases/download/%{RELEASE_VERSION}%/``: the pack is
fine, only an index download by that url breaks.  A warning, never a failure; a url that
points elsewhere still fails.
"""

from __future__ import annotations

import json

from bot.cli import main
from bot.pack.verify import upstream_url_form, verify_pack
from packgen import make_pack, upstream_release_spec

BASE = "https://github.com/pytorch/executorch/releases/download/"


def test_the_generated_official_pack_has_upstreams_url_form(tmp_path):
    spec = upstream_release_spec("refs/tags/v1.4.1")
    assert (spec.version, spec.url, spec.releases[0][0]) == ("1.4.1", BASE + "1.4.1/", "1.4.1")
    assert make_pack(tmp_path, spec).name == "PyTorch.ExecuTorch.1.4.1.pack"


def test_official_pack_passes_with_a_url_warning_naming_the_mismatch(tmp_path):
    pack = make_pack(tmp_path, upstream_release_spec("refs/tags/v1.4.1"))
    report = verify_pack(pack, "1.4.1")
    assert not report.failed
    res = report.check("url")
    assert res.status == "warn"
    assert res.data == {"declared": BASE + "1.4.1/", "expected": BASE + "v1.4.1/", "upstream_form": True}
    assert "404" in res.detail and res.detail.startswith("PyTorch.ExecuTorch.pdsc:6:")
    assert {c.name for c in report.checks if c.status != "pass"} == {"url", "registrations"}


def test_official_rc_pack_gets_the_same_warning(tmp_path):
    pack = make_pack(tmp_path, upstream_release_spec("refs/tags/v1.5.0-rc2"))
    res = verify_pack(pack, "1.5.0-rc2").check("url")
    assert (res.status, res.data["expected"]) == ("warn", BASE + "v1.5.0-rc2/")


def test_url_of_another_repository_fails(tmp_path):
    pack = make_pack(tmp_path, url="https://github.com/someone/executorch/releases/download/1.4.1/", version="1.4.1")
    res = verify_pack(pack, "1.4.1").check("url")
    assert res.status == "fail"
    assert res.data == {"declared": "https://github.com/someone/executorch/releases/download/1.4.1/",
                        "expected": BASE + "v1.4.1/"}


def test_upstream_form_of_another_version_fails(tmp_path):
    pack = make_pack(tmp_path, url=BASE + "1.4.0/", version="1.4.1")
    assert verify_pack(pack, "1.4.1").check("url").status == "fail"


def test_explicit_url_is_exact(tmp_path):
    pack = make_pack(tmp_path, upstream_release_spec("refs/tags/v1.4.1"))
    res = verify_pack(pack, "1.4.1", url=BASE + "v1.4.1/").check("url")
    assert res.status == "fail"


def test_tag_option_accepts_the_tags_upstream_form(tmp_path):
    pack = make_pack(tmp_path, upstream_release_spec("refs/tags/v1.4.1"))
    assert verify_pack(pack, "1.4.1", tag="v1.4.1").check("url").status == "warn"


def test_upstream_url_form():
    assert upstream_url_form("v1.4.1") == BASE + "1.4.1/"
    assert upstream_url_form("1.4.1-local") is None


def test_verify_pack_command_exits_0_on_the_official_pack(tmp_path, capsys):
    pack = make_pack(tmp_path, upstream_release_spec("refs/tags/v1.4.1"))
    assert main(["verify-pack", str(pack), "--version", "1.4.1", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["failed"] is False
    assert [c["status"] for c in out["checks"] if c["name"] == "url"] == ["warn"]
