"""Target-tag selection: stable tags only, compared as versions (devcontainers/features#1646), never a downgrade."""

from __future__ import annotations

import pytest

from bot.errors import UpstreamError, UsageError
from bot.upstream.releases import select_target, stable_tags
from bot.upstream.source import UpstreamSource


class Tags(UpstreamSource):
    """An in-memory source: only tags (and GitHub prerelease flags) matter here."""

    def __init__(self, tags, prereleases=()):
        self._tags, self._pre = list(tags), set(prereleases)

    def tags(self):
        return list(self._tags)

    def read(self, tag, path):
        return None

    def prereleases(self):
        return set(self._pre)

    def describe(self):
        return "test tags"


# The release list in created_at order (newest first), which is neither version nor text order.
RELEASE_ORDER = ["v1.4.2", "v1.10.0", "v1.9.0"]
UPSTREAM = ["v1.0.0", "v1.0.1", "v1.2.0-rc1-test-android", "v1.2.0-rc1-test", "v1.4.0", "v1.4.1",
            "v1.5.0-rc1", "v1.5.1-rc1", "v1.5.0", "v1.5.1", "v1.6.0-rc2", "release/1.6", "1.7.0", "v01.8.0"]


def test_stable_tags_sorted_by_version_not_text():
    assert stable_tags(RELEASE_ORDER) == ["v1.4.2", "v1.9.0", "v1.10.0"]
    assert stable_tags(UPSTREAM) == ["v1.0.0", "v1.0.1", "v1.4.0", "v1.4.1", "v1.5.0", "v1.5.1"]
    assert stable_tags(UPSTREAM, prereleases={"v1.5.1"})[-1] == "v1.5.0"


def test_newest_by_version_from_current_1_9_0():
    assert select_target(Tags(RELEASE_ORDER), to=None, current="1.9.0") == "v1.10.0"


def test_never_a_downgrade_nor_the_later_dated_backport():
    # current is newer than anything stable: the answer is "stay", never v1.4.2 or v1.9.0
    assert select_target(Tags(RELEASE_ORDER), to=None, current="1.11.0") == "v1.11.0"
    assert select_target(Tags(RELEASE_ORDER), to=None, current="1.10.0") == "v1.10.0"


def test_newest_stable_ignores_rc_odd_and_github_prerelease_flags():
    assert select_target(Tags(UPSTREAM), to=None, current="1.4.0") == "v1.5.1"
    assert select_target(Tags(UPSTREAM, prereleases={"v1.5.1"}), to=None, current=None) == "v1.5.0"


def test_no_stable_tag_is_an_upstream_error():
    with pytest.raises(UpstreamError, match="no stable release tag"):
        select_target(Tags(["v1.2.0-rc1-test-android", "v1.5.1-rc1"]), to=None, current="1.4.0")


@pytest.mark.parametrize("to", ["1.5.0", "v1.5.0", " 1.5.0 "])
def test_to_spellings(to):
    assert select_target(Tags(UPSTREAM), to=to, current="1.4.0") == "v1.5.0"


@pytest.mark.parametrize("to", ["1.5.1-rc1", "1.5.1rc1", "v1.5.1-rc1"])
def test_rc_needs_allow_prerelease(to):
    with pytest.raises(UsageError, match="--allow-prerelease") as exc:
        select_target(Tags(UPSTREAM), to=to, current="1.4.0")
    assert exc.value.exit_code == 2
    assert select_target(Tags(UPSTREAM), to=to, current="1.4.0", allow_prerelease=True) == "v1.5.1-rc1"


@pytest.mark.parametrize("allow", [False, True])
def test_a_prerelease_that_has_no_tag_is_named_as_missing_first(allow):
    # it asked for --allow-prerelease, and only with it said there is no such tag
    with pytest.raises(UpstreamError) as exc:
        select_target(Tags(UPSTREAM), to="1.5.2-rc1", current="1.4.0", allow_prerelease=allow)
    assert str(exc.value).startswith("--version 1.5.2-rc1: there is no tag v1.5.2-rc1 in ")
    assert "--allow-prerelease" not in str(exc.value)


def test_github_prerelease_flag_needs_allow_prerelease():
    with pytest.raises(UsageError):
        select_target(Tags(UPSTREAM, prereleases={"v1.5.1"}), to="1.5.1", current="1.4.0")


def test_unknown_to_lists_newest_stable_tags():
    with pytest.raises(UpstreamError) as exc:
        select_target(Tags(UPSTREAM), to="1.6.0", current="1.4.0")
    msg = str(exc.value)
    assert "v1.6.0" in msg and "v1.5.1, v1.5.0, v1.4.1" in msg and "rc" not in msg.split("newest")[1]


@pytest.mark.parametrize("to", ["latest", "1.5", ">=1.5.0", "1.5.0; rm -rf /", "v1.2.0-rc1-test-android"])
def test_malformed_to_is_a_usage_error(to):
    with pytest.raises(UsageError):
        select_target(Tags(UPSTREAM), to=to, current="1.4.0")


def test_to_older_than_current_would_downgrade():
    with pytest.raises(UsageError, match="would downgrade"):
        select_target(Tags(UPSTREAM), to="1.4.1", current="1.5.0")
    assert select_target(Tags(UPSTREAM), to="1.5.0", current="1.5.0") == "v1.5.0"


def test_current_may_be_a_pack_semver_or_unknown():
    assert select_target(Tags(UPSTREAM), to=None, current="1.5.1-rc1") == "v1.5.1"
    assert select_target(Tags(UPSTREAM), to=None, current=None) == "v1.5.1"
    with pytest.raises(UsageError):
        select_target(Tags(UPSTREAM), to=None, current="one.four")
