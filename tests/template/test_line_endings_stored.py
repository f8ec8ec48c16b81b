"""The bot's blobs are the ones ``git add`` would make: line-ending rules apply; assertions are on stored blobs.

A template whose ``.gitattributes`` says ``*.md text eol=crlf`` (or whose
runner clones with ``core.autocrlf=true``) has CRLF in the working tree and
LF in the repository.  The branch must store exactly what the same bump
stores without those rules: LF, differing from the base only on the edited
lines; and a later run has nothing to push.  A file the repository stores
with CRLF (no rule) keeps CRLF.
"""

from __future__ import annotations

import pytest

from fakegithub import git
from publishworld import World


@pytest.fixture
def world(plain, tmp_path, monkeypatch):
    w = World(tmp_path, monkeypatch)
    yield w
    w.fake.stop()


MD = ("README.md", "documentation/pack-provenance.md")


def _changed_lines(a: bytes, b: bytes) -> list[int]:
    la, lb = a.split(b"\n"), b.split(b"\n")
    assert len(la) == len(lb)
    return [i + 1 for i, (x, y) in enumerate(zip(la, lb)) if x != y]


@pytest.fixture(scope="module")
def plain(tmp_path_factory):
    """The stored blobs of the same bump on the template without any line-ending rule: {path: (base, branch)}."""
    with pytest.MonkeyPatch.context() as mp:
        w = World(tmp_path_factory.mktemp("plain"), mp)
        try:
            assert w.run()[0] == 0
            return {p: (w.blob("main", p), w.blob(w.head(), p)) for p in MD}
        finally:
            w.fake.stop()


def _assert_like_plain(world, plain, base_rev="main"):
    head = world.head()
    for path in MD:
        base, new = world.blob(base_rev, path), world.blob(head, path)
        assert b"\r" not in base and b"\r" not in new, path
        assert new == plain[path][1], path                       # the very bytes of the rule-less bump
        assert _changed_lines(base, new) == _changed_lines(*plain[path]) != [], path


def test_eol_crlf_attribute_stores_lf_and_changes_only_edited_lines(world, plain):
    world.commit_to_main({".gitattributes": b"*.md text eol=crlf\n"})
    co = world.checkout()
    assert (co / "README.md").read_bytes().count(b"\r\n") > 3            # the working tree has CRLF
    assert world.run(checkout=co)[0] == 0
    _assert_like_plain(world, plain)
    head = world.head()
    assert world.run()[0] == 0 and world.head() == head                  # a later run has nothing to push


@pytest.mark.parametrize("mode", ["git", "api"])
def test_core_autocrlf_clone_stores_lf(world, plain, mode):
    co = world.tmp / "autocrlf"
    git(world.tmp, "clone", "-q", "-c", "core.autocrlf=true", str(world.remote), str(co))
    assert b"\r\n" in (co / "README.md").read_bytes()
    assert world.run("--commit", mode, checkout=co)[0] == 0
    _assert_like_plain(world, plain)


def test_a_file_stored_with_crlf_keeps_crlf_on_every_line(world):
    co = world.checkout()
    text = (co / "README.md").read_bytes().replace(b"\n", b"\r\n")
    world.commit_to_main({"README.md": text})
    assert world.run()[0] == 0
    base, new = world.blob("main", "README.md"), world.blob(world.head(), "README.md")
    assert base == text
    assert new.count(b"\r\n") == new.count(b"\n") == base.count(b"\n")
    assert _changed_lines(base, new) == [9, 12, 13, 18]   # 18: the sample's | ExecuTorch | 1.4.0 | table row
