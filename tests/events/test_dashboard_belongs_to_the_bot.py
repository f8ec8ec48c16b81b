"""The dashboard is the bot's: found by its author (the token's own account), never by a label or a marker alone.

GitHub is the fake server (its GraphQL ``viewer`` is the bot's account);
``issues`` ``edited`` payloads are GitHub's examples adapted to the issue.
"""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from bot.cli import main
from bot.config import load_config
from bot.events import state as hidden
from bot.events.context import Api
from bot.events.dashboard import LABEL, MARKER, SCHEDULE_HELP, TITLE, refresh, render
from bot.github.client import make_github
from eventworld import TOKEN, dashboard_world, run_dashboard
from fakegithub import TEMPLATE, UPSTREAM
from webhook_payloads import issue_edited_event

NONE = {"action": "none", "version": "", "pr": ""}


@pytest.fixture
def w(template, tmp_path, monkeypatch, capsys):
    world = dashboard_world(tmp_path, monkeypatch, capsys)
    yield world
    world.fake.stop()


def dashboard(w, outcome="up to date"):
    return run_dashboard(w, outcome)


def issues(w):
    return list(w.fake.issues.get(TEMPLATE, {}).values())


def ignored_now(w) -> str:
    w.capsys.readouterr()
    assert main(["check", "--repo", str(w.repo), "--upstream", f"github:{UPSTREAM}", "--respect-ignored"]) == 0
    return w.capsys.readouterr().out


def forged(w, user="tom"):
    """An older issue by a user with triage permission, labelled, with the marker and an ignored list."""
    st = {"ignored": [{"version": "1.5.1", "pr": None}], "pinned": "1.4.0"}
    return w.fake.add_issue(TEMPLATE, title=TITLE, body=f"{MARKER}\nmine\n\n{hidden.dump(st)}\n", labels=[LABEL],
                            user=user)


def test_a_look_alike_written_by_someone_else_is_never_read(w):
    fake = forged(w)
    assert "target=1.5.1" in ignored_now(w)             # the forged ignored list is not read
    dashboard(w)
    bot_issue = [i for i in issues(w) if i["number"] != fake["number"]]
    assert [i["user"]["login"] for i in bot_issue] == [w.fake.bot_login]
    assert "ignored" not in hidden.load(bot_issue[0]["body"])
    assert fake["body"].startswith(MARKER + "\nmine")     # and never written to


def test_a_look_alike_by_another_bot_is_not_the_dashboard_either(w):
    forged(w, user="other-app[bot]")
    dashboard(w)
    assert [i["user"]["login"] for i in issues(w)] == ["other-app[bot]", w.fake.bot_login]


@pytest.mark.needs("webhooks")
def test_a_removed_label_and_an_edited_title_lose_nothing(w):
    dashboard(w)
    n = w.pr["number"]
    from webhook_payloads import comment_event
    w.command("issue_comment", comment_event(TEMPLATE, n, "/executorch-pack-bot ignore 1.6.0"))
    [issue] = issues(w)
    issue["labels"], issue["title"] = [], "renamed by a maintainer"
    dashboard(w, "failed: the check did not finish")
    assert issues(w) == [issue]                           # the same issue, found among the bot's own
    assert hidden.load(issue["body"])["ignored"] == [{"version": "1.6.0", "pr": n}]
    assert "### Ignored versions\n\n- `1.6.0`: to propose it again" in issue["body"]


def tick(w, issue, login, before=None, **changes):
    before = issue["body"] if before is None else before
    issue["body"] = issue["body"].replace("- [ ] Check now", "- [x] Check now")
    payload = issue_edited_event(TEMPLATE, issue, before, login=login)
    payload["changes"].update(changes)
    return w.command("issues", payload)


@pytest.mark.needs("webhooks")
def test_a_writers_tick_on_a_look_alike_starts_nothing(w):
    fake = forged(w)
    fake["body"] = fake["body"].replace("mine", "- [ ] Check now")
    code, out, err, outputs = tick(w, fake, "alice")
    assert (code, outputs, w.writes()) == (0, NONE, [])
    assert w.fake.requests == []                          # a user's issue costs no request at all


