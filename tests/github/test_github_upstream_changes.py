"""Upstream changes between tags read through the GitHub API (trees of both tags, the compare endpoint)."""

from __future__ import annotations

from fakegithub import UPSTREAM, add_sample_release
from github_world import source

from bot.sample import UPSTREAM_DIR
from bot.upstream.changes import SchemaChange, upstream_changes
from bot.upstream.source import DirectorySource


def test_changed_paths_through_the_api_match_the_tag_folders(fake):
    add_sample_release(fake, "v1.4.0")
    add_sample_release(fake, "v1.5.1")
    assert source().changed_paths("v1.4.0", "v1.5.1") == DirectorySource(UPSTREAM_DIR).changed_paths("v1.4.0", "v1.5.1")


def test_ancestry_comes_from_the_compare_status(fake):
    add_sample_release(fake, "v1.4.0")
    add_sample_release(fake, "v1.5.1")
    assert source().ancestry("v1.4.0", "v1.5.1") == (True, 1)
    fake.repo(UPSTREAM).compare[("v1.4.0", "v1.5.1")] = ("diverged", 758)
    assert source().ancestry("v1.4.0", "v1.5.1") == (False, 758)


def test_the_sample_changes_through_the_api(fake):
    add_sample_release(fake, "v1.4.0")
    add_sample_release(fake, "v1.5.1")
    ch = upstream_changes(source(), "v1.4.0", "v1.5.1")
    assert ch.schema == [SchemaChange("schema/program.fbs", "comments")] and not ch.schema_changed
    assert [b.folder for b in ch.backends] == ["backends/arm/", "backends/cortex_m/"] and ch.error is None


def test_a_truncated_tree_leaves_the_changes_unknown(fake):
    add_sample_release(fake, "v1.4.0")
    add_sample_release(fake, "v1.5.1")
    fake.repo(UPSTREAM).truncated_trees.add("v1.5.1")
    ch = upstream_changes(source(), "v1.4.0", "v1.5.1")
    assert (ch.paths, ch.schema, ch.error) == (None, [], None) and ch.ancestor is True
