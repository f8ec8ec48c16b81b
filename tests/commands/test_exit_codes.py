"""The whole exit-code table (0, 1, 2, 3) in the top-level --help (each command's: tests/commands/test_help_groups_and_exit_codes.py),
and a GitHub URL given as --upstream names the spec to use."""

from __future__ import annotations

import pytest

from bot.cli import main

TABLE = """exit codes:
  0  done, or nothing to do (also: a pull request opened with some decorations refused)
  1  a check failed: a blocking item, a pack that failed verification
  2  bad usage or bad input (an option, a file, a refusal by GitHub that a rerun would repeat)
  3  a transient failure outlasted the retries; nothing was changed; the run can be repeated
"""


@pytest.mark.parametrize("argv", [[]])
def test_the_top_level_help_ends_with_the_whole_exit_code_table(argv, capsys):
    try:       # the top-level --help answers without argparse (a return), a command's through argparse (SystemExit)
        code = main([*argv, "--help"])
    except SystemExit as exc:
        code = exc.code
    assert code == 0
    assert capsys.readouterr().out.endswith("\n" + TABLE)


def test_the_transient_error_exits_3():
    from bot.errors import EXIT_TRANSIENT, PlatformError, TransientError
    assert TransientError("x").exit_code == EXIT_TRANSIENT == 3 and PlatformError("x").exit_code == 2


@pytest.mark.parametrize("url", ["https://github.com/pytorch/executorch", "https://github.com/pytorch/executorch.git",
                                 "https://github.com/pytorch/executorch/", "git@github.com:pytorch/executorch.git",
                                 "github.com/pytorch/executorch"])
def test_a_github_url_as_upstream_suggests_the_github_spec(url, template, capsys):
    assert main(["check", "--repo", str(template), "--upstream", url]) == 2
    assert capsys.readouterr().err == (
        f"executorch-pack-bot: error: --upstream {url}: a GitHub repository is named as github:pytorch/executorch "
        "(a URL is read as a local path, and there is none); use --upstream github:pytorch/executorch\n")


def test_a_missing_local_upstream_still_says_it_does_not_exist(template, tmp_path, capsys):
    assert main(["check", "--repo", str(template), "--upstream", str(tmp_path / "nope")]) == 2
    assert capsys.readouterr().err.endswith(f"upstream source {tmp_path / 'nope'} does not exist\n")


def test_fetch_pack_suggests_the_github_spec_too(tmp_path, capsys):
    assert main(["fetch-pack", "--version", "1.5.1", "--output-dir", str(tmp_path),
                 "--upstream", "https://github.com/pytorch/executorch"]) == 2
    assert capsys.readouterr().err == ("executorch-pack-bot: error: --upstream: fetch-pack needs github:OWNER/NAME; "
                                       "use --upstream github:pytorch/executorch\n")
