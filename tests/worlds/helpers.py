"""Helpers shared by the engine tests: sample trees, snapshots, running the CLI in-process."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from bot import cli
from bot.model import Bump, PinChange


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


def update(capsys, template, upstream, *extra) -> tuple[int, str, str]:
    """``executorch-pack-bot update --repo TEMPLATE --upstream UPSTREAM EXTRA...`` in-process."""
    return run_cli(capsys, "update", "--repo", template, "--upstream", upstream, *extra)


def assert_refused(capsys, template, upstream, *extra, code=2, message=()):
    """Run ``update``; assert the exit code, the messages, no traceback and an unchanged tree."""
    before = snapshot(template)
    rc, out, err = update(capsys, template, upstream, *extra)
    assert rc == code, (out, err)
    assert "Traceback" not in err + out and "internal error" not in err + out, err
    for m in message:
        assert m in err + out, (m, err, out)
    assert snapshot(template) == before
    return out, err


def minor_bump(flatbuffers: bool = True) -> Bump:
    """1.4.0 -> 1.5.1 (major.minor changes), torch/torchao move, flatbuffers optionally."""
    changes = [PinChange("executorch", "1.4.0", "1.5.1", "release tag v1.5.1"),
               PinChange("torch", "2.13.0", "2.14.0", "torch_pin.py"),
               PinChange("torchao", "0.18.0", "0.19.0", "install_requirements.py")]
    if flatbuffers:
        changes.append(PinChange("flatbuffers", "24.3.25", "25.1.0", "requirements-arm-tosa.txt"))
    return Bump("1.4.0", "1.5.1", "1.4.0", "1.5.1", "v1.4.0", "v1.5.1", tuple(changes))


def patch_bump() -> Bump:
    """1.5.0 -> 1.5.1: major.minor stays, so release/1.5 and "ExecuTorch 1.5" stay."""
    return Bump("1.5.0", "1.5.1", "1.5.0", "1.5.1", "v1.5.0", "v1.5.1",
                (PinChange("executorch", "1.5.0", "1.5.1", "release tag v1.5.1"),))


#: The sample bump of the structured managers' tests: 1.4.0 -> 1.5.1 with torch, torchao,
#: ethos-u-vela and one TOSA pin moving (the values of the shipped sample upstream).
SAMPLE_BUMP = Bump("1.4.0", "1.5.1", "1.4.0", "1.5.1", "v1.4.0", "v1.5.1", (
    PinChange("executorch", "1.4.0", "1.5.1", "release tag v1.5.1"),
    PinChange("torch", "2.13.0", "2.14.0", "torch_pin.py TORCH_VERSION @ v1.5.1"),
    PinChange("torchao", "0.18.0", "0.19.0", "install_requirements.py @ v1.5.1"),
    PinChange("ethos-u-vela", "5.1.0", "5.2.0", "backends/arm/requirements-arm-ethos-u.txt @ v1.5.1"),
    PinChange("tosa-tools", "2026.5.0", "2026.8.0", "backends/arm/requirements-arm-tosa.txt @ v1.5.1"),
))


def assert_flags(flags, *expected) -> None:
    """Assert that ``flags`` are exactly ``expected`` (each a :class:`bot.model.Flag`), in order and
    whole: code, message, path, line and blocking; a mismatch shows both sides as dicts."""
    got = [f.to_json() for f in flags]
    want = [f.to_json() for f in expected]
    assert got == want, (got, want)


def assert_manager_error(info, path: str, line, message: str) -> None:
    """Assert the whole :class:`bot.template.interface.ManagerError` caught by ``pytest.raises``:
    its file, line, exit code 2 and message."""
    err = info.value
    assert (err.path, err.line, err.exit_code, err.message) == (path, line, 2, message)


def plan_json(capsys, template, upstream) -> dict:
    """``update --dry-run --json --allow-flagged`` in-process; assert exit 0 and return the plan as data."""
    import json
    code, out, err = update(capsys, template, upstream, "--dry-run", "--json", "--allow-flagged")
    assert code == 0, err
    return json.loads(out)


def write(root: Path, rel: str, text: str) -> None:
    """Write ``text`` to ``root/rel``, creating its folders."""
    p = root / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text)


def round_trip(manager, path: str, raw: bytes, bump: Bump):
    """``manager.update`` on ``raw`` as the file ``path``, the edits applied and re-checked with
    ``manager.check``; returns ``(ManagerResult, new bytes)``."""
    from bot.textfile import TextDocument
    doc = TextDocument.from_bytes(path, raw)
    result = manager.update(doc, bump)
    new = doc.apply(result.edits)
    manager.check(doc, TextDocument.from_bytes(path, new), list(result.edits))
    return result, new
