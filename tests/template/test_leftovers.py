"""Leftovers: strong forms of the old ExecuTorch version that no edit rewrites are flagged with
path and line, in every text file of the scan, in a report of bounded size.
"""

from __future__ import annotations

import json

from helpers import plan_json as _plan_json, write, update as _update


def _flags(out: str, code: str) -> list[dict]:
    return [f for f in json.loads(out)["flags"] if f["code"] == code]


VERSION_H = '''#pragma once
#define ET_VERSION_STRING "1.4.0"
#define MY_EXECUTORCH_PACK_VERSION  "1.4.0"
#define ET_RUNTIME_VERSION "1.4.0"
#define TARGET_VERSION "1.4.0"
#define GET_VERSION "1.4.0"
#define ETHOS_VERSION "1.4.0"
#define ET_VERSION_MAJOR 1
'''


def test_leftovers_of_the_old_version_are_flagged_with_path_and_line(template, upstream_repo, capsys):
    (template / "environment.yml").write_text("dependencies:\n  - pip:\n    - executorch==1.4.0\n")
    (template / "settings.json").write_text('{"pack": "PyTorch.ExecuTorch.1.4.0.pack",\n'
                                            ' "url": "https://github.com/pytorch/executorch/releases/download/v1.4.0/x"}\n')
    (template / "app" / "version.c").write_text('const char *v = "EXECUTORCH_VERSION=1.4.0";\n')
    sol = template / "cmsis-executorch.csolution.yml"
    sol.write_text(sol.read_text().replace("solution:\n", "solution:\n  description: pip install executorch==1.4.0\n", 1))
    (template / "weights.bin").write_bytes(b"\0executorch==1.4.0")
    (template / "history.txt").write_text("executorch==1.4.1 was the one before\n")
    rc, out, err = _update(capsys, template, upstream_repo, "--json")
    assert rc == 0, err
    data = json.loads(out)
    left = sorted((f["path"], f["line"]) for f in data["flags"] if f["code"] == "leftover")
    assert left == [("app/version.c", 1), ("cmsis-executorch.csolution.yml", 8),
                    ("settings.json", 1), ("settings.json", 2)]
    flag = next(f for f in data["flags"] if f["path"] == "settings.json")
    assert not flag["blocking"] and "not rewritten" in flag["message"] and "edit by hand" in flag["message"]
    # the pip section of a conda environment file is a requirement list: moved, not a leftover
    assert [(e["path"], e["line"], e["old"], e["new"]) for e in data["edits"] if e["path"] == "environment.yml"] \
        == [("environment.yml", 3, "1.4.0", "1.5.1")]
    assert (template / "environment.yml").read_text() == "dependencies:\n  - pip:\n    - executorch==1.5.1\n"


def test_no_leftover_flag_for_edited_spans_in_the_sample(template, upstream_repo, capsys):
    rc, out, err = _update(capsys, template, upstream_repo, "--json")
    assert rc == 0, err
    assert [f for f in json.loads(out)["flags"] if f["code"] == "leftover"] == []


def test_leftovers_in_a_file_with_thousands_of_hits_stay_bounded(template, upstream_repo, capsys):
    """A build log with 5,000 ``executorch==1.4.0`` lines gave 5,000 flags (and the line lookup was
    quadratic in the file size): now 20 flags and one more counting the rest."""
    (template / "build.log").write_text("".join(f"step {i}: pip install executorch==1.4.0\n" for i in range(5000)))
    rc, out, err = _update(capsys, template, upstream_repo, "--dry-run", "--json")
    assert rc == 0, err
    left = [f for f in _flags(out, "leftover") if f["path"] == "build.log"]
    assert len(left) == 21
    assert [f["line"] for f in left[:20]] == list(range(1, 21))
    assert left[-1]["line"] == 21 and "4980 more lines" in left[-1]["message"]
    assert "lines 21-5000" in left[-1]["message"] and not left[-1]["blocking"]


def test_c_define_of_an_executorch_version_is_a_leftover(capsys, template, upstream_repo):
    write(template, "app/version.h", VERSION_H)
    plan = _plan_json(capsys, template, upstream_repo)
    lines = sorted(f["line"] for f in plan["flags"] if f["code"] == "leftover" and f["path"] == "app/version.h")
    assert lines == [2, 3, 4]
    assert "app/version.h" not in plan["files"]


def test_leftover_hint_says_where_to_tell_us(capsys, template, upstream_repo):
    write(template, "settings.json", '{"install": "pip install executorch==1.4.0"}\n')
    plan = _plan_json(capsys, template, upstream_repo)
    msg = next(f["message"] for f in plan["flags"] if f["code"] == "leftover")
    assert "open an issue for executorch-pack-bot" in msg and "tell us" not in msg
