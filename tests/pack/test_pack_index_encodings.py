"""A pack index (or PDSC) in an encoding that hides a DOCTYPE from the scan is refused before lxml reads it.

The scan for ``<!DOCTYPE``/``<!ENTITY`` looked at the raw bytes (and their
UTF-16 forms); lxml honours a UTF-32 byte-order mark or an ``encoding="UTF-7"``
declaration, so a billion-laughs index in those encodings reached the parser,
stopped only by libxml2's own amplification limit.  The bytes are now decoded
as :func:`bot.pack.pdsc.decode_pdsc` decodes a PDSC, and the scan reads that text.
"""

from __future__ import annotations

import codecs

import pytest

from bot.errors import PlatformError
from bot.pack.public_index import index_entry

URL = "https://index.invalid/index.pidx"
LAUGH = ('<?xml version="1.0"{enc}?>\n<!DOCTYPE index [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;'
         '&a;&a;&a;">]>\n<index><pindex><pdsc url="https://x/" vendor="PyTorch" name="ExecuTorch" '
         'version="&b;"/></pindex></index>\n')
WHY = "it must be UTF-8 (or UTF-16 with a byte-order mark)"


@pytest.mark.parametrize("data, message", [
    (codecs.BOM_UTF32_LE + LAUGH.format(enc="").encode("utf-32-le"), f"is UTF-32; {WHY}"),
    (codecs.BOM_UTF32_BE + LAUGH.format(enc="").encode("utf-32-be"), f"is UTF-32; {WHY}"),
    (LAUGH.format(enc=' encoding="UTF-32LE"').encode("utf-32-le"),
     f"holds NUL characters (UTF-16 or UTF-32 without a byte-order mark?); {WHY}"),
    (LAUGH.format(enc=' encoding="UTF-7"').replace("<!", "+ADw-!").encode(), f"declares encoding 'UTF-7'; {WHY}"),
    (LAUGH.format(enc=' encoding="IBM037"').encode("cp037"), f"is not UTF-8 text (byte 2); {WHY}"),
])
def test_an_index_in_an_encoding_that_hides_a_doctype_is_refused(data, message):
    with pytest.raises(PlatformError) as e:
        index_entry(data, URL)
    assert e.value.message == f"{URL} {message}"


@pytest.mark.parametrize("bom, codec", [(b"", "utf-8"), (codecs.BOM_UTF8, "utf-8"),
                                        (codecs.BOM_UTF16_LE, "utf-16-le"), (codecs.BOM_UTF16_BE, "utf-16-be")])
def test_a_doctype_in_an_accepted_encoding_is_still_refused(bom, codec):
    with pytest.raises(PlatformError) as e:
        index_entry(bom + LAUGH.format(enc="").encode(codec), URL)
    assert e.value.message == f"{URL} declares a DOCTYPE/ENTITY; DTDs and entities are refused"


@pytest.mark.parametrize("bom, codec", [(codecs.BOM_UTF8, "utf-8"), (codecs.BOM_UTF16_LE, "utf-16-le")])
def test_a_plain_index_in_an_accepted_encoding_is_read(bom, codec):
    text = ('<?xml version="1.0" encoding="UTF-8"?>\n<index><pindex><pdsc url="https://x/" vendor="PyTorch" '
            'name="ExecuTorch" version="1.5.1"/></pindex></index>\n')
    if codec != "utf-8":
        text = text.replace("UTF-8", "UTF-16")
    assert index_entry(bom + text.encode(codec), URL) == {"url": "https://x/", "vendor": "PyTorch",
                                                          "name": "ExecuTorch", "version": "1.5.1"}
