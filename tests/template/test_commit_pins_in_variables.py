"""ExecuTorch pinned by a commit held in a variable moves with its comment, and a commit pin the bot cannot move
is blocking: ``update`` exits 1 naming the line, ``audit`` fails on it and never says "every ExecuTorch pin".

Shapes: a shell ``EXECUTORCH_COMMIT=<sha>  # v1.4.0`` expanded by ``git -C executorch checkout
"$EXECUTORCH_COMMIT"``; a variable of any name expanded by such a command; CMake ``set(ET_SHA <sha>)``
expanded by ``GIT_TAG ${ET_SHA}`` in an ExecuTorch FetchContent call; a workflow ``env:`` entry expanded by
``ref: ${{ env.NAME }}`` in a step on pytorch/executorch; a Dockerfile ``ARG``; and a SHA with a
``# v1.4.0`` comment that no recognised command takes (blocking: the bot cannot move it).
"""

from __future__ import annotations

import subprocess

import pytest

from bot.sample import build_upstream_repo, git_env
from helpers import run_cli
from mentionkit import PINS, audit_json, edits, flags, update_json, write


@pytest.fixture(scope="module")
def upstream(tmp_path_factory):
    """A bare upstream with tags v1.4.0 and v1.5.1: (path, commit of v1.4.0, commit of v1.5.1)."""
    repo = build_upstream_repo(tmp_path_factory.mktemp("up") / "executorch.git", bare=True)
    return repo, _git(repo, "rev-parse", "v1.4.0^{commit}"), _git(repo, "rev-parse", "v1.5.1^{commit}")


def _git(repo, *args):
    return subprocess.run(["git", f"--git-dir={repo}", *args], env=git_env(), check=True, capture_output=True,
                          text=True).stdout.strip()


def _script(sha, version="1.4.0", name="EXECUTORCH_COMMIT"):
    return (f"#!/bin/sh\n{name}={sha}  # v{version}\ngit clone https://github.com/pytorch/executorch.git\n"
            f"git -C executorch checkout \"${name}\"\n")


def test_a_shell_variable_holding_the_commit_moves_with_its_comment_and_audit_then_agrees(tmp_path, upstream, capsys):
    up, c14, c15 = upstream
    repo = write(tmp_path / "t", {"scripts/get_executorch.sh": _script(c14)})
    code, data = update_json(capsys, repo, up)
    assert code == 0, data
    assert sorted(edits(data)) == sorted(PINS + [("scripts/get_executorch.sh", 2, c14, c15),
                                                 ("scripts/get_executorch.sh", 2, "1.4.0", "1.5.1")])
    assert flags(data) == []
    assert (repo / "scripts/get_executorch.sh").read_text() == _script(c15, "1.5.1")
    code, again = audit_json(capsys, repo)
    assert code == 0 and again["ok"] and flags(again) == []


@pytest.mark.parametrize("name", ["SRC_REV", "EXECUTORCH_COMMIT"])
def test_a_variable_of_any_name_expanded_by_a_checkout_of_executorch_moves(tmp_path, upstream, capsys, name):
    up, c14, c15 = upstream
    repo = write(tmp_path / "t", {"get.sh": _script(c14, name=name)})
    code, data = update_json(capsys, repo, up)
    assert code == 0, data
    assert (repo / "get.sh").read_text() == _script(c15, "1.5.1", name=name)


def test_cmake_workflow_and_dockerfile_variables_move(tmp_path, upstream, capsys):
    up, c14, c15 = upstream
    files = {
        "CMakeLists.txt": (f"set(ET_SHA {c14})  # v1.4.0\ninclude(FetchContent)\nFetchContent_Declare(executorch\n"
                           "  GIT_REPOSITORY https://github.com/pytorch/executorch.git\n  GIT_TAG ${ET_SHA}\n)\n"),
        ".github/workflows/b.yml": (f"on: push\nenv:\n  UPSTREAM_REF: {c14}  # v1.4.0\njobs:\n  b:\n"
                                    "    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n"
                                    "        with:\n          repository: pytorch/executorch\n"
                                    "          ref: ${{ env.UPSTREAM_REF }}\n"),
        "Dockerfile": f"FROM python:3.12\nARG EXECUTORCH_SHA={c14[:12]}\nRUN echo $EXECUTORCH_SHA\n",
    }
    repo = write(tmp_path / "t", files)
    code, data = update_json(capsys, repo, up)
    assert code == 0, data
    assert (repo / "CMakeLists.txt").read_text() == files["CMakeLists.txt"].replace(c14, c15).replace("1.4.0", "1.5.1")
    assert (repo / ".github/workflows/b.yml").read_text() == \
        files[".github/workflows/b.yml"].replace(c14, c15).replace("1.4.0", "1.5.1")
    assert (repo / "Dockerfile").read_text() == files["Dockerfile"].replace(c14[:12], c15[:12])


def test_a_commented_commit_no_command_takes_is_blocking_and_audit_fails_without_saying_every_pin(
        tmp_path, upstream, capsys):
    up, c14, c15 = upstream
    text = f"# fetch ExecuTorch\nSOURCE_REV={c14}  # v1.4.0\n./fetch.py --rev \"$SOURCE_REV\"\n"
    repo = write(tmp_path / "t", {"get.sh": text})
    code, data = update_json(capsys, repo, up)
    assert code == 1, data
    assert flags(data, "commit-pin") == [("commit-pin", "get.sh", 2, True)]
    msg = [f["message"] for f in data["flags"] if f["code"] == "commit-pin"][0]
    assert msg == (f"ExecuTorch is pinned by commit here (a commit with a release comment {c14[:12]} (# 1.4.0)), and "
                   f"the bot does not see which command takes the commit, so it cannot move it: pin the commit of "
                   f"v1.5.1 ({c15}) by hand, with its comment")
    assert (repo / "get.sh").read_text() == text and not data["written"]
    # moved by everything but the commit (update --allow-flagged): audit fails on that line
    run_cli(capsys, "update", "--repo", repo, "--upstream", up, "--allow-flagged")
    code, out, err = run_cli(capsys, "audit", "--repo", repo)
    assert code == 1, out
    assert "every ExecuTorch pin" not in out
    assert "get.sh:2" in out


def test_a_variable_commit_left_behind_fails_audit(tmp_path, upstream, capsys):
    up, c14, c15 = upstream
    files = {"scripts/get_executorch.sh": _script(c14)}
    repo = write(tmp_path / "t", files)
    text = (repo / "requirements.txt").read_text().replace("1.4.0", "1.5.1")
    (repo / "requirements.txt").write_text(text)
    sol = (repo / "app.csolution.yml").read_text().replace("1.4.0", "1.5.1")
    (repo / "app.csolution.yml").write_text(sol)
    code, data = audit_json(capsys, repo)
    assert code == 1 and not data["ok"]
    assert flags(data, "commit-pin") == [("commit-pin", "scripts/get_executorch.sh", 2, True)]
    code, out, err = run_cli(capsys, "audit", "--repo", repo)
    assert code == 1 and "every ExecuTorch pin" not in out
