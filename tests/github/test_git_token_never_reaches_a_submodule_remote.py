"""The write token stays with the GitHub server: git never sends it to, or even contacts, a submodule's remote.

A template whose checkout holds a submodule served over HTTP from
127.0.0.1 (git's "dumb" HTTP protocol: static files after ``git
update-server-info``) by a server that records every request and its
``Authorization`` header; the template's remote (a local bare repository)
gets a commit that moves the submodule, which makes a plain ``git fetch``
recurse into it (``fetch.recurseSubmodules`` defaults to ``on-demand``).
The bot's git (bot.github.publish.Git, with a token) fetches and pushes:
the submodule's server sees no request at all, with the server's URL as the
GitHub server or not.
"""

from __future__ import annotations

import http.server
import subprocess
import threading
from functools import partial
from pathlib import Path

import pytest

from bot.github.publish import Git

TOKEN = "ghs_SUBMODULESECRET0123456789"
ENV = {"GIT_CONFIG_NOSYSTEM": "1", "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid",
       "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.invalid", "GIT_TERMINAL_PROMPT": "0"}


def git(cwd: Path, *args: str) -> str:
    import os
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True,
                          env={**os.environ, **ENV, "GIT_CONFIG_GLOBAL": str(cwd / ".no-global")}).stdout.strip()


class Recorder(http.server.SimpleHTTPRequestHandler):
    seen: list = []

    def do_GET(self):   # noqa: N802 - http.server's name
        Recorder.seen.append((self.path, self.headers.get("Authorization")))
        super().do_GET()

    def log_message(self, *args):
        pass


@pytest.fixture
def submodule_server(tmp_path):
    root = tmp_path / "served"
    sub = root / "sub.git"
    work = tmp_path / "sub-work"
    work.mkdir(parents=True)
    git(work, "init", "-q", "-b", "main")
    (work / "lib.h").write_text("int x;\n")
    git(work, "add", ".")
    git(work, "commit", "-qm", "one")
    git(tmp_path, "clone", "-q", "--bare", str(work), str(sub))
    git(sub, "update-server-info")
    Recorder.seen = []
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), partial(Recorder, directory=str(root)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}", work, sub
    server.shutdown()


@pytest.fixture
def checkout(tmp_path, submodule_server):
    url, sub_work, sub = submodule_server
    origin = tmp_path / "origin.git"
    seed = tmp_path / "seed"
    seed.mkdir()
    git(seed, "init", "-q", "-b", "main")
    git(seed, "-c", "protocol.allow=always", "submodule", "add", "-q", f"{url}/sub.git", "third_party/sub")
    git(seed, "commit", "-qm", "template with a submodule")
    git(tmp_path, "clone", "-q", "--bare", str(seed), str(origin))
    co = tmp_path / "checkout"
    git(tmp_path, "clone", "-q", "--recurse-submodules", str(origin), str(co))
    # the remote moves the submodule: a plain fetch of the template would now fetch the submodule too
    (sub_work / "lib.h").write_text("int y;\n")
    git(sub_work, "commit", "-qam", "two")
    git(sub_work, "push", "-q", str(sub), "main")
    git(sub, "update-server-info")
    git(seed / "third_party/sub", "pull", "-q", "origin", "main")
    git(seed, "commit", "-qam", "move the submodule")
    git(seed, "push", "-q", str(origin), "main")
    Recorder.seen = []
    return co, url


@pytest.mark.parametrize("server_is_github", [False, True])
def test_fetch_and_push_never_contact_a_submodule_remote(checkout, monkeypatch, server_is_github):
    co, url = checkout
    if server_is_github:   # the submodule sits on the GitHub server itself: still never contacted
        monkeypatch.setenv("GITHUB_SERVER_URL", url)
    else:
        monkeypatch.delenv("GITHUB_SERVER_URL", raising=False)
    # a global header, as a runner's git config might hold, must be reset too
    (co / ".no-global").write_text("")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(co / ".no-global"))
    g = Git(co, TOKEN, ("Pack Bot", "bot@example.invalid"))
    g("fetch", "--quiet", "--no-tags", "origin", "+refs/heads/main:refs/remotes/origin/main")
    g("checkout", "-q", "-B", "executorch-pack-bot/executorch", "origin/main")
    g("push", "--quiet", "origin", "HEAD:refs/heads/executorch-pack-bot/executorch")
    assert Recorder.seen == []


def test_the_setup_makes_plain_git_fetch_the_submodule(checkout):
    """Control: without the bot's settings, git does contact the submodule's server on this fetch."""
    co, url = checkout
    git(co, "-c", f"http.extraHeader=AUTHORIZATION: basic {TOKEN}", "fetch", "-q", "origin")
    assert Recorder.seen and {h for _, h in Recorder.seen} == {f"basic {TOKEN}"}
