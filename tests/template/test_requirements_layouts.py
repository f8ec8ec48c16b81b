"""Requirement-file layouts around the pins: URL-installed packages between pins, continued lines,
a last line ending in a backslash, ``-e`` VCS option lines, and the re-parse check of a planned edit."""

from __future__ import annotations

import pytest

from bot.model import Edit, Flag
from bot.template.interface import ManagerError
from bot.template.requirements import RequirementsManager, _option_package
from bot.textfile import TextDocument
from helpers import SAMPLE_BUMP

M = RequirementsManager()


def bump(raw: bytes, path: str = "requirements.txt"):
    doc = TextDocument.from_bytes(path, raw)
    result = M.update(doc, SAMPLE_BUMP)
    new = doc.apply(result.edits)
    M.check(doc, TextDocument.from_bytes(path, new), list(result.edits))
    return [(e.line, e.old, e.new, e.start, e.end) for e in result.edits], list(result.flags), new


def test_pins_after_a_url_installed_package_are_still_bumped():
    raw = (b"executorch @ file:///opt/wheels/executorch.whl\n"
           b"torch==2.13.0\n"
           b"torchao==0.18.0\n")
    edits, flags, new = bump(raw)
    assert edits == [(2, "2.13.0", "2.14.0", 54, 60), (3, "0.18.0", "0.19.0", 70, 76)]
    assert flags == [Flag("url-requirement", "executorch is installed from a URL or path; it was not "
                          "changed to 1.5.1", path="requirements.txt", line=1, blocking=False)]
    assert new == (b"executorch @ file:///opt/wheels/executorch.whl\ntorch==2.14.0\ntorchao==0.19.0\n")


def test_pins_after_an_editable_option_line_are_still_bumped():
    raw = (b"-e ./vendor/executorch#egg=executorch\n"
           b"torch==2.13.0\n"
           b"ethos-u-vela==5.1.0\n")
    edits, flags, new = bump(raw)
    assert [e[:3] for e in edits] == [(2, "2.13.0", "2.14.0"), (3, "5.1.0", "5.2.0")]
    assert flags == [Flag("url-requirement", "executorch is installed by the option line "
                          "'-e ./vendor/executorch#egg=executorch'; it was not changed to 1.5.1",
                          path="requirements.txt", line=1, blocking=False)]
    assert new == b"-e ./vendor/executorch#egg=executorch\ntorch==2.14.0\nethos-u-vela==5.2.0\n"


@pytest.mark.parametrize("raw, want_edits, want", [
    # the version clause on the continued line
    (b"torch \\\n==2.13.0\ntorchao==0.18.0\n",
     [(2, "2.13.0", "2.14.0", 10, 16), (3, "0.18.0", "0.19.0", 26, 32)],
     b"torch \\\n==2.14.0\ntorchao==0.19.0\n"),
    # the operator before the backslash, the version after it
    (b"torch==\\\n2.13.0\n", [(2, "2.13.0", "2.14.0", 9, 15)], b"torch==\\\n2.14.0\n"),
    # CRLF continuation
    (b"torch \\\r\n  ==2.13.0\r\n", [(2, "2.13.0", "2.14.0", 13, 19)], b"torch \\\r\n  ==2.14.0\r\n"),
    # a last line ending in a backslash, with and without a space before it
    (b"torchao==0.18.0 \\", [(1, "0.18.0", "0.19.0", 9, 15)], b"torchao==0.19.0 \\"),
    (b"torch==2.13.0\\", [(1, "2.13.0", "2.14.0", 7, 13)], b"torch==2.14.0\\"),
])
def test_versions_on_continued_lines_are_located_exactly(raw, want_edits, want):
    edits, flags, new = bump(raw)
    assert (edits, flags, new) == (want_edits, [], want)


@pytest.mark.parametrize("raw, line", [
    (b"numpy==2.1.0\ntorch==2.1\\\n3.0\n", 2),
    (b"torch==2.13\\\n.0\n", 1),
])
def test_a_version_split_across_lines_is_an_error_naming_the_line(raw, line):
    doc = TextDocument.from_bytes("requirements.txt", raw)
    with pytest.raises(ManagerError) as info:
        M.update(doc, SAMPLE_BUMP)
    err = info.value
    assert (err.path, err.line, err.exit_code) == ("requirements.txt", line, 2)
    assert err.message == "the version of torch is split across lines; this layout is not supported"


