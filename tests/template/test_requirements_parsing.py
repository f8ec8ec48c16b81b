"""How a requirement file is read, following pip's requirement-file rules (pip/_internal/req/req_file.py):
logical lines, continuations over several lines, option and URL lines, and the findings reported."""

from __future__ import annotations

import pytest

from bot.model import Finding
from bot.template.interface import ManagerError
from bot.template.requirements import RequirementsManager, parse
from bot.textfile import TextDocument
from helpers import SAMPLE_BUMP

M = RequirementsManager()
PATH = "requirements.txt"


def run(raw: bytes):
    doc = TextDocument.from_bytes(PATH, raw)
    result = M.update(doc, SAMPLE_BUMP)
    new = doc.apply(result.edits)
    M.check(doc, TextDocument.from_bytes(PATH, new), list(result.edits))
    return result, new


def test_every_logical_line_is_an_entry_with_its_line_kind_and_text():
    raw = (b"# header\n"
           b"-r base.txt\n"
           b"\n"
           b"git+https://example.invalid/org/numpy.git@v2 --hash=sha256:aa\n"
           b"pkg @ https://example.invalid/pkg.whl --hash=sha256:cc\n"
           b"torch==2.13.0 \\\n"
           b"    --hash=sha256:bb  # pinned\n")
    entries = parse(TextDocument.from_bytes(PATH, raw))
    assert [(e.line, e.kind, e.text, e.hashed, e.name) for e in entries] == [
        (2, "option", "-r base.txt", False, None),
        (4, "url", "git+https://example.invalid/org/numpy.git@v2 --hash=sha256:aa", True, None),
        (5, "url", "pkg @ https://example.invalid/pkg.whl --hash=sha256:cc", True, "pkg"),
        (6, "requirement", "torch==2.13.0     --hash=sha256:bb", True, "torch"),
    ]


def test_extract_gives_whole_findings():
    raw = b"numpy\ntorch == 2.13.0 ; sys_platform == 'linux'\ntorchao>=0.18,<0.20\n"
    assert M.extract(TextDocument.from_bytes(PATH, raw)) == [
        Finding(path=PATH, line=2, kind="requirement", name="torch", version="2.13.0", exact=True,
                text="torch == 2.13.0 ; sys_platform == 'linux'"),
        Finding(path=PATH, line=3, kind="requirement", name="torchao", version=">=0.18,<0.20", exact=False,
                text="torchao>=0.18,<0.20"),
    ]


def test_two_continued_requirements_in_one_file_are_both_bumped():
    raw = b"torch==2.13.0 \\\n    ; python_version > '3'\nexecutorch \\\n    ==1.4.0\n"
    result, new = run(raw)
    assert new == b"torch==2.14.0 \\\n    ; python_version > '3'\nexecutorch \\\n    ==1.5.1\n"
    assert [(e.line, e.start, e.end) for e in result.edits] == [(1, 7, 13), (4, 62, 67)]


def test_a_version_after_two_continuations_is_located_exactly():
    raw = b"torch \\\n    \\\n    ==2.13.0\n"
    result, new = run(raw)
    assert [(e.line, e.start, e.end, e.old) for e in result.edits] == [(3, 20, 26, "2.13.0")]
    assert new == b"torch \\\n    \\\n    ==2.14.0\n"


def test_a_continued_line_starting_with_a_capital_letter_keeps_its_text():
    raw = b"XlsxWriter==3.2.0 \\\n    ; python_version > '3'\ntorch==2.13.0\n"
    result, new = run(raw)
    assert new == b"XlsxWriter==3.2.0 \\\n    ; python_version > '3'\ntorch==2.14.0\n"
    assert [e.name for e in parse(TextDocument.from_bytes(PATH, raw))] == ["xlsxwriter", "torch"]


def test_an_arbitrary_equality_pin_ending_in_a_capital_letter_is_replaced_whole():
    result, new = run(b"torch===2.13.0X\n")
    assert new == b"torch===2.14.0\n"
    assert [(e.start, e.end, e.old) for e in result.edits] == [(8, 15, "2.13.0X")]


def test_an_unparsable_requirement_before_its_options_is_named_without_trailing_space():
    doc = TextDocument.from_bytes(PATH, b"numpy==2.1.0\ntorch>=>1  --hash=sha256:aa\n")
    with pytest.raises(ManagerError) as info:
        M.update(doc, SAMPLE_BUMP)
    assert (info.value.path, info.value.line) == (PATH, 2)
    assert info.value.message.startswith("cannot parse requirement 'torch>=>1': ")


@pytest.mark.parametrize("relpath, matched", [
    ("py/lib/requirements/dev.txt", True),
    ("requirements/base.in", True),
    ("requirements/base.cfg", False),
    ("docs/dev.txt", False),
])
def test_a_file_in_a_requirements_folder_at_any_depth_is_a_requirement_file(relpath, matched):
    assert M.matches(relpath) is matched


def test_a_backslash_followed_by_a_space_does_not_continue_the_line():
    # pip continues a line only when its last character is the backslash
    doc = TextDocument.from_bytes(PATH, b"torch==2.13.0 \\ \nexecutorch==1.4.0\n")
    with pytest.raises(ManagerError) as info:
        M.update(doc, SAMPLE_BUMP)
    assert (info.value.path, info.value.line) == (PATH, 1)
    assert info.value.message.startswith("cannot parse requirement 'torch==2.13.0 \\\\': ")


def test_a_continued_line_starting_with_a_backslash_keeps_the_version_span():
    raw = b"torch \\\n\\==2.13.0 \\\n\nnumpy\n"
    result, new = run(raw)
    assert [(e.line, e.start, e.end, e.old) for e in result.edits] == [(2, 11, 17, "2.13.0")]
    assert new == b"torch \\\n\\==2.14.0 \\\n\nnumpy\n"
