"""A pin file that is not UTF-8 text (NUL bytes, UTF-16) is refused naming the file, never skipped.
"""

from __future__ import annotations

from helpers import assert_refused


def test_pin_file_with_a_nul_byte_is_refused_not_skipped(template, upstream_repo, capsys):
    """A requirements file with a NUL byte used to be skipped as binary: its pin stayed at 1.4.0."""
    req = template / "requirements.txt"
    req.write_bytes(req.read_bytes() + b"\0\n")
    assert_refused(capsys, template, upstream_repo, message=["requirements.txt:12:", "NUL"])


def test_utf16_requirements_file_is_refused_not_skipped(template, upstream_repo, capsys):
    """``pip freeze > requirements.txt`` in PowerShell writes UTF-16; its pins must not be ignored."""
    req = template / "requirements.txt"
    req.write_bytes(req.read_text().encode("utf-16"))
    assert_refused(capsys, template, upstream_repo, message=["requirements.txt", "UTF-16"])
