"""A folder of the template that cannot be listed is bad input (exit 2 naming it and --exclude), never a skip."""

from __future__ import annotations

import os

import pytest

from helpers import assert_refused, run_cli
from mentionkit import write

WAY_OUT = ("cannot read the folder docs/locked/: Permission denied; make it readable, or leave it out with "
           "--exclude docs/locked (or an exclude: entry in .github/executorch-pack-bot.yml)")


@pytest.fixture
def locked(monkeypatch):
    """``os.scandir`` refuses ``docs/locked`` as it does for a mode-000 folder (this also fails as root)."""
    real = os.scandir

    def scandir(path="."):
        if os.fspath(path).replace(os.sep, "/").endswith("/docs/locked"):
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return real(path)

    monkeypatch.setattr(os, "scandir", scandir)


def test_update_refuses_an_unreadable_folder_naming_it(tmp_path, tags, capsys, locked):
    repo = write(tmp_path / "t", {"docs/locked/guide.md": "Install ExecuTorch 1.4.0.\n",
                                  "README.md": "Install ExecuTorch 1.4.0.\n"})
    out, err = assert_refused(capsys, repo, tags)
    assert err.strip() == f"executorch-pack-bot: error: docs/locked: {WAY_OUT}"


def test_audit_refuses_an_unreadable_folder(tmp_path, capsys, locked):
    repo = write(tmp_path / "t", {"docs/locked/guide.md": "x\n"})
    code, out, err = run_cli(capsys, "audit", "--repo", repo)
    assert (code, out, err.strip()) == (2, "", f"executorch-pack-bot: error: docs/locked: {WAY_OUT}")


def test_the_way_out_excludes_the_folder(tmp_path, tags, capsys, locked):
    repo = write(tmp_path / "t", {"docs/locked/guide.md": "x\n", "README.md": "Install ExecuTorch 1.4.0.\n"})
    code, out, err = run_cli(capsys, "update", "--repo", repo, "--upstream", tags, "--exclude", "docs/locked")
    assert code == 0, err
    assert (repo / "README.md").read_text() == "Install ExecuTorch 1.5.1.\n"


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root reads a mode-000 folder")
def test_a_mode_000_folder_is_refused(tmp_path, tags, capsys):
    repo = write(tmp_path / "t", {"docs/locked/guide.md": "Install ExecuTorch 1.4.0.\n"})
    os.chmod(repo / "docs" / "locked", 0)
    try:
        out, err = assert_refused(capsys, repo, tags)
        assert err.strip() == f"executorch-pack-bot: error: docs/locked: {WAY_OUT}"
    finally:
        os.chmod(repo / "docs" / "locked", 0o755)


def test_an_unreadable_other_file_is_refused_not_skipped(tmp_path, tags, capsys, monkeypatch):
    """A text file no manager handles is still searched (leftovers, the accounting): one that cannot be
    read stops the run, naming it, instead of hiding what it holds."""
    from bot.engine import read as readmod

    repo = write(tmp_path / "t", {"settings.json": '{"executorch": "1.4.0"}\n'})
    real = open

    def fake_open(path, *a, **k):
        if str(path).endswith("settings.json"):
            raise PermissionError(13, "Permission denied", str(path))
        return real(path, *a, **k)

    monkeypatch.setattr(readmod, "open", fake_open, raising=False)
    out, err = assert_refused(capsys, repo, tags)
    assert err.strip().splitlines()[-1] == (
        "executorch-pack-bot: error: settings.json: cannot read: Permission denied; make it readable, or leave it "
        "out with --exclude settings.json (or an exclude: entry in .github/executorch-pack-bot.yml)")
