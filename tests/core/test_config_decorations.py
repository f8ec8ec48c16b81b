"""The config's decorations: labels, reviewers (users and ORG/TEAM), assignees, milestone; bad values name the line."""

from __future__ import annotations

import pytest

from bot.config import Config, load_config
from bot.errors import UsageError


def write(tmp_path, text):
    (tmp_path / ".github").mkdir()
    (tmp_path / ".github" / "executorch-pack-bot.yml").write_text(text)
    return tmp_path


def test_reviewers_split_into_users_and_team_slugs_and_assignees_and_milestone_are_read(tmp_path):
    c = load_config(write(tmp_path, "reviewers: [alice, '@bob', acme/firmware]\nassignees: alice\nmilestone: 4\n"))
    assert (c.user_reviewers, c.team_reviewers, c.assignees, c.milestone) == (("alice", "bob"), ("firmware",),
                                                                               ("alice",), 4)


@pytest.mark.parametrize("text,line,message", [
    ("milestone: v2\n", 1, "milestone: 'v2' is not a milestone number (the N of .../milestone/N)"),
    ("labels: [a]\nassignees: [acme/team]\n", 2, "assignees: 'acme/team' is not a GitHub user name"),
    ("reviewers:\n  - ok\n  - 'not a name'\n", 3, "reviewers: 'not a name' is not a GitHub user name or ORG/TEAM"),
])
def test_a_bad_decoration_value_names_the_file_and_line(tmp_path, text, line, message):
    with pytest.raises(UsageError) as ei:
        load_config(write(tmp_path, text))
    assert (ei.value.path, ei.value.line, ei.value.message) == (".github/executorch-pack-bot.yml", line, message)


@pytest.mark.parametrize("draft,blocking,failed,reason", [
    ("auto", (True, True), False, "2 blocking items are flagged"),
    ("auto", (False, True), False, "1 blocking item is flagged"),
    ("auto", (), True, "the pack failed verification"),
    ("auto", (False,), False, None),
    ("always", (), False, "the config says `draft: always`"),
    ("never", (True,), True, None),
])
def test_the_draft_reason_follows_the_draft_rule(draft, blocking, failed, reason):
    from bot.model import Flag
    c = Config(draft=draft)
    flags = [Flag("x", "m", "a", 1, b) for b in blocking]
    assert c.draft_reason(flags, failed) == reason and c.wants_draft(flags, failed) is (reason is not None)
