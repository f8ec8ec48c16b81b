"""JSON nested deeper than Python's parser recurses (``json.loads`` raises RecursionError, not ValueError) is
foreign input like any other malformed JSON: a cache file so nested is an empty cache, a result file so nested is
skipped while the others are rendered, and a plan file so nested is bad input naming the file; never an internal
error."""

from __future__ import annotations

import json

from bot.fleet.cache import FleetCache
from github_world import cli
from test_fleet_plan_foreign_input import BEHIND, one, rows
from test_fleet_plan import plan
from test_fleet_summary_foreign_input import HEAD, PLAN

DEEP = "[" * 200_000 + "]" * 200_000


def test_a_deeply_nested_cache_file_is_an_empty_cache(fake, tmp_path, capsys):
    lst = one(fake, tmp_path)
    cache = tmp_path / "cache" / "fleet.json"
    cache.parent.mkdir()
    cache.write_text('{"format": 1, "etags": ' + DEEP + "}")
    code, p, out = plan(capsys, tmp_path, lst)
    assert "internal error" not in out.err
    assert code == 0 and rows(p) == BEHIND
    assert json.loads(cache.read_text())["format"] == 1   # written again, whole


def test_a_cache_file_over_the_bound_is_not_read(tmp_path, monkeypatch):
    monkeypatch.setattr("bot.fleet.cache.MAX_FILE_BYTES", 100)
    f = tmp_path / "fleet.json"
    f.write_text(json.dumps({"format": 1, "blobs": {"x": "y" * 200}}))
    c = FleetCache(f)
    assert c.blobs == {} and c.refused == "larger than 100 bytes: not used"


def test_a_cache_path_that_is_a_folder_is_an_empty_cache(tmp_path):
    c = FleetCache(tmp_path, key="k")
    assert (c.etags, c.blobs, c.pins, c.refused) == ({}, {}, {}, "")


def test_a_deeply_nested_result_file_is_skipped_and_the_others_rendered(tmp_path, capsys):
    (tmp_path / "plan.json").write_text(json.dumps(PLAN))
    (tmp_path / "results" / "bad").mkdir(parents=True)
    (tmp_path / "results" / "bad" / "a.json").write_text(DEEP)
    (tmp_path / "results" / "acme-a.json").write_text(json.dumps(
        {"format": 1, "key": "acme-a", "status": "success", "action": "created"}))
    code, out = cli(capsys, "fleet-summary", "--plan", str(tmp_path / "plan.json"), "--results",
                    str(tmp_path / "results"))
    assert code == 0, out.err
    assert out.out.split(HEAD, 1)[1].startswith("| acme/a | 1\\.4\\.0 | 1\\.5\\.1 | proposed |")


def test_a_deeply_nested_plan_file_is_bad_input_naming_it(tmp_path, capsys):
    (tmp_path / "plan.json").write_text(DEEP)
    code, out = cli(capsys, "fleet-summary", "--plan", str(tmp_path / "plan.json"))
    assert code == 2
    assert f"{tmp_path / 'plan.json'}: not a fleet plan (fleet-plan --out): JSON nested too deeply" in out.err
