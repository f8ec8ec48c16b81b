"""The sample upstream repository builder used by the demo and many tests."""

from __future__ import annotations

import subprocess

import pytest

from bot.errors import UsageError
from bot.sample import ODD_TAG, RC_TAG, build_upstream_repo, git_env
from bot.upstream.releases import select_target
from bot.upstream.git import GitSource


def git(repo, *args):
    return subprocess.run(["git", *args], cwd=repo, env=git_env(), capture_output=True, text=True, check=True).stdout


def test_history_tags_and_work_tree(tmp_path):
    repo = build_upstream_repo(tmp_path / "up")
    log = git(repo, "log", "--format=%s", "main").splitlines()
    assert log == ["ExecuTorch 1.5.1", f"Release candidate {RC_TAG}", "ExecuTorch 1.4.0"]
    assert git(repo, "rev-parse", f"{RC_TAG}^{{commit}}") == git(repo, "rev-parse", "v1.5.1~1")
    assert git(repo, "rev-parse", f"{ODD_TAG}^{{commit}}") == git(repo, "rev-parse", "v1.4.0^{commit}")
    assert git(repo, "cat-file", "-t", "v1.5.1").strip() == "tag"  # annotated release tags
    assert git(repo, "status", "--porcelain") == ""  # work tree checked out and clean
    assert 'TORCH_VERSION = "2.14.0"' in (repo / "torch_pin.py").read_text()
    assert (repo / "backends/arm/cmsis_pack/README.md").is_file()
    with GitSource(repo) as src:
        assert select_target(src, to=None, current="1.4.0") == "v1.5.1"


def test_deterministic_commit_ids(tmp_path):
    a = build_upstream_repo(tmp_path / "a", bare=True)
    b = build_upstream_repo(tmp_path / "b")
    assert git(a, "rev-parse", "v1.5.1") == git(b, "rev-parse", "v1.5.1")


def test_subset_of_tags(tmp_path):
    repo = build_upstream_repo(tmp_path / "up", ["v1.4.0"], bare=True)
    assert sorted(git(repo, "tag").split()) == sorted(["v1.4.0", ODD_TAG])


def test_bad_arguments(tmp_path):
    with pytest.raises(UsageError, match="v9.9.9"):
        build_upstream_repo(tmp_path / "up", ["v9.9.9"])
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "x").write_text("x")
    with pytest.raises(UsageError, match="not empty"):
        build_upstream_repo(tmp_path / "full")
