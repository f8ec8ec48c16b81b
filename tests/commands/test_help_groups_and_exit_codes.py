"""``--help`` lists the commands a person runs apart from the workflow's steps, and each command's ``--help``
shows only the exit codes that command can return."""

from __future__ import annotations

import re

import pytest

from bot import cli
from helpers import run_cli

PERSON = ["demo", "doctor", "audit", "update", "verify-pack", "build-pack", "run-model", "npu-estimate"]
STEPS = ["check", "fetch-pack", "previous-pack", "publish", "run", "command", "dashboard", "fleet-plan", "fleet-summary"]


def _names(block: str) -> list[str]:
    return re.findall(r"^  ([a-z-]+)  ", block, re.M)


def test_top_help_groups_the_commands_a_person_runs_apart_from_the_workflow_steps(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "120")
    code, out, _ = run_cli(capsys, "--help")
    assert code == 0
    person = out[out.index("commands you run:\n"):out.index("the workflow's steps")]
    steps = out[out.index("the workflow's steps"):out.index("\noptions:\n")]
    assert _names(person) == PERSON and _names(steps) == STEPS
    assert "executorch-pack-bot COMMAND --help shows a command's options and the exit codes it can return." in out
    assert [line[:3] for line in out.split("exit codes:\n")[1].splitlines()] == ["  0", "  1", "  2", "  3"]


def test_h_through_argparse_prints_the_same_groups(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "120")
    assert cli.build_parser(load=[]).format_help() == cli.top_help(118)


def _exit_lines(capsys, command: str) -> list[str]:
    with pytest.raises(SystemExit):
        cli.main([command, "--help"])
    out = capsys.readouterr().out
    return out.split("exit codes:\n", 1)[1].rstrip("\n").splitlines()


@pytest.mark.parametrize("command,codes", [
    ("audit", ["0  done, or nothing to do", "1", "2"]),
    ("check", ["0  done, or nothing to do", "2", "3"]),
    ("verify-pack", ["0  done, or nothing to do", "1", "2"]),
    ("build-pack", ["0  done, or nothing to do", "1", "2", "N  a failing build step's own exit code (CMake, build_pack.sh)"]),
    ("publish", ["0  done, or nothing to do (also: a pull request opened with some decorations refused)", "1", "2", "3"]),
    ("dashboard", ["0  done, or nothing to do", "2", "3"]),
])
def test_a_command_help_shows_only_the_exit_codes_it_can_return(capsys, command, codes):
    lines = [line.strip() for line in _exit_lines(capsys, command)]
    assert [line if line.startswith(("0", "N")) else line[0] for line in lines] == codes


def test_every_command_has_its_exit_codes(capsys):
    assert set(cli.COMMAND_EXIT_CODES) == {name for name, _, _ in cli.COMMANDS}
    assert set(PERSON) | set(STEPS) == set(cli.COMMAND_EXIT_CODES) and set(STEPS) == cli.WORKFLOW_STEPS
    for name, _, _ in cli.COMMANDS:
        shown = [int(line.split()[0]) for line in _exit_lines(capsys, name) if line.split()[0].isdigit()]
        assert tuple(shown) == cli.COMMAND_EXIT_CODES[name], name