@pytest.mark.needs("webhooks")
def test_every_edit_by_a_reader_is_undone_body_and_title(w):
    dashboard(w)
    [issue] = issues(w)
    written = issue["body"]
    # a maintainer emptied the body earlier: the marker is only in the bot's text, not in "before"
    issue["body"] = f"{MARKER} gone"
    issue["title"] = "pwned"
    code, out, err, outputs = tick(w, issue, "tom", before=written, title={"from": TITLE})
    assert outputs == NONE
    assert (issue["body"], issue["title"]) == (written, TITLE)
    assert w.writes()[-1] == ("PATCH", f"/repos/{TEMPLATE}/issues/{issue['number']}")
    assert out.splitlines()[0] == "# dashboard edited by tom (no write permission): edit undone"


def test_a_scheduled_run_records_its_day_and_the_summary_shows_it(w, monkeypatch, tmp_path):
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    monkeypatch.setenv("GITHUB_EVENT_NAME", "schedule")
    code, cap = dashboard(w)
    today = datetime.now(timezone.utc).strftime("%Y-%m-%d")
    [issue] = issues(w)
    assert hidden.load(issue["body"])["scheduled"] == today
    assert f"| Last scheduled run | {today} |" in issue["body"]
    assert cap.out.splitlines()[-1] == f"Last scheduled run: {today}"
    assert summary.read_text() == f"Last scheduled run: {today}\n"

    writes = len(w.writes())
    dashboard(w)                                          # the same day again: no edit
    assert len(w.writes()) == writes


def test_without_the_dashboard_the_summary_says_where_the_date_is_kept(w, monkeypatch, tmp_path):
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    w.config("labels: [x]\n")
    dashboard(w)
    assert summary.read_text() == ("Last scheduled run: unknown here (the dashboard keeps it: dashboard: true in "
                                   ".github/executorch-pack-bot.yml)\n")


STALE = """<!-- executorch-pack-bot:dashboard -->
This issue is kept up to date by executorch-pack-bot; edits to it are overwritten.

- [ ] Check now (tick to start a run; the bot unticks it)

| | |
|---|---|
| Pinned ExecuTorch | `1.4.0` |
| Newest release | unknown |
| Bump pull request | none open |
| Last run | none yet |
| Last scheduled run | 2026-10-01, 61 days ago: the schedule may have been disabled (see below) |

### Schedule

SCHEDULE_HELP

### Ignored versions

None.

<!-- executorch-pack-bot:state {"pinned":"1.4.0","pr":null,"scheduled":"2026-10-01"} -->
"""


def test_a_schedule_quiet_for_too_long_is_shown_with_what_to_do(w, monkeypatch, tmp_path):
    w.pr["state"] = "closed"
    api = Api(make_github(TOKEN), TEMPLATE)
    now = datetime(2026, 12, 1, 9, 0, tzinfo=timezone.utc)
    w.fake.add_issue(TEMPLATE, title=TITLE, labels=[LABEL],
                     body=render({"pinned": "1.4.0", "scheduled": "2026-10-01"}, datetime(2026, 10, 1, tzinfo=timezone.utc)))
    issue = refresh(api, load_config(w.repo), pinned="1.4.0", newest=None, outcome=None, now=now)
    assert issue["body"] == STALE.replace("SCHEDULE_HELP", SCHEDULE_HELP)
    assert SCHEDULE_HELP.startswith("GitHub disables the scheduled workflows of a public repository after 60 days")


@pytest.mark.parametrize("url, linked", [
    ("https://github.com/acme/fw-template/actions/runs/123", True),
    ("https://evil.example/x", False), ("https://github.com/acme/fw-template/actions/runs/1)[x](https://e.example",
                                         False), ("javascript:alert(1)", False)])
def test_the_last_run_links_only_to_a_workflow_run(url, linked):
    body = render({"run": {"outcome": "up to date", "time": "2026-12-01 09:00 UTC", "url": url}},
                  datetime(2026, 12, 1, tzinfo=timezone.utc))
    row = next(x for x in body.splitlines() if x.startswith("| Last run |"))
    assert row == (f"| Last run | [2026\\-12\\-01 09:00 UTC]({url}): up to date |" if linked
                   else "| Last run | 2026\\-12\\-01 09:00 UTC: up to date |")


