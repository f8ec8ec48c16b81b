"""Which repository the bot opens its pull request on: read from the push remote's URL (the exact
host), and $GITHUB_REPOSITORY must name the same one.
"""

from __future__ import annotations

import pytest


@pytest.mark.parametrize("url,expected", [
    ("git@github.com:acme/fw-template.git", "acme/fw-template"),
    ("ssh://git@github.com:22/acme/fw-template.git", "acme/fw-template"),
    ("https://github.com/acme/fw-template/", "acme/fw-template"),
    ("https://x-access-token:abc@github.com/acme/fw.template.git", "acme/fw.template"),
    ("https://notgithub.com/evil/repo.git", None),
    ("git@github.com.evil.example:evil/repo.git", None),
    ("https://github.com/acme/fw-template/tree/main", None),
])
def test_the_repository_is_read_from_the_remote_url_with_the_exact_host(tmp_path, url, expected):
    from bot.github.publish import remote_repo
    from fakegithub import git
    git(tmp_path, "init", "-q")
    git(tmp_path, "remote", "add", "origin", url)
    assert remote_repo(tmp_path, env={}) == expected


def test_github_repository_naming_another_repo_than_the_push_remote_is_refused(tmp_path, monkeypatch):
    """A workflow in repo A running on a checkout of B must not push to B and open the PR in A."""
    from bot.errors import UsageError
    from bot.github.publish import repo_full_name
    from fakegithub import git
    git(tmp_path, "init", "-q")
    git(tmp_path, "remote", "add", "origin", "https://github.com/acme/fw-template.git")
    git(tmp_path, "remote", "add", "fork", "git@github.com:me/fw-template.git")
    assert repo_full_name(tmp_path, None, env={"GITHUB_REPOSITORY": "ACME/fw-template"}) == "ACME/fw-template"
    assert repo_full_name(tmp_path, None, env={}) == "acme/fw-template"
    with pytest.raises(UsageError, match="GITHUB_REPOSITORY names other/repo but git remote 'origin'"):
        repo_full_name(tmp_path, None, env={"GITHUB_REPOSITORY": "other/repo"})
    with pytest.raises(UsageError, match="--github-repo names acme/fw-template but git remote 'fork'"):
        repo_full_name(tmp_path, "acme/fw-template", env={}, remote="fork")
