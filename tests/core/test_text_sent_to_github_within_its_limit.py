"""Every text the bot sends to GitHub or the runner stays within GitHub's documented limit for its field
(bot.limits, the one writer): at the limit it is sent as it is; just past it, it is cut at a line, says how much
was cut and where the whole text is, and keeps the bot's hidden records.  The fake GitHub answers 422 past the
limit as GitHub does ("body is too long (maximum is 65536 characters)").
"""

from __future__ import annotations

import json

import pytest
import requests

from bot import actions, limits
from fakegithub_events import FakeGitHubEvents
from github_world import TOKEN, cli

HOME = "acme/fleet-home"
CUT_FIELDS = [f for f in limits.FIELDS if f != "step-output"]


def filler(n: int, unit: str) -> str:
    """A text of exactly ``n`` units of lines of 99 characters (ASCII: one byte a character)."""
    line = "x" * 98 + "\n"
    text = line * (n // len(line))
    return text + "y" * (n - len(text))


@pytest.mark.parametrize("field", CUT_FIELDS)
def test_a_text_at_the_limit_is_sent_as_it_is(field):
    spec = limits.FIELDS[field]
    text = filler(spec.limit, spec.unit)
    assert limits.size(text, field) == spec.limit
    assert limits.fit(text, field, whole_at="in the job summary") == text


@pytest.mark.parametrize("field", CUT_FIELDS)
def test_a_text_one_past_the_limit_is_cut_within_it_and_says_so(field):
    spec = limits.FIELDS[field]
    text = filler(spec.limit + 1, spec.unit)
    out = limits.fit(text, field, whole_at="in the job summary of run 77")
    assert limits.size(out, field) <= spec.limit
    if field == "title":
        assert out.endswith("…") and text.startswith(out[:-1]) and len(out) == 256
    else:
        assert text.startswith(out.split("\n\n_✂")[0])
        assert f"limit of {spec.limit:,} {spec.unit} for {spec.what}; the whole text is in the job summary of run 77" in out
        cut = int(out.split("_✂ ")[1].split(" more characters")[0].replace(",", ""))
        assert cut == len(text) - len(out.split("\n\n_✂")[0])


def test_a_multibyte_job_summary_is_held_to_bytes_not_characters():
    text = "é" * 600_000          # 600,000 characters, 1,200,000 UTF-8 bytes
    out = limits.fit(text, "job-summary", whole_at="in the log")
    assert len(out.encode()) <= 1_048_576 < len(text.encode())


def test_a_cut_keeps_the_bot_s_hidden_records_and_closes_what_it_left_open():
    state = '<!-- executorch-pack-bot:state {"ignored": ["1.6.0"]} -->'
    text = "head\n```text\n" + "line\n" * 20_000 + "```\n" + state + "\n"
    out = limits.fit(text, "pull-body", whole_at="in the job summary")
    assert len(out) <= 65_536 and out.rstrip().endswith(state)
    assert out.count("```") % 2 == 0 and out.startswith("head\n```text\n")


def test_a_cut_without_a_place_for_the_whole_text_appends_it_to_the_job_summary(tmp_path):
    summary = tmp_path / "summary.md"
    env = {"GITHUB_STEP_SUMMARY": str(summary), "GITHUB_SERVER_URL": "https://github.com",
           "GITHUB_REPOSITORY": "acme/fw", "GITHUB_RUN_ID": "77"}
    text = "row\n" * 20_000
    out = limits.fit(text, "comment", env=env)
    assert "the whole text is in the [job summary of this run](https://github.com/acme/fw/actions/runs/77)" in out
    assert text in summary.read_text()


def test_step_outputs_at_the_job_s_limit_are_written_and_past_it_refused(tmp_path):
    from bot.errors import UsageError
    out = tmp_path / "out"
    env = {"GITHUB_OUTPUT": str(out)}
    value = "v" * 500_000    # UTF-16: two bytes a character, 1,000,000 bytes
    assert limits.fit_output("matrix", value) == value
    with pytest.raises(limits.TooLong, match="the step output matrix is 1,000,002 UTF-16 bytes"):
        limits.fit_output("matrix", value + "v")
    actions.set_outputs({"a": "1"}, env=env)
    with pytest.raises(UsageError, match="cannot write the step output: the step output matrix"):
        actions.set_outputs({"matrix": value}, env=env)
    assert "matrix" not in out.read_text()   # nothing half-written


def test_the_job_summary_of_a_step_is_held_to_1_mib_over_all_its_appends(tmp_path, capsys):
    summary = tmp_path / "summary.md"
    env = {"GITHUB_STEP_SUMMARY": str(summary)}
    actions.append_summary("a\n" * 300_000, env=env)          # 600,000 bytes
    actions.append_summary("b\n" * 300_000, env=env)          # would make 1,200,000
    data = summary.read_bytes()
    assert len(data) <= 1_048_576 and data.startswith(b"a\n" * 300_000)
    assert "the whole text is in this step's log" in data.decode()
    assert capsys.readouterr().out.count("b\n") == 300_000      # the whole second text, in the log


def test_an_annotation_of_40_long_lines_is_held_to_64_kb(tmp_path, capsys):
    summary = tmp_path / "summary.md"
    env = {"GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": str(summary)}
    actions.error("\n".join("é" * 2000 for _ in range(40)), env=env)   # 160,000 UTF-8 bytes
    line = capsys.readouterr().err.strip().splitlines()[-1]
    message = line.split("::", 2)[2]
    assert len(message.replace("%0A", "\n").encode()) <= 64 * 1024
    assert "é" * 2000 in summary.read_text()


@pytest.fixture
def fake(monkeypatch):
    f = FakeGitHubEvents()
    url = f.start()
    f.repo(HOME)
    for k, v in {"GITHUB_API_URL": url, "EXECUTORCH_PACK_BOT_MAX_WAIT": "0", "EXECUTORCH_PACK_BOT_WRITE_PAUSE": "0",
                 "GITHUB_TOKEN": TOKEN, "GITHUB_SERVER_URL": "https://github.com", "GITHUB_REPOSITORY": HOME,
                 "GITHUB_RUN_ID": "77"}.items():
        monkeypatch.setenv(k, v)
    for k in ("GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY", "GITHUB_ACTIONS", "EXECUTORCH_PACK_BOT_CACHE"):
        monkeypatch.delenv(k, raising=False)
    yield f
    f.stop()


@pytest.mark.parametrize("field, most, word", [("body", 65_536, "body"), ("title", 256, "title")])
def test_the_fake_answers_github_s_422_just_past_the_limit(fake, field, most, word):
    url = f"{fake.url}/repos/{HOME}/issues"
    head = {"Authorization": f"token {TOKEN}"}
    ok = {"title": "t", "body": "b", field: "x" * most}
    assert requests.post(url, json=ok, headers=head, timeout=10).status_code == 201
    r = requests.post(url, json={**ok, field: "x" * (most + 1)}, headers=head, timeout=10)
    assert r.status_code == 422
    assert r.json()["errors"][0]["message"] == f"{word} is too long (maximum is {most} characters)"


def _fleet(tmp_path, capsys, templates=25, flags=12):
    """A plan of ``templates`` templates behind, each job recording ``flags`` review-mention items (~280 chars)."""
    rows = [{"template": f"acme/fw-{i:02d}", "repository": f"acme/fw-{i:02d}", "branch": "", "current": "1.4.0",
             "target": "1.5.1", "state": "behind", "job": True, "key": f"acme-fw-{i:02d}"} for i in range(templates)]
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({"format": 1, "rows": rows, "packs": [{"pack-version": "1.5.1",
                                                                      "source": "release-asset"}]}))
    update_plan = tmp_path / "update-plan.json"
    update_plan.write_text(json.dumps({"flags": [
        {"code": "mixed-mention", "blocking": False,
         "message": f"docs/porting/board-{n}.md:{40 + n} names ExecuTorch 1.4.0 in prose next to the pinned version; "
                    "the sentence was left as it is because it may describe the history of the port rather than the "
                    "version in use, so a reviewer should read it and either update it to 1.5.1 or keep it as history"}
        for n in range(flags)]}))
    for r in rows:
        assert cli(capsys, "fleet-summary", "--record", str(tmp_path / "results" / f"{r['key']}.json"),
                   "--key", r["key"], "--status", "success", "--action", "created",
                   "--pr-url", f"https://github.com/{r['repository']}/pull/7", "--plan-file", str(update_plan))[0] == 0
    return plan


