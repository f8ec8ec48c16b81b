"""Regression tests from the second new-user trial of the engine (issue 2 follow-ups).

Each section holds one item: the value asserted is the right one, and the test
failed before the change that made it pass.  Inputs are written here, modelled
on FORMATS.md; the template is the shipped sample (ExecuTorch 1.4.0) and the
upstream the sample tag folders (v1.4.0, v1.5.1).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from bot.sample import UPSTREAM_DIR
from bot.template.pep508 import empty_operator
from bot.upstream.pins import parse_python, parse_requirement_file, plan_changes, resolve_pinset
from bot.upstream.source import DirectorySource
from helpers import run_cli, snapshot

TOSA = "backends/arm/requirements-arm-tosa.txt"
ETHOS = "backends/arm/requirements-arm-ethos-u.txt"


def write(root: Path, rel: str, text: str) -> None:
    p = root / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text)


def update(capsys, template, upstream, *extra):
    return run_cli(capsys, "update", "--repo", template, "--upstream", upstream, *extra)


def audit(capsys, template, *extra):
    return run_cli(capsys, "audit", "--repo", template, *extra)


# --------------------------------------------------------------------------------------
# 1. An operator with no version: the same answer under packaging 25.x and 26.x
# --------------------------------------------------------------------------------------

@pytest.mark.parametrize("text, op", [("ethos-u-vela ===", "==="), ("x==", "=="), ("x >= 1.0, <", "<"),
                                      ("x[extra] ~= ; python_version < '3.12'", "~="), ("x (==)", "=="),
                                      ("x==1.0", None), ("x", None), ("x @ https://h/x.whl", None),
                                      ("x===1.0-custom", None), ("x==1.0,", None)])
def test_empty_operator_is_found_before_packaging_sees_it(text, op):
    assert empty_operator(text) == op


@pytest.mark.parametrize("line", ["ethos-u-vela ===\n", "ethos-u-vela ==\n", "ethos-u-vela >= 5.0, <\n"])
def test_upstream_operator_without_version_is_an_unresolved_pin(tags, line):
    """packaging 26.4 refuses ``name ===`` (25.x parsed it) and both refuse ``name ==``: was exit 2 / internal."""
    write(tags, f"v1.5.1/{ETHOS}", line)
    write(tags, "v1.5.1/pyproject.toml", "[project]\nname = 'executorch'\n")
    src = DirectorySource(tags)
    vela = resolve_pinset(src, "v1.5.1").get("ethos-u-vela")
    assert vela.version is None and "has no version" in vela.reason and ETHOS in vela.reason
    _, flags = plan_changes(resolve_pinset(src, "v1.4.0"), resolve_pinset(src, "v1.5.1"))
    assert [f.code for f in flags if f.blocking] == ["unresolved-pin"]


def test_upstream_requirement_file_line_keeps_its_number():
    reqs = parse_requirement_file(b"ml_dtypes == 0.5.1\ntosa-tools ===\n", TOSA, "v1.5.1")
    assert [(r.name, r.version, r.line) for r in reqs] == [("ml-dtypes", "0.5.1", 1), ("tosa-tools", None, 2)]
    assert "=== has no version" in reqs[1].why_unresolved()


def test_upstream_python_string_without_version_is_read_the_same_way():
    facts = parse_python(b'REQS = ["torchao===", "torch==2.14.0"]\n', "install_requirements.py", "v1.5.1")
    assert [(r.name, r.version) for r in facts.requirements] == [("torchao", None), ("torch", "2.14.0")]
    assert "has no version" in facts.requirements[0].why_unresolved()


def test_upstream_pyproject_extra_without_version_is_unresolved_not_an_error(tags):
    (tags / "v1.5.1" / ETHOS).unlink()
    write(tags, "v1.5.1/pyproject.toml", "[project]\nname = 'executorch'\n"
                                          "[project.optional-dependencies]\nethos_u = ['ethos-u-vela ==']\n")
    vela = resolve_pinset(DirectorySource(tags), "v1.5.1").get("ethos-u-vela")
    assert vela.version is None and "has no version" in vela.reason


def test_template_requirement_without_version_names_the_line(capsys, template, upstream_repo):
    (template / "requirements.txt").write_text("numpy\nexecutorch ===\n")
    before = snapshot(template)
    code, out, err = update(capsys, template, upstream_repo, "--dry-run")
    assert code == 2 and "requirements.txt:2:" in err and "=== has no version" in err
    assert "Traceback" not in err and snapshot(template) == before


def test_template_pyproject_poetry_operator_without_version_is_no_specifier():
    from bot.template.pyproject import other_pins
    pins = other_pins({"tool": {"poetry": {"dependencies": {"executorch": "==="}}}})
    assert [(p.name, p.version, p.specifier) for p in pins] == [("executorch", None, None)]


# --------------------------------------------------------------------------------------
# 2. History text is never rewritten (bump 1.4.0 -> 1.5.1)
# --------------------------------------------------------------------------------------

CHANGELOG_LINE = "- Moved to ExecuTorch 1.4.0 (from ExecuTorch 1.3.0); `PyTorch::ExecuTorch@1.4.0` replaces `@1.3.0`."
UPGRADE_LINE = "Upgrade guide: ExecuTorch 1.4.0 -> 1.5.0 will change the operator set."
NOTES_LINE = "See the [1.4.0 release notes](https://github.com/pytorch/executorch/releases/tag/v1.4.0)."
FROM_TO_LINE = "ExecuTorch 1.4.0 takes over from 1.3.2 here."


def _plan_json(capsys, template, upstream):
    code, out, err = update(capsys, template, upstream, "--dry-run", "--json", "--allow-flagged")
    assert code == 0, err
    return json.loads(out)


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


# --------------------------------------------------------------------------------------
# 3. unmanaged-pin is no dead end; the closing hint matches the blocking codes
# --------------------------------------------------------------------------------------

POETRY = "[tool.poetry.dependencies]\npython = \"^3.10\"\nexecutorch = '1.4.0'\n"


def test_unmanaged_pin_edited_by_hand_first_does_not_stop_update(capsys, template, upstream_repo):
    """The flag said "change it by hand"; doing so made update refuse with "pins disagree" (exit 2)."""
    write(template, "pyproject.toml", POETRY.replace("1.4.0", "1.5.1"))
    code, out, err = update(capsys, template, upstream_repo)
    assert code == 0, err
    assert "executorch==1.5.1" in (template / "requirements.txt").read_text()
    assert (template / "pyproject.toml").read_text() == POETRY.replace("1.4.0", "1.5.1")


def test_unmanaged_pin_message_says_to_edit_it_in_the_same_pr(capsys, template, upstream_repo):
    write(template, "pyproject.toml", POETRY)
    code, out, err = update(capsys, template, upstream_repo, "--dry-run")
    assert code == 1
    flag = [ln for ln in out.splitlines() if "[unmanaged-pin]" in ln]
    assert len(flag) == 1 and "same PR" in flag[0] and "--allow-flagged" in flag[0]
    last = out.strip().splitlines()[-1]
    assert "--set" not in last and "pyproject.toml constraint in the same PR" in last


def test_audit_still_lists_the_unmanaged_pin(capsys, template):
    write(template, "pyproject.toml", POETRY.replace("1.4.0", "1.5.1"))
    code, out, err = audit(capsys, template, "--json")
    data = json.loads(out)
    assert code == 1 and not data["agree"]
    assert any(p["path"] == "pyproject.toml" and p["line"] == 3 for p in data["pins"])


@pytest.mark.parametrize("setup, hint", [
    (lambda t: write(t, "requirements.txt", "executorch==1.4.0\ntorch>=2.13\n"), "make the range pins exact"),
    (lambda t: write(t, "board/extra.cproject.yml", "project:\n  packs:\n    - pack: PyTorch::ExecuTorch@^1.4.0\n"),
     "make the range pins exact"),
    (lambda t: write(t, "board/extra.cproject.yml", "project:\n  packs:\n    - pack: pytorch::executorch@1.4.0\n"),
     "fix the letter case"),
])
def test_closing_hint_names_what_to_do_for_the_blocking_codes(capsys, template, upstream_repo, setup, hint):
    """The closing line always said "supply values with --set NAME=VERSION", whatever blocked."""
    setup(template)
    code, out, err = update(capsys, template, upstream_repo, "--dry-run")
    last = out.strip().splitlines()[-1]
    assert code == 1, out + err
    assert hint in last and "--set" not in last


def test_closing_hint_offers_set_only_for_unresolved_pins(capsys, template, tmp_path):
    tags = tmp_path / "tags"
    for name in ("v1.4.0", "v1.5.1"):
        shutil.copytree(UPSTREAM_DIR / name, tags / name)
    write(tags, "v1.5.1/install_requirements.py", "REQS = ['torch==2.14.0', 'torchao>=0.17.0']\n")
    code, out, err = update(capsys, template, tags, "--dry-run")
    assert code == 1 and "--set NAME=VERSION" in out.strip().splitlines()[-1]


# --------------------------------------------------------------------------------------
# 4. Symbolic links: only a pin file linked out of the repository blocks
# --------------------------------------------------------------------------------------

def _link_flags(out: str) -> list[tuple[str, str, bool]]:
    return [(f["code"], f["path"], f["blocking"]) for f in json.loads(out)["flags"] if f["code"].startswith("symlink")]


@pytest.mark.parametrize("name, blocking", [("docs/shared.md", False), ("scripts/setup.sh", False),
                                            ("requirements-extra.txt", True), ("extra.cproject.yml", True),
                                            ("extra.cbuild-pack.yml", True), ("tools/pyproject.toml", True)])
def test_only_a_pin_file_linked_outside_blocks(capsys, template, upstream_repo, tmp_path, name, blocking):
    outside = tmp_path / "outside.txt"
    outside.write_text("ExecuTorch 1.4.0\n")
    (template / name).parent.mkdir(parents=True, exist_ok=True)
    (template / name).symlink_to(outside)
    code, out, err = update(capsys, template, upstream_repo, "--dry-run", "--json")
    assert _link_flags(out) == [("symlink-outside-repo", name, blocking)]
    assert code == (1 if blocking else 0)


def test_dangling_link_is_a_non_blocking_item(capsys, template, upstream_repo, tmp_path):
    (template / "requirements-gone.txt").symlink_to(tmp_path / "nowhere.txt")
    (template / "docs").mkdir()
    (template / "docs" / "gone.md").symlink_to("missing.md")
    code, out, err = update(capsys, template, upstream_repo, "--dry-run", "--json")
    assert code == 0, err
    assert sorted(_link_flags(out)) == [("symlink-dangling", "docs/gone.md", False),
                                        ("symlink-dangling", "requirements-gone.txt", False)]


# --------------------------------------------------------------------------------------
# 5. Skipped folders are said, not silent
# --------------------------------------------------------------------------------------

def test_audit_names_the_skipped_folders_that_exist(capsys, template):
    write(template, "vendor/requirements.txt", "executorch==1.3.0\n")
    write(template, "build/log.txt", "x\n")
    (template / ".git").mkdir(exist_ok=True)
    code, out, err = audit(capsys, template)
    assert "not scanned: build/, vendor/" in out and ".git/" not in out
    data = json.loads(audit(capsys, template, "--json")[1])
    assert data["not_scanned"] == ["build", "vendor"]


def test_progress_line_counts_the_skipped_folders(capsys, template, upstream_repo):
    write(template, "vendor/requirements.txt", "executorch==1.3.0\n")
    write(template, "app/cmake-out/x.txt", "x\n")
    code, out, err = update(capsys, template, upstream_repo, "--dry-run")
    line = next(ln for ln in err.splitlines() if ln.startswith("# scanned"))
    assert "2 folders not scanned: app/cmake-out/, vendor/" in line


# --------------------------------------------------------------------------------------
# 6. Lock files the bot cannot rewrite
# --------------------------------------------------------------------------------------

@pytest.mark.parametrize("name, command", [("uv.lock", "uv lock"), ("poetry.lock", "poetry lock"),
                                           ("tools/pdm.lock", "pdm lock"), ("Pipfile.lock", "pipenv lock")])
def test_python_lock_naming_executorch_is_flagged_on_a_bump(capsys, template, upstream_repo, name, command):
    write(template, name, '[[package]]\nname = "numpy"\n\n[[package]]\nname = "executorch"\nversion = "1.4.0"\n')
    plan = _plan_json(capsys, template, upstream_repo)
    mine = [f for f in plan["flags"] if f["code"] == "python-lock"]
    assert [(f["path"], f["line"], f["blocking"]) for f in mine] == [(name, 5, False)]
    assert command in mine[0]["message"] and name not in plan["files"]


def test_python_lock_without_executorch_is_not_flagged(capsys, template, upstream_repo):
    write(template, "uv.lock", '[[package]]\nname = "numpy"\n')
    assert not [f for f in _plan_json(capsys, template, upstream_repo)["flags"] if f["code"] == "python-lock"]


def test_stale_lock_disagreement_suggests_regenerating_it(capsys, template, upstream_repo):
    lock = template / "cmsis-executorch.cbuild-pack.yml"
    lock.write_text(lock.read_text().replace("PyTorch::ExecuTorch@1.4.0", "PyTorch::ExecuTorch@1.3.0"))
    code, out, err = update(capsys, template, upstream_repo, "--dry-run")
    assert code == 2 and "the lock file is stale: regenerate it (cbuild setup" in err and "--packs" in err


def test_lock_file_without_executorch_entry_is_flagged(capsys, template, upstream_repo):
    lock = template / "cmsis-executorch.cbuild-pack.yml"
    lock.write_text("cbuild-pack:\n  resolved-packs:\n    - resolved-pack: ARM::CMSIS@6.0.0\n"
                    "      selected-by-pack:\n        - ARM::CMSIS\n")
    plan = _plan_json(capsys, template, upstream_repo)
    mine = [(f["code"], f["path"], f["blocking"]) for f in plan["flags"] if f["code"] == "lock-missing-pack"]
    assert mine == [("lock-missing-pack", "cmsis-executorch.cbuild-pack.yml", False)]
    code, out, err = audit(capsys, template)
    assert "[lock-missing-pack]" in out


# --------------------------------------------------------------------------------------
# 7. Leftovers: C/C++ #define ..._VERSION "OLD" with EXECUTORCH/ET in the macro name
# --------------------------------------------------------------------------------------

VERSION_H = '''#pragma once
#define ET_VERSION_STRING "1.4.0"
#define MY_EXECUTORCH_PACK_VERSION  "1.4.0"
#define ET_RUNTIME_VERSION "1.4.0"
#define TARGET_VERSION "1.4.0"
#define GET_VERSION "1.4.0"
#define ETHOS_VERSION "1.4.0"
#define ET_VERSION_MAJOR 1
'''


def test_c_define_of_an_executorch_version_is_a_leftover(capsys, template, upstream_repo):
    write(template, "app/version.h", VERSION_H)
    plan = _plan_json(capsys, template, upstream_repo)
    lines = sorted(f["line"] for f in plan["flags"] if f["code"] == "leftover" and f["path"] == "app/version.h")
    assert lines == [2, 3, 4]
    assert "app/version.h" not in plan["files"]


# --------------------------------------------------------------------------------------
# 8. Messages
# --------------------------------------------------------------------------------------

def test_location_is_printed_once(capsys, template, upstream_repo):
    write(template, "requirements/range.txt", "executorch>=1.4\n")
    code, out, err = update(capsys, template, upstream_repo, "--dry-run")
    line = next(ln for ln in out.splitlines() if "[range-pin]" in ln)
    assert line.count("requirements/range.txt:1") == 1, line


def test_url_pin_upstream_reads_as_a_sentence(tags):
    write(tags, f"v1.5.1/{ETHOS}", "ethos-u-vela @ git+https://example.invalid/vela.git@5.2.0\n")
    write(tags, "v1.5.1/pyproject.toml", "[project]\nname = 'executorch'\n")
    reason = resolve_pinset(DirectorySource(tags), "v1.5.1").get("ethos-u-vela").reason
    assert "gives pinned" not in reason and f"{ETHOS} @ v1.5.1: pinned by a URL" in reason


def test_torch_version_that_is_a_range_is_not_garbled(tags):
    write(tags, "v1.5.1/torch_pin.py", "TORCH_VERSION = '>=2.14'\n")
    write(tags, "v1.5.1/install_requirements.py", "X = 1\n")
    torch = resolve_pinset(DirectorySource(tags), "v1.5.1").get("torch")
    assert "==>=" not in torch.reason and "'>=2.14' is not a version" in torch.reason


def test_plurals_in_the_summary(capsys, template, upstream_repo):
    write(template, "vendor/x.txt", "x\n")
    code, out, err = update(capsys, template, upstream_repo, "--to", "1.5.1", "--dry-run",
                            "--exclude", "documentation", "--exclude", "README.md")
    assert "1 folder not scanned" in err and "1 folders" not in err
    assert " 1 files" not in out and " 1 edits" not in out


def test_flags_are_sorted_by_path_and_line_in_the_report_and_json(capsys, template, upstream_repo):
    write(template, "zz.md", "ExecuTorch 1.3.0 was older.\n")
    write(template, "aa.md", "ExecuTorch 1.2.0 was older.\n\nExecuTorch 1.1.0 too.\n")
    plan = _plan_json(capsys, template, upstream_repo)
    keys = [(f["path"], f["line"] or 0) for f in plan["flags"] if f["path"] is not None]
    assert keys == sorted(keys)
    code, out, err = update(capsys, template, upstream_repo, "--dry-run")
    shown = [ln.split(":", 1)[0].split(" ", 3)[-1] for ln in out.splitlines() if ln.startswith(("  - ", "  ! "))]
    assert shown.index("aa.md") < shown.index("zz.md")


def test_leftover_hint_says_where_to_tell_us(capsys, template, upstream_repo):
    write(template, "settings.json", '{"install": "pip install executorch==1.4.0"}\n')
    plan = _plan_json(capsys, template, upstream_repo)
    msg = next(f["message"] for f in plan["flags"] if f["code"] == "leftover")
    assert "open an issue for executorch-pack-bot" in msg and "tell us" not in msg


def test_non_utf8_error_names_exclude_as_a_way_out(capsys, template, upstream_repo):
    (template / "docs").mkdir()
    (template / "docs" / "old.md").write_bytes(b"ExecuTorch 1.4.0 \xe9t\xe9\n")
    code, out, err = update(capsys, template, upstream_repo, "--dry-run")
    assert code == 2 and "docs/old.md" in err and "--exclude docs/old.md" in err


def test_disagreement_error_names_the_ways_out(capsys, template, upstream_repo):
    req = template / "requirements.txt"
    req.write_text(req.read_text().replace("executorch==1.4.0", "executorch==1.3.0"))
    code, out, err = update(capsys, template, upstream_repo, "--dry-run")
    # the odd pin is a requirement: the way out is to make the pins equal (or --exclude a copy); the
    # lock-file advice is for a stale lock only (it confused a new user when a cproject was odd)
    assert code == 2 and "--exclude" in err and "make them equal" in err and "cbuild setup" not in err


def test_exclude_help_does_not_read_as_writing_the_config(capsys):
    code, out, err = run_cli(capsys, "update", "--help")
    text = " ".join(out.split())
    assert "added to the exclude: list" not in text and "which is not changed" in text


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
