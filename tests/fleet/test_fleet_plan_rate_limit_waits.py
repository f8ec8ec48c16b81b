"""fleet-plan pauses between passes for as long as GitHub asked: ``Retry-After`` (seconds or an HTTP date), the
primary rate limit's ``x-ratelimit-reset``, else ``--pause`` doubling; a wait over ``--max-pause`` is not made."""

from __future__ import annotations

import time
from email.utils import formatdate

import pytest

import fleetworld as fw
from fakegithub import Fault
from test_fleet_plan import plan

SECONDARY = {"message": "You have exceeded a secondary rate limit. Please wait a few minutes before you try again.",
             "documentation_url": "https://docs.github.com/rest"}


@pytest.fixture
def world(fake, tmp_path):
    return fw.build_world(fake, tmp_path)


@pytest.fixture
def slept(monkeypatch):
    got = []
    monkeypatch.setattr("time.sleep", got.append)
    monkeypatch.setenv("EXECUTORCH_PACK_BOT_ATTEMPTS", "1")   # one try per request: each fault is one pass
    return got


def states(p):
    return {r["template"]: r["state"] for r in p["rows"]}


def test_a_retry_after_http_date_is_waited_until_that_time(fake, world, tmp_path, capsys, slept):
    when = formatdate(time.time() + 40, usegmt=True)   # RFC 9110 allows an HTTP date in Retry-After
    fake.faults.append(Fault("GET", r"^/repos/acme/behind-b/git/trees/", 403, SECONDARY, {"Retry-After": when}))
    code, p, _ = plan(capsys, tmp_path, world, "--pause", "5")
    assert code == 0 and states(p)["acme/behind-b"] == "behind"
    assert len(slept) == 1 and 30 < slept[0] <= 40


def test_the_primary_limit_is_waited_out_until_its_reset(fake, world, tmp_path, capsys, slept):
    reset = str(int(time.time()) + 120)
    fake.faults.append(Fault("GET", r"^/repos/acme/current-a/git/trees/", 403,
                             {"message": "API rate limit exceeded for installation ID 1."},
                             {"x-ratelimit-remaining": "0", "x-ratelimit-reset": reset}))
    code, p, _ = plan(capsys, tmp_path, world, "--pause", "5")
    assert code == 0 and states(p)["acme/current-a"] == "up to date"
    assert len(slept) == 1 and 110 < slept[0] <= 120


def test_without_a_header_the_pause_doubles(fake, world, tmp_path, capsys, slept):
    fake.faults.append(Fault("GET", r"^/repos/acme/behind-b/git/trees/", 429, {"message": "Too many requests"}, times=2))
    code, p, _ = plan(capsys, tmp_path, world, "--pause", "5")
    assert code == 0 and states(p)["acme/behind-b"] == "behind"
    assert slept == [5.0, 10.0]


def test_a_wait_longer_than_max_pause_is_not_made_and_the_template_is_a_row(fake, world, tmp_path, capsys, slept):
    fake.faults.append(Fault("GET", r"^/repos/acme/behind-b/git/trees/", 429, {"message": "Too many requests"},
                             {"Retry-After": "3600"}))
    code, p, _ = plan(capsys, tmp_path, world, "--max-pause", "600")
    assert code == 0 and slept == []
    row = next(r for r in p["rows"] if r["template"] == "acme/behind-b")
    assert row["state"] == "rate limited" and not row["job"]
    assert row["reason"].endswith("GitHub asks to wait 3600 s, more than the plan waits (600 s); tried 1 time, "
                                  "planned again by the next run")
    # every other template was planned in that one pass
    assert states(p)["acme/behind-c"] == "behind" and states(p)["acme/current-a"] == "up to date"


def test_upstream_asking_for_a_wait_is_waited_for(fake, world, tmp_path, capsys, slept):
    fake.faults.append(Fault("GET", r"^/repos/pytorch/executorch/releases", 429, {"message": "Too many requests"},
                             {"Retry-After": "12"}))
    code, p, _ = plan(capsys, tmp_path, world, "--pause", "5")
    assert code == 0 and slept == [12.0]


@pytest.mark.parametrize("value", ["-1", "nan", "inf"])
def test_a_bad_max_pause_is_refused_before_any_request(fake, world, tmp_path, capsys, value):
    code, p, captured = plan(capsys, tmp_path, world, "--max-pause", value)
    assert code == 2 and p is None and fake.requests == []
    assert "--max-pause" in captured.err
