"""Upstream's truth for the pull request's whole life: after the bot's PR for 1.5.1 opened, v1.5.1 is taken back.

Each way a release can be half there or taken back after the PR opened, and what the bot must then do:
on GitHub the release is deleted, made a draft again, or flagged prerelease; on the package index
``executorch==1.5.1`` answers 404, has only an sdist (no wheel), or every file is yanked (PEP 592).  The
watch job's ``check`` no longer answers a plain ``update-needed=false``: its outputs name the open PR and
why its release no longer holds (``open-pr-holds=false``, ``open-pr-note``), and ``check --close-withdrawn``
(and ``run``) close the PR with that true reason, never "The base branch already is on ExecuTorch 1.4.0".
A PR closed that way is no rejection: once the release holds again, it is proposed again.  When an older
release still holds (v1.5.0), ``run`` closes the withdrawn PR saying so and proposes 1.5.0.
"""

from __future__ import annotations

import pytest

from fakegithub import TEMPLATE, UPSTREAM, add_sample_release, pypi_json
from github_world import check, checkout, cli, run_bot


def _release(world, tag):
    return next(r for r in world.repo(UPSTREAM).releases if r["tag_name"] == tag)


def withdraw(world, how):
    """Take v1.5.1 back in one of the ways a release can be withdrawn; returns the reason the bot must give."""
    rel = _release(world, "v1.5.1")
    if how == "deleted":
        world.repo(UPSTREAM).releases.remove(rel)
        return f"the GitHub release v1.5.1 of {UPSTREAM} was deleted (it is no longer in its releases)"
    if how == "draft":
        rel["draft"] = True
        return f"the GitHub release v1.5.1 of {UPSTREAM} is a draft again (not published)"
    if how == "prerelease":
        rel["prerelease"] = True
        return f"the GitHub release v1.5.1 of {UPSTREAM} is now flagged prerelease"
    if how == "pypi-deleted":
        del world.pypi[("executorch", "1.5.1")]
        return "executorch 1.5.1 is no longer on the package index"
    if how == "sdist-only":
        world.pypi[("executorch", "1.5.1")] = pypi_json("executorch", "1.5.1", wheels=False,
                                                         requires_dist=["torch>=2.14.0a0"])
        return "executorch 1.5.1 has no wheel on the package index (only a source distribution)"
    if how == "yanked":
        doc = pypi_json("executorch", "1.5.1", requires_dist=["torch>=2.14.0a0"])
        for u in doc["urls"]:
            u["yanked"], u["yanked_reason"] = True, "broken @someone wheel"
        world.pypi[("executorch", "1.5.1")] = doc
        return ("executorch 1.5.1 was yanked from the package index (PEP 592) (reason given: "
                "`broken @someone wheel`)")
    raise AssertionError(how)


WAYS = ["deleted", "draft", "prerelease", "pypi-deleted", "sdist-only", "yanked"]


def _outputs(text):
    return dict(line.split("=", 1) for line in text.splitlines() if "=" in line and not line.startswith("#"))


def _comments(world, number):
    return [c["body"] for c in world.repo(TEMPLATE).comments.get(number, [])]


@pytest.mark.parametrize("how", WAYS)
def test_check_names_the_withdrawn_release_and_close_withdrawn_closes_with_the_true_reason(world, capsys, how):
    assert run_bot(world, capsys) == 0
    pr = world.open_pulls(TEMPLATE)[0]
    reason = withdraw(world, how)
    tpl = checkout(world)
    code, out = check(capsys, tpl, "--respect-ignored", "--github-repo", TEMPLATE)
    assert code == 0, out.err
    outs = _outputs(out.out)
    note = (f"ExecuTorch 1.5.1 no longer holds: {reason}. The base is still on ExecuTorch 1.4.0, and no newer "
            "stable release holds; closing. The bot proposes a release again once one newer than 1.4.0 is "
            "published and installable.")
    assert (outs["open-pr"], outs["open-pr-holds"], outs["open-pr-note"]) == (str(pr["number"]), "false", note)
    assert world.open_pulls(TEMPLATE) == [pr]            # check alone writes nothing
    code, out = check(capsys, tpl, "--respect-ignored", "--github-repo", TEMPLATE, "--close-withdrawn")
    assert code == 0, out.err
    assert world.open_pulls(TEMPLATE) == []
    comments = _comments(world, pr["number"])
    assert comments == [note]
    assert not any("already is on ExecuTorch" in c for c in comments)


@pytest.mark.parametrize("how", ["deleted", "prerelease"])
def test_run_closes_the_pr_with_the_true_reason_not_the_base_moved(world, capsys, how):
    assert run_bot(world, capsys) == 0
    number = world.open_pulls(TEMPLATE)[0]["number"]
    reason = withdraw(world, how)
    assert run_bot(world, capsys) == 0
    assert world.open_pulls(TEMPLATE) == []
    assert _comments(world, number) == [
        f"ExecuTorch 1.5.1 no longer holds: {reason}. The base is still on ExecuTorch 1.4.0, and no newer stable "
        "release holds; closing. The bot proposes a release again once one newer than 1.4.0 is published and "
        "installable."]


def test_a_release_that_holds_again_is_proposed_again(world, capsys):
    assert run_bot(world, capsys) == 0
    rel = _release(world, "v1.5.1")
    rel["prerelease"] = True
    assert run_bot(world, capsys) == 0 and world.open_pulls(TEMPLATE) == []
    rel["prerelease"] = False
    assert run_bot(world, capsys) == 0
    assert [p["title"] for p in world.open_pulls(TEMPLATE)] == ["Bump ExecuTorch to 1.5.1"]


