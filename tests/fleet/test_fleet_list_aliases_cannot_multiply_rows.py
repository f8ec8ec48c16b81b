"""A fleet list is bounded by the rows it makes, not only by its size: YAML aliases repeat an entry and
``branches:`` multiplies it without the file growing, so a small file could otherwise make millions of templates
or refused rows.  Past the bound the list is bad input naming the file and line, before any request."""

from __future__ import annotations

import pytest

from bot.fleet.listfile import MAX_ROWS
from test_fleet_plan import plan


def test_aliases_of_an_entry_with_many_branches_are_refused_naming_the_repeated_entry(fake, tmp_path, capsys):
    lst = tmp_path / "fleet.yml"
    names = ", ".join(f"b{i}" for i in range(2000))
    # an alias is the anchored node itself (yaml.compose keeps no line of the alias): the error names the entry
    # 21 kB of YAML; each alias re-lists the same 2000 branches: 2000 templates, then 398,000 "listed twice" rows
    lst.write_text("templates:\n  - &e {repository: acme/a, branches: [" + names + "]}\n" + "  - *e\n" * 200)
    code, p, out = plan(capsys, tmp_path, lst)
    assert code == 2 and p is None and fake.requests == []
    assert (f"{lst}:2: more than {MAX_ROWS} templates, discovery rules and refused entries (counting each branch "
            "and each YAML alias): not a fleet list") in out.err
    assert "Traceback" not in out.err


def test_one_entry_with_more_branches_than_the_bound_names_its_line(fake, tmp_path, capsys):
    lst = tmp_path / "fleet.yml"
    lst.write_text("templates:\n  - repository: acme/b\n  - repository: acme/a\n    branches: ["
                   + ", ".join(f"b{i}" for i in range(MAX_ROWS)) + "]\n")
    code, p, out = plan(capsys, tmp_path, lst)
    assert code == 2 and p is None and fake.requests == []
    assert f"{lst}:3: more than {MAX_ROWS} templates" in out.err


def test_refused_templates_and_discovery_rules_count_together(fake, tmp_path, capsys):
    lst = tmp_path / "fleet.yml"
    lst.write_text("templates:\n  - &bad {repository: a/../b}\n" + "  - *bad\n" * 2999
                   + "discover:\n  - &d {organization: acme, topic: Not-A-Topic}\n" + "  - *d\n" * 2999)
    code, p, out = plan(capsys, tmp_path, lst)
    assert code == 2 and p is None and fake.requests == []
    assert f"{lst}:3003: more than {MAX_ROWS} templates" in out.err


@pytest.mark.parametrize("n", [MAX_ROWS])
def test_a_list_at_the_bound_is_planned_with_each_alias_a_row(fake, tmp_path, capsys, n):
    from bot.fleet.listfile import load_fleet_list

    lst = tmp_path / "fleet.yml"
    lst.write_text("templates:\n  - &bad {repository: 'owner/name:branch'}\n" + "  - *bad\n" * (n - 1))
    fleet = load_fleet_list(lst)
    assert len(fleet.refused) == n and fleet.entries == []
    assert {r.reason for r in fleet.refused} == {
        "'name:branch' is not a GitHub repository name (letters, digits, '.', '-', '_')"}
