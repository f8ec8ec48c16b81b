"""The dashboard issue (``dashboard: true``): created once, edited only when its content changes, "Check now".

GitHub is the fake server; ``issues`` ``edited`` payloads are GitHub's
examples adapted to the dashboard issue.
"""

from __future__ import annotations

import re

import pytest

from bot.cli import main
from bot.events import state as hidden
from bot.events.dashboard import LABEL, state_comment
from eventworld import TOKEN, World
from fakegithub import TEMPLATE, UPSTREAM
from webhook_payloads import comment_event, issue_edited_event

NONE = {"action": "none", "version": "", "pr": ""}


@pytest.fixture
def w(template, tmp_path, monkeypatch, capsys):
    world = World(tmp_path, monkeypatch, capsys)    # its template folder is the sample template (ExecuTorch 1.4.0)
    world.config("dashboard: true\n")
    world.fake.add_release(UPSTREAM, "v1.4.0", created_at="2026-06-01T00:00:00Z")
    world.fake.add_release(UPSTREAM, "v1.5.1", created_at="2026-09-01T00:00:00Z")
    yield world
    world.fake.stop()


def dashboard(w, outcome="pull request for 1.5.1 proposed"):
    w.capsys.readouterr()
    code = main(["dashboard", "--repo", str(w.repo), "--upstream", f"github:{UPSTREAM}", "--outcome", outcome])
    return code, w.capsys.readouterr()


def issues(w):
    return list(w.fake.issues.get(TEMPLATE, {}).values())


EXPECTED = """<!-- executorch-pack-bot:dashboard -->
This issue is kept up to date by executorch-pack-bot; edits to it are overwritten.

- [ ] Check now (tick to start a run; the bot unticks it)

| | |
|---|---|
| Pinned ExecuTorch | `1.4.0` |
| Newest release | `1.5.1`, first seen WHEN |
| Bump pull request | #1: open; pack verification: passed; 1 blocking item |
| Last run | WHEN: pull request for 1\\.5\\.1 proposed |
| Last scheduled run | none recorded yet |

### Blocking items in #1

- `range-pin` (`requirements.txt:3`)

### For review in #1

- `mixed-mention` (`README.md:7`)

### Ignored versions

None.

<!-- executorch-pack-bot:state {"newest":"1.5.1","newest_seen":"STAMP","pinned":"1.4.0","pr":{"blocking":[["range-pin",\
"requirements.txt:3"]],"draft":false,"number":1,"pack":"passed","review":[["mixed-mention","README.md:7"]],\
"url":"https://github.com/acme/fw-template/pull/1"},"run":{"outcome":"pull request for 1.5.1 proposed",\
"time":"STAMP","url":""}} -->
"""


def test_the_dashboard_is_created_once_with_what_a_reviewer_needs(w):
    code, cap = dashboard(w)
    assert code == 0
    [issue] = issues(w)
    n = issue["number"]
    made = [("POST", f"/repos/{TEMPLATE}/issues"), ("POST", f"/repos/{TEMPLATE}/issues/{n}/comments")]
    assert w.writes() == made
    [state] = w.fake.repo(TEMPLATE).comments[n]
    assert state["body"] == state_comment(hidden.load(issue["body"]))   # the state comment: the one read
    assert [x["name"] for x in issue["labels"]] == [LABEL]
    assert (issue["title"], issue["user"]["login"]) == ("executorch-pack-bot dashboard", w.fake.bot_login)
    stamp = hidden.load(issue["body"])["run"]["time"]
    assert re.fullmatch(r"20\d\d-\d\d-\d\d \d\d:\d\d UTC", stamp)
    when = stamp.replace("-", "\\-")
    assert issue["body"] == EXPECTED.replace("WHEN", when).replace("STAMP", stamp)
    assert cap.out == (f"dashboard #{issue['number']}: created\n"
                       "Last scheduled run: none recorded yet\n")

    # an unchanged run sends no write request
    assert dashboard(w)[0] == 0
    assert w.writes() == made and len(issues(w)) == 1

    # a new outcome edits the one issue and its state comment in place
    assert dashboard(w, "up to date")[0] == 0
    assert w.writes()[2:] == [("PATCH", f"/repos/{TEMPLATE}/issues/{n}"),
                              ("PATCH", f"/repos/{TEMPLATE}/issues/comments/{state['id']}")] and len(issues(w)) == 1
    assert hidden.load(issues(w)[0]["body"])["run"]["outcome"] == "up to date"
    assert hidden.load(state["body"]) == hidden.load(issues(w)[0]["body"])


def test_without_the_setting_there_is_no_dashboard_and_no_request(w):
    w.config("labels: [dependencies]\n")
    code, cap = dashboard(w)
    assert (code, w.fake.requests, issues(w)) == (0, [], [])
    assert cap.out.startswith("dashboard: off")


def test_an_issue_with_the_label_but_without_the_marker_is_not_the_dashboard(w):
    w.fake.add_issue(TEMPLATE, title="about the bot", body="please add X", labels=[LABEL], user="bob")
    dashboard(w)
    assert len(issues(w)) == 2 and issues(w)[0]["body"] == "please add X"


