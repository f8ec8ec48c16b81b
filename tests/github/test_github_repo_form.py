"""``--github-repo`` is checked before any request: anything but OWNER/NAME (an owner alone, a URL) is bad usage,
exit 2, naming the expected form, for every command that takes it."""

from __future__ import annotations

import pytest

from helpers import run_cli

COMMANDS = ["doctor", "check", "publish", "run", "dashboard"]


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("value,hint", [("me", ""), ("https://github.com/me/t", " (for this URL: me/t)"),
                                         ("me/t/x", ""), ("-me/t", "")])
def test_a_github_repo_not_of_the_owner_name_form_is_bad_usage_before_any_request(capsys, monkeypatch, tmp_path,
                                                                                 command, value, hint):
    import requests

    def no_network(*a, **k):
        raise AssertionError("a request was made")

    monkeypatch.setattr(requests.Session, "request", no_network)
    code, out, err = run_cli(capsys, command, "--repo", tmp_path, f"--github-repo={value}")
    assert code == 2 and out == ""
    assert err.splitlines()[-1].endswith(
        f"error: argument --github-repo: {value!r} is not a repository: expected OWNER/NAME, such as "
        f"octocat/cmsis-template{hint}")
    assert f"usage: executorch-pack-bot {command}" in err


def test_an_owner_name_passes_the_form_check():
    from bot.commands.check import github_repo
    assert [github_repo(v) for v in ("me/t", "Arm-Examples/CMSIS-Executorch", "a/b.c_d-e")] == [
        "me/t", "Arm-Examples/CMSIS-Executorch", "a/b.c_d-e"]
