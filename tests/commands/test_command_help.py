"""Command help texts: the token permissions of writing commands, anonymous reads of reading
commands, a description for every option.
"""

from __future__ import annotations

import pytest


def _option_help(command: str, option: str) -> str:
    from bot.cli import build_parser
    parser = build_parser()
    sub = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction").choices[command]
    return next(a.help or "" for a in sub._actions if option in a.option_strings)


@pytest.mark.parametrize("command", ["publish", "run"])
def test_token_help_of_writing_commands_names_the_permissions(command):
    text = _option_help(command, "--token")
    assert "anonymous" not in text
    assert "Contents" in text and "Pull requests" in text and "write" in text


def test_token_help_of_reading_commands_still_mentions_anonymous_reads():
    assert "anonymous public reads" in _option_help("check", "--token")


def test_fetch_pack_upstream_has_a_description():
    text = _option_help("fetch-pack", "--upstream")
    assert "release" in text and "default" in text
