"""Python lock files (uv.lock, poetry.lock, pdm.lock, Pipfile.lock, conda-lock.yml, PEP 751 pylock.toml and
pylock.NAME.toml) are never rewritten: one naming executorch is a blocking item on a bump naming the file, the
line and the command that regenerates it (a lock left stale is never silent).
"""

from __future__ import annotations


import pytest

from helpers import plan_json as _plan_json, write


@pytest.mark.parametrize("name, command", [("uv.lock", "uv lock"), ("poetry.lock", "poetry lock"),
                                           ("tools/pdm.lock", "pdm lock"), ("Pipfile.lock", "pipenv lock"),
                                           ("conda-lock.yml", "conda-lock lock"), ("pylock.toml", "pip lock"),
                                           ("pylock.dev.toml", "uv export --format pylock.toml")])
def test_python_lock_naming_executorch_is_flagged_on_a_bump(capsys, template, upstream_repo, name, command):
    write(template, name, '[[package]]\nname = "numpy"\n\n[[package]]\nname = "executorch"\nversion = "1.4.0"\n')
    plan = _plan_json(capsys, template, upstream_repo)
    mine = [f for f in plan["flags"] if f["code"] == "python-lock"]
    assert [(f["path"], f["line"], f["blocking"]) for f in mine] == [(name, 5, True)]
    assert command in mine[0]["message"] and name not in plan["files"]


def test_python_lock_without_executorch_is_not_flagged(capsys, template, upstream_repo):
    write(template, "uv.lock", '[[package]]\nname = "numpy"\n')
    assert not [f for f in _plan_json(capsys, template, upstream_repo)["flags"] if f["code"] == "python-lock"]
