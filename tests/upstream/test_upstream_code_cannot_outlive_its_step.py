"""Upstream code cannot outlive the command the bot ran, nor set the workflow's outputs, environment or summary.

A stand-in for upstream code (a shell script run as a build step through
bot.pack.build.run_step, as validate_pack.py through bot.pack.validator, and
as a pip build through ``python -m bot.contain``) daemonises: it forks,
starts a new session, forks again and its parent exits, leaving a process
that sleeps and then appends to ``GITHUB_ENV`` (what a later step would
read).  When the bot's call returns, that process is gone and the file is
as it was; a write to ``GITHUB_ENV`` made while the step ran is cut off and
reported.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bot.contain import descendants, guest
from bot.errors import CheckFailed
from bot.pack.build import run_step

DAEMON = r"""
import os, sys, time
pidfile = sys.argv[1]
if os.fork():
    while not os.path.exists(pidfile):   # the step's own process returns once the daemon is up
        time.sleep(0.01)
    sys.exit(0)
os.setsid()
if os.fork():
    os._exit(0)
if len(sys.argv) > 3:    # a tidy daemon leaves the step's output pipe; an untidy one keeps it open
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
with open(pidfile + ".tmp", "w") as fh:
    fh.write(str(os.getpid()))
os.rename(pidfile + ".tmp", pidfile)
time.sleep(float(sys.argv[2]))
with open(os.environ.get("LATER_ENV", "/dev/null"), "a") as fh:
    fh.write("EVIL=1\n")
"""


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split(") ", 1)[1][0] != "Z"
    except OSError:
        return False


def wait_for(path: Path) -> int:
    for _ in range(200):
        if path.is_file() and path.read_text():
            return int(path.read_text())
        time.sleep(0.02)
    raise AssertionError("the daemon did not start")


@pytest.fixture
def daemon(tmp_path, monkeypatch):
    script = tmp_path / "daemon.py"
    script.write_text(DAEMON)
    later = tmp_path / "later-step-env"
    later.write_text("")
    monkeypatch.setenv("LATER_ENV", str(later))
    return script, tmp_path / "pid", later


@pytest.mark.parametrize("tidy", [True, False])
def test_a_build_step_that_daemonises_leaves_nothing_running(daemon, tidy):
    script, pidfile, later = daemon
    result = run_step("cmake", [sys.executable, str(script), str(pidfile), "1.5", *(["tidy"] if tidy else [])],
                      emit=lambda line: None)
    pid = wait_for(pidfile)
    assert result.returncode == 0
    assert not alive(pid) and descendants() == []
    time.sleep(2.0)                        # past the daemon's sleep: nothing was written
    assert later.read_text() == ""


def test_the_validator_leaves_nothing_running(daemon, tmp_path):
    from bot.pack import validator
    script, pidfile, later = daemon
    root = tmp_path / "executorch"
    (root / validator.SCRIPT).parent.mkdir(parents=True)
    (root / validator.SCRIPT).write_text(DAEMON.replace("sys.argv[1]", repr(str(pidfile)))
                                         .replace("float(sys.argv[2])", "1.5").replace("len(sys.argv) > 3", "True"))
    result = validator.run_validator(root, tmp_path / "P.pack")
    pid = wait_for(pidfile)
    assert result.status == "pass" and not alive(pid)


def test_a_pip_build_through_bot_contain_leaves_nothing_running(daemon):
    script, pidfile, later = daemon
    p = subprocess.run([sys.executable, "-m", "bot.contain", "--", sys.executable, str(script), str(pidfile), "1.5",
                        "tidy"],
                       capture_output=True, text=True, timeout=60)
    pid = wait_for(pidfile)
    assert (p.returncode, p.stderr) == (0, "")
    assert not alive(pid)
    time.sleep(2.0)
    assert later.read_text() == ""


def test_a_file_command_written_during_the_step_is_undone_and_reported(tmp_path, monkeypatch):
    env_file = tmp_path / "github_env"
    env_file.write_text("KEEP=1\n")
    monkeypatch.setenv("GITHUB_ENV", str(env_file))
    with pytest.raises(CheckFailed) as exc:
        with guest("build_pack.sh"):
            with open(env_file, "a") as fh:     # as upstream code that found the file would
                fh.write("LD_PRELOAD=/tmp/x.so\n")
    assert env_file.read_text() == "KEEP=1\n"
    assert exc.value.message == ("build_pack.sh wrote to the step's GITHUB_ENV (upstream code must not set the "
                                 "workflow's outputs, environment or summary); its writes were undone")


def test_bot_contain_without_a_command_is_bad_usage():
    p = subprocess.run([sys.executable, "-m", "bot.contain", "--"], capture_output=True, text=True, timeout=60)
    assert (p.returncode, p.stderr) == (2, "usage: python -m bot.contain [--stop-commands [--bot]] [--separate-user [--writable FOLDER ...]] -- COMMAND [ARGS]\n")


def test_a_child_the_bot_had_before_the_step_is_spared(daemon):
    script, pidfile, later = daemon
    own = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        run_step("cmake", [sys.executable, str(script), str(pidfile), "0.5", "tidy"], emit=lambda line: None)
        assert not alive(wait_for(pidfile)) and own.poll() is None
    finally:
        own.kill()
        own.wait()
