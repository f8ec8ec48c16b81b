"""A rate-limit header that is neither form GitHub documents is ignored (the plan falls back on ``--pause``), never
an internal error: ``x-ratelimit-reset`` must be ASCII digits (``str.isdigit`` also accepts "²", which ``int``
refuses; a header's bytes reach the client as Latin-1 text, where byte 0xb2 is "²").  PyGithub itself reads the
header of every answer with ``int(float(...))``: one it cannot read is a refusal of that request (the template's
row), not an internal error."""

from __future__ import annotations

import pytest

import fleetworld as fw
from bot.fleet.remote import wait_hint
from fakegithub import Fault
from test_fleet_plan import plan


@pytest.fixture
def slept(monkeypatch):
    got = []
    monkeypatch.setattr("time.sleep", got.append)
    monkeypatch.setenv("EXECUTORCH_PACK_BOT_ATTEMPTS", "1")
    return got


@pytest.mark.parametrize("reset", ["\u00b2", "\u00b9\u00b2\u00b3", "\u0661\u0662", "-5", "1e9", " ", "12345678901234"])
def test_a_reset_that_is_not_ascii_digits_says_nothing(reset):
    assert wait_hint({"x-ratelimit-remaining": "0", "x-ratelimit-reset": reset}, now=0) is None


@pytest.mark.parametrize("after", ["-5", "nan", "inf", "1e9", "Mon, 99 Foo 2015", "\u00b2"])
def test_a_retry_after_that_is_neither_seconds_nor_a_date_says_nothing(after):
    assert wait_hint({"Retry-After": after}, now=0) is None


@pytest.mark.parametrize("reset", ["\u00b2", "nan", "1e999"])
def test_a_reset_pygithub_cannot_read_is_that_template_s_row_not_an_internal_error(fake, tmp_path, capsys, slept,
                                                                                   reset):
    # PyGithub reads x-ratelimit-reset of every answer with int(float(...)): ValueError or OverflowError there
    world = fw.build_world(fake, tmp_path)
    fake.faults.append(Fault("GET", r"^/repos/acme/behind-b/git/trees/", 403,
                             {"message": "API rate limit exceeded for installation ID 1."},
                             {"x-ratelimit-remaining": "0", "x-ratelimit-reset": reset}))
    code, p, out = plan(capsys, tmp_path, world, "--pause", "5")
    assert "internal error" not in out.err
    row = next(r for r in p["rows"] if r["template"] == "acme/behind-b")
    assert code == 0 and row["state"] == "error"
    assert row["reason"].startswith("cannot list the files of acme/behind-b: GitHub's answer has a rate-limit header "
                                    "(x-ratelimit-*) that is not a number")
    assert {r["state"] for r in p["rows"] if r["template"] != "acme/behind-b"} >= {"behind", "up to date"}
