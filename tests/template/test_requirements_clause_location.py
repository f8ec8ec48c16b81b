"""Where the requirements manager finds a pin's version in the text: only in the version specifier
(never in the environment marker, even one whose quoted value holds ``;``), and the whole error when
the clauses found do not agree with what ``packaging`` parsed."""

from __future__ import annotations

import pytest
from packaging.requirements import Requirement

from bot.template.interface import ManagerError
from bot.template.pipjoin import logical_lines as _logical_lines
from bot.template.requirements import RequirementsManager, _clauses
from bot.textfile import TextDocument
from helpers import SAMPLE_BUMP, assert_manager_error

M = RequirementsManager()


def test_a_semicolon_inside_a_quoted_marker_value_does_not_extend_the_specifier():
    raw = b'torch==2.13.0 ; python_version >= "3.8" and platform_release != "a;b"\n'
    doc = TextDocument.from_bytes("requirements.txt", raw)
    result = M.update(doc, SAMPLE_BUMP)
    assert [(e.start, e.end, e.old, e.new, e.line) for e in result.edits] == [(7, 13, "2.13.0", "2.14.0", 1)]
    assert result.flags == ()
    new = doc.apply(result.edits)
    assert new == raw.replace(b"2.13.0", b"2.14.0")
    M.check(doc, TextDocument.from_bytes("requirements.txt", new), list(result.edits))


def test_clauses_that_disagree_with_the_parsed_specifier_are_a_whole_error():
    text = "torch==2.13.0\n"
    doc = TextDocument.from_bytes("env/requirements.txt", text.encode())
    (line, logical, pieces), = list(_logical_lines(doc.text))
    with pytest.raises(ManagerError) as info:
        _clauses(doc, Requirement("torch==2.14.0"), "torch==2.13.0", 0, pieces, 3)
    assert_manager_error(info, "env/requirements.txt", 3,
                         "cannot locate the version clauses of 'torch==2.13.0' in the text")
