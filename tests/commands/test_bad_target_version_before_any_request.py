"""A bad ``--version`` is bad usage (exit 2, the value named) before any request to GitHub, for update, check,
run and doctor.

Before, ``update --to 1.5`` listed upstream's releases first, so offline or
rate-limited the user saw a network error instead of the typo.
"""

from __future__ import annotations

import pytest

from fakegithub import UPSTREAM
from github_world import checkout, cli


@pytest.mark.parametrize("command", [["update", "--dry-run"], ["check"], ["run", "--dry-run"], ["doctor"]])
@pytest.mark.parametrize("to", ["1.5", "1.5.1; rm -rf /", "latest", "\u0661.\u0665.\u0661"])
def test_a_bad_target_version_is_refused_before_any_request(world, capsys, command, to):
    co = checkout(world)
    code, out = cli(capsys, command[0], "--repo", str(co), "--upstream", f"github:{UPSTREAM}", "--version", to,
                    *command[1:])
    assert (code, out.err.splitlines()[-1]) == (
        2, f"executorch-pack-bot: error: --version: {to!r} is not a release version (expected X.Y.Z, vX.Y.Z or X.Y.Z-rcN)")
    assert world.requests == []
