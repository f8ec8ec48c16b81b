"""The release path (.github/workflows/release.yml, .github/release/release.py): a tag vX.Y.Z must be pyproject's
version with a CHANGELOG.md section, whose text becomes the release notes; the wheel and sdist are built from the
tag with setuptools and wheel from requirements.lock (hashes checked, no index); the release and its assets are
created, and the major tag moved, with GitHub's REST calls (checked here against a local server)."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
WORKFLOW = ROOT / ".github/workflows/release.yml"
spec = importlib.util.spec_from_file_location("release", ROOT / ".github/release/release.py")
release = importlib.util.module_from_spec(spec)
spec.loader.exec_module(release)

CHANGELOG = """# Changelog

## [Unreleased]

### Added
- not yet

## [0.2.0] - 2026-12-01

### Added
- `release`: the bot has releases.

## [0.1.0]

The first version.
"""


def _root(tmp_path, version="0.2.0", changelog=CHANGELOG):
    (tmp_path / "pyproject.toml").write_text(f'[project]\nname = "x"\nversion = "{version}"\n')
    (tmp_path / "CHANGELOG.md").write_text(changelog)
    return tmp_path


def test_the_notes_are_the_changelogs_section_for_the_version(tmp_path):
    root = _root(tmp_path)
    assert release.notes("0.2.0", root) == "### Added\n- `release`: the bot has releases.\n"
    assert release.notes("0.1.0", root) == "The first version.\n"


@pytest.mark.parametrize("tag, version, changelog, message", [
    ("v0.2.0", "0.3.0", CHANGELOG, "pyproject.toml: version is '0.3.0', the tag v0.2.0 says '0.2.0'"),
    ("v0.3.0", "0.3.0", CHANGELOG, "CHANGELOG.md: no section '## [0.3.0]' (move the Unreleased entries under it)"),
    ("v0.2.0", "0.2.0", "## [0.2.0]\n\n## [0.1.0]\n", "CHANGELOG.md:1: the section '## [0.2.0]' is empty"),
    ("0.2.0", "0.2.0", CHANGELOG, "tag '0.2.0': a release tag is vMAJOR.MINOR.PATCH (docs/releasing.md)"),
    ("v0.2.0-rc1", "0.2.0", CHANGELOG, "tag 'v0.2.0-rc1': a release tag is vMAJOR.MINOR.PATCH (docs/releasing.md)"),
])
def test_a_tag_that_does_not_match_the_project_is_refused(tmp_path, tag, version, changelog, message):
    with pytest.raises(release.BadInput) as exc:
        release.check(tag, _root(tmp_path, version, changelog))
    assert str(exc.value) == message


def test_this_checkouts_changelog_and_version_can_be_checked():
    version = release.pyproject_version()
    assert release.TAG.fullmatch("v" + version)
    assert f"## [{version}]" in (ROOT / "CHANGELOG.md").read_text()


def test_the_workflow_runs_on_release_tags_only_with_least_permissions():
    doc = yaml.safe_load(WORKFLOW.read_text())
    on = doc[True]
    assert on == {"push": {"tags": ["v[0-9]+.[0-9]+.[0-9]+"]}} and doc["permissions"] == {}
    jobs = doc["jobs"]
    assert {j: jobs[j]["permissions"] for j in jobs} == {
        "build": {"contents": "read"},
        "attest": {"contents": "read", "id-token": "write", "attestations": "write"},
        "release": {"contents": "write"}}
    attest = next(s for s in jobs["attest"]["steps"] if "attest-build-provenance" in s.get("uses", ""))
    assert attest["with"] == {"subject-path": "dist/*"}
    assert jobs["release"]["needs"] == ["build", "attest"]   # nothing is published unattested
    for job in jobs.values():
        for step in job["steps"]:
            if step.get("uses", "").startswith("actions/checkout@"):
                assert step["with"]["persist-credentials"] is False


def _build_script() -> str:
    step = next(s for s in yaml.safe_load(WORKFLOW.read_text())["jobs"]["build"]["steps"]
                if s.get("name", "").startswith("Build"))
    return step["run"]


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """The build step of release.yml run on a copy of this checkout's tracked files: ``(src, completed process)``."""
    tmp_path = tmp_path_factory.mktemp("release-build")
    src = tmp_path / "src"
    files = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout.decode()
    for rel in filter(None, files.split("\0")):
        if (ROOT / rel).is_file() and not rel.startswith("tests/"):
            (src / rel).parent.mkdir(parents=True, exist_ok=True)
            (src / rel).write_bytes((ROOT / rel).read_bytes())
    env = {**os.environ, "RUNNER_TEMP": str(tmp_path), "PIP_NO_INDEX": "1",
           "PIP_FIND_LINKS": str(ROOT / ".venv/wheelhouse"), "PIP_CONFIG_FILE": os.devnull}
    p = subprocess.run(["bash", "-e", "-c", _build_script()], cwd=src, env=env, capture_output=True, text=True,
                       timeout=600)
    return src, p


