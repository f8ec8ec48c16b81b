"""History in prose is never rewritten: history files, mixed sentences, measurements and test
claims are left as written with one flag (bump 1.4.0 -> 1.5.1).
"""

from __future__ import annotations


import pytest

from helpers import plan_json as _plan_json, write

CHANGELOG_LINE = "- Moved to ExecuTorch 1.4.0 (from ExecuTorch 1.3.0); `PyTorch::ExecuTorch@1.4.0` replaces `@1.3.0`."


FROM_TO_LINE = "ExecuTorch 1.4.0 takes over from 1.3.2 here."


NOTES_LINE = "See the [1.4.0 release notes](https://github.com/pytorch/executorch/releases/tag/v1.4.0)."


UPGRADE_LINE = "Upgrade guide: ExecuTorch 1.4.0 -> 1.5.0 will change the operator set."


@pytest.mark.parametrize("name", ["CHANGELOG.md", "docs/changes.rst", "History.txt", "NEWS", "RELEASE-NOTES.md",
                                  "release_notes.markdown", "ReleaseNotes.md"])
def test_history_file_is_never_edited_and_its_mentions_are_listed(capsys, template, upstream_repo, name):
    write(template, name, f"# Changes\n\n{CHANGELOG_LINE}\n- ExecuTorch 1.4.0 pinned with executorch==1.4.0.\n")
    before = (template / name).read_bytes()
    plan = _plan_json(capsys, template, upstream_repo)
    assert name not in plan["files"] and not [e for e in plan["edits"] if e["path"] == name]
    mine = [(f["code"], f["line"]) for f in plan["flags"] if f["path"] == name]
    assert mine and {c for c, _ in mine} == {"history-mention"} and {ln for _, ln in mine} == {3, 4}
    assert (template / name).read_bytes() == before


@pytest.mark.parametrize("line, why", [(CHANGELOG_LINE, "ExecuTorch 1.3.0"), (UPGRADE_LINE, "1.5.0"),
                                       (NOTES_LINE, "1.4.0 as bare text"), (FROM_TO_LINE, "1.3.2")])
def test_mixed_line_is_left_as_written_with_one_flag(capsys, template, upstream_repo, line, why):
    write(template, "docs/guide.md", f"# ExecuTorch\n\n{line}\nInstall ExecuTorch 1.4.0 first.\n")
    plan = _plan_json(capsys, template, upstream_repo)
    edits = [(e["line"], e["old"], e["new"]) for e in plan["edits"] if e["path"] == "docs/guide.md"]
    assert edits == [(4, "1.4.0", "1.5.1")]  # the plain line still moves
    flags = [f for f in plan["flags"] if f["path"] == "docs/guide.md"]
    assert [(f["code"], f["line"], f["blocking"]) for f in flags] == [("mixed-mention", 3, False)]
    assert why in flags[0]["message"]
    assert line in (template / "docs/guide.md").read_text()  # dry run; and the plan leaves it
    assert not any(f["code"] == "leftover" and f["path"] == "docs/guide.md" for f in plan["flags"])


def test_x_y_versions_do_not_make_a_line_mixed(capsys, template, upstream_repo):
    write(template, "docs/guide.md", "Use ExecuTorch 1.4.0 with Python 3.10 and Vela 5.1.\n")
    plan = _plan_json(capsys, template, upstream_repo)
    assert [(e["line"], e["new"]) for e in plan["edits"] if e["path"] == "docs/guide.md"] == [(1, "1.5.1")]


def test_a_mention_is_never_both_edited_and_history(capsys, template, upstream_repo):
    write(template, "docs/a.md", f"{CHANGELOG_LINE}\n{UPGRADE_LINE}\n{NOTES_LINE}\nExecuTorch 1.3.0 was older.\n")
    plan = _plan_json(capsys, template, upstream_repo)
    edited = {(e["path"], e["line"]) for e in plan["edits"]}
    listed = {(f["path"], f["line"]) for f in plan["flags"] if f["code"] in ("history-mention", "mixed-mention")}
    assert listed and not edited & listed


def test_sample_readme_tested_with_line_is_left_alone(capsys, template, upstream_repo):
    plan = _plan_json(capsys, template, upstream_repo)
    readme = [e for e in plan["edits"] if e["path"] == "README.md"]
    tested = [i for i, t in enumerate((template / "README.md").read_text().splitlines(), 1) if "2.14.1" in t]
    assert tested and not [e for e in readme if e["line"] in tested]


def test_a_named_tool_version_does_not_make_a_line_mixed(capsys, template, upstream_repo):
    # "PackChk 1.4.5" names another tool's version: the line still moves (found moving 1.4.5 made
    # the sample's `VERSION=1.4.0-local` line stay behind)
    write(template, "docs/guide.md", "# ExecuTorch\n\nBuild with VERSION=1.4.0-local; PackChk 1.4.5 checks it.\n")
    plan = _plan_json(capsys, template, upstream_repo)
    edits = [(e["line"], e["old"], e["new"]) for e in plan["edits"] if e["path"] == "docs/guide.md"]
    assert edits == [(3, "1.4.0", "1.5.1")]
    assert not [f for f in plan["flags"] if f["path"] == "docs/guide.md"]


def test_a_test_claim_is_history(capsys, template, upstream_repo):
    line = "ExecuTorch 1.4.0 was tested with CMSIS-Toolbox 2.14.1, Vela 5.1 and torch==2.13.0."
    write(template, "docs/guide.md", f"# ExecuTorch\n\n{line}\n")
    plan = _plan_json(capsys, template, upstream_repo)
    assert not [e for e in plan["edits"] if e["path"] == "docs/guide.md"]
    assert [f["code"] for f in plan["flags"] if f["path"] == "docs/guide.md"] == ["history-mention"]
