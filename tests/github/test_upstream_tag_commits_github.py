"""The commit a release tag names, read through GitHub's Git Data API: ``GET /git/ref/tags/TAG``, then
``GET /git/tags/SHA`` while the object is an annotated tag (GitHub REST docs, "Get a reference", "Get a tag").
The fake serves both from a bare repository; a template pinned by commit is bumped through it."""

from __future__ import annotations

import subprocess

import pytest

from bot.errors import UpstreamError
from bot.sample import build_upstream_repo, git_env
from fakegithub import UPSTREAM, add_sample_release
from github_world import source


def _git(repo, *args):
    return subprocess.run(["git", f"--git-dir={repo}", *args], env=git_env(), check=True, capture_output=True,
                          text=True).stdout.strip()


@pytest.fixture
def linked(fake, tmp_path):
    add_sample_release(fake, "v1.4.0")
    add_sample_release(fake, "v1.5.1")
    repo = build_upstream_repo(tmp_path / "executorch.git", bare=True)
    fake.link_git(UPSTREAM, repo)
    return repo


def test_annotated_nested_and_lightweight_tags_give_their_commit(fake, linked):
    repo = linked
    _git(repo, "tag", "-a", "-m", "nested", "v1.6.0", "v1.5.1")
    _git(repo, "tag", "v1.7.0", "v1.4.0^{commit}")
    c14, c15 = _git(repo, "rev-parse", "v1.4.0^{commit}"), _git(repo, "rev-parse", "v1.5.1^{commit}")
    src = source()
    assert src.tag_commit("v1.5.1") == c15 != _git(repo, "rev-parse", "v1.5.1")
    assert src.tag_commit("v1.6.0") == c15
    assert src.tag_commit("v1.7.0") == c14
    paths = [r.path for r in fake.requests if "/git/" in r.path]
    assert any(p.endswith("/git/ref/tags/v1.5.1") for p in paths)
    assert any(p.endswith(f"/git/tags/{_git(repo, 'rev-parse', 'v1.5.1')}") for p in paths)


def test_a_tag_of_a_tree_or_an_unknown_tag_is_an_upstream_error(fake, linked):
    _git(linked, "tag", "-a", "-m", "tree", "v2.0.0", "v1.5.1^{tree}")
    with pytest.raises(UpstreamError, match="'v2.0.0' in github:pytorch/executorch names a tree, not a commit"):
        source().tag_commit("v2.0.0")
    with pytest.raises(UpstreamError):
        source().tag_commit("v9.9.9")


def test_a_template_pinned_by_commit_is_bumped_through_the_api(fake, linked, tmp_path, capsys):
    from mentionkit import PINS, edits, flags, update_json, write
    c14, c15 = _git(linked, "rev-parse", "v1.4.0^{commit}"), _git(linked, "rev-parse", "v1.5.1^{commit}")
    repo = write(tmp_path / "t", {"setup.sh": f"cd executorch\ngit checkout {c14}  # v1.4.0\n"})
    code, data = update_json(capsys, repo, f"github:{UPSTREAM}", "--dry-run")
    assert code == 0, data
    assert edits(data) == PINS + [("setup.sh", 2, c14, c15), ("setup.sh", 2, "1.4.0", "1.5.1")]
    assert flags(data) == []
