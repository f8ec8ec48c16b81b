"""Only tags that point at commits are releases: a tag of a tree or a blob is not.
"""

from __future__ import annotations

import subprocess

from bot.sample import build_upstream_repo, git_env
from bot.upstream.git import GitSource
from bot.upstream.pins import resolve_pinset


def test_tags_of_a_tree_or_a_blob_are_not_releases(tmp_path):
    """A ``v2.0.0`` tag of a tree became the default target; a tag of a blob read as 'every file absent'."""
    repo = build_upstream_repo(tmp_path / "executorch.git", bare=True)

    def git(*args):
        return subprocess.run(["git", f"--git-dir={repo}", *args], env=git_env(), check=True,
                              capture_output=True, text=True).stdout.strip()

    tree, blob = git("rev-parse", "v1.5.1^{tree}"), git("rev-parse", "v1.5.1:torch_pin.py")
    git("tag", "v1.7.0", blob)
    git("tag", "-a", "-m", "tree", "v2.0.0", tree)
    git("tag", "-a", "-m", "nested", "v1.6.0", "v1.5.1")
    with GitSource(repo) as src:
        assert "v2.0.0" not in src.tags() and "v1.7.0" not in src.tags()
        assert {"v1.4.0", "v1.5.1", "v1.6.0"} <= set(src.tags())
        assert resolve_pinset(src, "v1.6.0").get("torch").version == "2.14.0"