@pytest.mark.needs("wheelhouse")
def test_the_build_step_makes_the_wheel_and_sdist_offline_from_the_lock(built):
    src, p = built
    assert p.returncode == 0, p.stderr
    version = release.pyproject_version()
    names = sorted(f.name for f in (src / "dist").iterdir())
    assert names == ["SHA256SUMS", f"executorch_pack_bot-{version}-py3-none-any.whl",
                     f"executorch_pack_bot-{version}.tar.gz"]
    sums = dict(reversed(line.split("  ", 1)) for line in (src / "dist/SHA256SUMS").read_text().splitlines())
    for name in names[1:]:
        assert sums[name] == hashlib.sha256((src / "dist" / name).read_bytes()).hexdigest()


def test_publish_creates_the_release_and_uploads_each_asset(httpserver, tmp_path):
    api = httpserver.url_for("").rstrip("/")
    seen = []

    def handler(request):
        from werkzeug import Response
        seen.append((request.method, request.full_path.rstrip("?"), request.headers.get("Authorization"),
                     request.get_data()))
        if request.path.endswith("/releases"):
            return Response(json.dumps({"id": 5, "html_url": "https://github.com/acme/bot/releases/tag/v0.2.0",
                                        "upload_url": f"{api}/uploads/acme/bot/releases/5/assets{{?name,label}}"}),
                            status=201, content_type="application/json")
        return Response(json.dumps({"id": 9}), status=201, content_type="application/json")

    httpserver.expect_request("/repos/acme/bot/releases", method="POST").respond_with_handler(handler)
    httpserver.expect_request("/uploads/acme/bot/releases/5/assets", method="POST").respond_with_handler(handler)
    (tmp_path / "NOTES.md").write_text("### Added\n- releases\n")
    whl = tmp_path / "x-0.2.0-py3-none-any.whl"
    whl.write_bytes(b"wheel bytes")
    url = release.publish("v0.2.0", tmp_path / "NOTES.md", [whl], repo="acme/bot", api=api, token="t0k")
    assert url == "https://github.com/acme/bot/releases/tag/v0.2.0"
    assert [(m, p, a) for m, p, a, _ in seen] == [
        ("POST", "/repos/acme/bot/releases", "Bearer t0k"),
        ("POST", "/uploads/acme/bot/releases/5/assets?name=x-0.2.0-py3-none-any.whl", "Bearer t0k")]
    assert json.loads(seen[0][3]) == {"tag_name": "v0.2.0", "name": "executorch-pack-bot 0.2.0",
                                      "body": "### Added\n- releases\n", "draft": False, "prerelease": False}
    assert seen[1][3] == b"wheel bytes"


@pytest.mark.parametrize("exists", [True, False])
def test_the_major_tag_is_moved_or_created(httpserver, exists):
    api = httpserver.url_for("").rstrip("/")
    sha = "a" * 40
    if exists:
        httpserver.expect_request("/repos/acme/bot/git/refs/tags/v0", method="PATCH",
                                  json={"sha": sha, "force": True}).respond_with_json({"ref": "refs/tags/v0"})
    else:
        httpserver.expect_request("/repos/acme/bot/git/refs/tags/v0", method="PATCH").respond_with_json(
            {"message": "Reference does not exist"}, status=422)
        httpserver.expect_request("/repos/acme/bot/git/refs", method="POST",
                                  json={"ref": "refs/tags/v0", "sha": sha}).respond_with_json({}, status=201)
    assert release.move_major("v0.2.0", sha, repo="acme/bot", api=api, token="t") == "v0"
    httpserver.check_assertions()


def test_bad_input_is_exit_2_naming_it(tmp_path, capsys):
    assert release.main(["check", "0.2.0"]) == 2
    assert capsys.readouterr().err == "release: error: tag '0.2.0': a release tag is vMAJOR.MINOR.PATCH (docs/releasing.md)\n"
    assert release.main(["nonsense"]) == 2


