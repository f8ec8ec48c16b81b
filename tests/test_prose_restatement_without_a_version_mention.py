"""A sentence that restates the derived pins (torch, torchao) and names ExecuTorch without its version
still moves: the prose manager's shortcut for files without a version mention keeps restatements."""

from __future__ import annotations

from tests.mentionkit import update_json, write

PINS = [("app.csolution.yml", 3, "1.4.0", "1.5.1"), ("requirements.txt", 1, "1.4.0", "1.5.1")]


def _edits(data):
    return sorted((e["path"], e["line"], e["old"], e["new"]) for e in data["edits"] if e["path"] == "docs/setup.md")


def test_both_restated_pins_move_in_a_file_without_a_version_mention(tmp_path, tags, capsys):
    repo = write(tmp_path / "t", {"docs/setup.md": "# Setup\n\nExecuTorch needs torch==2.13.0 and torchao==0.18.0.\n"})
    code, data = update_json(capsys, repo, tags, "--dry-run")
    assert code == 0, data
    assert _edits(data) == [("docs/setup.md", 3, "0.18.0", "0.19.0"), ("docs/setup.md", 3, "2.13.0", "2.14.0")]


def test_one_restated_pin_moves_in_a_file_without_a_version_mention(tmp_path, tags, capsys):
    repo = write(tmp_path / "t", {"docs/setup.md": "# Setup\n\nExecuTorch needs torch==2.13.0 on the host.\n"})
    code, data = update_json(capsys, repo, tags, "--dry-run")
    assert code == 0, data
    assert _edits(data) == [("docs/setup.md", 3, "2.13.0", "2.14.0")]