def test_the_store_keeps_the_ignored_versions_in_the_bots_issue_only(w):
    from bot.events.dashboard import DashboardStore
    api = Api(make_github(TOKEN), TEMPLATE)
    config = load_config(w.repo)
    forged(w)                                                 # tom's look-alike: never read, never written
    store = DashboardStore(api, config)
    assert (store.read(), store.issue()) == ([], None)
    store.write([{"version": "1.6.0", "pr": 1}, {"version": "v1.5.2"}], w.pr)
    mine = [i for i in issues(w) if i["user"]["login"] == w.fake.bot_login]
    assert len(mine) == 1 and store.issue() is not None and store.issue()["number"] == mine[0]["number"]
    assert hidden.load(mine[0]["body"]) == {"ignored": [{"version": "1.5.2", "pr": None},
                                                        {"version": "1.6.0", "pr": 1}]}
    assert w.pr["state"] == "open"
    again = DashboardStore(api, config)
    assert again.read() == [{"version": "1.5.2", "pr": None}, {"version": "1.6.0", "pr": 1}]
    again.write([{"version": "1.5.1", "pr": w.pr["number"]}], w.pr, close=True)
    assert hidden.load(mine[0]["body"])["ignored"] == [{"version": "1.5.1", "pr": w.pr["number"]}]
    assert len([i for i in issues(w) if i["user"]["login"] == w.fake.bot_login]) == 1
    assert w.pr["state"] == "closed" and hidden.load(w.pr["body"]) == {"closed_by": "ignore", "version": "1.5.1"}


@pytest.mark.parametrize("verdict, pack", [
    ("**Failed** for version `1.5.1`: 2 of 9 checks failed.", "failed"),
    ("Verification **failed**: the pack is missing.", "failed"),
    ("**Passed** for version `1.5.1`: all checks.", "passed"),
    ("Verification passed for the release asset.", "passed"),
    ("No pack was verified in this run.", "not verified"),
])
def test_the_open_prs_summary_is_read_whole_from_its_body(verdict, pack):
    from bot.events.dashboard import pr_summary
    body = (f"Bumps.\n\n### Pack verification\n\n{verdict}\n\n"
            "- [ ] **blocking** `range-pin` (`requirements.txt:3`): a range\n"
            "- [x] **blocking** `yanked`: no location\n"
            "- [ ] `mixed-mention` (`README.md:7`): names two versions\n"
            "- [ ] `other-item` (`x`): not shown\n")
    got = pr_summary({"number": 9, "html_url": "https://github.com/acme/fw-template/pull/9", "draft": True,
                      "body": body})
    assert got == {"number": 9, "url": "https://github.com/acme/fw-template/pull/9", "draft": True, "pack": pack,
                   "blocking": [["range-pin", "requirements.txt:3"], ["yanked", ""]],
                   "review": [["mixed-mention", "README.md:7"]]}


def test_the_store_keeps_the_rest_of_the_state_and_looks_the_issue_up_once(w):
    from bot.events.dashboard import DashboardStore
    dashboard(w, "up to date")
    [issue] = issues(w)
    before = hidden.load(issue["body"])
    api = Api(make_github(TOKEN), TEMPLATE)
    store = DashboardStore(api, load_config(w.repo))
    seen = len(w.fake.requests)
    assert store.issue()["number"] == store.issue()["number"] == issue["number"]
    assert store.read() == []
    listings = [s for s in w.fake.requests[seen:] if s.method == "GET" and s.path.endswith("/issues")]
    assert len(listings) == 1
    store.write([{"version": "1.6.0", "pr": 1}], w.pr)
    assert hidden.load(issue["body"]) == {**before, "ignored": [{"version": "1.6.0", "pr": 1}]}
    assert before["pinned"] == "1.4.0" and before["run"]["outcome"] == "up to date"


def test_the_oldest_of_the_bots_dashboards_is_the_one(w):
    oldest_first = [w.fake.add_issue(TEMPLATE, title=TITLE, labels=[LABEL], body=f"{MARKER}\n{hidden.dump(st)}\n")
                   for st in ({"pinned": "1.3.0"}, {"pinned": "1.2.0"}, {"pinned": "1.1.0"})]
    api = Api(make_github(TOKEN), TEMPLATE)
    from bot.events.dashboard import find_issue
    assert find_issue(api)["number"] == oldest_first[0]["number"]
    lists = [s.query for s in w.fake.requests if s.method == "GET" and s.path.endswith("/issues")]
    assert lists == [{"labels": LABEL, "state": "all", "per_page": "100"}]
    for i in oldest_first:
        i["labels"] = []
    assert find_issue(Api(make_github(TOKEN), TEMPLATE))["number"] == oldest_first[0]["number"]
    lists = [s.query for s in w.fake.requests if s.method == "GET" and s.path.endswith("/issues")]
    assert lists[1:] == [{"labels": LABEL, "state": "all", "per_page": "100"},
                         {"creator": w.fake.bot_login, "state": "all", "per_page": "100"}]


