"""Helpers shared by the engine tests: sample trees, snapshots, running the CLI in-process."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from bot import cli


def snapshot(root: Path) -> dict[str, tuple[bytes, int]]:
    """Every regular file under ``root`` (links as their target text): path -> (bytes, mode)."""
    out = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d != ".git"]
        for name in filenames:
            p = Path(dirpath) / name
            rel = p.relative_to(root).as_posix()
            if p.is_symlink():
                out[rel] = (os.readlink(p).encode(), 0)
            else:
                out[rel] = (p.read_bytes(), stat.S_IMODE(p.stat().st_mode))
    return out


def run_cli(capsys, *argv: str) -> tuple[int, str, str]:
    """Run ``executorch-pack-bot ARGV`` in-process; return (exit code, stdout, stderr)."""
    try:
        code = cli.main([str(a) for a in argv])
    except SystemExit as exc:  # argparse usage errors
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err
