"""ExecuTorch pinned by commit: the SHA moves to the commit of the target tag, read from upstream (annotated
tags peeled), together with the release its comment names; a pin the bot cannot move is a blocking item naming
its line; ``audit`` flags a commit whose comment names another release than the pins.

Shapes: CMake ``FetchContent_Declare`` ``GIT_TAG <sha>  # v1.4.0`` (and a ``GIT_TAG v1.4.0`` tag), git commands
in scripts (``git checkout``, ``git fetch origin``, ``git reset --hard``, ``--branch``), a workflow's
``ref: <sha>`` in a step on pytorch/executorch and ``uses: pytorch/executorch/...@<sha>``.
"""

from __future__ import annotations

import subprocess

import pytest

from bot.errors import UpstreamError
from bot.sample import build_upstream_repo, git_env
from bot.upstream.git import GitSource
from bot.upstream.source import DirectorySource
from mentionkit import PINS, audit_json, edits, flags, update_json, write


@pytest.fixture(scope="module")
def upstream(tmp_path_factory):
    """A bare upstream with annotated tags v1.4.0 and v1.5.1: (path, commit of v1.4.0, commit of v1.5.1)."""
    repo = build_upstream_repo(tmp_path_factory.mktemp("up") / "executorch.git", bare=True)
    return repo, _git(repo, "rev-parse", "v1.4.0^{commit}"), _git(repo, "rev-parse", "v1.5.1^{commit}")


def _git(repo, *args):
    return subprocess.run(["git", f"--git-dir={repo}", *args], env=git_env(), check=True, capture_output=True,
                          text=True).stdout.strip()


def _cmake(sha: str, comment: str = "  # v1.4.0", name: str = "executorch") -> str:
    return (f"include(FetchContent)\nFetchContent_Declare(\n  {name}\n"
            f"  GIT_REPOSITORY https://github.com/pytorch/{name}.git\n  GIT_TAG {sha}{comment}\n)\n")


def _plan(tmp_path, upstream_path, capsys, files, *extra):
    repo = write(tmp_path / "t", files)
    return repo, update_json(capsys, repo, upstream_path, *extra)


def test_a_fetchcontent_sha_moves_to_the_target_tags_commit_with_its_comment(tmp_path, upstream, capsys):
    up, c14, c15 = upstream
    repo, (code, data) = _plan(tmp_path, up, capsys, {"CMakeLists.txt": _cmake(c14)})
    assert code == 0, data
    assert edits(data) == [("CMakeLists.txt", 5, c14, c15), ("CMakeLists.txt", 5, "1.4.0", "1.5.1")] + PINS
    assert flags(data) == []
    assert (repo / "CMakeLists.txt").read_text() == _cmake(c15, "  # v1.5.1")
    assert [(i["version"], i["bucket"]) for i in data["mentions"]["items"] if i["path"] == "CMakeLists.txt"] == [
        ("1.4.0", "moved")]
    # the next run finds the template on the target: nothing to move, nothing to list
    code, again = update_json(capsys, repo, up, "--dry-run")
    assert code == 0 and again["edits"] == [] and flags(again) == []


@pytest.mark.parametrize("script, n", [
    ("git clone https://github.com/pytorch/executorch.git\ncd executorch\ngit checkout {s12}  # v1.4.0\n", 12),
    ("git -C executorch fetch --depth 1 origin {s40} # ExecuTorch v1.4.0\n", 40),
    ("cd executorch && git reset --hard {s40}  # 1.4.0\n", 40),
    ("git clone --branch {s40} https://github.com/pytorch/executorch.git  # v1.4.0\n", 40),
])
def test_a_sha_in_a_script_moves_written_as_long_as_before(tmp_path, upstream, capsys, script, n):
    up, c14, c15 = upstream
    text = "#!/bin/sh\n" + script.format(s12=c14[:12], s40=c14)
    repo, (code, data) = _plan(tmp_path, up, capsys, {"setup.sh": text})
    assert code == 0, data
    line = text.count("\n", 0, text.index(c14[:n])) + 1
    assert edits(data) == PINS + [("setup.sh", line, c14[:n], c15[:n]), ("setup.sh", line, "1.4.0", "1.5.1")]
    assert flags(data) == []
    assert (repo / "setup.sh").read_text() == text.replace(c14[:n], c15[:n]).replace("1.4.0", "1.5.1")


