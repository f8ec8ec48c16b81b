"""An upstream pin file larger than MAX_UPSTREAM_FILE (2 MiB; the real ones are a few kB) is refused
before it is parsed: exit 2 naming the file, its size and the tag (bot/upstream/pins.py _TagFiles)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.errors import UpstreamError
from bot.upstream.pinfiles import MAX_UPSTREAM_FILE
from bot.upstream.pins import resolve_pinset
from bot.upstream.source import DirectorySource


def tag(root: Path, name: str, files: dict[str, bytes]) -> DirectorySource:
    for rel, data in files.items():
        p = root / name / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)
    return DirectorySource(root)


def padded(text: str, size: int) -> bytes:
    """``text`` followed by comment lines up to exactly ``size`` bytes."""
    data = text.encode()
    filler = b"#" * 99 + b"\n"
    data += filler * ((size - len(data)) // len(filler))
    return data + b"#" * (size - len(data))


@pytest.mark.parametrize("path", ["torch_pin.py", "install_requirements.py"])
def test_a_pin_file_over_the_cap_is_refused_with_its_size_tag_and_path(tmp_path, path):
    src = tag(tmp_path, "v1.5.1", {path: padded('TORCH_VERSION = "2.14.0"\n', MAX_UPSTREAM_FILE + 1)})
    with pytest.raises(UpstreamError) as info:
        resolve_pinset(src, "v1.5.1")
    err = info.value
    assert (err.path, err.line, err.exit_code, err.message) == (
        path, None, 2, f"{MAX_UPSTREAM_FILE + 1} bytes @ v1.5.1, more than the {MAX_UPSTREAM_FILE} a pin file may have")


def test_a_pin_file_of_exactly_the_cap_is_read(tmp_path):
    src = tag(tmp_path, "v1.5.1", {"torch_pin.py": padded('TORCH_VERSION = "2.14.0"\n', MAX_UPSTREAM_FILE)})
    assert (tmp_path / "v1.5.1" / "torch_pin.py").stat().st_size == MAX_UPSTREAM_FILE
    pin = resolve_pinset(src, "v1.5.1").get("torch")
    assert (pin.name, pin.version, pin.source, pin.spec) == ("torch", "2.14.0", "torch_pin.py TORCH_VERSION @ v1.5.1",
                                                             "==2.14.0")
