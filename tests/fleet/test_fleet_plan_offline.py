"""fleet-plan without a network: a name that does not resolve ends the plan at once (exit 3, no pause between
passes, no silent minutes), as doctor and update do; a pause the plan does make (a rate limit) is said on
stderr before it is waited.  The 403/429 pauses themselves: tests/fleet/test_fleet_plan_rate_limit_waits.py."""

from __future__ import annotations

import pytest

import fleetworld as fw
from fakegithub import Fault
from helpers import run_cli
from test_fleet_plan import plan
from test_offline_and_missing_token_errors import no_dns  # noqa: F401 - the fixture


def test_fleet_plan_offline_stops_at_the_first_attempt_without_a_pause(capsys, tmp_path, no_dns, monkeypatch):  # noqa: F811
    monkeypatch.setattr("time.sleep", lambda s: pytest.fail(f"paused {s} s before a pass that cannot help"))
    lst = tmp_path / "fleet.yml"
    lst.write_text("templates:\n  - repository: acme/firmware\n", encoding="utf-8")
    code, out, err = run_cli(capsys, "fleet-plan", "--list", lst)
    assert code == 3
    assert no_dns == ["api.github.com"]          # one request, no retry, no second pass
    assert out == ""
    line = err.strip().splitlines()[-1]
    assert line.startswith("executorch-pack-bot: error: cannot list the releases of pytorch/executorch: the name "
                           "api.github.com does not resolve (no network, or no DNS without a proxy)")
    assert "HTTPS_PROXY=http://HOST:PORT" in line and "waiting" not in err


def test_each_pause_between_passes_is_said_on_stderr_before_it_is_waited(fake, tmp_path, capsys, monkeypatch):
    world = fw.build_world(fake, tmp_path)
    slept = []
    monkeypatch.setattr("time.sleep", slept.append)
    monkeypatch.setenv("EXECUTORCH_PACK_BOT_ATTEMPTS", "1")
    fake.faults.append(Fault("GET", r"^/repos/acme/behind-b/git/trees/", 429, {"message": "Too many requests"}, times=2))
    code, p, captured = plan(capsys, tmp_path, world, "--pause", "5")
    assert code == 0 and slept == [5.0, 10.0]
    waits = [ln for ln in captured.err.splitlines() if ln.startswith("waiting ")]
    assert waits == [
        "waiting 5 s before retrying acme/behind-b: gave up trying to list the files of acme/behind-b after 1 attempts "
        "(last: HTTP 429: Too many requests)",
        "waiting 10 s before retrying acme/behind-b: gave up trying to list the files of acme/behind-b after 1 attempts "
        "(last: HTTP 429: Too many requests)"]


def test_the_releases_listing_pause_is_said_on_stderr(fake, tmp_path, capsys, monkeypatch):
    world = fw.build_world(fake, tmp_path)
    slept = []
    monkeypatch.setattr("time.sleep", slept.append)
    monkeypatch.setenv("EXECUTORCH_PACK_BOT_ATTEMPTS", "1")
    fake.faults.append(Fault("GET", r"^/repos/pytorch/executorch/releases", 503, {"message": "Unavailable"}, times=1))
    code, p, captured = plan(capsys, tmp_path, world, "--pause", "7")
    assert code == 0 and slept == [7.0]
    waits = [ln for ln in captured.err.splitlines() if ln.startswith("waiting ")]
    assert waits == ["waiting 7 s before retrying the upstream releases listing: gave up trying to list the "
                     "releases of pytorch/executorch after 1 attempts (last: HTTP 503: Unavailable)"]


def test_a_local_upstream_is_refused_with_why_the_fleet_needs_github_releases(fake, tmp_path, capsys, tags):
    world = fw.build_world(fake, tmp_path)
    code, out, err = run_cli(capsys, "fleet-plan", "--list", world, "--upstream", tags)
    assert code == 2 and fake.requests == []
    assert err.strip().splitlines()[-1] == (
        f"executorch-pack-bot: error: --upstream {tags}: expected github:OWNER/NAME, not a local path: the fleet "
        "plan needs GitHub's releases listing, not a local repository's tags: each target release's pack asset "
        "decides whether its pack job fetches the pack or builds it, and the fleet workflow's pack and "
        "pull-request jobs run on other runners, where a local path does not exist; nor would a local upstream "
        "make the plan work offline, since every template's pins are read through GitHub's API (docs/fleet.md, "
        "The commands). For one template offline, run `update --upstream PATH` or `doctor --upstream PATH`")


def test_a_github_url_upstream_is_pointed_to_its_github_spelling(fake, tmp_path, capsys):
    world = fw.build_world(fake, tmp_path)
    code, out, err = run_cli(capsys, "fleet-plan", "--list", world, "--upstream",
                             "https://github.com/pytorch/executorch.git")
    assert code == 2 and fake.requests == []
    assert ("--upstream https://github.com/pytorch/executorch.git: a GitHub repository is named as "
            "github:pytorch/executorch; use --upstream github:pytorch/executorch") in err


def test_a_refused_connection_ends_the_plan_at_once(tmp_path, capsys, monkeypatch):
    import socket
    with socket.socket() as s:          # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    monkeypatch.setenv("GITHUB_API_URL", f"http://127.0.0.1:{port}")
    monkeypatch.delenv("EXECUTORCH_PACK_BOT_MAX_WAIT", raising=False)
    monkeypatch.setattr("time.sleep", lambda s: pytest.fail(f"paused {s} s before a pass that cannot help"))
    from bot.github.client import RetryPolicy
    monkeypatch.setattr(RetryPolicy, "spend", lambda self, s: pytest.fail(f"waited {s} s before a retry"))
    lst = tmp_path / "fleet.yml"
    lst.write_text("templates:\n  - repository: acme/firmware\n", encoding="utf-8")
    code, out, err = run_cli(capsys, "fleet-plan", "--list", lst)
    assert code == 3 and out == ""
    assert err.strip().splitlines()[-1].startswith(
        f"executorch-pack-bot: error: cannot list the releases of pytorch/executorch: the connection to "
        f"127.0.0.1:{port} is refused (nothing listens there, or a firewall refuses it); behind a proxy")


def test_a_template_whose_host_cannot_be_reached_is_an_error_row_without_a_pause(fake, tmp_path, capsys, monkeypatch):
    from bot.fleet.remote import Remote
    from bot.github.client import Unreachable

    world = fw.build_world(fake, tmp_path)
    monkeypatch.setattr("time.sleep", lambda s: pytest.fail(f"paused {s} s before a pass that cannot help"))
    raw = Remote._raw

    def cut(self, url, params, etag, what):
        if "/repos/acme/behind-b/" in url:
            raise Unreachable(f"cannot {what}: the connection to 127.0.0.1:9 is refused (nothing listens there, "
                              "or a firewall refuses it)")
        return raw(self, url, params, etag, what)

    monkeypatch.setattr(Remote, "_raw", cut)
    code, p, captured = plan(capsys, tmp_path, world)
    assert code == 0
    row = next(r for r in p["rows"] if r["template"] == "acme/behind-b")
    assert (row["state"], row["reason"]) == (
        "error", "cannot list the files of acme/behind-b: the connection to 127.0.0.1:9 is refused (nothing "
                 "listens there, or a firewall refuses it)")
    assert "waiting" not in captured.err
    assert sum(r["state"] == "behind" for r in p["rows"]) >= 1   # the other templates are planned as before