def test_a_run_with_the_same_outcome_later_changes_nothing(w):
    api = Api(make_github(TOKEN), TEMPLATE)
    config = load_config(w.repo)
    first = refresh(api, config, pinned="1.4.0", newest="1.5.1", outcome="up to date",
                    now=datetime(2026, 12, 1, 9, 0, tzinfo=timezone.utc))
    body = first["body"]
    writes = len(w.writes())
    again = refresh(Api(make_github(TOKEN), TEMPLATE), config, pinned="1.4.0", newest="1.5.1", outcome="up to date",
                    now=datetime(2026, 12, 1, 10, 30, tzinfo=timezone.utc))
    assert again["body"] == body and len(w.writes()) == writes
    assert hidden.load(body)["run"] == {"outcome": "up to date", "time": "2026-12-01 09:00 UTC", "url": ""}
    refresh(Api(make_github(TOKEN), TEMPLATE), config, pinned="1.4.0", newest="1.5.1", outcome="failed: x",
            now=datetime(2026, 12, 1, 11, 0, tzinfo=timezone.utc))
    assert hidden.load(issues(w)[0]["body"])["run"] == {"outcome": "failed: x", "time": "2026-12-01 11:00 UTC",
                                                       "url": ""}


@pytest.mark.parametrize("method, path, what", [
    ("GET", "/issues", "list the dashboard issue"),
    ("POST", "/issues", "create the dashboard issue"),
])
def test_a_refused_request_names_what_the_bot_tried(w, method, path, what):
    from bot.errors import PlatformError
    w.fake.off_contract = True
    real = w.fake._route

    def refuse(req, body):
        if req.method == method and req.path == f"/repos/{TEMPLATE}{path}":
            return w.fake._json({"message": "Resource not accessible by integration"}, 403)
        return real(req, body)
    w.fake._route = refuse
    with pytest.raises(PlatformError) as exc:
        refresh(Api(make_github(TOKEN), TEMPLATE), load_config(w.repo), pinned="1.4.0", newest=None, outcome="x")
    assert exc.value.message.startswith(f"GitHub refused to {what}: ")


def test_a_refused_edit_names_the_issue(w):
    from bot.errors import PlatformError
    dashboard(w)
    [issue] = issues(w)
    w.fake.off_contract = True
    w.fake.fail_paths[f"/repos/{TEMPLATE}/issues/{issue['number']}"] = 403
    with pytest.raises(PlatformError) as exc:
        refresh(Api(make_github(TOKEN), TEMPLATE), load_config(w.repo), pinned="1.3.0", newest=None, outcome="y")
    assert exc.value.message.startswith(f"GitHub refused to update the dashboard issue #{issue['number']}: ")


RICH = """<!-- executorch-pack-bot:dashboard -->
This issue is kept up to date by executorch-pack-bot; edits to it are overwritten.

- [ ] Check now (tick to start a run; the bot unticks it)

| | |
|---|---|
| Pinned ExecuTorch | `1.4.0\\|x` |
| Newest release | `1.5.1`, first seen 2026\\-10\\-01 06:17 UTC |
| Bump pull request | #7: draft; pack verification: failed; 2 blocking items |
| Last run | : OUTCOME |
| Last scheduled run | 2026-10-01 |

### Blocking items in #7

- `range-pin` (`requirements.txt:3`)
- `yanked`

### Ignored versions

- `1.5.0`: to propose it again, comment `/executorch-pack-bot unignore 1.5.0` on an executorch-pack-bot pull request
- `1.5.2`: to propose it again, comment `/executorch-pack-bot unignore 1.5.2` on #7

"""


