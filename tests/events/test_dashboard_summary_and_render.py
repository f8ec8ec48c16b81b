"""What the dashboard shows, read from the bot's PR (``pr_summary``) and written as its body (``render``).

The PR bodies are written here in bot/report.py's layout; each test checks the whole result.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from bot.events import state as hidden
from bot.events.dashboard import STALE_DAYS, pr_summary, render, schedule_line


def test_a_pr_without_body_or_link_shows_nothing_blocking_and_no_verification():
    assert pr_summary({"number": 7, "body": None}) == {"number": 7, "url": "", "draft": False, "pack": "not verified",
                                                       "blocking": [], "review": []}


def test_items_without_a_location_get_an_empty_one():
    body = "- [ ] **blocking** `range-pin`\n- [ ] `mixed-mention`\n"
    assert pr_summary({"number": 3, "body": body, "draft": True}) == {
        "number": 3, "url": "", "draft": True, "pack": "not verified",
        "blocking": [["range-pin", ""]], "review": [["mixed-mention", ""]]}


def test_at_most_thirty_items_of_each_kind_are_kept():
    body = "".join(f"- [ ] **blocking** `check-{i}` (`f.txt:{i}`)\n" for i in range(35))
    body += "".join(f"- [x] `mixed-mention` (`README.md:{i}`)\n" for i in range(35))
    got = pr_summary({"number": 1, "body": body, "html_url": "https://github.com/o/r/pull/1"})
    assert got == {"number": 1, "url": "https://github.com/o/r/pull/1", "draft": False, "pack": "not verified",
                   "blocking": [[f"check-{i}", f"f.txt:{i}"] for i in range(30)],
                   "review": [["mixed-mention", f"README.md:{i}"] for i in range(30)]}


# ------------------------------------------------------------------ render
HEAD = """<!-- executorch-pack-bot:dashboard -->
This issue is kept up to date by executorch-pack-bot; edits to it are overwritten.

- [ ] Check now (tick to start a run; the bot unticks it)

| | |
|---|---|
"""
DAY = datetime(2026, 11, 1, tzinfo=timezone.utc)


def test_an_empty_state_renders_as_unknown_and_none():
    assert render({}, DAY) == HEAD + """| Pinned ExecuTorch | unknown |
| Newest release | unknown |
| Bump pull request | none open |
| Last run | none yet |
| Last scheduled run | none recorded yet |

### Ignored versions

None.

""" + hidden.dump({}) + "\n"


def test_a_newest_release_without_a_first_seen_time_and_an_unverified_pr_with_odd_rows():
    """A one-element row has no location; a row that is not a list, or is empty, is skipped."""
    st = {"pinned": "1.4.0", "newest": "1.5|rc1",
          "pr": {"number": 4, "blocking": [["yanked"]], "review": ["junk", [], ["mixed-mention", "README.md:2"]]}}
    assert render(st, DAY) == HEAD + """| Pinned ExecuTorch | `1.4.0` |
| Newest release | `1.5\\|rc1` |
| Bump pull request | #4: open; pack verification: not verified; 1 blocking item |
| Last run | none yet |
| Last scheduled run | none recorded yet |

### Blocking items in #4

- `yanked`

### For review in #4

- `mixed-mention` (`README.md:2`)

### Ignored versions

None.

""" + hidden.dump(st) + "\n"


def test_the_schedule_warning_starts_on_its_forty_fifth_day():
    st = {"scheduled": "2026-10-01"}
    assert [schedule_line(st, datetime(2026, 10, 1, tzinfo=timezone.utc) + timedelta(days=d, hours=12))
            for d in (STALE_DAYS - 1, STALE_DAYS)] == [
        "2026-10-01", "2026-10-01, 45 days ago: the schedule may have been disabled (see below)"]
