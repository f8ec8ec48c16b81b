"""upstream's validate_pack.py runs with the ExecuTorch root as its working directory: a relative
``--executorch-root`` (the build job passes ``executorch``) must still name the script (found running
the workflow whole: the path was joined to the root twice)."""

from __future__ import annotations

import sys

from bot.pack.validator import SCRIPT, run_validator


def test_a_relative_executorch_root_runs_the_validator(tmp_path, monkeypatch):
    root = tmp_path / "executorch"
    (root / SCRIPT).parent.mkdir(parents=True)
    (root / SCRIPT).write_text("import sys\nprint('checked', sys.argv[1].endswith('p.pack'))\n")
    (tmp_path / "p.pack").write_bytes(b"PK")
    monkeypatch.chdir(tmp_path)
    result = run_validator(root.relative_to(tmp_path), tmp_path / "p.pack", python=sys.executable)
    assert (result.status, result.detail) == ("pass", "validate_pack.py passed: checked True")