def test_a_workflow_ref_and_a_uses_sha_move(tmp_path, upstream, capsys):
    up, c14, c15 = upstream
    wf = ("on: push\njobs:\n  b:\n    runs-on: ubuntu-latest\n    steps:\n"
          f"      - uses: pytorch/executorch/.github/actions/setup@{c14}  # v1.4.0\n"
          "      - uses: actions/checkout@v4\n        with:\n          repository: pytorch/executorch\n"
          f"          ref: {c14}  # v1.4.0\n"
          "      - uses: actions/checkout@v4\n        with:\n          repository: acme/other\n"
          f"          ref: {c14}  # v1.4.0\n")
    repo, (code, data) = _plan(tmp_path, up, capsys, {".github/workflows/b.yml": wf})
    assert code == 0, data
    path = ".github/workflows/b.yml"
    assert edits(data) == [(path, 6, c14, c15), (path, 6, "1.4.0", "1.5.1"), (path, 10, c14, c15),
                           (path, 10, "1.4.0", "1.5.1")] + PINS
    # another repository's checkout is not ExecuTorch's pin: left alone, its comment for review
    assert [(f[0], f[2]) for f in flags(data)] == [("review-mention", 14)]


def test_a_release_tag_in_a_fetchcontent_block_moves(tmp_path, upstream, capsys):
    up, _, _ = upstream
    _, (code, data) = _plan(tmp_path, up, capsys, {"CMakeLists.txt": _cmake("v1.4.0", "")})
    assert code == 0 and edits(data) == [("CMakeLists.txt", 5, "1.4.0", "1.5.1")] + PINS and flags(data) == []


def test_another_projects_sha_and_a_commented_out_one_stay(tmp_path, upstream, capsys):
    up, c14, _ = upstream
    text = _cmake(c14, "", name="flatbuffers") + _cmake("v1.4.0", "").replace("  GIT_TAG", f"  # GIT_TAG {c14}\n  GIT_TAG")
    _, (code, data) = _plan(tmp_path, up, capsys, {"CMakeLists.txt": text})
    assert code == 0 and edits(data) == [("CMakeLists.txt", 12, "1.4.0", "1.5.1")] + PINS
    assert flags(data) == []


def test_a_sha_with_no_comment_moves_when_it_is_the_current_tags_commit(tmp_path, upstream, capsys):
    up, c14, c15 = upstream
    _, (code, data) = _plan(tmp_path, up, capsys, {"CMakeLists.txt": _cmake(c14, "")})
    assert code == 0 and edits(data) == [("CMakeLists.txt", 5, c14, c15)] + PINS and flags(data) == []


def test_an_unknown_sha_with_no_comment_is_a_blocking_item_naming_the_line(tmp_path, upstream, capsys):
    up, c14, c15 = upstream
    sha = "a" * 39 + "1"
    repo, (code, data) = _plan(tmp_path, up, capsys, {"CMakeLists.txt": _cmake(sha, "")})
    assert code == 1
    assert flags(data, "commit-pin") == [("commit-pin", "CMakeLists.txt", 5, True)]
    msg = [f["message"] for f in data["flags"] if f["code"] == "commit-pin"][0]
    assert msg == (f"ExecuTorch is pinned by commit here (GIT_TAG {sha[:12]}) with no release in a comment, and it "
                   f"is not the commit of v1.4.0 ({c14[:12]}): the bot cannot tell which release it is; pin the "
                   f"commit of v1.5.1 ({c15}) by hand, with a `# v1.5.1` comment")
    assert (repo / "CMakeLists.txt").read_text() == _cmake(sha, "") and not data["written"]


