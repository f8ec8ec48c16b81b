"""Upstream code is a guest: no process it starts outlives the command the bot ran, and its file commands are undone.

Upstream code (CMake, ``build_pack.sh``, ``validate_pack.py``, pip builds of
the template's requirements) runs in the build job as the runner's user.
:func:`guest` wraps each run:

- The bot becomes a *child subreaper* (``prctl(PR_SET_CHILD_SUBREAPER)``,
  Linux 3.4+; man 2 prctl): a process that daemonises (forks, ``setsid``,
  forks again, the parent exits) is re-parented to the bot, not to init.
  When the command returns, every process still descending from the bot is
  killed (``SIGKILL``, repeated until none is left) and reaped, so none can
  wait for a later step's environment (``ACTIONS_RUNTIME_TOKEN`` of the cache
  save or the artifact upload) or write into its files.
- The bot is made non-dumpable (``prctl(PR_SET_DUMPABLE, 0)``): a process of
  the same user can no longer read its ``/proc/PID/environ`` (which names
  the Actions file-command files) or open its ``/proc/PID/fd/*`` (its
  standard output is the step's log, where a line can be a workflow command).
- The Actions file-command files of the step (``GITHUB_ENV``,
  ``GITHUB_PATH``, ``GITHUB_OUTPUT``, ``GITHUB_STATE``,
  ``GITHUB_STEP_SUMMARY``; GitHub docs, "Workflow commands for GitHub
  Actions", "Environment files") are read before and after: anything upstream
  code wrote to them is cut off again before the step ends (the runner reads
  them only then), and :class:`~bot.errors.CheckFailed` says so.

This is containment, not a sandbox: during the command, upstream code still
runs as the runner's user (docs/security.md says what is left).  ``python -m
bot.contain -- CMD ARGS`` runs one command so (the workflow's pip step).
"""

from __future__ import annotations

import ctypes
import os
import signal
import subprocess
import sys
from contextlib import contextmanager
from typing import Iterator, Optional

from bot.errors import CheckFailed

FILE_COMMANDS = ("GITHUB_ENV", "GITHUB_PATH", "GITHUB_OUTPUT", "GITHUB_STATE", "GITHUB_STEP_SUMMARY")
_PR_SET_DUMPABLE, _PR_SET_CHILD_SUBREAPER = 4, 36


def _prctl(option: int, value: int) -> bool:
    """``prctl(option, value)``; False where there is no such call (not Linux) or it fails."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(option, value, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def make_undumpable() -> bool:
    """``prctl(PR_SET_DUMPABLE, 0)``: no process of the same user can read this one's ``/proc/PID/environ``,
    memory or ``/proc/PID/fd/*``; False where that fails (not Linux)."""
    return _prctl(_PR_SET_DUMPABLE, 0)


def descendants(pid: Optional[int] = None, spare: frozenset = frozenset()) -> list[int]:
    """Every live process descending from ``pid`` (default: this one), read from ``/proc/*/stat``; the
    processes in ``spare`` and their descendants are left out."""
    root = os.getpid() if pid is None else pid
    children: dict[int, list[int]] = {}
    for name in os.listdir("/proc") if os.path.isdir("/proc") else ():
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as fh:
                stat = fh.read().decode("ascii", "replace")
        except OSError:
            continue
        fields = stat[stat.rfind(")") + 2:].split()   # after "pid (comm) ": state ppid ...
        if len(fields) > 1 and fields[0] != "Z":
            children.setdefault(int(fields[1]), []).append(int(name))
    out, todo = [], [root]
    while todo:
        for c in children.get(todo.pop(), ()):
            if c not in spare:
                out.append(c)
                todo.append(c)
    return out


def kill_strays(rounds: int = 50, spare: frozenset = frozenset()) -> int:
    """Kill every process descending from this one but those in ``spare`` (children the bot had before the
    guest came, and theirs), repeated (a dying process may have forked), and reap the zombies; returns how
    many were killed."""
    killed = 0
    for _ in range(rounds):
        found = descendants(spare=spare)
        if not found:
            break
        for pid in found:
            try:
                os.kill(pid, signal.SIGKILL)
                killed += 1
            except (ProcessLookupError, PermissionError):
                pass
        _reap()
    _reap()
    return killed


def _reap() -> None:
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def _sizes(env) -> dict[str, tuple[str, int]]:
    out = {}
    for var in FILE_COMMANDS:
        path = env.get(var)
        if path:
            try:
                out[var] = (path, os.path.getsize(path))
            except OSError:
                out[var] = (path, -1)
    return out


@contextmanager
def guest(what: str, env=os.environ) -> Iterator[frozenset]:
    """Run upstream code (``what``, for the message) inside: on exit, every process it left is killed (the bot's
    children from before are spared; the block gets their pids), and what it wrote to the step's file-command
    files is cut off; raises :class:`CheckFailed` (exit 1) naming them."""
    _prctl(_PR_SET_CHILD_SUBREAPER, 1)
    make_undumpable()
    before = _sizes(env)
    spare = frozenset(descendants())
    try:
        yield spare
    finally:
        kill_strays(spare=spare)
        tampered = []
        for var, (path, size) in before.items():
            try:
                now = os.path.getsize(path)
            except OSError:
                continue
            if now != size:
                with open(path, "r+b") as fh:
                    fh.truncate(max(size, 0))
                tampered.append(var)
    if tampered:
        raise CheckFailed(f"{what} wrote to the step's {', '.join(tampered)} (upstream code must not set the "
                          "workflow's outputs, environment or summary); its writes were undone")


def main(argv: Optional[list[str]] = None) -> int:
    """``python -m bot.contain [--stop-commands [--bot]] -- CMD ARGS``: run CMD as a guest, with the scrubbed
    environment; its exit code (1 when it touched a file command, 2 for bad usage).

    ``--stop-commands``: the step's workflow commands are stopped (a fresh token,
    :mod:`bot.logstream`) before CMD starts and resumed only after every process it left is killed, so
    nothing upstream code prints, by any way to the step's output, is a command.  ``--bot``: CMD is the
    bot itself, handed the token in :data:`bot.logstream.STOP_VAR` so its own commands still count.
    """
    from bot.logstream import STOP_VAR, new_stop_token, resume_line, stop_line
    from bot.scrubbed import scrubbed_env

    args = list(sys.argv[1:] if argv is None else argv)
    stop = bot = False
    while args[:1] in (["--stop-commands"], ["--bot"]):
        stop, bot = stop or args[0] == "--stop-commands", bot or args[0] == "--bot"
        args = args[1:]
    if args[:1] == ["--"]:
        args = args[1:]
    if not args or (bot and not stop):
        print("usage: python -m bot.contain [--stop-commands [--bot]] -- COMMAND [ARGS]", file=sys.stderr)
        return 2
    env = scrubbed_env()
    token = None
    if stop:
        make_undumpable()
        token = new_stop_token()
        if bot:
            env[STOP_VAR] = token
        sys.stdout.write(stop_line(token))
        sys.stdout.flush()
    try:
        with guest(os.path.basename(args[0])):
            rc = subprocess.call(args, env=env, stdin=subprocess.DEVNULL)
    except CheckFailed as exc:
        print(f"error: {exc.message}", file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"error: cannot start {args[0]}: {exc.strerror}", file=sys.stderr)
        return 2
    finally:
        if token:
            sys.stderr.flush()
            sys.stdout.write(resume_line(token))
            sys.stdout.flush()
    return rc


if __name__ == "__main__":
    sys.exit(main())