def test_an_older_release_that_holds_is_proposed_instead(world, capsys):
    add_sample_release(world, "v1.5.0", source_tag="v1.5.1", created_at="2026-08-01T00:00:00Z")
    world.pypi[("executorch", "1.5.0")] = pypi_json("executorch", "1.5.0", requires_dist=["torch>=2.14.0a0"])
    assert run_bot(world, capsys) == 0
    first = world.open_pulls(TEMPLATE)[0]
    assert first["title"] == "Bump ExecuTorch to 1.5.1"
    reason = withdraw(world, "prerelease")
    tpl = checkout(world)
    code, out = check(capsys, tpl, "--respect-ignored", "--github-repo", TEMPLATE)
    outs = _outputs(out.out)
    assert (outs["update-needed"], outs["target"], outs["open-pr-holds"]) == ("true", "1.5.0", "false")
    assert run_bot(world, capsys) == 0
    assert [p["title"] for p in world.open_pulls(TEMPLATE)] == ["Bump ExecuTorch to 1.5.0"]
    assert _comments(world, first["number"]) == [
        f"ExecuTorch 1.5.1 no longer holds: {reason}. The base is on ExecuTorch 1.4.0; the bot proposes 1.5.0 instead."]


def test_a_release_that_holds_is_left_alone(world, capsys):
    assert run_bot(world, capsys) == 0
    pr = world.open_pulls(TEMPLATE)[0]
    code, out = check(capsys, checkout(world), "--respect-ignored", "--github-repo", TEMPLATE, "--close-withdrawn")
    outs = _outputs(out.out)
    assert (outs["open-pr"], outs["open-pr-holds"], outs["open-pr-note"]) == (str(pr["number"]), "true", "")
    assert world.open_pulls(TEMPLATE) == [pr] and _comments(world, pr["number"]) == []


def test_close_withdrawn_without_respect_ignored_is_bad_usage_before_any_request(world, capsys):
    code, out = check(capsys, checkout(world), "--close-withdrawn")
    assert code == 2 and "--close-withdrawn needs --respect-ignored" in out.err
    assert world.requests == []


# -- the release asset the PR verified: deleted or replaced (read from the PR body's pack step) --------------

def _source(assets):
    from bot.github.releases import Asset, Release

    class Source:
        full_name = UPSTREAM

        def release(self, tag):
            return Release(tag, False, False, "2026-09-01T00:00:00Z", "", "", tuple(
                Asset(n, 1, d, f"https://example.invalid/{n}") for n, d in assets.items()))

        def releases(self):
            return [self.release("v1.5.1")]
    return Source()


BODY = ("- [x] **1. The pack** `PyTorch::ExecuTorch@1.5.1`: the release asset "
        "`https://github.com/pytorch/executorch/releases/download/v1.5.1/PyTorch.ExecuTorch.1.5.1.pack` "
        f"(sha256 `{'ab' * 32}`)")


@pytest.mark.parametrize("assets, reason", [
    ({"PyTorch.ExecuTorch.1.5.1.pack": "sha256:" + "ab" * 32}, None),
    ({}, "the release asset PyTorch.ExecuTorch.1.5.1.pack of v1.5.1, the pack this pull request verified, was "
         "deleted"),
    ({"PyTorch.ExecuTorch.1.5.1.pack": "sha256:" + "cd" * 32},
     "the release asset PyTorch.ExecuTorch.1.5.1.pack of v1.5.1 was replaced (its digest is now "
     f"`sha256:{'cd' * 32}`; the pack this pull request verified had sha256 {'ab' * 32})"),
])
def test_the_release_asset_the_pr_verified_deleted_or_replaced(assets, reason):
    from bot.github.standing import release_standing, verified_asset
    asset = verified_asset(BODY)
    assert asset == ("PyTorch.ExecuTorch.1.5.1.pack", "ab" * 32)
    st = release_standing(_source(assets), "1.5.1", index=False, asset=asset)
    assert (st.holds, st.reason or None) == (reason is None, reason)


# -- the package index has wheels, but none for the Python the template states ------------------------------

@pytest.mark.parametrize("filename, python, serves", [
    ("executorch-1.5.1-cp311-cp311-linux_x86_64.whl", "3.11", True),
    ("executorch-1.5.1-cp311-cp311-linux_x86_64.whl", "3.10", False),
    ("executorch-1.5.1-py3-none-any.whl", "3.13", True),
    ("executorch-1.5.1-cp310-abi3-manylinux_2_28_x86_64.whl", "3.12", True),
    ("executorch-1.5.1-cp312-abi3-manylinux_2_28_x86_64.whl", "3.11", False),
    ("not-a-wheel.tar.gz", "3.11", False),
])
def test_which_wheel_serves_which_python(filename, python, serves):
    from bot.github.index import wheel_serves
    assert wheel_serves(filename, python) is serves


def test_no_wheel_for_the_templates_python_withdraws_the_release_and_holds_a_new_pr(world, capsys):
    assert run_bot(world, capsys) == 0
    number = world.open_pulls(TEMPLATE)[0]["number"]
    from fakegithub import fresh_checkout
    co = checkout(world)
    (co / ".python-version").write_text("3.10\n")
    from fakegithub import git
    git(co, "add", ".python-version")
    git(co, "-c", "user.name=P", "-c", "user.email=p@example.invalid", "commit", "-q", "-m", "python")
    git(co, "push", "-q", "origin", "HEAD:main")
    code, out = check(capsys, checkout(world), "--respect-ignored", "--github-repo", TEMPLATE)
    outs = _outputs(out.out)
    assert outs["index-ready"] == "false"     # the sample's only wheel is cp311: pip on 3.10 finds none
    assert (outs["open-pr"], outs["open-pr-holds"]) == (str(number), "false")
    assert ("executorch 1.5.1 has no wheel on the package index for Python 3.10, which the template states"
            in outs["open-pr-note"])
