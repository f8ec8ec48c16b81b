"""fleet-plan fits its own job and its token: every wait (the client's retries of a request and the pauses between
passes) is bounded by the time the plan has left, which the plan job's timeout-minutes and the App token's hour
hold; what could not be done is a row ("rate limited", "not installed"), never a cancelled job.  ``discover:`` plans
only repositories the App installation covers (GET /installation/repositories)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

import fleetworld as fw
from bot.fleet.plan import TIME_BUDGET, TOKEN_LIFE
from fakegithub import Fault
from test_fleet_plan import plan

ROOT = Path(__file__).resolve().parents[2]
SECONDARY = {"message": "You have exceeded a secondary rate limit. Please wait a few minutes before you try again.",
             "documentation_url": "https://docs.github.com/rest"}
#: What the plan job does besides fleet-plan (checkout, Python, the install, the cache, the upload): room kept.
OTHER_STEPS = 600


def _plan_jobs() -> list[tuple[str, str, dict]]:
    """(workflow file, job id, job) of every job of every workflow that runs fleet-plan."""
    out = []
    for wf in sorted((ROOT / ".github" / "workflows").glob("*.yml")):
        doc = yaml.safe_load(wf.read_text(encoding="utf-8"))
        for job_id, job in (doc.get("jobs") or {}).items():
            if any(isinstance(st, dict) and ((st.get("with") or {}).get("command") == "fleet-plan"
                                             or re.search(r"(^|\s)fleet-plan(\s|$)", str(st.get("run") or "")))
                   for st in job.get("steps") or []):
                out.append((wf.name, job_id, job))
    return out


def test_every_job_that_runs_fleet_plan_holds_the_plan_s_time_with_room_for_its_other_steps():
    jobs = _plan_jobs()
    assert jobs, "no workflow job runs fleet-plan"
    for name, job_id, job in jobs:
        steps = yaml.safe_dump(job.get("steps") or [])
        assert "--time-budget" not in steps, f"{name} {job_id}: sets its own --time-budget; check it here"
        minutes = job.get("timeout-minutes")
        assert isinstance(minutes, int), f"{name} {job_id}: no timeout-minutes (GitHub's default is 360)"
        assert TIME_BUDGET + OTHER_STEPS <= minutes * 60, f"{name} {job_id}: timeout-minutes {minutes}"
    assert TIME_BUDGET + OTHER_STEPS <= TOKEN_LIFE


@pytest.fixture
def clock(monkeypatch):
    """A virtual clock: time.sleep advances it, time.time and time.monotonic read it; nothing really waits."""
    now = {"t": 0.0, "slept": []}
    base = 1_800_000_000.0

    def sleep(s):
        now["slept"].append(s)
        now["t"] += s
        for hook in now.get("hooks", ()):
            hook(now["t"])
    import time

    from bot.github.client import RetryPolicy
    # a request's retry policy sleeps through the function bound when its class was made: that one too
    defaults = tuple(sleep if d is time.sleep else d for d in RetryPolicy.__init__.__defaults__)
    monkeypatch.setattr(RetryPolicy.__init__, "__defaults__", defaults)
    monkeypatch.setattr("time.sleep", sleep)
    monkeypatch.setattr("time.monotonic", lambda: now["t"])
    monkeypatch.setattr("time.time", lambda: base + now["t"])
    return now


def _twenty_behind(fake, tmp_path) -> Path:
    fw.add_upstream(fake)
    lines = ["templates:"]
    for i in range(20):
        fw.set_state(fake, f"acme/t{i:02d}", "behind")
        lines.append(f"  - repository: acme/t{i:02d}")
    lst = tmp_path / "fleet.yml"
    lst.write_text("\n".join(lines) + "\n")
    return lst


@pytest.mark.parametrize("refused_for, expected_state", [(2400, "rate limited"), (300, "behind")],
                         ids=["refused-for-40-minutes", "refused-for-5-minutes"])
def test_a_rate_limit_longer_than_the_job_ends_the_waits_and_the_templates_are_rows(
        fake, tmp_path, capsys, monkeypatch, clock, refused_for, expected_state):
    # the bot's own defaults: 60 s a wait, 180 s a request, 5 attempts, --pause 60, --max-pause 900, three passes
    monkeypatch.delenv("EXECUTORCH_PACK_BOT_MAX_WAIT", raising=False)
    monkeypatch.delenv("EXECUTORCH_PACK_BOT_ATTEMPTS", raising=False)
    lst = _twenty_behind(fake, tmp_path)
    fake.faults.append(Fault("GET", r"^/repos/acme/", 403, SECONDARY, {"Retry-After": "60"}, times=10 ** 6))
    clock["hooks"] = [lambda t: fake.faults.clear() if t >= refused_for else None]
    code, p, captured = plan(capsys, tmp_path, lst)
    assert code == 0 and p is not None                             # the plan file is written
    waited = sum(clock["slept"])
    assert waited <= TIME_BUDGET                                   # old: 2460 s in 41 sleeps
    minutes = min(job["timeout-minutes"] for _, _, job in _plan_jobs())
    assert waited + OTHER_STEPS <= minutes * 60 and waited < TOKEN_LIFE
    states = {r["template"]: r["state"] for r in p["rows"]}
    assert set(states.values()) == {expected_state} and len(states) == 20
    if expected_state == "rate limited":
        row = p["rows"][-1]
        assert not row["job"] and "planned again by the next run" in row["reason"]
        assert f"the plan's {TIME_BUDGET:g} s" in row["reason"]
        assert p["pull-requests"] == []


def test_a_time_budget_past_the_token_s_hour_is_held_to_the_hour():
    from bot.fleet.plan import Budget
    assert Budget(7200, clock=lambda: 0.0).left() == TOKEN_LIFE


def _org(fake, tmp_path, installation):
    fw.add_upstream(fake)
    for name in ("fw-main", "fw-community"):
        fw.set_state(fake, f"acme/{name}", "behind")
        fake.repo(f"acme/{name}").topics = ["cmsis-executorch-template"]
    fake.installation = installation
    lst = tmp_path / "fleet.yml"
    lst.write_text("discover:\n  - organization: acme\n    topic: cmsis-executorch-template\n")
    return lst


def test_discover_plans_only_the_repositories_the_app_installation_covers(fake, tmp_path, capsys):
    lst = _org(fake, tmp_path, ["acme/fw-main"])
    code, p, _ = plan(capsys, tmp_path, lst)
    assert code == 0
    assert [j["repository"] for j in p["pull-requests"]] == ["acme/fw-main"]      # old: both
    row = next(r for r in p["rows"] if r["template"] == "acme/fw-community")
    assert (row["state"], row["job"]) == ("not installed", False)
    assert row["reason"].startswith("found by its topic, but the App installation does not cover acme/fw-community")
    assert fake.count("GET", r"^/installation/repositories$") == 1


def test_a_token_that_is_not_an_installation_s_plans_what_it_sees_and_says_it_could_not_tell(fake, tmp_path, capsys):
    lst = _org(fake, tmp_path, None)          # GitHub answers 403 to a token that is not an installation's
    code, p, captured = plan(capsys, tmp_path, lst)
    assert code == 0
    assert sorted(j["repository"] for j in p["pull-requests"]) == ["acme/fw-community", "acme/fw-main"]
    assert "cannot tell which repositories the App installation covers" in captured.err


@pytest.mark.parametrize("seconds", ["3601", "99999"])
def test_a_time_budget_past_the_token_s_hour_is_bad_usage(tmp_path, capsys, seconds):
    from bot.cli import main
    lst = tmp_path / "fleet.yml"
    lst.write_text("templates:\n  - repository: acme/a\n")
    assert main(["fleet-plan", "--list", str(lst), "--time-budget", seconds]) == 2
    assert f"--time-budget {seconds}: at most 3600 seconds" in capsys.readouterr().err
