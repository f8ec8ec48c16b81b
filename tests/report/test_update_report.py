"""What ``update`` prints: locations once, plurals, flags ordered by path and line, closing hints
per blocking code, progress, JSON on error.
"""

from __future__ import annotations

import shutil

import pytest

from bot.sample import UPSTREAM_DIR
from helpers import plan_json as _plan_json, write, run_cli
from helpers import update as _update


def _audit(capsys, template, *extra):
    return run_cli(capsys, "audit", "--repo", template, *extra)


def _one_odd_pin(template):
    req = template / "requirements.txt"
    req.write_text(req.read_text().replace("executorch==1.4.0", "executorch==1.3.0"))


def test_location_is_printed_once(capsys, template, upstream_repo):
    write(template, "requirements/range.txt", "executorch>=1.4\n")
    code, out, err = _update(capsys, template, upstream_repo, "--dry-run")
    line = next(ln for ln in out.splitlines() if "[range-pin]" in ln)
    assert line.count("requirements/range.txt:1") == 1, line


def test_plurals_in_the_summary(capsys, template, upstream_repo):
    write(template, "vendor/x.txt", "x\n")
    code, out, err = _update(capsys, template, upstream_repo, "--version", "1.5.1", "--dry-run",
                            "--exclude", "documentation", "--exclude", "README.md")
    assert "1 folder not scanned" in err and "1 folders" not in err
    assert " 1 files" not in out and " 1 edits" not in out


def test_flags_are_sorted_by_path_and_line_in_the_report_and_json(capsys, template, upstream_repo):
    write(template, "zz.md", "ExecuTorch 1.3.0 was older.\n")
    write(template, "aa.md", "ExecuTorch 1.2.0 was older.\n\nExecuTorch 1.1.0 too.\n")
    plan = _plan_json(capsys, template, upstream_repo)
    keys = [(f["path"], f["line"] or 0) for f in plan["flags"] if f["path"] is not None]
    assert keys == sorted(keys)
    code, out, err = _update(capsys, template, upstream_repo, "--dry-run")
    shown = [ln.split(":", 1)[0].split(" ", 3)[-1] for ln in out.splitlines() if ln.startswith(("  - ", "  ! "))]
    assert shown.index("aa.md") < shown.index("zz.md")


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
    code, out, err = _update(capsys, template, upstream_repo, "--dry-run")
    last = out.strip().splitlines()[-1]
    assert code == 1, out + err
    assert hint in last and "--set" not in last


def test_closing_hint_offers_set_only_for_unresolved_pins(capsys, template, tmp_path):
    tags = tmp_path / "tags"
    for name in ("v1.4.0", "v1.5.1"):
        shutil.copytree(UPSTREAM_DIR / name, tags / name)
    write(tags, "v1.5.1/install_requirements.py", "REQS = ['torch==2.14.0', 'torchao>=0.17.0']\n")
    code, out, err = _update(capsys, template, tags, "--dry-run")
    assert code == 1 and "--set NAME=VERSION" in out.strip().splitlines()[-1]


def test_progress_line_counts_the_skipped_folders(capsys, template, upstream_repo):
    write(template, "vendor/requirements.txt", "executorch==1.3.0\n")
    write(template, "app/cmake-out/x.txt", "x\n")
    code, out, err = _update(capsys, template, upstream_repo, "--dry-run")
    line = next(ln for ln in err.splitlines() if ln.startswith("# scanned"))
    assert "2 folders not scanned: app/cmake-out/, vendor/" in line


def test_json_on_error_keeps_stdout_empty_and_the_error_on_stderr(template, upstream_repo, capsys):
    _one_odd_pin(template)
    rc, out, err = _update(capsys, template, upstream_repo, "--json")
    assert rc == 2 and out == ""
    assert err.startswith("executorch-pack-bot: error: requirements.txt:4: ")
    (template / "cmsis-executorch.csolution.yml").write_text("solution: [\n")
    rc, out, err = _audit(capsys, template, "--json")
    assert rc == 2 and out == "" and "cmsis-executorch.csolution.yml" in err
