"""What the dashboard shows, read from the bot's PR (``pr_summary``) and written as its body (``render``).

The PR bodies are written here in bot/report.py's layout; each test checks the whole result.
"""

from __future__ import annotations

from bot.events.dashboard import pr_summary


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