def test_a_sha_whose_comment_or_commit_is_not_the_current_release_moves_with_an_item(tmp_path, upstream, capsys):
    up, c14, c15 = upstream
    other = "b" * 39 + "2"
    files = {"CMakeLists.txt": _cmake(c14, "  # v1.3.0"), "setup.sh": f"cd executorch\ngit checkout {other}  # v1.4.0\n"}
    _, (code, data) = _plan(tmp_path, up, capsys, files)
    assert code == 0, data
    assert edits(data) == [("CMakeLists.txt", 5, c14, c15), ("CMakeLists.txt", 5, "1.3.0", "1.5.1")] + PINS + [
        ("setup.sh", 2, other, c15), ("setup.sh", 2, "1.4.0", "1.5.1")]
    drift = [(f["path"], f["line"], f["blocking"], f["message"]) for f in data["flags"]
             if f["code"] == "script-pin-drift"]
    assert drift == [
        ("CMakeLists.txt", 5, False, f"GIT_TAG {c14[:12]} (# 1.3.0): the comment names 1.3.0, not the current "
                                     "1.4.0; moved to the commit of v1.5.1 too"),
        ("setup.sh", 2, False, f"git checkout {other[:12]} (# 1.4.0): not the commit of v1.4.0 ({c14[:12]}) its "
                               "comment names; moved to the commit of v1.5.1 too")]


def test_a_source_that_cannot_tell_the_commit_makes_a_blocking_item(tmp_path, tags, capsys):
    """A plain directory of tag folders has no commits: the pin is not guessed, the line is named."""
    repo, (code, data) = _plan(tmp_path, tags, capsys, {"CMakeLists.txt": _cmake("c" * 39 + "3")})
    assert code == 1
    assert flags(data, "commit-pin") == [("commit-pin", "CMakeLists.txt", 5, True)]
    msg = [f["message"] for f in data["flags"] if f["code"] == "commit-pin"][0]
    assert msg.startswith(f"ExecuTorch is pinned by commit here (GIT_TAG {'c' * 12} (# 1.4.0)); the bot could not "
                          "read the commit of v1.5.1 from upstream (")
    assert f"directory {tags} cannot tell which commit v1.5.1 names" in msg
    assert edits(data) == PINS and not data["written"]
    # the comment's release is listed once, by the commit-pin item, not again as a review-mention
    assert flags(data, "review-mention") == []
    assert [(i["line"], i["version"], i["bucket"], i["rule"]) for i in data["mentions"]["items"]
            if i["path"] == "CMakeLists.txt"] == [(5, "1.4.0", "review", "commit-pin")]


def test_audit_flags_a_commit_whose_comment_names_another_release(tmp_path, upstream, capsys):
    up, c14, _ = upstream
    repo = write(tmp_path / "a", {"CMakeLists.txt": _cmake(c14, "  # v1.3.0")})
    code, data = audit_json(capsys, repo)
    assert code == 1
    assert flags(data, "commit-pin") == [("commit-pin", "CMakeLists.txt", 5, True)]
    good = write(tmp_path / "b", {"CMakeLists.txt": _cmake(c14)})
    code, data = audit_json(capsys, good)
    assert code == 0 and flags(data) == []
    assert data["mentions"]["counts"] == {"moved": 3, "history": 0, "other": 0, "review": 0}
    bare = write(tmp_path / "c", {"CMakeLists.txt": _cmake(c14, "")})
    code, data = audit_json(capsys, bare)
    assert code == 0 and flags(data) == [("commit-pin", "CMakeLists.txt", 5, False)]


def test_git_source_peels_annotated_and_nested_tags(tmp_path, upstream):
    repo = build_upstream_repo(tmp_path / "executorch.git", bare=True)
    _git(repo, "tag", "-a", "-m", "nested", "v1.6.0", "v1.5.1")
    _git(repo, "tag", "v1.7.0", "v1.4.0^{commit}")
    _git(repo, "tag", "-a", "-m", "tree", "v2.0.0", "v1.5.1^{tree}")
    with GitSource(repo) as src:
        c15 = _git(repo, "rev-parse", "v1.5.1^{commit}")
        assert _git(repo, "cat-file", "-t", "v1.5.1") == "tag"      # annotated: the tag object is not the commit
        assert src.tag_commit("v1.5.1") == c15 != _git(repo, "rev-parse", "v1.5.1")
        assert src.tag_commit("v1.6.0") == c15
        assert src.tag_commit("v1.7.0") == _git(repo, "rev-parse", "v1.4.0^{commit}")
        with pytest.raises(UpstreamError, match="'v2.0.0' does not exist"):
            src.tag_commit("v2.0.0")
        with pytest.raises(UpstreamError, match="'v9.9.9' does not exist"):
            src.tag_commit("v9.9.9")


def test_a_directory_source_cannot_tell_a_commit(tags):
    assert DirectorySource(tags).tag_commit("v1.5.1") is None
