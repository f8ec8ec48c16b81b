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


@pytest.mark.parametrize("name, text, line", [
    ("uv.lock", '[[package]]\nname = "executorch"\nversion = "1.4.0"\nsource = { registry = "https://pypi.org/simple" }\n', 3),
    ("Pipfile.lock", '{\n  "default": {\n    "executorch": {\n      "hashes": [],\n      "version": "==1.4.0"\n    }\n  }\n}\n', 5),
    ("pylock.toml", 'lock-version = "1.0"\ncreated-by = "pip"\n\n[[packages]]\nname = "executorch"\nversion = "1.4.0"\n', 6),
])
def test_audit_fails_on_a_lock_that_records_another_executorch_and_never_says_every_pin(capsys, template, name, text,
                                                                                       line):
    from helpers import run_cli
    write(template, name, text)
    rc, out, err = run_cli(capsys, "audit", "--repo", template, "--json")
    assert rc == 0, out   # the lock agrees with the pins (1.4.0)
    write(template, name, text.replace("1.4.0", "1.3.0"))
    rc, out, err = run_cli(capsys, "audit", "--repo", template, "--json")
    import json
    data = json.loads(out)
    assert rc == 1 and [(f["code"], f["path"], f["line"], f["blocking"]) for f in data["flags"]
                        if f["code"] == "python-lock"] == [("python-lock", name, line, True)]
    rc, out, err = run_cli(capsys, "audit", "--repo", template)
    assert rc == 1 and "every ExecuTorch pin" not in out
    assert "FAIL: the pack, lock and requirement pins are 1.4.0, but 1 ExecuTorch pin is not (a commit or a " \
           "Python lock file)" in out
