"""Which files' text the accounting searches (docs/mentions.md): every loaded template file and every other text
file of the scan, decoded as UTF-8 (a BOM dropped) or else Latin-1; a file that is binary (a NUL byte in its first
8 KiB) or holds no tracked version is passed over; a file that could not be read was never a candidate."""

from __future__ import annotations

import pytest

from bot.engine.mentions import account
from helpers import minor_bump
from mentionkit import rows, template


def _rows(others):
    return rows(account(template(others=others), minor_bump(), [], []))


def _item(path, line, column, text, version="1.4.0"):
    return (path, line, column, version, "ExecuTorch", "review", "review-mention", text)


def test_a_utf8_file_with_a_bom_and_a_latin1_file_are_read():
    assert _rows({"a.txt": "\ufeffbuild 1.4.0\n".encode("utf-8"), "b.txt": "caf\xe9 1.4.0\n".encode("latin-1")}) == [
        _item("a.txt", 1, 7, "build 1.4.0"), _item("b.txt", 1, 6, "caf\xe9 1.4.0")]


@pytest.mark.parametrize("raw", [
    None,                               # could not be read: nothing to search
    b"no version here\n",               # no tracked version
    b"1,4,0 and 140\n",                 # no "." at all
    b"\0" + b"1.4.0\n",                 # binary: NUL at the start
    b"x" * 8191 + b"\0" + b" 1.4.0\n",  # binary: NUL at the last byte of the first 8 KiB
])
def test_a_file_with_nothing_to_find_or_binary_is_passed_over(raw):
    assert _rows({"f.bin": raw}) == []


def test_a_nul_byte_after_the_first_8_kib_does_not_make_a_file_binary():
    raw = b"x" * 8192 + b"\0 1.4.0\n"
    assert _rows({"f.txt": raw}) == [_item("f.txt", 1, 8195, "x" * 157 + "...")]


@pytest.mark.parametrize("text, found", [
    ("v 1.4\n", [_item("f.txt", 1, 3, "v 1.4", "1.4")]),          # major.minor alone
    ("torch 2.13.0\n", [("f.txt", 1, 7, "2.13.0", "torch", "review", "review-mention", "torch 2.13.0")]),
    ("old 1.2.3\n", [_item("f.txt", 1, 5, "old 1.2.3", "1.2.3")]),  # an earlier release: only its major matches
    ("old 2.2.3\n", []),
])
def test_each_needle_finds_its_file(text, found):
    assert _rows({"f.txt": text}) == found
    assert rows(account(template(files={"f.txt": text}), minor_bump(), [], [])) == found


def test_a_file_without_a_needle_is_not_searched_even_if_a_look_alike_is_there():
    assert _rows({"f.txt": "11.4.0 and 2.0.0\n", "g.txt": "1.4.0\n"}) == [_item("g.txt", 1, 1, "1.4.0")]


def test_a_file_passed_over_does_not_end_the_search_of_the_next_ones():
    assert _rows({"a.bin": None, "b.txt": "no dot\n", "c.txt": "v1 and 2.0\n", "d.bin": b"\0 1.4.0\n",
                  "e.txt": "1.4.0\n"}) == [_item("e.txt", 1, 1, "1.4.0")]
