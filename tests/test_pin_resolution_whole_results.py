"""What upstream pins at a tag (``resolve_pinset``), asserted whole: each pin's version, source, spec
or reason, and each flag's code, message, path, line and blocking (FORMATS.md section 2)."""

from __future__ import annotations

from pathlib import Path

from bot.model import Flag, ResolvedPin
from bot.upstream.pins import resolve_pinset
from bot.upstream.source import DirectorySource
from helpers import assert_flags


def tag(root: Path, name: str, files: dict[str, str]) -> DirectorySource:
    for rel, text in files.items():
        p = root / name / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    return DirectorySource(root)


def test_a_torch_version_that_is_not_a_string_and_no_other_source_is_unresolved_with_every_note(tmp_path):
    src = tag(tmp_path, "v1.5.1", {"torch_pin.py": "TORCH_VERSION = get()\n"})
    ps = resolve_pinset(src, "v1.5.1")
    assert ps.get("torch") == ResolvedPin(
        "torch", None, None, reason="no exact pin at v1.5.1: torch_pin.py TORCH_VERSION @ v1.5.1 is get(), not a "
        "version string; install_requirements.py is absent; pyproject.toml is absent")
    assert ps.flags == ()
