"""Symbolic links in the template: a pin file linked out of the repository blocks, a folder linked
out is flagged and not followed, a dangling link is a non-blocking item.
"""

from __future__ import annotations

import json
import os

import pytest

from helpers import run_cli
from helpers import update as _update


def _audit(capsys, template, *extra):
    return run_cli(capsys, "audit", "--repo", template, *extra)


def _link_flags(out: str) -> list[tuple[str, str, bool]]:
    return [(f["code"], f["path"], f["blocking"]) for f in json.loads(out)["flags"] if f["code"].startswith("symlink")]


def test_symlinked_folder_outside_the_repository_is_flagged_not_followed(template, upstream_repo, tmp_path, capsys):
    shared = tmp_path / "shared-docs"
    shared.mkdir()
    (shared / "guide.md").write_text("Use ExecuTorch 1.4.0.\n")
    os.symlink(shared, template / "documentation" / "shared")
    rc, out, err = _update(capsys, template, upstream_repo, "--json")
    assert rc == 0, err
    link = [f for f in json.loads(out)["flags"] if f["code"] == "symlink-outside-repo"]
    assert [(f["path"], f["blocking"]) for f in link] == [("documentation/shared", False)]
    assert (shared / "guide.md").read_text() == "Use ExecuTorch 1.4.0.\n"
    rc, out, _ = _audit(capsys, template)
    assert rc == 0 and "documentation/shared" in out


@pytest.mark.parametrize("name, blocking", [("docs/shared.md", False), ("scripts/setup.sh", False),
                                            ("requirements-extra.txt", True), ("extra.cproject.yml", True),
                                            ("extra.cbuild-pack.yml", True), ("tools/pyproject.toml", True)])
def test_only_a_pin_file_linked_outside_blocks(capsys, template, upstream_repo, tmp_path, name, blocking):
    outside = tmp_path / "outside.txt"
    outside.write_text("ExecuTorch 1.4.0\n")
    (template / name).parent.mkdir(parents=True, exist_ok=True)
    (template / name).symlink_to(outside)
    code, out, err = _update(capsys, template, upstream_repo, "--dry-run", "--json")
    assert _link_flags(out) == [("symlink-outside-repo", name, blocking)]
    assert code == (1 if blocking else 0)


def test_dangling_link_is_a_non_blocking_item(capsys, template, upstream_repo, tmp_path):
    (template / "requirements-gone.txt").symlink_to(tmp_path / "nowhere.txt")
    (template / "docs").mkdir()
    (template / "docs" / "gone.md").symlink_to("missing.md")
    code, out, err = _update(capsys, template, upstream_repo, "--dry-run", "--json")
    assert code == 0, err
    assert sorted(_link_flags(out)) == [("symlink-dangling", "docs/gone.md", False),
                                        ("symlink-dangling", "requirements-gone.txt", False)]
