"""The command line's own contract: exit codes, one-line errors, no traceback."""

from __future__ import annotations

import subprocess
import sys

from bot import cli


def test_closed_pipe_is_not_a_success(tmp_path):
    # `demo | true`: the reader is gone before the bot writes; the bot must not exit 0 (pipefail would hide a failure).
    proc = subprocess.run(["bash", "-o", "pipefail", "-c", f"{sys.executable} -m bot demo | true"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1, proc.stderr
    assert "Traceback" not in proc.stderr and "Exception ignored" not in proc.stderr


def test_unexpected_exception_is_one_line(monkeypatch, capsys):
    def boom(args):
        raise ValueError("boom")
    monkeypatch.setattr(cli, "build_parser", lambda **_: _Parser(boom))
    assert cli.main([]) == 2
    err = capsys.readouterr().err
    assert err.startswith("executorch-pack-bot: internal error: ValueError: boom")
    assert "Traceback" not in err


class _Parser:
    def __init__(self, run):
        self._run = run

    def parse_known_args(self, argv):
        class A:
            pass
        a = A()
        a._run = self._run
        return a, []


def test_every_command_has_help(capsys):
    parser = cli.build_parser()
    names = [a for a in parser._subparsers._group_actions[0].choices]
    assert {"update", "audit", "demo", "verify-pack", "build-pack", "check", "fetch-pack", "publish",
            "run"} <= set(names)
