"""Shared helpers of the GitHub-layer tests: the CLI run in-process with the token check, and a
template checkout on a local bare remote (the ``world`` fixture in conftest.py).

Everything runs against the local fake GitHub server (tests/worlds/fakegithub.py) and local bare
git remotes; the token :data:`TOKEN` must never appear in any output.
"""

from __future__ import annotations

from bot.cli import main
from fakegithub import UPSTREAM

#: The token the ``fake`` fixture puts in $GITHUB_TOKEN; :func:`cli` asserts it is never printed.
TOKEN = "ghs_BREAKTESTSECRET42"


def source():
    """The upstream as a GitHub source (``github:OWNER/NAME`` of the fake server)."""
    from bot.github.source import GitHubSource
    return GitHubSource.from_spec(f"github:{UPSTREAM}")


def override(fake, match, respond):
    """Answer requests whose path satisfies ``match(req)`` with ``respond(req, original_route)``."""
    orig = fake._route

    def route(req, body):
        if match(req):
            return respond(req, lambda: orig(req, body))
        return orig(req, body)
    fake._route = route


def cli(capsys, *argv):
    """Run the CLI in-process; assert no traceback, no internal error, no token; return (code, captured)."""
    code = main(list(argv))
    out = capsys.readouterr()
    assert "Traceback" not in out.err and "internal error" not in out.err, out.err
    assert TOKEN not in out.out + out.err
    return code, out


def check(capsys, tpl, *extra):
    """``check --repo TPL --upstream github:UPSTREAM EXTRA...``."""
    return cli(capsys, "check", "--repo", str(tpl), "--upstream", f"github:{UPSTREAM}", *extra)


def checkout(w):
    """A fresh clone of the template remote of the ``world`` fixture."""
    from fakegithub import fresh_checkout
    w.runs += 1
    return fresh_checkout(w.remote, w.tmp / f"co{w.runs}")


def run_bot(w, capsys, *extra):
    """``run`` on a fresh checkout; returns the exit code."""
    co = checkout(w)
    return cli(capsys, "run", "--repo", str(co), "--upstream", f"github:{UPSTREAM}", *extra)[0]


def remote_head(w, branch="executorch-pack-bot/executorch"):
    """The commit of ``branch`` on the template remote, or None."""
    from fakegithub import git
    return git(w.tmp, "--git-dir", str(w.remote), "for-each-ref", "--format=%(objectname)", f"refs/heads/{branch}") or None


def planned_checkout(w, capsys):
    """A fresh checkout and the plan file ``update --plan-file`` wrote for it: ``(checkout, plan path)``."""
    co = checkout(w)
    plan = w.tmp / f"plan{w.runs}.json"
    assert cli(capsys, "update", "--repo", str(co), "--upstream", f"github:{UPSTREAM}", "--plan-file", str(plan))[0] == 0
    return co, plan
