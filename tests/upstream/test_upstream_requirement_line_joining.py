"""Upstream requirement files are joined into logical lines exactly as pip joins them
(pip's ``join_lines``): the same rules as the template's requirement files."""

from __future__ import annotations

import pytest

from bot.errors import UpstreamError
from bot.upstream.pinfiles import parse_requirement_file

PATH = "backends/arm/requirements-arm-ethos-u.txt"


def _pins(data: bytes):
    return [(r.name, r.version, r.line) for r in parse_requirement_file(data, PATH, "v1.5.1")]


def test_a_backslash_followed_by_spaces_continues_nothing():
    # pip reads "torch==2.14.0 \   " as it is (not a requirement): the bot names the line instead of
    # gluing the next line on as a continuation
    with pytest.raises(UpstreamError) as exc:
        _pins(b"ethos-u-vela==4.1.0\ntorch==2.14.0 \\   \ntorchao==0.19.0\n")
    assert (exc.value.path, exc.value.line) == (PATH, 2)
    assert str(exc.value).startswith(f"{PATH}:2: not a requirement @ v1.5.1: ")


def test_continued_pieces_are_joined_with_nothing_between_them():
    assert _pins(b"ethos-u-vela=\\\n=4.1.0\ntorch==2.14.0\n") == [("ethos-u-vela", "4.1.0", 1), ("torch", "2.14.0", 3)]


def test_a_comment_line_ending_in_a_backslash_continues_nothing():
    assert _pins(b"# pins \\\ntorch==2.14.0\n") == [("torch", "2.14.0", 2)]


def test_a_comment_line_inside_a_continuation_ends_it():
    assert _pins(b"torch==2.14.0 \\\n# a note\ntorchao==0.19.0\n") == [("torch", "2.14.0", 1), ("torchao", "0.19.0", 3)]


def test_a_backslash_on_the_last_line_keeps_the_line():
    assert _pins(b"torchao==0.19.0\ntorch==2.14.0 \\") == [("torchao", "0.19.0", 1), ("torch", "2.14.0", 2)]


def test_lone_cr_line_breaks_end_lines():
    assert _pins(b"torch==2.14.0\rtorchao==0.19.0\r") == [("torch", "2.14.0", 1), ("torchao", "0.19.0", 2)]
