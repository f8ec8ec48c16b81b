"""What a file's raw bytes say before any manager reads them: whether they name ExecuTorch, in UTF-8/ASCII or
in UTF-16/32 text with a byte order mark.  Read by the template scan (:mod:`bot.template.scan`) and the
submodule count (:mod:`bot.template.submodules`), which both import it: it imports neither.
"""

from __future__ import annotations

#: Byte order marks of UTF-16 and UTF-32 text (longest first: UTF-32 LE starts like UTF-16 LE).
_WIDE_BOMS = ((b"\xff\xfe\x00\x00", "utf-32"), (b"\x00\x00\xfe\xff", "utf-32"),
              (b"\xff\xfe", "utf-16"), (b"\xfe\xff", "utf-16"))


def mentions_executorch(raw: bytes) -> bool:
    """True when ``raw`` names ExecuTorch (any case) as UTF-8/ASCII bytes or as UTF-16/32 text."""
    low = raw.lower()
    if b"executorch" in low:
        return True
    for bom, codec in _WIDE_BOMS:
        if raw.startswith(bom):
            return "executorch" in raw.decode(codec, "replace").lower()
    return b"e\0x\0e\0c\0u\0t\0o\0r\0c\0h" in low
