"""Each pull-request job of a fleet plan has its own key (its result artifact's name, ``fleet-result/KEY.json``):
template branches whose names make the same readable key (``acme/x-y`` and ``acme/x`` branch ``y``; branches
``f+g`` and ``f-g``) get distinct keys, and the summary finds each job's result under its own key."""

from __future__ import annotations

import json

import fleetworld as fw
from bot.fleet.plan import job_key, unique_key
from github_world import cli
from test_fleet_plan import plan


def test_clashing_readable_keys_get_distinct_keys_and_results(fake, tmp_path, capsys):
    fw.add_upstream(fake)
    fw.add_template(fake, "acme/x-y", fw.pin_files("1.4.0", name="acme/x-y"))
    for n, branch in enumerate(["y", "f+g", "f-g"]):   # each with its own bot branch
        fw.add_template(fake, "acme/x", fw.pin_files("1.4.0", name=f"acme/x {branch}", config=f"branch: bot/b{n}\n"),
                        branch=branch)
    lst = tmp_path / "fleet.yml"
    lst.write_text("templates:\n  - repository: acme/x-y\n  - repository: acme/x\n    branches: [y, f+g, f-g]\n")
    code, p, out = plan(capsys, tmp_path, lst)
    assert code == 0, out.err
    keys = [j["key"] for j in p["pull-requests"]]
    assert len(keys) == 4 and len({k.lower() for k in keys}) == 4
    assert keys[0] == "acme-x-y" and keys[2] == "acme-x-f-g"            # the first of each keeps its readable key
    assert keys[1].startswith("acme-x-y-") and keys[3].startswith("acme-x-f-g-")
    assert [r["key"] for r in p["rows"]] == keys

    # each job records under its own key; the summary shows each result on its own row
    (tmp_path / "results").mkdir()
    for n, k in enumerate(keys):
        (tmp_path / "results" / f"{k}.json").write_text(json.dumps(
            {"format": 1, "key": k, "status": "success", "action": "created",
             "pr_url": f"https://github.com/acme/x/pull/{n + 1}"}))
    code, out = cli(capsys, "fleet-summary", "--plan", str(tmp_path / "plan.json"), "--results",
                    str(tmp_path / "results"))
    assert code == 0, out.err
    prs = [line.split(" | ")[4] for line in out.out.splitlines() if line.startswith("| acme/")]
    assert prs == [f"[#{n}](https://github.com/acme/x/pull/{n}) created" for n in (1, 2, 3, 4)]


def test_a_key_cut_at_200_characters_is_made_unique():
    used: set = set()
    a = unique_key("acme/" + "r" * 100, "b" * 150 + "1", used)
    b = unique_key("acme/" + "r" * 100, "b" * 150 + "2", used)
    assert a == job_key("acme/" + "r" * 100, "b" * 150 + "1") and len(a) == 200
    assert b != a and len(b) == 200 and b.startswith(a[:191])
