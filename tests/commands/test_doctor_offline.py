"""doctor without a network prints the parts that worked (the template, read offline; the rehearsal, with a local
``--upstream PATH``), says of each part that could not be done why, then the error: exit 3 (docs/getting-started.md:
doctor prints three parts)."""

from __future__ import annotations

from helpers import run_cli, snapshot
from test_offline_and_missing_token_errors import no_dns  # noqa: F401 - the fixture

TOKEN = "ghs_DOCTOROFFLINESECRET0123456789"
UNRESOLVED = "the name api.github.com does not resolve (no network, or no DNS without a proxy)"


def test_offline_doctor_prints_the_template_and_each_part_it_could_not_do_then_exits_3(
        capsys, template, no_dns, monkeypatch):  # noqa: F811
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
    before = snapshot(template)
    code, out, err = run_cli(capsys, "doctor", "--repo", template, "--github-repo", "acme/x")
    assert code == 3
    assert "## The template\n" in out
    assert "cmsis-executorch.csolution.yml:17    pack-pin     PyTorch::ExecuTorch@1.4.0" in out
    assert (f"## Rehearsal\n\nNot rehearsed: cannot list the releases of pytorch/executorch: {UNRESOLVED}.\n"
            in out)
    assert f"## The set-up on GitHub\n\nnot checked: cannot read the repository acme/x: {UNRESOLVED}\n" in out
    assert out.rstrip().endswith("Not complete: a part above could not be done (see its 'not' line); nothing else "
                                 "found blocks the bot.")
    assert "OK: nothing blocks the bot." not in out
    last = err.strip().splitlines()[-1]
    assert last.startswith(f"executorch-pack-bot: error: cannot list the releases of pytorch/executorch: {UNRESOLVED}; "
                           "offline, pass a local clone instead: --upstream PATH")
    assert TOKEN not in out + err and "Traceback" not in err
    assert snapshot(template) == before


def test_offline_doctor_with_a_local_upstream_rehearses_and_says_github_was_not_checked(
        capsys, template, tags, no_dns, monkeypatch):  # noqa: F811
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
    code, out, err = run_cli(capsys, "doctor", "--repo", template, "--upstream", tags, "--github-repo", "acme/x")
    assert code == 3
    assert "The next bump: ExecuTorch 1.4.0 -> 1.5.1 (the template's pin to the newest stable release)." in out
    assert "    Bump ExecuTorch to 1.5.1\n\n    Bumps the template from ExecuTorch `1.4.0` to `1.5.1`" in out
    assert f"not checked: cannot read the repository acme/x: {UNRESOLVED}\n" in out
    assert err.strip().splitlines()[-1].startswith(
        f"executorch-pack-bot: error: cannot read the repository acme/x: {UNRESOLVED}; behind a proxy, set HTTPS_PROXY")
