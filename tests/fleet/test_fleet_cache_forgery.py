"""The fleet's ETag cache cannot make fleet-plan believe a template is up to date when it is not: with a key
($EXECUTORCH_PACK_BOT_CACHE_KEY), the file carries an HMAC of its entries and a file whose HMAC does not verify
is not used (it only costs requests)."""

from __future__ import annotations

import json

import pytest

import fleetworld as fw
from bot.fleet.cache import FleetCache, mac_key
from test_fleet_plan import plan

KEY = "-----BEGIN RSA PRIVATE KEY-----\nnot a real key\n-----END RSA PRIVATE KEY-----\n"


@pytest.fixture
def world(fake, tmp_path, monkeypatch):
    monkeypatch.setenv("EXECUTORCH_PACK_BOT_CACHE_KEY", KEY)
    return fw.build_world(fake, tmp_path)


def tree_key(full):
    return f"/repos/{full}/git/trees/HEAD?recursive=1"


def forge(cache_file, *, mac=None):
    """A plausible forgery: acme/behind-a's tree entry (its true ETag, so GitHub answers 304) holding the pin files
    of acme/current-a, which is on 1.5.1 (their pin answer is in the file already)."""
    data = json.loads(cache_file.read_text())
    data["etags"][tree_key("acme/behind-a")]["value"] = data["etags"][tree_key("acme/current-a")]["value"]
    if mac is not None:
        data["mac"] = mac(data)
    cache_file.write_text(json.dumps(data))


def state(p, full):
    return next(r["state"] for r in p["rows"] if r["template"] == full)


def test_a_forged_entry_is_not_believed_on_a_304(fake, world, tmp_path, capsys):
    plan(capsys, tmp_path, world)
    cache_file = tmp_path / "cache" / "fleet.json"
    assert isinstance(json.loads(cache_file.read_text()).get("mac"), str)
    forge(cache_file)
    first = len(fake.requests)
    code, p, captured = plan(capsys, tmp_path, world, name="again.json")
    assert code == 0 and state(p, "acme/behind-a") == "behind"
    assert "acme-behind-a" in {j["key"] for j in p["pull-requests"]}
    assert "its HMAC does not verify" in captured.err
    assert not any(s.headers.get("If-None-Match") for s in fake.requests[first:])   # the whole file was set aside
    # the file written by that run is whole again: the next run is conditional
    third = len(fake.requests)
    code, p, _ = plan(capsys, tmp_path, world, name="third.json")
    assert state(p, "acme/behind-a") == "behind"
    assert p["requests"]["not-modified"] == len(fake.requests) - third - 1   # all but the 404 of acme/hidden


def test_a_forgery_signed_with_another_key_is_not_believed(fake, world, tmp_path, capsys):
    plan(capsys, tmp_path, world)
    cache_file = tmp_path / "cache" / "fleet.json"
    forge(cache_file, mac=lambda data: FleetCache(key="another secret")._mac(data))
    code, p, _ = plan(capsys, tmp_path, world, name="again.json")
    assert state(p, "acme/behind-a") == "behind"


def test_an_unchanged_file_with_its_hmac_is_used(fake, world, tmp_path, capsys):
    plan(capsys, tmp_path, world)
    first = len(fake.requests)
    code, p, captured = plan(capsys, tmp_path, world, name="again.json")
    assert code == 0 and "HMAC" not in captured.err
    assert not any("/contents/" in s.path for s in fake.requests[first:])
    assert state(p, "acme/behind-a") == "behind" and state(p, "acme/current-a") == "up to date"


def test_the_key_is_derived_and_never_written(fake, world, tmp_path, capsys):
    plan(capsys, tmp_path, world)
    text = (tmp_path / "cache" / "fleet.json").read_text()
    assert "PRIVATE KEY" not in text and mac_key(KEY).hex() not in text
