"""A sentence that restates the derived pins (torch, torchao) and names ExecuTorch without its version
still moves: the prose manager's shortcut for files without a version mention keeps restatements."""

from __future__ import annotations

from mentionkit import plan


def _edits(data):
    return sorted((e["path"], e["line"], e["old"], e["new"]) for e in data["edits"] if e["path"] == "docs/setup.md")


def test_both_restated_pins_move_in_a_file_without_a_version_mention(tmp_path, tags, capsys):
    data = plan(tmp_path, tags, capsys, {"docs/setup.md": "# Setup\n\nExecuTorch needs torch==2.13.0 and torchao==0.18.0.\n"})
    assert _edits(data) == [("docs/setup.md", 3, "0.18.0", "0.19.0"), ("docs/setup.md", 3, "2.13.0", "2.14.0")]


def test_one_restated_pin_moves_in_a_file_without_a_version_mention(tmp_path, tags, capsys):
    data = plan(tmp_path, tags, capsys, {"docs/setup.md": "# Setup\n\nExecuTorch needs torch==2.13.0 on the host.\n"})
    assert _edits(data) == [("docs/setup.md", 3, "2.13.0", "2.14.0")]
