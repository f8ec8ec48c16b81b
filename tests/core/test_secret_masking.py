"""The token is hidden from every message (:func:`bot.github.client.mask`) where it stands whole, and only when it
is long enough to be a real token (GitHub's are 40+ characters; the minimum is ``MIN_SECRET``, 8): a placeholder
such as ``GITHUB_TOKEN=x`` must not cut ``pytorch/executorch`` into ``pytorch/e***ecutorch``."""

from __future__ import annotations

import pytest

from bot.github import client
from helpers import run_cli
from test_offline_and_missing_token_errors import no_dns  # noqa: F401 - the fixture

REAL = "ghp_" + "A1b2C3d4E5" * 3 + "f6G7h8"   # the shape of a classic personal access token, 40 characters


@pytest.fixture(autouse=True)
def secrets(monkeypatch):
    monkeypatch.setattr(client, "_SECRETS", set())


def test_a_real_looking_token_is_masked_wherever_it_stands_whole():
    assert len(REAL) == 40
    client.register_secret(REAL)
    text = (f"Authorization: Bearer {REAL}\nhttps://x-access-token:{REAL}@github.com/acme/x.git\n"
            f"token='{REAL}' ({REAL})")
    assert client.mask(text) == ("Authorization: Bearer ***\nhttps://x-access-token:***@github.com/acme/x.git\n"
                                 "token='***' (***)")


def test_a_token_inside_a_longer_word_is_not_an_occurrence():
    client.register_secret("secretvalue")
    assert client.mask("mysecretvalue2 secretvalue_x secretvalue") == "mysecretvalue2 secretvalue_x ***"


def test_a_one_character_token_is_not_masked():
    client.register_secret("x")
    assert client.mask("pytorch/executorch behind a proxy: x") == "pytorch/executorch behind a proxy: x"


def test_a_token_shorter_than_the_minimum_is_not_masked_one_of_that_length_is():
    short, enough = "a" * (client.MIN_SECRET - 1), "b" * client.MIN_SECRET
    client.register_secret(short)
    client.register_secret(enough)
    assert client.mask(f"{short} {enough}") == f"{short} ***"


def test_a_placeholder_token_leaves_the_offline_error_readable(capsys, template, no_dns, monkeypatch):  # noqa: F811
    monkeypatch.setenv("GITHUB_TOKEN", "x")
    code, out, err = run_cli(capsys, "doctor", "--repo", template, "--github-repo", "acme/x")
    assert code == 3
    assert ("Not rehearsed: cannot list the releases of pytorch/executorch: the name api.github.com does not "
            "resolve (no network, or no DNS without a proxy).") in out
    assert "behind a proxy, set HTTPS_PROXY=http://HOST:PORT" in err
    assert "***" not in out + err