@pytest.mark.parametrize("pyproject,words", [
    ("[project", "pyproject.toml: not valid TOML"),
    ('[tool.x]\nname = "x"\n', "pyproject.toml: no [project] version string"),
    ('[project]\nname = "x"\ndynamic = ["version"]\n', "pyproject.toml: no [project] version string"),
    ("project = 5\n", "pyproject.toml: no [project] version string"),
    (None, "pyproject.toml: cannot read it"),
])
def test_a_pyproject_without_a_version_to_check_is_bad_input(tmp_path, pyproject, words):
    root = _root(tmp_path)
    if pyproject is None:
        (root / "pyproject.toml").unlink()
    else:
        (root / "pyproject.toml").write_text(pyproject)
    with pytest.raises(release.BadInput, match=re.escape(words)):
        release.check("v0.2.0", root)


def test_a_changelog_that_is_not_utf8_is_bad_input(tmp_path):
    root = _root(tmp_path)
    (root / "CHANGELOG.md").write_bytes(b"\xff\xfe## [0.2.0]\n")
    with pytest.raises(release.BadInput, match="CHANGELOG.md: cannot read it"):
        release.check("v0.2.0", root)


def test_publish_reads_every_asset_before_any_request(tmp_path, monkeypatch, capsys):
    """A missing asset is bad input before the release is created (no release left without its assets)."""
    sent = []
    monkeypatch.setattr(release, "_request", lambda *a, **k: sent.append(a) or {})
    monkeypatch.setenv("GITHUB_REPOSITORY", "o/n")
    monkeypatch.setenv("GITHUB_TOKEN", "t")
    (tmp_path / "notes.md").write_text("notes\n")
    assert release.main(["publish", "v0.2.0", str(tmp_path / "notes.md"), str(tmp_path / "missing.whl")]) == 2
    assert "missing.whl: cannot read the asset" in capsys.readouterr().err and sent == []


@pytest.mark.parametrize("env,words", [({"GITHUB_REPOSITORY": "", "GITHUB_TOKEN": "t"}, "GITHUB_REPOSITORY not set"),
                                       ({"GITHUB_REPOSITORY": "o/n", "GITHUB_TOKEN": "t", "GITHUB_API_URL": "notaurl"},
                                        "is not an http(s) URL")])
def test_a_workflow_environment_without_github_is_bad_input(monkeypatch, capsys, env, words):
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    assert release.main(["move-major", "v0.2.0", "0" * 40]) == 2
    assert words in capsys.readouterr().err


# ------------------------------------------------------------------ the workflow under act, against the fake GitHub
class ReleaseWorld:
    """The bot's own repository on the fake GitHub, a tag pushed to it, and release.yml run for that push.

    Built on :class:`actworld.ActWorld` (the same act invocation, stand-ins and offline pip); the repository the
    workflow runs in is the bot's (a commit of this checkout with the tag), not a template."""

    def __init__(self, tmp_path, tag: str):
        import actworld
        from actworld import BOT_REPOSITORY, ActWorld, bot_commit, session_site

        bot_dir, sha = bot_commit(tmp_path / "bot")
        subprocess.run(["git", "-C", str(bot_dir), "tag", "-a", tag, "-m", f"executorch-pack-bot {tag}"], check=True)
        self.bare = tmp_path / "bot.git"
        subprocess.run(["git", "clone", "-q", "--bare", str(bot_dir), str(self.bare)], check=True)
        self.sha, self.tag = sha, tag
        wheels = tmp_path / "wheels"
        wheels.mkdir()
        site = session_site(tmp_path / "site")
        world = self

        class World(ActWorld):
            REPOSITORY = BOT_REPOSITORY
            WORKFLOW = WORKFLOW

            def caller_remote(self):
                return world.bare

            def repositories(self):
                return {BOT_REPOSITORY: str(world.bare)}

            def caller(self, dest):
                dest.write_text(WORKFLOW.read_text())
                return dest

            def event(self, name, payload=None, **inputs):
                r = BOT_REPOSITORY
                return {"ref": f"refs/tags/{world.tag}", "after": world.sha, "before": "0" * 40, "created": True,
                        "repository": {"full_name": r, "name": r.split("/")[1], "owner": {"login": r.split("/")[0]},
                                       "default_branch": "main"}, "pusher": {"name": "alice"},
                        "sender": {"login": "alice", "type": "User"}}

            def extra_env(self):
                return {"STANDIN_ATTEST_LOG": str(world.attest_log)}

        self.attest_log = tmp_path / "attest.log"
        self.aw = World(tmp_path / "world", (bot_dir, sha), wheels, site)
        self.aw.fake.repo(BOT_REPOSITORY)
        self.aw.fake.link_git(BOT_REPOSITORY, self.bare)
        self.repo = BOT_REPOSITORY
        self.actworld = actworld

    def run(self):
        return self.aw.run("push", secrets={})


