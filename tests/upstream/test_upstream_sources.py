"""Upstream sources: a git repository (clone or bare) read at tags, a folder of tag folders, open_source()."""

from __future__ import annotations

import subprocess
import sys
import types

import pytest

from bot.errors import UpstreamError, UsageError
from bot.sample import ODD_TAG, RC_TAG, build_upstream_repo, git_env
from bot.sources import open_source
from bot.upstream.git import GitSource
from bot.upstream.source import DirectorySource


@pytest.fixture(scope="module")
def clone(tmp_path_factory):
    return build_upstream_repo(tmp_path_factory.mktemp("clone") / "executorch")


@pytest.fixture(scope="module")
def bare(tmp_path_factory):
    return build_upstream_repo(tmp_path_factory.mktemp("bare") / "executorch.git", bare=True)


@pytest.mark.parametrize("which", ["clone", "bare"])
def test_git_source_tags_and_reads(which, request):
    with GitSource(request.getfixturevalue(which)) as src:
        assert sorted(src.tags()) == sorted(["v1.4.0", "v1.5.1", RC_TAG, ODD_TAG])
        assert b'TORCH_VERSION = "2.14.0"' in src.read("v1.5.1", "torch_pin.py")
        assert b'TORCH_VERSION = "2.13.0"' in src.read("v1.4.0", "./torch_pin.py")
        assert src.read("v1.4.0", "backends/arm/requirements-arm-tosa.txt").endswith(b"tosa-tools == 2026.5.0\n")
        assert src.read("v1.4.0", "no/such/file.py") is None
        assert src.read("v1.4.0", "backends/arm") is None  # a folder is not a file
        assert src.describe().startswith("git ")


def test_git_source_reads_the_tag_not_a_same_named_branch(clone):
    subprocess.run(["git", "branch", "v1.4.0", "v1.5.1"], cwd=clone, env=git_env(), check=True, capture_output=True)
    try:
        with GitSource(clone) as src:
            assert b'"2.13.0"' in src.read("v1.4.0", "torch_pin.py")
    finally:
        subprocess.run(["git", "branch", "-D", "v1.4.0"], cwd=clone, env=git_env(), check=True, capture_output=True)


def test_git_source_survives_close_and_reopens(clone):
    src = GitSource(clone)
    first = src.read("v1.5.1", "pyproject.toml")
    src.close()
    assert src.read("v1.5.1", "pyproject.toml") == first
    src.close()


def test_git_source_unknown_tag(bare):
    with GitSource(bare) as src, pytest.raises(UpstreamError, match="v9.9.9") as exc:
        src.read("v9.9.9", "torch_pin.py")
    assert exc.value.exit_code == 2


def test_not_a_git_repository(tmp_path, clone):
    with pytest.raises(UpstreamError, match="not a git repository") as exc:
        GitSource(tmp_path)
    assert str(tmp_path) in str(exc.value)
    with pytest.raises(UpstreamError, match="not a git repository"):
        GitSource(clone / "backends")  # inside a repository is not a repository


def test_directory_source(tmp_path):
    (tmp_path / "v1.5.1").mkdir()
    (tmp_path / "v1.5.1" / "torch_pin.py").write_text('TORCH_VERSION = "2.14.0"\n')
    (tmp_path / "secret.txt").write_text("outside\n")
    (tmp_path / ".hidden").mkdir()
    src = DirectorySource(tmp_path)
    assert src.tags() == ["v1.5.1"]
    assert src.read("v1.5.1", "torch_pin.py") == b'TORCH_VERSION = "2.14.0"\n'
    assert src.read("v1.5.1", "missing.txt") is None
    with pytest.raises(UpstreamError):
        src.read("v1.5.1", "../secret.txt")
    (tmp_path / "v1.5.1" / "link").symlink_to(tmp_path / "secret.txt")
    assert src.read("v1.5.1", "link") is None
    with pytest.raises(UpstreamError, match="v1.4.0"):
        src.read("v1.4.0", "torch_pin.py")


def test_open_source_dispatch(tmp_path, clone, bare):
    assert isinstance(open_source(str(clone)), GitSource)
    assert isinstance(open_source(str(bare)), GitSource)
    (tmp_path / "v1.0.0").mkdir()
    assert isinstance(open_source(str(tmp_path)), DirectorySource)
    with pytest.raises(UpstreamError, match="does not exist"):
        open_source(str(tmp_path / "nope"))
    (tmp_path / "file.txt").write_text("x")
    with pytest.raises(UpstreamError):
        open_source(str(tmp_path / "file.txt"))
    with pytest.raises(UsageError):
        open_source("")


def test_open_source_github_is_delegated_lazily(monkeypatch):
    fake = types.ModuleType("bot.github.source")

    class GitHubSource:
        @classmethod
        def from_spec(cls, spec):
            return ("github", spec)

    fake.GitHubSource = GitHubSource
    monkeypatch.setitem(sys.modules, "bot.github.source", fake)
    assert open_source("github:pytorch/executorch") == ("github", "github:pytorch/executorch")


def test_open_source_github_missing_is_a_usage_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "bot.github.source", None)  # import raises ImportError
    with pytest.raises(UsageError, match="GitHub sources are not available"):
        open_source("github:pytorch/executorch")