def test_a_fleet_dashboard_past_65536_characters_is_cut_and_written(fake, tmp_path, capsys, monkeypatch):
    from bot.fleet import summary
    plan = _fleet(tmp_path, capsys)
    uncut = summary.MARKER + "\n" + summary.render(
        summary.load_plan(plan), summary.rows(summary.load_plan(plan), summary.load_results(tmp_path / "results")),
        requests=False)
    assert len(uncut) > 65_536                      # 25 templates x 12 items: GitHub would answer 422
    job_summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(job_summary))
    code, out = cli(capsys, "fleet-summary", "--plan", str(plan), "--results", str(tmp_path / "results"),
                    "--dashboard", HOME)
    assert code == 0, out.err
    issue, = [i for i in fake.issues[HOME].values()]
    body = issue["body"]
    assert len(body) <= 65_536 and body.startswith(summary.MARKER)
    assert "| acme/fw\\-00 |" in body                               # the first rows are kept
    assert ("limit of 65,536 characters for an issue body; the whole text is in the "
            "[job summary of this run](https://github.com/acme/fleet-home/actions/runs/77)") in body
    assert all(f"| acme/fw\\-{i:02d} |" in job_summary.read_text() for i in range(25))   # the whole table


def test_the_fake_answers_github_s_422_for_a_comment_just_past_the_limit(fake):
    head = {"Authorization": f"token {TOKEN}"}
    issue = requests.post(f"{fake.url}/repos/{HOME}/issues", json={"title": "t", "body": "b"}, headers=head,
                          timeout=10).json()
    url = f"{fake.url}/repos/{HOME}/issues/{issue['number']}/comments"
    assert requests.post(url, json={"body": "x" * 65_536}, headers=head, timeout=10).status_code == 201
    r = requests.post(url, json={"body": "x" * 65_537}, headers=head, timeout=10)
    assert (r.status_code, r.json()["errors"][0]["message"]) == (422, "Body is too long (maximum is 65536 characters)")


def test_a_full_job_summary_takes_nothing_more_and_the_text_goes_to_the_log(tmp_path, capsys):
    summary = tmp_path / "summary.md"
    summary.write_text("a" * 1_048_500)                  # 76 bytes left: not even the note fits
    actions.append_summary("b\n" * 100, env={"GITHUB_STEP_SUMMARY": str(summary)})
    assert summary.stat().st_size == 1_048_500
    assert capsys.readouterr().out.count("b\n") == 100
