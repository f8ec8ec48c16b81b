"""publish --plan-file reads a bump record another job wrote: it claims no proof the record's stage did not make, it
publishes nothing the checkout does not pin, and a part of the wrong shape is bad input naming the file (exit 2),
never an internal error.  The record comes from the workflow's path on the fake GitHub with the sample upstream."""

from __future__ import annotations

import json

import pytest

from github_world import cli
from test_bump_record_one_body import _release, workflow_path


def edited_record(world, capsys, edit):
    pack, url = _release(world)
    _body, plan_file = workflow_path(world, capsys, pack, url)
    record = json.loads(plan_file.read_text())
    edit(record)
    plan_file.write_text(json.dumps(record))
    co = world.tmp / f"co{world.runs}"
    return cli(capsys, "publish", "--repo", str(co), "--plan-file", str(plan_file), "--dry-run",
               "--pack-index-url", "off"), plan_file


def test_proofs_the_record_claims_are_not_claimed_without_the_pack_stage(world, capsys):
    (code, out), _ = edited_record(world, capsys, lambda r: r.update(
        proofs={"verify-pack": "pass", "compile": "pass", "model-run": "pass"}))
    assert code == 0, out.err
    assert ("- ❔ **Proofs**: pack verification not run; compile of the Runtime sources not run; model run not run"
            in out.out.splitlines())


@pytest.mark.parametrize("edit, said", [
    (lambda r: r["target"].update(executorch="1.6.0", pack="1.6.0", tag="v1.6.0"), "PyTorch::ExecuTorch 1.6.0"),
    (lambda r: [x.update(new="9.9.9") for x in r["pins"] if x["name"] == "torch"], "torch 9.9.9"),
])
def test_a_record_claiming_pins_the_checkout_does_not_hold_is_refused(world, capsys, edit, said):
    (code, out), plan_file = edited_record(world, capsys, edit)
    assert code == 2 and out.out == ""
    assert f"{plan_file}: the plan says {said}, but the checkout pins " in out.err
    assert "run `update --plan-file` again on this checkout before publishing" in out.err


@pytest.mark.parametrize("edit, malformed", [
    (lambda r: r["template"].update(boards=[{"x": 1}]), "Board.__init__() got an unexpected keyword argument 'x'"),
    (lambda r: r["upstream"].update(changes={"old_tag": "v1.4.0"}), "'new_tag'"),
    (lambda r: r["upstream"].update(pin_lines={"torch": 5}), "upstream.pin_lines.torch: expected [upstream path, line]"),
    (lambda r: r["upstream"].update(pin_lines={"torch": ["https://evil.example/x", 3]}),
     "upstream.pin_lines.torch: expected [upstream path, line]"),
    (lambda r: r["upstream"].update(pin_lines={"torch": ["../../other/repo/blob/main/x", 3]}),
     "upstream.pin_lines.torch: expected [upstream path, line]"),
    (lambda r: r.update(upstream=[1]), "upstream: not an object"),
    (lambda r: r.update(template="x"), "template: not an object"),
    (lambda r: r["upstream"].update(requires_python=5), "'int' object is not iterable"),
])
def test_a_record_part_of_the_wrong_shape_is_bad_input_naming_the_file(world, capsys, edit, malformed):
    (code, out), plan_file = edited_record(world, capsys, edit)
    assert code == 2 and out.out == ""
    assert f"{plan_file}: not a plan written by `update --plan-file` (missing or malformed {malformed})" in out.err


@pytest.mark.parametrize("kind", ["file", "folder"])
def test_a_listed_file_through_a_symbolic_link_is_never_read(world, capsys, kind):
    outside = world.tmp / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("SECRET\n")

    def edit(record):
        co = world.tmp / f"co{world.runs}"
        if kind == "file":
            (co / "notes.txt").symlink_to(outside / "secret.txt")
            record["files"].append("notes.txt")
        else:
            (co / "docs").symlink_to(outside)
            record["files"].append("docs/secret.txt")
    (code, out), plan_file = edited_record(world, capsys, edit)
    link = "notes.txt" if kind == "file" else "docs"
    assert code == 2 and out.out == "" and "SECRET" not in out.err
    assert (f"{plan_file}: the plan lists {'notes.txt' if kind == 'file' else 'docs/secret.txt'}, but {link} is a "
            "symbolic link in the checkout: publish reads and commits no file through a link (its target may be "
            "outside the checkout)") in out.err
