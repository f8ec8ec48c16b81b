"""The pin table shows the value each requirement file holds once the bump is written.

A template on the CPU wheels pins ``torch==2.13.0+cpu``; the bump writes ``torch==2.14.0+cpu`` (the PEP 440
local label kept, bot.template.requirements.new_version_text).  The table a reviewer reads (terminal,
``--json`` and the PR body) says ``2.13.0+cpu -> 2.14.0+cpu``, not ``-> 2.14.0`` (which reads as the label
dropped).  A package the template does not pin shows upstream's value.
"""

from __future__ import annotations

import json

from bot import engine
from bot.report import pr_body
from bot.upstream.git import GitSource
from helpers import update


def _label(template):
    req = template / "requirements.txt"
    req.write_text(req.read_text().replace("torch==2.13.0\n", "torch==2.13.0+cpu\n"))


def test_json_and_terminal_show_the_label_the_bump_writes(template, upstream_repo, capsys):
    _label(template)
    rc, out, err = update(capsys, template, upstream_repo, "--json", "--dry-run")
    assert rc == 0, err
    rows = {r["name"]: (r["old"], r["new"]) for r in json.loads(out)["pins"]}
    assert rows["torch"] == ("2.13.0+cpu", "2.14.0+cpu")
    assert rows["torchao"] == ("0.18.0", "0.19.0")
    rc, out, err = update(capsys, template, upstream_repo, "--dry-run")
    assert rc == 0, err
    line = next(x for x in (out + err).splitlines() if x.startswith("torch "))
    assert line.split()[:3] == ["torch", "2.13.0+cpu", "2.14.0+cpu"]
    update(capsys, template, upstream_repo)
    assert "torch==2.14.0+cpu\n" in (template / "requirements.txt").read_text()


def test_the_pr_body_pin_table_shows_the_label(template, upstream_repo):
    _label(template)
    plan = engine.plan(template, GitSource(upstream_repo))
    body = pr_body(plan, upstream="pytorch/executorch")
    row = next(x for x in body.splitlines() if x.startswith("| `torch` "))
    assert [c.strip() for c in row.strip("|").split("|")][:3] == ["`torch`", "`2.13.0+cpu`", "`2.14.0+cpu`"]
