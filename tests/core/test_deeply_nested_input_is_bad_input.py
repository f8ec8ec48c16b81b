"""Input nested deeper than the parsers recurse (PyYAML's pure-Python loader, json) is bad input naming its file, or
state that is not read: never an internal error.  PyYAML's SafeLoader composes nodes recursively and raises
RecursionError, not a YAMLError, on a few thousand nested brackets; json.loads does the same."""

from __future__ import annotations

import pytest

from bot.cli import main

DEEP_YAML = "misc: " + "[" * 3000 + "]" * 3000 + "\n"
DEEP_JSON = "[" * 100000 + "]" * 100000


def test_a_csolution_nested_too_deeply_is_bad_input_naming_the_file(template, capsys):
    csolution = next(template.rglob("*.csolution.yml"))
    csolution.write_text(csolution.read_text() + DEEP_YAML)
    before = {p: p.read_bytes() for p in template.rglob("*") if p.is_file()}
    code = main(["audit", "--repo", str(template)])
    err = capsys.readouterr().err
    assert code == 2, err
    assert csolution.name in err and "internal error" not in err and "Traceback" not in err
    assert {p: p.read_bytes() for p in template.rglob("*") if p.is_file()} == before


def test_a_fleet_list_nested_too_deeply_is_bad_input_naming_the_file(tmp_path, capsys):
    lst = tmp_path / "fleet.yml"
    lst.write_text("templates:\n  - repository: acme/a\n" + DEEP_YAML)
    code = main(["fleet-plan", "--list", str(lst), "--out", str(tmp_path / "plan.json")])
    err = capsys.readouterr().err
    assert code == 2, err
    assert "fleet.yml" in err and "internal error" not in err and "Traceback" not in err


@pytest.mark.parametrize("reader", ["state", "decorations"])
def test_hidden_state_nested_too_deeply_in_a_body_is_not_read(reader):
    if reader == "state":
        from bot.events.state import load
        assert load(f"<!-- executorch-pack-bot:state {DEEP_JSON} -->") is None
    else:
        import base64

        from bot.github.decorations import Record
        body = "<!-- executorch-pack-bot:decorations=" + base64.urlsafe_b64encode(DEEP_JSON.encode()).decode() + " -->"
        assert Record.parse(body) == Record()
