"""audit and update agree on Poetry/uv/build constraints the bot only reads.

A uv ``constraint-dependencies`` range that admits the pinned version is fine for
``audit`` (it was a blocking ``range-pin`` there while ``update`` accepted it);
one that does not admit it is the same ``unmanaged-pin`` item ``update`` names.
"""

from __future__ import annotations

import json

import pytest

from helpers import run_cli

PYPROJECT = '[project]\nname = "fw"\nversion = "0"\n\n[tool.uv]\nconstraint-dependencies = ["{spec}"]\n'


@pytest.mark.parametrize("spec, ok, codes", [
    ("executorch>=1.4,<1.5", True, []),
    ("executorch>=1.3,<1.4", False, ["unmanaged-pin"]),
])
def test_audit_judges_an_unmanaged_range_by_what_it_admits(template, capsys, spec, ok, codes):
    (template / "pyproject.toml").write_text(PYPROJECT.format(spec=spec))
    code, out, _ = run_cli(capsys, "audit", "--repo", template, "--json")
    data = json.loads(out)
    assert (code, data["ok"]) == ((0, True) if ok else (1, False))
    assert [f["code"] for f in data["flags"] if f["path"] == "pyproject.toml"] == codes


def test_after_the_hand_edit_update_advises_audit_passes(template, upstream_repo, capsys):
    (template / "pyproject.toml").write_text(PYPROJECT.format(spec="executorch>=1.4,<1.5"))
    code, _, _ = run_cli(capsys, "update", "--repo", template, "--upstream", upstream_repo, "--allow-flagged")
    assert code == 0
    (template / "pyproject.toml").write_text(PYPROJECT.format(spec="executorch>=1.5,<1.6"))
    code, out, _ = run_cli(capsys, "audit", "--repo", template, "--json")
    assert code == 0 and json.loads(out)["ok"] is True
