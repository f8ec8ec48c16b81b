"""A mistyped option of a command prints that command's usage and the close option, exit 2 (argparse printed the
top-level usage, which does not list the command's options)."""

from __future__ import annotations

from helpers import run_cli


def test_a_mistyped_option_names_the_command_usage_and_the_close_option(capsys, tmp_path):
    code, out, err = run_cli(capsys, "update", "--repo", tmp_path, "--dryrun")
    assert (code, out) == (2, "")
    assert err.startswith("usage: executorch-pack-bot update ")
    assert err.splitlines()[-2:] == ["executorch-pack-bot update: error: unrecognized arguments: --dryrun",
                                     "--dryrun: did you mean --dry-run?"]


def test_an_unknown_argument_without_a_close_option_gets_the_command_usage_alone(capsys, tmp_path):
    code, out, err = run_cli(capsys, "doctor", "--repo", tmp_path, "--zzzzzz", "extra")
    assert (code, out) == (2, "")
    assert err.startswith("usage: executorch-pack-bot doctor ")
    assert err.splitlines()[-1] == "executorch-pack-bot doctor: error: unrecognized arguments: --zzzzzz extra"
