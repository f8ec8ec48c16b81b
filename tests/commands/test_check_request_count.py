"""``check --respect-ignored`` (the watch job): with nothing to do it costs two requests, the releases listing
and the bot's open pull requests (the release an open PR proposes is checked again on every run; the package
index is asked only when one is open); the versions reviewers ignored are read only when a release is newer
than the template's pin."""

from __future__ import annotations

from fakegithub import TEMPLATE, UPSTREAM, add_sample_release
from github_world import cli


def _check(capsys, tpl):
    return cli(capsys, "check", "--repo", str(tpl), "--upstream", f"github:{UPSTREAM}", "--respect-ignored",
               "--github-repo", TEMPLATE)


def test_nothing_to_do_costs_two_requests(fake, tpl, capsys):
    add_sample_release(fake, "v1.4.0")
    fake.repo(TEMPLATE)
    code, out = _check(capsys, tpl)
    assert code == 0 and "update-needed=false" in out.out and "open-pr-holds=\n" in out.out
    assert [(r.method, r.path) for r in fake.requests] == [("GET", f"/repos/{UPSTREAM}/releases"),
                                                          ("GET", f"/repos/{TEMPLATE}/pulls")]


def test_an_update_reads_the_ignored_versions(fake, tpl, capsys):
    add_sample_release(fake, "v1.4.0")
    add_sample_release(fake, "v1.5.1")
    fake.repo(TEMPLATE)
    code, out = _check(capsys, tpl)
    assert code == 0 and "update-needed=true" in out.out
    paths = [r.path for r in fake.requests]
    assert paths[0] == f"/repos/{UPSTREAM}/releases" and f"/repos/{TEMPLATE}/pulls" in paths