def test_foreign_text_from_the_pr_body_is_inert(w):
    w.pr["body"] = w.pr["body"].replace("`range-pin` (`requirements.txt:3`)", "`@everyone` (`#12`)")
    dashboard(w)
    body = issues(w)[0]["body"]
    assert "- `@everyone` (`#12`)" in body      # inside code spans: no mention, no reference


# ------------------------------------------------------------------ Check now
def tick(w, login="alice", kind="User"):
    issue = issues(w)[0]
    before = issue["body"]
    issue["body"] = before.replace("- [ ] Check now", "- [x] Check now")
    return w.command("issues", issue_edited_event(TEMPLATE, issue, before, login=login, kind=kind)), issue, before


@pytest.mark.needs("webhooks")
def test_check_now_ticked_by_a_writer_starts_a_run_and_is_unticked(w):
    dashboard(w)
    writes = len(w.fake.writes())
    (code, out, err, outputs), issue, before = tick(w)
    assert (code, outputs) == (0, {"action": "recheck", "version": "", "pr": ""})
    assert issue["body"] == before                  # unticked, nothing else changed
    assert w.writes()[writes:] == [("PATCH", f"/repos/{TEMPLATE}/issues/{issue['number']}")]


@pytest.mark.needs("webhooks")
def test_check_now_ticked_by_a_reader_is_undone_and_starts_nothing(w):
    dashboard(w)
    (code, out, err, outputs), issue, before = tick(w, login="rita")
    assert (code, outputs) == (0, NONE)
    assert issue["body"] == before


@pytest.mark.needs("webhooks")
def test_an_edit_of_the_hidden_state_by_a_reader_is_undone(w):
    dashboard(w)
    issue = issues(w)[0]
    before = issue["body"]
    issue["body"] = hidden.replace(before, {**hidden.load(before), "ignored": [{"version": "1.5.1"}]})
    code, out, err, outputs = w.command("issues", issue_edited_event(TEMPLATE, issue, before, login="tom"))
    assert outputs == NONE and issue["body"] == before


@pytest.mark.needs("webhooks")
def test_an_edit_by_a_bot_costs_no_request(w):
    dashboard(w)
    n = len(w.fake.requests)
    (code, out, err, outputs), issue, before = tick(w, login="other-app[bot]", kind="Bot")
    assert (code, outputs, len(w.fake.requests)) == (0, NONE, n)


@pytest.mark.needs("webhooks")
def test_edits_of_other_issues_cost_no_request(w):
    other = w.fake.add_issue(TEMPLATE, title="bug", body="- [x] Check now", labels=["bug"], user="bob")
    code, out, err, outputs = w.command("issues", issue_edited_event(TEMPLATE, other, "- [ ] Check now"))
    assert (code, outputs, w.fake.requests) == (0, NONE, [])


@pytest.mark.needs("webhooks")
def test_without_the_setting_a_ticked_box_costs_no_request(w):
    dashboard(w)
    w.config("labels: [x]\n")
    n = len(w.fake.requests)
    (code, out, err, outputs), issue, before = tick(w)
    assert (outputs, len(w.fake.requests)) == (NONE, n)


# ------------------------------------------------------------------ ignored versions live in the dashboard
@pytest.mark.needs("webhooks")
def test_ignore_keeps_the_version_in_the_dashboard(w):
    dashboard(w)
    n = w.pr["number"]
    code, out, err, outputs = w.command("issue_comment", comment_event(TEMPLATE, n, "/executorch-pack-bot ignore"))
    assert outputs == {"action": "ignore", "version": "1.5.1", "pr": str(n)}
    body = issues(w)[0]["body"]
    assert hidden.load(body)["ignored"] == [{"version": "1.5.1", "pr": n}]
    assert f"- `1.5.1`: to propose it again, comment `/executorch-pack-bot unignore 1.5.1` on #{n}" in body
    assert w.pr["state"] == "closed" and hidden.load(w.pr["body"]) == {"closed_by": "ignore", "version": "1.5.1"}

    w.capsys.readouterr()
    assert main(["check", "--repo", str(w.repo), "--upstream", f"github:{UPSTREAM}", "--respect-ignored"]) == 0
    cap = w.capsys.readouterr()
    assert "# ignored by reviewers: 1.5.1" in cap.err
    assert "current=1.4.0\ntarget=1.4.0\nupdate-needed=false" in cap.out

    w.command("issue_comment", comment_event(TEMPLATE, n, "/executorch-pack-bot unignore 1.5.1"))
    assert hidden.load(issues(w)[0]["body"])["ignored"] == []
    assert "### Ignored versions\n\nNone." in issues(w)[0]["body"]


@pytest.mark.needs("webhooks")
def test_ignore_creates_the_dashboard_when_there_is_none(w):
    w.command("issue_comment", comment_event(TEMPLATE, w.pr["number"], "/executorch-pack-bot ignore 1.6.0"))
    [issue] = issues(w)
    assert hidden.load(issue["body"])["ignored"] == [{"version": "1.6.0", "pr": w.pr["number"]}]


@pytest.mark.needs("webhooks")
def test_the_token_never_appears_in_the_dashboard_or_the_output(w):
    code, cap = dashboard(w)
    (c2, out, err, outputs), issue, before = tick(w)
    assert TOKEN not in cap.out + cap.err + out + err + issues(w)[0]["body"]
    assert all(TOKEN not in repr(s.body) for s in w.fake.requests)