@pytest.mark.workflow
@pytest.mark.needs("act", "wheelhouse", "openapi")
def test_a_release_tag_becomes_a_release_with_attested_assets_and_a_moved_major_tag(tmp_path):
    (tmp_path / "world").mkdir()
    version = release.pyproject_version()
    w = ReleaseWorld(tmp_path, f"v{version}")
    import fakegithub
    start = len(fakegithub.EXCHANGES)
    try:
        run = w.run()
        # The release script's requests are not the bot's (docs/github.md lists the bot's operations): they leave
        # the session's record, and each is checked against GitHub's REST description here, except the uploads,
        # which GitHub serves on another host (uploads.github.com) that the description's servers do not model.
        ours = fakegithub.EXCHANGES[start:]
        del fakegithub.EXCHANGES[start:]
        import openapi_contract as oc
        c = oc.contract()
        assert [p for ex in ours if not ex.path.split("?")[0].endswith("/assets") for p in c.check(ex)] == []
        assert run.code == 0, run.log[-3000:]
        assert run.jobs == {"build": "success", "attest": "success", "release": "success"}, run.log[-3000:]
        rel = next(r for r in w.aw.fake.repo(w.repo).releases if r["tag_name"] == w.tag)
        assert rel["name"] == f"executorch-pack-bot {version}"
        assert rel["body"] == release.notes(version)
        names = sorted(a["name"] for a in rel["assets"])
        assert names == ["SHA256SUMS", f"executorch_pack_bot-{version}-py3-none-any.whl",
                         f"executorch_pack_bot-{version}.tar.gz"]
        # what was attested is what was published, byte for byte
        attested = {json.loads(ln)["name"]: json.loads(ln)["sha256"] for ln in w.attest_log.read_text().splitlines()}
        assert attested == {a["name"]: a["digest"].split(":", 1)[1] for a in rel["assets"]}
        major = "v" + version.split(".")[0]
        got = subprocess.run(["git", "--git-dir", str(w.bare), "rev-parse", f"refs/tags/{major}"],
                             capture_output=True, text=True, check=True).stdout.strip()
        assert got == w.sha
    finally:
        w.aw.fake.stop()


# ------------------------------------------------------------------ action.yml installs the release's wheel by hash
def _install_script() -> str:
    doc = yaml.safe_load((ROOT / "action.yml").read_text())
    return next(s for s in doc["runs"]["steps"] if s.get("name") == "Install executorch-pack-bot")["run"]


@pytest.mark.needs("wheelhouse")
@pytest.mark.parametrize("good", [True, False])
def test_the_action_installs_the_releases_wheel_only_with_its_hash(built, tmp_path, good):
    src, p = built
    assert p.returncode == 0, p.stderr
    wheel = next((src / "dist").glob("*.whl"))
    digest = hashlib.sha256(wheel.read_bytes()).hexdigest() if good else "0" * 64
    env = {**os.environ, "RUNNER_TEMP": str(tmp_path), "GITHUB_ACTION_PATH": str(ROOT), "BOT_PYTHON": sys.executable,
           "BOT_WHEEL_URL": wheel.as_uri(), "BOT_WHEEL_SHA256": digest, "PIP_NO_INDEX": "1",
           "PIP_FIND_LINKS": str(ROOT / ".venv/wheelhouse"), "PIP_CONFIG_FILE": os.devnull}
    p = subprocess.run(["bash", "-c", _install_script()], env=env, capture_output=True, text=True, timeout=600)
    venv = tmp_path / "executorch-pack-bot-venv"
    if good:
        assert p.returncode == 0, p.stdout + p.stderr
        assert (venv / ".installed-from").read_text() == f"{wheel.as_uri()}#sha256={digest}"
        assert subprocess.run([str(venv / "bin/executorch-pack-bot"), "--help"], capture_output=True).returncode == 0
    else:
        assert p.returncode == 1
        assert f"::error::bot-wheel-url: sha256 {hashlib.sha256(wheel.read_bytes()).hexdigest()}, not " \
               f"bot-wheel-sha256 {digest}; nothing installed" in p.stdout
        assert not venv.exists()


def test_a_wheel_without_its_hash_is_refused(tmp_path):
    env = {**os.environ, "RUNNER_TEMP": str(tmp_path), "GITHUB_ACTION_PATH": str(ROOT), "BOT_PYTHON": sys.executable,
           "BOT_WHEEL_URL": "https://example.invalid/x.whl", "BOT_WHEEL_SHA256": ""}
    p = subprocess.run(["bash", "-c", _install_script()], env=env, capture_output=True, text=True)
    assert (p.returncode, p.stdout) == (2, "::error::bot-wheel-url needs bot-wheel-sha256 (64 hex digits, from the "
                                           "release's SHA256SUMS)\n")
    assert not (tmp_path / "executorch-pack-bot-venv").exists()
