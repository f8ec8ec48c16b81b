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

Where the runner allows it (the bot runs as root, or its user has passwordless
``sudo``, as on GitHub-hosted runners), ``python -m bot.contain --separate-user``
(and :func:`run_guest` / :func:`guest_user` when the step sets
``EXECUTORCH_PACK_BOT_SEPARATE_USER=1``) also runs the command as a *separate
user* created for it (:class:`Separation`): no sudo rights, no supplementary
group (so not ``docker``), ``no_new_privs`` set, its own HOME and work folder
(TMPDIR), and only the folders named with ``--writable`` handed to it; every
process of that user is killed when the command returns.  It cannot read the runner user's ``/proc/PID/environ`` (another
uid: ``ptrace_may_access`` fails; man 5 proc) nor write the bot's venv, the
bot's checkout or the runner's ``_actions`` folder (owned by the runner's
user, not writable by others).  Where that is not possible, one line in the
log says so and the command runs as the runner's user, contained as above.

This is containment, not a sandbox: in the same-user mode upstream code runs
as the runner's user (docs/security.md says what each mode leaves).  ``python
-m bot.contain -- CMD ARGS`` runs one command so (the workflow's pip step).
"""

from __future__ import annotations

import ctypes
import os
import secrets
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator, Optional, Sequence

from bot.errors import CheckFailed

FILE_COMMANDS = ("GITHUB_ENV", "GITHUB_PATH", "GITHUB_OUTPUT", "GITHUB_STATE", "GITHUB_STEP_SUMMARY")
_PR_SET_DUMPABLE, _PR_SET_CHILD_SUBREAPER, _PR_SET_NO_NEW_PRIVS = 4, 36, 38
#: ``off`` runs the command as the runner's own user even where a separate user is possible.
GUEST_USER_VAR = "EXECUTORCH_PACK_BOT_GUEST_USER"


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


def separation_mode(env=os.environ) -> tuple[str, str]:
    """How a separate guest user can be made here: ``("root", "")`` (this process runs as root),
    ``("sudo", "")`` (``sudo -n true`` succeeds: passwordless sudo, as on GitHub-hosted runners; GitHub docs,
    "GitHub-hosted runners", "Administrative privileges": the Linux and macOS virtual machines run with
    passwordless sudo; also stepsecurity's harden-runner docs), or ``("", REASON)`` when it cannot (not Linux, no
    ``useradd``, neither root nor passwordless sudo, or ``EXECUTORCH_PACK_BOT_GUEST_USER=off``)."""
    if env.get(GUEST_USER_VAR, "").strip().lower() == "off":
        return "", f"{GUEST_USER_VAR}=off"
    if not sys.platform.startswith("linux"):
        return "", "not Linux"
    if not (shutil.which("useradd") or os.path.exists("/usr/sbin/useradd")):
        return "", "no useradd on this runner"
    if os.geteuid() == 0:
        return "root", ""
    if shutil.which("sudo"):
        try:
            ok = subprocess.run(["sudo", "-n", "true"], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL, timeout=30).returncode == 0
        except (OSError, subprocess.SubprocessError):
            ok = False
        if ok:
            return "sudo", ""
    return "", "the runner's user is not root and has no passwordless sudo"


def _no_new_privs() -> None:   # preexec_fn of a guest run as root: no setuid program can raise it again
    _prctl(_PR_SET_NO_NEW_PRIVS, 1)


def uid_processes(uid: int) -> list[int]:
    """Every live process one of whose user ids (real, effective, saved, filesystem) is ``uid``, read from
    ``/proc/PID/status`` (``Uid:`` line; man 5 proc)."""
    out = []
    for name in os.listdir("/proc") if os.path.isdir("/proc") else ():
        if not name.isdigit() or int(name) == os.getpid():
            continue
        try:
            with open(f"/proc/{name}/status", "rb") as fh:
                lines = fh.read().decode("ascii", "replace").splitlines()
        except OSError:
            continue
        state = next((ln.split()[1] for ln in lines if ln.startswith("State:")), "")
        uids = next((ln.split()[1:] for ln in lines if ln.startswith("Uid:")), [])
        if state != "Z" and str(uid) in uids:
            out.append(int(name))
    return out


class Separation:
    """A user created for one guest command, and what was handed to it; :meth:`close` undoes all of it.

    ``how``: ``"root"`` (this process is root: the command starts with ``setgroups([])``, ``setgid``,
    ``setuid`` and ``no_new_privs``, :class:`subprocess.Popen`'s ``user``/``group``/``extra_groups``) or
    ``"sudo"`` (``sudo -n -u NAME`` with ``setpriv --no-new-privs``; every privileged change goes through
    ``sudo -n``).  The user (``useradd --system --user-group``, shell ``nologin``, no other group, no
    sudoers entry) gets a fresh HOME (mode 700, with ``tmp/``, its TMPDIR) under the system's temporary
    folder.  :meth:`hand` makes folders writable by it (``chown -R``; given back to their owner by
    :meth:`close`) and adds ``o+x`` to every ancestor folder the guest must traverse that lacks it (taken
    back by :meth:`close`).  Raises :class:`OSError` when the user cannot be made.
    """

    def __init__(self, how: str):
        self.how = how
        self.name = "epbguest" + secrets.token_hex(4)
        self.home = Path(tempfile.mkdtemp(prefix="executorch-pack-bot-guest-"))
        self._given: list[tuple[str, int, int]] = []
        self._opened: list[str] = []
        self._closed = False
        shell = "/usr/sbin/nologin" if os.path.exists("/usr/sbin/nologin") else "/bin/false"
        made = self._priv(["useradd", "--system", "--user-group", "--no-create-home", "--home-dir", str(self.home),
                           "--shell", shell, "--comment", "executorch-pack-bot guest", self.name])
        if made.returncode != 0:
            shutil.rmtree(self.home, ignore_errors=True)
            raise OSError(f"useradd {self.name} failed: {made.stderr.strip()[:200]}")
        import pwd
        entry = pwd.getpwnam(self.name)
        self.uid, self.gid = entry.pw_uid, entry.pw_gid
        (self.home / "tmp").mkdir()   # its work folder (TMPDIR)
        os.chmod(self.home, 0o700)
        self._priv(["chown", "-R", f"{self.uid}:{self.gid}", str(self.home)], check=True)

    def _priv(self, argv: Sequence[str], check: bool = False) -> subprocess.CompletedProcess:
        """Run a privileged command (as root, or through ``sudo -n``)."""
        argv = list(argv)
        if self.how == "root" and not shutil.which(argv[0]) and os.path.exists(f"/usr/sbin/{argv[0]}"):
            argv[0] = f"/usr/sbin/{argv[0]}"   # useradd, userdel: a PATH without /usr/sbin
        full = argv if self.how == "root" else ["sudo", "-n", "--", *argv]
        done = subprocess.run(full, stdin=subprocess.DEVNULL, capture_output=True, text=True, errors="replace")
        if check and done.returncode != 0:
            raise OSError(f"{' '.join(argv[:2])} failed: {done.stderr.strip()[:200]}")
        return done

    def _traverse(self, path: Path) -> None:
        for folder in [*reversed(path.parents), path] if path.is_dir() else reversed(path.parents):
            try:
                mode = folder.stat().st_mode
            except OSError:
                continue
            if not mode & stat.S_IXOTH and str(folder) not in self._opened:
                self._priv(["chmod", "o+x", str(folder)], check=True)
                self._opened.append(str(folder))

    def hand(self, writable: Sequence[str] = (), cwd: Optional[str] = None) -> None:
        """Make each folder of ``writable`` the guest's (created when missing) and let the guest reach them and
        ``cwd`` (``o+x`` on the folders above that lack it). Raises :class:`OSError` when a change fails."""
        for raw in writable:
            path = Path(raw).absolute()
            if not path.exists():
                path.mkdir(parents=True)
            st = path.lstat()
            if stat.S_ISLNK(st.st_mode):
                raise OSError(f"{path} is a symbolic link: not handed to the guest")
            self._given.append((str(path), st.st_uid, st.st_gid))
            self._priv(["chown", "-R", "-P", f"{self.uid}:{self.gid}", str(path)], check=True)
            self._traverse(path)
        self._traverse(Path(cwd or os.getcwd()).absolute())

    def env(self, env: dict) -> dict:
        """``env`` with the guest's HOME, USER, LOGNAME and TMPDIR."""
        return {**env, "HOME": str(self.home), "USER": self.name, "LOGNAME": self.name,
                "TMPDIR": str(self.home / "tmp")}

    def command(self, argv: Sequence[str], env: dict) -> tuple[list[str], dict, dict]:
        """``(argv, env, popen_kwargs)`` that start ``argv`` as the guest with ``env`` (its HOME and TMPDIR)."""
        env = self.env(env)
        if self.how == "root":
            return list(argv), env, {"user": self.uid, "group": self.gid, "extra_groups": [],
                                     "preexec_fn": _no_new_privs}
        keep = sorted(k for k in env if k != "PATH" and k.replace("_", "").isalnum())
        nnp = ["setpriv", "--no-new-privs", "--"] if shutil.which("setpriv") else []
        # sudo resets PATH (secure_path): it is given back by env; the rest is kept by --preserve-env (never argv,
        # which any user can read in /proc/PID/cmdline)
        return (["sudo", "-n", f"--preserve-env={','.join(keep)}", "-u", self.name, "--",
                 "env", f"PATH={env.get('PATH', os.defpath)}", *nnp, *argv], env, {})

    def kill_all(self, rounds: int = 20) -> int:
        """Kill every process running as the guest (wherever it was started from), repeated; how many were
        seen."""
        seen = 0
        for _ in range(rounds):
            found = uid_processes(self.uid)
            if not found:
                break
            seen += len(found)
            if self.how == "root":
                for pid in found:
                    try:
                        os.kill(pid, signal.SIGKILL)
                    except (ProcessLookupError, PermissionError):
                        pass
            else:
                self._priv(["kill", "-KILL", *map(str, found)])
            _reap()
        return seen

    def close(self) -> list[str]:
        """Kill the guest's processes, give the handed folders back (``chown -R`` to their owner), take back
        the ``o+x`` added, delete the user and its HOME; returns what could not be undone (empty: all)."""
        if self._closed:
            return []
        self._closed = True
        self.kill_all()
        problems = []
        for path, uid, gid in reversed(self._given):
            if self._priv(["chown", "-R", "-P", f"{uid}:{gid}", path]).returncode != 0:
                problems.append(f"{path} not given back")
        for folder in reversed(self._opened):
            if self._priv(["chmod", "o-x", folder]).returncode != 0:
                problems.append(f"{folder} keeps o+x")
        if self._priv(["userdel", self.name]).returncode != 0:
            problems.append(f"user {self.name} not deleted")
        self._priv(["rm", "-rf", "--one-file-system", str(self.home)])
        return problems


def separate(env=os.environ, *, out=sys.stderr) -> Optional[Separation]:
    """A :class:`Separation` where the runner allows it, announced in one log line; else None, with one line
    saying that the command runs as the runner's own user, and why."""
    how, why = separation_mode(env)
    if how:
        try:
            sep = Separation(how)
        except OSError as exc:
            why = str(exc)
        else:
            print(f"executorch-pack-bot: upstream code runs as {sep.name} (uid {sep.uid}), a user made for this "
                  f"command: no sudo, no docker group, its own HOME", file=out, flush=True)
            return sep
    print(f"executorch-pack-bot: upstream code runs as the runner's own user ({why}): contained (nothing it "
          "starts outlives it, file commands undone), not separated (docs/security.md)", file=out, flush=True)
    return None


#: ``1``: the bot's own guests (:func:`bot.pack.build.run_step`, the upstream validator) run as a user of their
#: own where the runner allows it; action.yml sets it for build-pack and verify-pack.
SEPARATE_VAR = "EXECUTORCH_PACK_BOT_SEPARATE_USER"
_handed: list[str] = []


def writable_problem(raw: str) -> Optional[str]:
    """Why ``raw`` (a ``--writable`` folder) cannot be handed to the guest, or None: a symbolic link anywhere on
    its path (the folder handed would be another than the one named: ``chown -R`` follows the link's target), or
    a part of it that exists and is not a folder."""
    path = Path(os.path.normpath(os.path.abspath(raw)))
    for part in [*reversed(path.parents), path]:
        if part.is_symlink():
            return f"{part} is a symbolic link: not handed to the guest"
        if part.exists() and not part.is_dir():
            return f"{part} is not a folder"
    return None


def hand_to_guests(*paths) -> None:
    """Folders the bot's own guests of this run may write (build folder, output folder, ccache's folder...),
    handed to each separate user :func:`guest_user` makes; None entries are skipped."""
    _handed.extend(str(p) for p in paths if p)


@contextmanager
def guest_user(cwd=None, env=os.environ, writable: Sequence = ()) -> Iterator[Optional[Separation]]:
    """A :class:`Separation` for one command the bot starts itself, when ``EXECUTORCH_PACK_BOT_SEPARATE_USER=1``
    asks for it and the runner allows it (one log line either way, :func:`separate`), with the folders of
    :func:`hand_to_guests` and ``writable`` handed to it and ``cwd`` reachable; None otherwise.  On exit every process of the
    user is killed and everything is undone; raises :class:`CheckFailed` when something could not be."""
    if env.get(SEPARATE_VAR, "") != "1":
        yield None
        return
    sep = separate(env)
    if sep is None:
        yield None
        return
    try:
        sep.hand([*_handed, *writable], cwd=cwd)
    except OSError as exc:
        sep.close()
        raise CheckFailed(f"cannot hand the guest user its folders: {exc}") from None
    try:
        yield sep
    finally:
        problems = sep.close()
    if problems:
        raise CheckFailed(f"the guest user's changes were not all undone: {'; '.join(problems)}")


def run_guest(argv: Sequence[str], *, cwd=None, writable: Sequence = (), env=None,
              **kwargs) -> subprocess.CompletedProcess:
    """:func:`subprocess.run` of upstream code: the scrubbed environment (``env``, default ``os.environ``,
    :func:`bot.scrubbed.scrubbed_env`), inside :func:`guest`, and as a user of its own when the step asks for it
    (:func:`guest_user`, with ``writable`` handed too).  Raises what :func:`subprocess.run` raises, and
    :class:`CheckFailed` when the command wrote a file command or the guest user could not be set up or undone."""
    from bot.scrubbed import scrubbed_env
    run_env = scrubbed_env(env)
    with guest(os.path.basename(str(argv[0]))), guest_user(cwd, writable=[str(w) for w in writable]) as sep:
        run_argv, extra = [str(a) for a in argv], {}
        if sep is not None:
            run_argv, run_env, extra = sep.command(run_argv, run_env)
        return subprocess.run(run_argv, cwd=cwd, env=run_env, **kwargs, **extra)


def main(argv: Optional[list[str]] = None) -> int:
    """``python -m bot.contain [--stop-commands [--bot]] [--separate-user [--writable PATH]...] -- CMD ARGS``:
    run CMD as a guest, with the scrubbed environment; its exit code (1 when it touched a file command, 2 for
    bad usage, 3 when a separate user was made but could not be set up or undone).

    ``--stop-commands``: the step's workflow commands are stopped (a fresh token,
    :mod:`bot.logstream`) before CMD starts and resumed only after every process it left is killed, so
    nothing upstream code prints, by any way to the step's output, is a command.  ``--bot``: CMD is the
    bot itself, handed the token in :data:`bot.logstream.STOP_VAR` so its own commands still count.
    ``--separate-user``: CMD runs as a user made for it where the runner allows it (:func:`separate`; one
    log line says which mode holds), and every process of that user is killed when CMD returns.
    ``--writable PATH``: a folder the guest must write (created when missing), handed to it for the command
    and given back to its owner after; without ``--separate-user`` it changes nothing.
    """
    from bot.logstream import STOP_VAR, new_stop_token, resume_line, stop_line
    from bot.scrubbed import scrubbed_env

    args = list(sys.argv[1:] if argv is None else argv)
    stop = bot = separated = False
    writable: list[str] = []
    while args[:1] in (["--stop-commands"], ["--bot"], ["--separate-user"], ["--writable"]):
        if args[0] == "--writable":
            if len(args) < 2 or args[1].startswith("-"):
                args = []
                break
            writable.append(args[1])
            args = args[2:]
            continue
        stop, bot = stop or args[0] == "--stop-commands", bot or args[0] == "--bot"
        separated = separated or args[0] == "--separate-user"
        args = args[1:]
    if args[:1] == ["--"]:
        args = args[1:]
    usage = ("usage: python -m bot.contain [--stop-commands [--bot]] [--separate-user [--writable FOLDER ...]] "
             "-- COMMAND [ARGS]")
    if args[:1] in (["--help"], ["-h"]):
        print(usage)
        return 0
    if not args or (bot and not stop):
        print(usage, file=sys.stderr)
        return 2
    for raw in writable:   # bad usage before any user is made: a folder reached through a link, or under a file
        bad = writable_problem(raw)
        if bad:
            print(f"error: --writable {raw}: {bad}", file=sys.stderr)
            return 2
    env = scrubbed_env()
    sep = separate() if separated else None
    kwargs: dict = {}
    argv_run = args
    if sep is not None:
        try:
            sep.hand(writable)
        except OSError as exc:
            print(f"error: cannot hand the guest its folders: {exc}", file=sys.stderr)
            sep.close()
            return 3
    token = None
    if stop:
        make_undumpable()
        token = new_stop_token()
        if bot:
            env[STOP_VAR] = token
        sys.stdout.write(stop_line(token))
        sys.stdout.flush()
    if sep is not None:
        argv_run, env, kwargs = sep.command(args, env)
    problems: list[str] = []
    try:
        with guest(os.path.basename(args[0])):
            try:
                rc = subprocess.call(argv_run, env=env, stdin=subprocess.DEVNULL, **kwargs)
            finally:
                if sep is not None:
                    problems = sep.close()
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
    if problems:
        print(f"error: the guest user's changes were not all undone: {'; '.join(problems)}", file=sys.stderr)
        return 3
    return rc


if __name__ == "__main__":
    sys.exit(main())
