"""Hostile PDSCs: each is refused with the message and the line of what is wrong in it, as the tree
parser reads it, though the PDSC is read as a stream (the streaming parser words some errors late)."""

from __future__ import annotations

import pytest

from bot.pack.pdsc import PdscError, parse_pdsc

HEAD = b'<?xml version="1.0" encoding="UTF-8"?>\n<package schemaVersion="1.7">\n'
TAIL = b"  <name>ExecuTorch</name>\n" + b"  <url>https://example.invalid/</url>\n" * 200 + b"</package>\n"


def _refusal(data: bytes):
    with pytest.raises(PdscError) as exc:
        parse_pdsc(data, "P.pdsc")
    return exc.value.path, exc.value.line, exc.value.message


def test_an_undefined_entity_is_reported_at_its_line_with_its_name():
    # no DOCTYPE is allowed, so no entity but the five of XML can be defined; the stream said "no element found", line 0
    data = HEAD + b"  <vendor>&foo;PyTorch</vendor>\n" + TAIL
    assert _refusal(data) == ("P.pdsc", 3, "not well-formed XML: Entity 'foo' not defined, line 3, column 16")


def test_an_attribute_longer_than_the_parser_allows_is_reported_at_its_own_line():
    # the stream reported the line its read had reached (the document's end here), not the attribute's
    data = HEAD + b'  <vendor note="' + b"x" * (11 << 20) + b'">PyTorch</vendor>\n' + TAIL
    path, line, message = _refusal(data)
    assert (path, line, message.split(":")[0]) == ("P.pdsc", 3, "not well-formed XML")


def test_an_empty_pdsc_after_a_refused_one_is_reported_as_empty_at_line_1():
    with pytest.raises(PdscError):
        parse_pdsc(HEAD + b"  <vendor>&foo;</vendor>\n" + TAIL, "Q.pdsc")
    assert _refusal(b"") == ("P.pdsc", 1, "not well-formed XML: Document is empty, line 1, column 1")


def test_content_after_the_root_is_reported_at_its_line():
    data = HEAD + b"  <vendor>PyTorch</vendor>\n" + TAIL + b"<package/>\n"
    line = (HEAD + b"  <vendor>PyTorch</vendor>\n" + TAIL).count(b"\n") + 1
    assert _refusal(data) == ("P.pdsc", line,
                              f"not well-formed XML: Extra content at the end of the document, line {line}, column 1")


def test_nesting_deeper_than_the_parser_allows_is_refused_at_its_line():
    data = HEAD + b"  <vendor>PyTorch</vendor>\n" + b"<x>" * 300 + b"</x>" * 300 + b"\n" + TAIL
    path, line, message = _refusal(data)
    assert (path, line, message.split(",")[0]) == ("P.pdsc", 4, "not well-formed XML: Excessive depth in document: 256")