@pytest.mark.parametrize("option, package", [
    ("-e git+https://github.com/pytorch/executorch.git@v1.4.0", "executorch"),
    ("-e git+https://github.com/pytorch/executorch@main", "executorch"),
    ("--editable=git+https://example.invalid/org/executorch.git/", "executorch"),
    ("--editable git+https://example.invalid/org/executorch.git@v1.4.0#subdirectory=py", "executorch"),
    ("-egit+https://example.invalid/org/torchao.git", "torchao"),
    ("-e git+https://example.invalid/org/other.git#egg=executorch", "executorch"),
    ("-e git+https://example.invalid/org/x.git#subdirectory=a&egg=torch", "torch"),
    ("-e ./executorch", None),
    ("-e executorch", None),
    ("-r other.txt", None),
    ("--extra-index-url https://example.invalid/executorch", None),
])
def test_editable_vcs_option_lines_name_their_package(option, package):
    assert _option_package(option) == package


def test_an_editable_vcs_url_without_egg_is_flagged_and_later_pins_move():
    raw = b"-e git+https://github.com/pytorch/executorch.git@v1.4.0\ntorch==2.13.0\n"
    edits, flags, new = bump(raw)
    assert [e[:3] for e in edits] == [(2, "2.13.0", "2.14.0")]
    assert flags == [Flag("url-requirement", "executorch is installed by the option line "
                          "'-e git+https://github.com/pytorch/executorch.git@v1.4.0'; it was not "
                          "changed to 1.5.1 (it names the old 1.4.0: move it by hand)", path="requirements.txt",
                          line=1, blocking=True)]


def _edit(doc, start, end, new):
    return Edit(path=doc.path, start=start, end=end, old=doc.text[start:end], new=new,
                line=doc.line_of(start), kind="requirement", why="test")


@pytest.mark.parametrize("new_version", ["2.14", "not-a-version", "2.14.0 ; x"])
def test_check_refuses_an_edit_whose_new_version_is_not_pep440(new_version):
    before = TextDocument.from_bytes("requirements.txt", b"numpy==2.1.0\ntorch==2.13.0\n")
    start = before.text.index("2.13.0")
    ed = _edit(before, start, start + 6, new_version)
    after = TextDocument.from_bytes("requirements.txt", before.apply([ed]))
    if new_version == "2.14":      # valid PEP 440: accepted, the clause now reads ==2.14
        M.check(before, after, [ed])
        return
    with pytest.raises(ManagerError) as info:
        M.check(before, after, [ed])
    assert (info.value.path, info.value.line) in {("requirements.txt", 2)}


def test_check_refuses_an_edit_that_cuts_across_a_version_clause():
    before = TextDocument.from_bytes("requirements.txt", b"torch==2.13.0\n")
    ed = _edit(before, 5, 9, "==2.14")      # '==2.' -> '==2.14': covers the operator too
    after = TextDocument.from_bytes("requirements.txt", before.apply([ed]))
    with pytest.raises(ManagerError) as info:
        M.check(before, after, [ed])
    assert (info.value.path, info.value.line) == ("requirements.txt", 1)
    assert info.value.message == "a planned edit ('==2.' -> '==2.14') does not replace just the version of torch"


def test_check_refuses_a_changed_marker():
    before = TextDocument.from_bytes("requirements.txt", b'torch==2.13.0 ; sys_platform == "linux"\n')
    s = before.text.index("linux")
    ed = Edit(path="requirements.txt", start=s, end=s + 5, old="linux", new="win32", line=1,
              kind="requirement", why="test")
    after = TextDocument.from_bytes("requirements.txt", before.apply([ed]))
    with pytest.raises(ManagerError) as info:
        M.check(before, after, [ed])
    assert (info.value.path, info.value.line) == ("requirements.txt", 1)
    assert "not the planned change" in info.value.message


def test_check_refuses_a_lost_line():
    before = TextDocument.from_bytes("requirements.txt", b"torch==2.13.0\nnumpy==2.1.0\n")
    after = TextDocument.from_bytes("requirements.txt", b"torch==2.14.0\n")
    with pytest.raises(ManagerError) as info:
        M.check(before, after, [])
    assert info.value.message == ("the edited file has 1 requirement/option lines instead of 2; "
                                  "nothing written")
