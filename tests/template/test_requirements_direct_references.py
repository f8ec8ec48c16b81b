"""Direct references in a requirement file (``name @ git+URL@REF``), asserted whole: a release tag
ref moves (with or without its ``v``), a commit, a branch or no ref is a blocking direct-reference
flag, a URL that is not a VCS reference is a url-requirement flag, a tag at the new value is left,
and a tag other than upstream's old value moves with a pin-was-different flag
(bot/template/requirements.py RequirementsManager._direct_reference)."""

from __future__ import annotations

from bot.model import Edit, Flag
from bot.template.requirements import RequirementsManager
from bot.textfile import TextDocument
from helpers import SAMPLE_BUMP, assert_flags

P = "requirements.txt"
ET = "git+https://github.com/pytorch/executorch.git"
LINES = [f"executorch @ {ET}@v1.4.0",
         "torch @ git+https://github.com/pytorch/pytorch.git@2.13.0",
         "torchao @ git+https://github.com/pytorch/ao.git@0123456789abcdef0123456789abcdef01234567",
         "ethos-u-vela @ git+https://example.com/vela.git@main",
         "tosa-tools @ git+https://example.com/tosa.git",
         "executorch @ https://example.com/executorch-1.4.0-py3-none-any.whl"]


def update(text: str):
    return RequirementsManager().update(TextDocument.from_bytes(P, text.encode()), SAMPLE_BUMP)


def test_each_kind_of_direct_reference_gives_a_whole_edit_or_flag():
    text = "\n".join(LINES) + "\n"
    result = update(text)
    assert result.edits == (
        Edit(P, 60, 65, "1.4.0", "1.5.1", 1, "requirement", "executorch direct reference tag (release tag v1.5.1)"),
        Edit(P, 117, 123, "2.13.0", "2.14.0", 2, "requirement",
             "torch direct reference tag (torch_pin.py TORCH_VERSION @ v1.5.1)"),
    )
    assert (text[60:65], text[117:123]) == ("1.4.0", "2.13.0")
    assert_flags(
        result.flags,
        Flag("direct-reference", "torchao is installed from the commit 0123456789abcdef0123456789abcdef01234567 of "
             "git+https://github.com/pytorch/ao.git; the bot cannot tell which release that is, so it was not moved "
             "to 0.19.0: pin a release tag (@v0.19.0) or ==, by hand", path=P, line=3, blocking=True),
        Flag("direct-reference", "ethos-u-vela is installed from the branch 'main' of git+https://example.com/vela.git;"
             " the bot cannot tell which release that is, so it was not moved to 5.2.0: pin a release tag (@v5.2.0) "
             "or ==, by hand", path=P, line=4, blocking=True),
        Flag("direct-reference", "tosa-tools is installed from the default branch of git+https://example.com/tosa.git; "
             "the bot cannot tell which release that is, so it was not moved to 2026.8.0: pin a release tag "
             "(@v2026.8.0) or ==, by hand", path=P, line=5, blocking=True),
        Flag("url-requirement", "executorch is installed from a URL or path; it was not changed to 1.5.1 (it names "
             "the old 1.4.0: move it by hand)", path=P, line=6, blocking=True),
    )


def test_a_tag_at_the_new_value_stays_and_another_old_tag_moves_with_a_flag():
    text = ("torch @ git+https://github.com/pytorch/pytorch.git@v2.12.0\n"
            "torchao @ git+https://github.com/pytorch/ao.git@v0.19.0\n")
    result = update(text)
    assert result.edits == (Edit(P, 52, 58, "2.12.0", "2.14.0", 1, "requirement",
                                 "torch direct reference tag (torch_pin.py TORCH_VERSION @ v1.5.1)"),)
    assert text[52:58] == "2.12.0"
    assert_flags(result.flags, Flag(
        "pin-was-different", "torch was pinned at the tag v2.12.0, not upstream's 2.13.0; it is moved to 2.14.0 too",
        path=P, line=1, blocking=False))


def test_the_tag_moved_is_the_one_on_the_requirements_line():
    # the same "@v1.4.0" in comments before and after the requirement is not edited
    text = f"# was {ET}@v1.4.0\nexecutorch @ {ET}@v1.4.0\n# see @v1.4.0\n"
    result = update(text)
    s = text.index("\n") + 1 + len(f"executorch @ {ET}@v")
    assert result.edits == (Edit(P, s, s + 5, "1.4.0", "1.5.1", 2, "requirement",
                                 "executorch direct reference tag (release tag v1.5.1)"),)
    assert result.flags == ()


def test_every_vcs_scheme_is_a_direct_reference():
    text = ("torch @ hg+https://example.com/torch@v2.13.0\ntorchao @ svn+https://example.com/ao@v0.18.0\n"
            "ethos-u-vela @ bzr+https://example.com/vela@v5.1.0\n")
    result = update(text)
    assert [(text[e.start:e.end], e.old, e.new, e.line) for e in result.edits] == [
        ("2.13.0", "2.13.0", "2.14.0", 1), ("0.18.0", "0.18.0", "0.19.0", 2), ("5.1.0", "5.1.0", "5.2.0", 3)]
    assert result.flags == ()
