"""The requirements manager's re-parse of an edited file (``check``): which planned edits it accepts,
and the whole error (file, line, exit code, message) for each edit it refuses."""

from __future__ import annotations

import pytest

from bot.model import Edit
from bot.template.interface import ManagerError
from bot.template.requirements import RequirementsManager
from bot.textfile import TextDocument
from helpers import assert_manager_error

M = RequirementsManager()
PATH = "py/requirements.txt"


def edit_at(doc: TextDocument, start: int, end: int, new: str) -> Edit:
    return Edit(path=doc.path, start=start, end=end, old=doc.text[start:end], new=new,
                line=doc.line_of(start), kind="requirement", why="test")


def check(raw: bytes, find: str, length: int, new: str, *, offset: int = 0):
    """Plan one edit of ``length`` characters at ``find`` (+ ``offset``) writing ``new``; run check."""
    before = TextDocument.from_bytes(PATH, raw)
    start = before.text.index(find) + offset
    ed = edit_at(before, start, start + length, new)
    after = TextDocument.from_bytes(PATH, before.apply([ed]))
    M.check(before, after, [ed])
    return ed


def refused(raw: bytes, find: str, length: int, new: str, *, offset: int = 0):
    with pytest.raises(ManagerError) as info:
        check(raw, find, length, new, offset=offset)
    return info


def test_an_arbitrary_equality_version_that_is_not_pep440_is_accepted():
    check(b"torch===2.13.0-custom\n", "2.13.0-custom", 13, "2.14.0-custom-X")


def test_an_exact_version_with_a_wildcard_is_refused():
    info = refused(b"numpy==2.1.0\ntorch==2.13.0\n", "2.13.0", 6, "2.14.*")
    assert_manager_error(info, PATH, 2, "a planned edit ('2.13.0' -> '2.14.*') does not replace just the "
                         "version of torch")


def test_an_arbitrary_equality_version_with_a_comment_is_refused():
    info = refused(b"torch===2.13.0\n", "2.13.0", 6, "2.14.0 #x")
    assert_manager_error(info, PATH, 1, "a planned edit ('2.13.0' -> '2.14.0 #x') does not replace just the "
                         "version of torch")


def test_an_edit_of_the_operator_just_before_the_version_is_a_changed_line():
    info = refused(b"torch==2.13.0\n", "==", 2, ">=")
    assert_manager_error(info, PATH, 1, "after the edits the line reads 'torch>=2.13.0', which is not the "
                         "planned change of 'torch==2.13.0'; nothing written")


def test_an_insertion_just_after_the_version_is_a_changed_line():
    info = refused(b"torch==2.13.0\n", "2.13.0", 0, ".1", offset=6)
    assert_manager_error(info, PATH, 1, "after the edits the line reads 'torch==2.13.0.1', which is not the "
                         "planned change of 'torch==2.13.0'; nothing written")


def test_an_edit_that_breaks_the_file_is_a_whole_error_on_the_edited_file():
    info = refused(b"numpy==2.1.0\ntorch==2.13.0\n", "2.13.0", 6, "2.14.0 ; x")
    err = info.value
    assert (err.path, err.line, err.exit_code) == (PATH, 2, 2)
    assert err.message.startswith("the edited file no longer parses: cannot parse requirement 'torch==2.14.0 ; x': ")


def test_a_lost_line_is_a_whole_error_naming_the_file():
    before = TextDocument.from_bytes(PATH, b"torch==2.13.0\nnumpy==2.1.0\n")
    after = TextDocument.from_bytes(PATH, b"torch==2.14.0\n")
    with pytest.raises(ManagerError) as info:
        M.check(before, after, [])
    assert_manager_error(info, PATH, None, "the edited file has 1 requirement/option lines instead of 2; "
                         "nothing written")


def test_a_range_line_left_alone_passes_the_check():
    raw = b"torch>=2.12,<2.15\nexecutorch==1.4.0\n"
    check(raw, "1.4.0", 5, "1.5.1")
