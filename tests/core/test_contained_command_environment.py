"""``python -m bot.contain [--stop-commands [--bot]] -- CMD ARGS`` (the workflow's pip step and the bot's own
steps), its ``main()`` run in this process: the command gets the scrubbed environment, never the stop-commands token
unless it is the bot (``--bot``), no standard input, and its exit code; its output is framed by the stop and resume
lines (GitHub docs, "Workflow commands for GitHub Actions", "Stopping and starting workflow commands"); a command
that cannot start or writes to a file command is a clear error, the resume line still printed.

(The conftest puts back the child-subreaper flag ``guest()`` sets on this process.)"""

from __future__ import annotations

import json
import os
import re
import sys

import pytest

from bot.contain import main
from bot.logstream import STOP_VAR

USAGE = "usage: python -m bot.contain [--stop-commands [--bot]] [--separate-user [--writable FOLDER ...]] -- COMMAND [ARGS]\n"
ENV_DUMP = "import json, os, sys; sys.stdout.write(json.dumps(dict(os.environ)) + '\\n')"


def run(capfd, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capfd.readouterr()
    return code, out, err


def framed(out: str) -> tuple[str, str]:
    """``(token, what the command printed)`` of output framed by ``::stop-commands::T`` and ``::T::``."""
    m = re.fullmatch(r"::stop-commands::([0-9a-f]{32})\n(.*)::\1::\n", out, re.S)
    assert m, out
    return m.group(1), m.group(2)


def test_a_plain_stop_commands_run_never_hands_the_token_to_the_command(capfd, monkeypatch):
    monkeypatch.setenv(STOP_VAR, "f" * 32)     # a token the step had: dropped too
    code, out, err = run(capfd, "--stop-commands", "--", sys.executable, "-c", ENV_DUMP)
    assert (code, err) == (0, "")
    token, printed = framed(out)
    env = json.loads(printed)
    assert STOP_VAR not in env
    assert token not in json.dumps(env)


def test_the_bot_handed_the_token_gets_exactly_the_step_s_token(capfd):
    for args in (("--stop-commands", "--bot"), ("--bot", "--stop-commands")):
        code, out, err = run(capfd, *args, "--", sys.executable, "-c", ENV_DUMP)
        assert (code, err) == (0, "")
        token, printed = framed(out)
        assert json.loads(printed)[STOP_VAR] == token


def test_the_command_gets_the_scrubbed_environment(capfd, monkeypatch):
    monkeypatch.setenv("GITHUB_TOKEN", "ghs_secret")
    monkeypatch.setenv("MY_API_KEY", "k")
    monkeypatch.setenv("PLAIN_SETTING", "kept")
    code, out, err = run(capfd, "--", sys.executable, "-c", ENV_DUMP)
    env = json.loads(out)
    assert (code, err) == (0, "")
    assert "GITHUB_TOKEN" not in env and "MY_API_KEY" not in env and env["PLAIN_SETTING"] == "kept"


def test_without_stop_commands_the_output_is_the_command_s_alone(capfd):
    assert run(capfd, "--", sys.executable, "-c", "print('hello')") == (0, "hello\n", "")
    assert run(capfd, sys.executable, "-c", "print('no separator')") == (0, "no separator\n", "")


def test_the_command_s_exit_code_is_the_exit_code_and_the_resume_line_follows(capfd):
    code, out, err = run(capfd, "--stop-commands", "--", sys.executable, "-c", "print('x'); raise SystemExit(7)")
    assert (code, err) == (7, "")
    assert framed(out)[1] == "x\n"


def test_the_command_reads_no_standard_input(capfd):
    r, w = os.pipe()    # the step's standard input holds text: the command must not get it
    os.write(w, b"the step's input\n")
    os.close(w)
    saved = os.dup(0)
    os.dup2(r, 0)
    try:
        code, out, _err = run(capfd, "--", sys.executable, "-c", "import sys; print(repr(sys.stdin.read()))")
    finally:
        os.dup2(saved, 0)
        os.close(saved)
        os.close(r)
    assert (code, out) == (0, "''\n")


def test_options_after_the_separator_are_the_command_s(capfd):
    code, out, err = run(capfd, "--", sys.executable, "-c", "import sys; print(sys.argv[1:])", "--bot",
                         "--stop-commands")
    assert (code, out, err) == (0, "['--bot', '--stop-commands']\n", "")


@pytest.mark.parametrize("args", [(), ("--",), ("--stop-commands",), ("--stop-commands", "--"), ("--bot", "--", "true"),
                                  ("--bot",)])
def test_bad_usage_is_exit_2_with_the_usage_line(capfd, args):
    assert run(capfd, *args) == (2, "", USAGE)


def test_a_command_that_cannot_start_is_named(capfd, tmp_path):
    missing = str(tmp_path / "no-such-program")
    assert run(capfd, "--", missing) == (2, "", f"error: cannot start {missing}: No such file or directory\n")
    code, out, err = run(capfd, "--stop-commands", "--", missing)
    assert (code, err) == (2, f"error: cannot start {missing}: No such file or directory\n")
    assert framed(out)[1] == ""


def test_a_write_to_a_file_command_is_undone_and_an_error(capfd, tmp_path, monkeypatch):
    env_file = tmp_path / "github_env"
    env_file.write_text("KEPT=1\n")
    monkeypatch.setenv("GITHUB_ENV", str(env_file))
    script = f"open({str(env_file)!r}, 'a').write('EVIL=1\\n')"
    code, out, err = run(capfd, "--stop-commands", "--", sys.executable, "-c", script)
    assert code == 1
    assert err == (f"error: {sys.executable.rsplit('/', 1)[1]} wrote to the step's GITHUB_ENV (upstream code must not "
                   "set the workflow's outputs, environment or summary); its writes were undone\n")
    assert framed(out)[1] == ""
    assert env_file.read_text() == "KEPT=1\n"


def test_without_arguments_given_main_reads_the_command_line(capfd, monkeypatch):
    monkeypatch.setattr(sys, "argv", ["bot/contain.py", "--stop-commands", "--", sys.executable, "-c",
                                      "import sys; print(sys.argv[1:])", "one"])
    code, out, err = main(), *capfd.readouterr()
    assert (code, err, framed(out)[1]) == (0, "", "['one']\n")
    monkeypatch.setattr(sys, "argv", ["bot/contain.py"])
    assert (main(), *capfd.readouterr()) == (2, "", USAGE)


@pytest.mark.parametrize("shape", ["link-on-the-way", "link-itself", "file-on-the-way"])
def test_a_writable_folder_reached_through_a_link_or_under_a_file_is_bad_usage(tmp_path, capsys, shape):
    """``--writable`` names the folder the guest gets; a link anywhere on its path would hand another folder
    (chown -R follows it), so the command refuses before any user is made, naming the part."""
    from bot.contain import main as contain_main
    real = tmp_path / "real"
    (real / "sub").mkdir(parents=True)
    (tmp_path / "link").symlink_to(real)
    (tmp_path / "afile").write_text("x")
    raw, part = {"link-on-the-way": (tmp_path / "link" / "sub", tmp_path / "link"),
                 "link-itself": (tmp_path / "link", tmp_path / "link"),
                 "file-on-the-way": (tmp_path / "afile" / "sub", tmp_path / "afile")}[shape]
    before = (real / "sub").stat().st_uid
    assert contain_main(["--separate-user", "--writable", str(raw), "--", "true"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: --writable {raw}: {part} is ") and err.count("\n") == 1
    assert (real / "sub").stat().st_uid == before


def test_help_prints_the_usage_and_exits_0(capsys):
    from bot.contain import main as contain_main
    assert contain_main(["--help"]) == 0
    assert capsys.readouterr().out.startswith("usage: python -m bot.contain [--stop-commands [--bot]] "
                                              "[--separate-user [--writable FOLDER ...]] -- COMMAND [ARGS]")
