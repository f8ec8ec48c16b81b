"""``bot.contain.descendants`` finds every live process under the bot, whatever it calls itself: a process name
(``comm``, up to 15 bytes, set by ``prctl(PR_SET_NAME)``; man 5 proc, ``/proc/PID/stat``) may hold ")", spaces
and digits, which must not hide it or its children; a process gone while ``/proc`` is read does not end the
search; a zombie is no live process; the processes spared (and theirs) are left out.  ``guest()`` undoes a write
to a file command that did not exist before, and names every file command written, in their order."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from bot import contain
from bot.contain import FILE_COMMANDS, descendants, guest, kill_strays
from bot.errors import CheckFailed

# set its own name, start a child (named plainly), write both pids, sleep
NAMED = r"""
import ctypes, os, subprocess, sys, time
ctypes.CDLL(None).prctl(15, sys.argv[2].encode(), 0, 0, 0)
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
with open(sys.argv[1] + ".tmp", "w") as fh:
    fh.write(f"{os.getpid()} {child.pid}")
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
time.sleep(60)
"""


def wait_for(path: Path) -> list[int]:
    for _ in range(500):
        if path.is_file():
            return [int(x) for x in path.read_text().split()]
        time.sleep(0.02)
    raise AssertionError("the process did not start")


@pytest.fixture
def named(tmp_path):
    procs = []

    def start(name: str) -> tuple[subprocess.Popen, int, int]:
        pidfile = tmp_path / f"pids{len(procs)}"
        script = tmp_path / "named.py"
        script.write_text(NAMED)
        p = subprocess.Popen([sys.executable, str(script), str(pidfile), name])
        procs.append(p)
        pid, child = wait_for(pidfile)
        assert Path(f"/proc/{pid}/comm").read_bytes().rstrip(b"\n") == name.encode()
        return p, pid, child

    yield start
    for p in procs:
        for pid in descendants(p.pid):
            try:
                os.kill(pid, 9)
            except ProcessLookupError:
                pass
        p.kill()
        p.wait()


@pytest.mark.parametrize("name", ["x) S 1 1 (", "a) Z 1 (b", ") R 1 ", "((1)) 2 3 4", "plain name", "naïve ünï"])
def test_a_process_named_with_parentheses_and_numbers_is_found_with_its_child(named, name):
    p, pid, child = named(name)
    assert pid == p.pid
    found = descendants()
    assert p.pid in found and child in found
    assert descendants(p.pid) == [child]


def test_a_process_gone_while_proc_is_read_does_not_end_the_search(named, monkeypatch):
    p, pid, child = named("worker")
    real = os.listdir

    def listing(path):
        names = real(path)
        if path == "/proc":   # a process that exited between the listing and the read comes first
            return ["2147483646", "self", *names]
        return names
    monkeypatch.setattr(contain.os, "listdir", listing)
    found = descendants()
    assert p.pid in found and child in found


def test_a_zombie_is_no_live_process_and_the_spared_are_left_out(named):
    p, pid, child = named("spared")
    z = subprocess.Popen([sys.executable, "-c", "pass"])
    for _ in range(500):
        stat = Path(f"/proc/{z.pid}/stat").read_text()
        if stat[stat.rfind(")") + 2] == "Z":
            break
        time.sleep(0.02)
    try:
        found = descendants()
        assert z.pid not in found and p.pid in found
        assert descendants(spare=frozenset({p.pid})) == [x for x in found if x not in (p.pid, child)]
        assert p.pid not in descendants(spare=frozenset({p.pid})) and child not in descendants(
            spare=frozenset({p.pid}))
    finally:
        z.wait()


def test_kill_strays_kills_every_descendant_but_the_spared(named):
    spared, s_pid, s_child = named("kept (x)")
    gone, g_pid, g_child = named("gone) R 1 (")
    before = frozenset(descendants()) - {g_pid, g_child}
    assert kill_strays(spare=before) >= 2     # a process still dying at the next round is signalled again
    assert not Path(f"/proc/{g_pid}").exists()     # killed and reaped: no zombie left either
    assert s_pid in descendants() and s_child in descendants()
    assert g_child not in descendants()
    assert kill_strays(spare=frozenset(descendants())) == 0


def test_a_file_command_created_by_the_guest_is_emptied_and_every_one_written_is_named(tmp_path):
    env = {var: str(tmp_path / var.lower()) for var in FILE_COMMANDS}
    Path(env["GITHUB_ENV"]).write_text("A=1\n")
    Path(env["GITHUB_STEP_SUMMARY"]).write_text("# before\n")
    with pytest.raises(CheckFailed) as exc:
        with guest("pip", env=env):
            Path(env["GITHUB_OUTPUT"]).write_text("pack=/evil\n")     # did not exist before
            with open(env["GITHUB_ENV"], "a") as fh:
                fh.write("EVIL=1\n")
            Path(env["GITHUB_STEP_SUMMARY"]).write_text("")           # shorter is a write too
    assert exc.value.message == ("pip wrote to the step's GITHUB_ENV, GITHUB_OUTPUT, GITHUB_STEP_SUMMARY (upstream "
                                 "code must not set the workflow's outputs, environment or summary); its writes "
                                 "were undone")
    assert Path(env["GITHUB_OUTPUT"]).read_text() == ""
    assert Path(env["GITHUB_ENV"]).read_text() == "A=1\n"
    assert not Path(env["GITHUB_PATH"]).exists() and not Path(env["GITHUB_STATE"]).exists()


def test_a_file_command_removed_by_the_guest_or_never_named_is_no_error(tmp_path):
    env = {"GITHUB_ENV": str(tmp_path / "env"), "GITHUB_OUTPUT": "", "UNRELATED": str(tmp_path / "u")}
    Path(env["GITHUB_ENV"]).write_text("A=1\n")
    Path(env["UNRELATED"]).write_text("x")
    with guest("cmake", env=env) as spare:
        assert isinstance(spare, frozenset)
        os.unlink(env["GITHUB_ENV"])
        Path(env["UNRELATED"]).write_text("changed")
    assert not Path(env["GITHUB_ENV"]).exists()
    with guest("cmake", env={}):
        pass


def test_the_bot_is_made_non_dumpable_and_guest_makes_it_so_before_the_block():
    import ctypes

    from bot.contain import make_undumpable

    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(4, 1, 0, 0, 0)                      # dumpable (the conftest puts the flag back after the test)
    assert make_undumpable() is True
    assert libc.prctl(3, 0, 0, 0, 0) == 0          # PR_GET_DUMPABLE: no longer dumpable
    libc.prctl(4, 1, 0, 0, 0)
    with guest("cmake", env={}):
        assert libc.prctl(3, 0, 0, 0, 0) == 0


def test_where_there_is_no_prctl_the_bot_says_so(monkeypatch):
    from bot.contain import make_undumpable

    def no_libc(*args, **kwargs):
        raise OSError("no C library here")
    monkeypatch.setattr(contain, "ctypes", SimpleNamespace(CDLL=no_libc))
    assert make_undumpable() is False