def test_a_rich_state_renders_whole():
    st = {"pinned": "1.4.0|x", "newest": "1.5.1", "newest_seen": "2026-10-01 06:17 UTC", "scheduled": "2026-10-01",
          "pr": {"number": 7, "draft": True, "pack": "failed", "blocking": [["range-pin", "requirements.txt:3"],
                                                                             ["yanked", ""]], "review": []},
          "run": {"outcome": "y" * 400, "url": ""},
          "ignored": [{"version": "1.5.2", "pr": 7}, {"version": "1.5.0", "pr": None}]}
    body = render(st, datetime(2026, 11, 1, tzinfo=timezone.utc))
    assert body == RICH.replace("OUTCOME", "y" * 300 + "…") + hidden.dump(st) + "\n"


def test_a_scheduled_run_records_its_utc_day_whatever_the_runners_time_zone(w):
    """The runner's clock is five hours behind UTC (``TZ``); the run is at 02:00 UTC on December 1st: that day."""
    import os
    import time
    from datetime import timedelta
    old = os.environ.get("TZ")
    os.environ["TZ"] = "ABC+05"
    time.tzset()
    try:
        issue = refresh(Api(make_github(TOKEN), TEMPLATE), load_config(w.repo), pinned="1.4.0", newest="1.5.1",
                        outcome=None, scheduled=True,
                        now=datetime(2026, 11, 30, 21, 0, tzinfo=timezone(timedelta(hours=-5))))
    finally:
        if old is None:
            del os.environ["TZ"]
        else:
            os.environ["TZ"] = old
        time.tzset()
    st = hidden.load(issue["body"])
    assert (st["scheduled"], st["newest_seen"]) == ("2026-12-01", "2026-12-01 02:00 UTC")
    assert "\n| Last scheduled run | 2026-12-01 |\n" in issue["body"]


def test_the_schedule_line_is_of_the_runs_time_not_the_clocks(w):
    """A run given ``now`` (here years ago) renders the schedule's age at that time: a fresh day, no warning."""
    issue = refresh(Api(make_github(TOKEN), TEMPLATE), load_config(w.repo), pinned="1.4.0", newest=None,
                    outcome=None, scheduled=True, now=datetime(2020, 1, 1, 12, 0, tzinfo=timezone.utc))
    assert "\n| Last scheduled run | 2020-01-01 |\n" in issue["body"]
    assert "### Schedule" not in issue["body"] and hidden.load(issue["body"])["scheduled"] == "2020-01-01"


def test_a_pull_request_the_bot_opened_with_the_marker_is_not_the_dashboard(w):
    """"List repository issues" also returns pull requests (a ``pull_request`` key): never the dashboard."""
    from bot.events.dashboard import find_issue
    pr_like = w.fake.add_issue(TEMPLATE, title=TITLE, body=f"{MARKER}\n", labels=[LABEL])
    n = pr_like["number"]
    pr_like["pull_request"] = {"url": f"{w.fake.url}/repos/{TEMPLATE}/pulls/{n}",
                               "html_url": f"https://github.com/{TEMPLATE}/pull/{n}",
                               "diff_url": f"https://github.com/{TEMPLATE}/pull/{n}.diff",
                               "patch_url": f"https://github.com/{TEMPLATE}/pull/{n}.patch"}
    assert find_issue(Api(make_github(TOKEN), TEMPLATE)) is None
    issue = refresh(Api(make_github(TOKEN), TEMPLATE), load_config(w.repo), pinned="1.4.0", newest=None, outcome="x")
    assert issue["number"] != pr_like["number"] and pr_like["body"] == f"{MARKER}\n"


def test_a_refused_list_of_the_bots_issues_names_it(w):
    from bot.errors import PlatformError
    w.fake.off_contract = True
    real = w.fake._route

    def refuse(req, body):
        if req.method == "GET" and req.path == f"/repos/{TEMPLATE}/issues" and req.args.get("creator"):
            return w.fake._json({"message": "Resource not accessible by integration"}, 403)
        return real(req, body)
    w.fake._route = refuse
    with pytest.raises(PlatformError) as exc:
        refresh(Api(make_github(TOKEN), TEMPLATE), load_config(w.repo), pinned="1.4.0", newest=None, outcome="x")
    assert exc.value.message == ("GitHub refused to list the issues the bot opened: HTTP 403: Resource not accessible "
                                 "by integration")
