"""doctor's "can push" rests on something the token itself must pass: a ``git push --dry-run`` with it to the
repository on the GitHub server (GitHub authorizes the dry run's receive-pack request as a push).  The
``permissions`` of "Get a repository" describe the token's user, not the token (a fine-grained token whose resource
owner is a person passes that field and is refused at the first push): doctor shows them as the user's role and
never prints "can push" on them alone."""

from __future__ import annotations

import os
import subprocess

import pytest

from helpers import run_cli

USER_MAY_PUSH = {"admin": True, "maintain": True, "push": True, "triage": True, "pull": True}


def _doctor(world, capsys, co, *extra):
    from fakegithub import UPSTREAM
    return run_cli(capsys, "doctor", "--repo", co, "--upstream", f"github:{UPSTREAM}",
                   "--github-repo", "acme/fw-template", *extra)


def test_the_user_s_permissions_alone_never_make_can_push(world, capsys):
    from fakegithub import TEMPLATE
    from github_world import checkout
    world.repos[TEMPLATE].permissions = dict(USER_MAY_PUSH)     # as GitHub shows it to that user's token
    co = checkout(world)                                        # its origin is not the repository on GitHub
    code, out, err = _doctor(world, capsys, co)
    assert code == 0, out + err
    assert "token: can push" not in out                         # old: "token: can push to the repository"
    assert ("token's user: may push (permissions.push of \"Get a repository\" is the user's role, not what the token "
            "may do)\n") in out
    assert ("token: push not proven (the checkout's origin is not https://github.com/acme/fw-template, so a dry-run "
            "push would not use the token); the workflow's first push proves it\n") in out


def _served(world, tmp_path, monkeypatch, co, *, exists=True):
    """The checkout's origin made ``$GITHUB_SERVER_URL/acme/fw-template`` (a file:// server holding the remote)."""
    server = tmp_path / "server"
    (server / "acme").mkdir(parents=True)
    if exists:
        os.symlink(world.remote, server / "acme" / "fw-template.git")
    monkeypatch.setenv("GITHUB_SERVER_URL", f"file://{server}")
    subprocess.run(["git", "-C", str(co), "remote", "set-url", "origin", f"file://{server}/acme/fw-template.git"],
                   check=True)


def test_a_dry_run_push_the_server_accepts_is_can_push_and_writes_nothing(world, capsys, tmp_path, monkeypatch):
    from github_world import checkout, remote_head
    co = checkout(world)
    _served(world, tmp_path, monkeypatch, co)
    before = remote_head(world)
    code, out, err = _doctor(world, capsys, co)
    assert code == 0, out + err
    assert (f"token: can push (a dry-run push with the token to file://{tmp_path}/server/acme/fw-template (branch "
            "executorch-pack-bot/executorch) was accepted)") in out
    assert remote_head(world) == before is None                 # --dry-run: no branch was made


def test_a_dry_run_push_that_proves_nothing_says_so(world, capsys, tmp_path, monkeypatch):
    from github_world import checkout
    co = checkout(world)
    _served(world, tmp_path, monkeypatch, co, exists=False)
    code, out, err = _doctor(world, capsys, co)
    assert "token: can push" not in out
    assert "token: push not proven (a dry-run push with the token failed for another reason: " in out


@pytest.mark.parametrize("stderr, verdict", [
    # GitHub's answers to a token that may not write (a fine-grained token owned by a person, a read-only App)
    ("remote: Permission to acme/fw-template.git denied to mallory.\nfatal: unable to access "
     "'https://github.com/acme/fw-template.git/': The requested URL returned error: 403\n", False),
    ("remote: Write access to repository not granted.\nfatal: unable to access "
     "'https://github.com/acme/fw-template.git/': The requested URL returned error: 403\n", False),
    ("fatal: Authentication failed for 'https://github.com/acme/fw-template.git/'\n", False),
    ("fatal: unable to access 'https://github.com/acme/fw-template.git/': Could not resolve host: github.com\n", None),
    ("fatal: 'origin' does not appear to be a git repository\n", None),
])
def test_what_a_refused_dry_run_says_of_the_token(stderr, verdict):
    from bot.commands.doctor import push_verdict
    assert push_verdict(128, stderr) is verdict
    assert push_verdict(0, "") is True


def test_a_refused_dry_run_push_blocks_with_the_fix_for_the_token_s_owner(world, capsys, tmp_path, monkeypatch):
    from fakegithub import TEMPLATE
    from github_world import checkout
    import bot.commands.doctor as doctor
    world.repos[TEMPLATE].permissions = dict(USER_MAY_PUSH)
    co = checkout(world)
    _served(world, tmp_path, monkeypatch, co)
    refusal = ("remote: Permission to acme/fw-template.git denied to mallory.\nfatal: unable to access "
               "'https://github.com/acme/fw-template.git/': The requested URL returned error: 403\n")
    real = doctor.push_verdict
    monkeypatch.setattr(doctor, "push_verdict", lambda rc, err: real(128, refusal))   # as GitHub answers the token
    code, out, err = _doctor(world, capsys, co)
    assert code == 1
    assert "  ! the token may not push: GitHub refused a dry-run push with the token to " in out
    assert "a fine-grained token must have the repository's owner (the organization) as its resource owner" in out
