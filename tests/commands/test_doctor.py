"""``doctor``, the install check: the template as a bump reads it, the rehearsed pull request (nothing written,
pushed or opened, also when the template is already on the newest release), and the set-up on GitHub read through
the fake server (rules that require signed commits or forbid the bot's branch, "Allow GitHub Actions to create
pull requests" for the workflow's token, the Workflows permission), each problem with its fix; exit 1 only when
a problem blocks the bot."""

from __future__ import annotations

import pytest

from helpers import run_cli, snapshot

SIGNED = [{"type": "required_signatures"}]
REVIEWS = [{"type": "pull_request", "parameters": {"required_approving_review_count": 2,
                                                   "dismiss_stale_reviews_on_push": False,
                                                   "require_code_owner_review": False,
                                                   "require_last_push_approval": False,
                                                   "required_review_thread_resolution": False}}]


def test_offline_on_the_sample_it_lists_the_pins_and_rehearses_the_next_pull_request(capsys, template, tags, monkeypatch):
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    before = snapshot(template)
    code, out, err = run_cli(capsys, "doctor", "--repo", template, "--upstream", tags)
    assert code == 0
    assert "cmsis-executorch.csolution.yml:17    pack-pin     PyTorch::ExecuTorch@1.4.0" in out
    assert "every ExecuTorch pin is 1.4.0\nmentions of 1.4.0: 30 a bump moves, 4 history, 2 other versions, " \
           "0 for review\n" in out
    assert "The next bump: ExecuTorch 1.4.0 -> 1.5.1 (the template's pin to the newest stable release)." in out
    assert "The pull request the bot would open (nothing was opened, pushed or written):\n\n" \
           "    Bump ExecuTorch to 1.5.1\n\n    Bumps the template from ExecuTorch `1.4.0` to `1.5.1`" in out
    assert "not checked: no token (pass --token or set GITHUB_TOKEN)" in out
    # the sample's build workflow carries a pin: a note, not a blocker, for a token that can be given Workflows
    assert ("  - the bump edits .github/workflows/build.yml: the bot's token needs Workflows: read and write (a GitHub "
            "App: also pass app-workflows-permission: true)\n    fix: grant Workflows: read and write to the App or "
            "token, or keep those files out with `exclude: [.github/workflows]` in .github/executorch-pack-bot.yml\n"
            ) in out
    assert out.rstrip().endswith("OK: nothing blocks the bot.")
    assert snapshot(template) == before


def test_an_up_to_date_template_rehearses_the_bump_from_the_previous_release(capsys, template, tags, monkeypatch):
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    assert run_cli(capsys, "update", "--repo", template, "--upstream", tags)[0] == 0
    before = snapshot(template)
    code, out, err = run_cli(capsys, "doctor", "--repo", template, "--upstream", tags)
    assert code == 0
    assert ("The template is already on the newest release, ExecuTorch 1.5.1: nothing to bump. Rehearsed instead: "
            "the bump from the previous release, 1.4.0, to 1.5.1, on a scratch copy moved back to it") in out
    assert "    Bump ExecuTorch to 1.5.1\n\n    Bumps the template from ExecuTorch `1.4.0` to `1.5.1`" in out
    assert snapshot(template) == before


def _doctor(world, capsys, *extra):
    from fakegithub import UPSTREAM
    from github_world import checkout
    co = checkout(world)
    return run_cli(capsys, "doctor", "--repo", co, "--upstream", f"github:{UPSTREAM}", *extra)


def test_a_set_up_that_works_passes_and_writes_the_rehearsal_to_the_job_summary(world, capsys, tmp_path, monkeypatch):
    from fakegithub import TEMPLATE
    world.repos[TEMPLATE].permissions = {"admin": False, "maintain": False, "push": True, "triage": True, "pull": True}
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    code, out, err = _doctor(world, capsys)
    assert code == 0, out + err
    # the user's role is shown as that; the token's own push is not proven from a checkout whose origin is local
    assert ("repository: acme/fw-template (default branch main)\ntoken's user: may push (permissions.push of \"Get a "
            "repository\" is the user's role, not what the token may do)\ntoken: push not proven (") in out
    assert "workflow permissions: default read, Actions may not create pull requests" in out
    assert "rules of the base branch main: none\nrules of the bot branch executorch-pack-bot/executorch: none" in out
    text = summary.read_text()
    assert text.startswith("## executorch-pack-bot doctor: OK\n")
    assert "### Rehearsed pull request: Bump ExecuTorch to 1\\.5\\.1\n\nBumps the template" in text
    # read requests only: nothing pushed or opened
    assert [s for s in world.requests if s.method != "GET"] == []
    assert world.open_pulls(TEMPLATE) == []


def test_signed_commits_required_blocks_until_commit_api(world, capsys):
    from fakegithub import TEMPLATE
    world.repos[TEMPLATE].branch_rules["main"] = SIGNED + REVIEWS
    code, out, err = _doctor(world, capsys)
    assert code == 1
    assert ("  ! a rule requires signed commits on main, and the bot's commits are made by git (unsigned)\n"
            "    fix: add `commit: api` to .github/executorch-pack-bot.yml: GitHub then makes and signs the commit\n"
            ) in out
    assert ("  - main needs 2 approving reviews before a merge\n    fix: ask for reviewers with `reviewers:` in "
            ".github/executorch-pack-bot.yml (the bot's pull request waits for them)\n") in out
    assert out.rstrip().endswith("1 problem blocks the bot")


def test_signed_commits_with_commit_api_pass(world, capsys):
    from fakegithub import TEMPLATE, git
    from github_world import checkout
    world.repos[TEMPLATE].branch_rules["main"] = SIGNED
    co = checkout(world)
    (co / ".github" / "executorch-pack-bot.yml").write_text("commit: api\n")
    code, out, err = run_cli(capsys, "doctor", "--repo", co, "--upstream", "github:pytorch/executorch")
    assert code == 0, out
    assert "rules of the base branch main: required_signatures" in out and "signed" not in out.split("## Verdict")[1]


def test_a_ruleset_on_the_bot_branch_blocks_its_push(world, capsys):
    from fakegithub import TEMPLATE
    world.repos[TEMPLATE].branch_rules["executorch-pack-bot/executorch"] = [{"type": "creation"},
                                                                             {"type": "non_fast_forward"}]
    code, out, err = _doctor(world, capsys)
    assert code == 1
    assert ("  ! a ruleset forbids creation, non_fast_forward on the bot branch executorch-pack-bot/executorch: its "
            "push would be refused\n") in out


def test_the_workflow_token_needs_actions_to_create_pull_requests_and_cannot_push_workflows(world, capsys):
    from fakegithub import TEMPLATE
    code, out, err = _doctor(world, capsys, "--workflow-token")
    assert code == 1
    assert ("  ! \"Allow GitHub Actions to create and approve pull requests\" is off, and the bot opens its pull "
            "request with GITHUB_TOKEN\n    fix: turn it on in Settings > Actions > General > Workflow permissions, "
            "or give the bot a GitHub App (docs/github-app.md)\n") in out
    assert ("  ! the bump edits .github/workflows/build.yml, and GitHub never lets the workflow's GITHUB_TOKEN push "
            "a change under .github/workflows/\n") in out
    assert out.rstrip().endswith("2 problems block the bot")
    world.repos[TEMPLATE].workflow_permissions["can_approve_pull_request_reviews"] = True
    code, out, err = _doctor(world, capsys, "--workflow-token", "--exclude", ".github/workflows")
    assert code == 0, out


def test_a_token_that_cannot_push_blocks(world, capsys):
    from fakegithub import TEMPLATE
    world.repos[TEMPLATE].permissions = {"admin": False, "push": False, "pull": True}
    code, out, err = _doctor(world, capsys)
    assert code == 1
    assert "  ! the token cannot push to the repository (GitHub answers permissions.push: false)\n" in out


@pytest.mark.parametrize("argv,message", [(("--version", "latest"), "not a release"),
                                          (("--upstream", "/nonexistent/x"), "does not exist")])
def test_bad_usage_exits_2(capsys, template, argv, message):
    code, out, err = run_cli(capsys, "doctor", "--repo", template, *argv)
    assert code == 2 and message in err and "Traceback" not in err


def test_the_rehearsal_carries_the_upstream_evidence_as_the_workflow_pull_request_does(capsys, template, tags,
                                                                                         monkeypatch):
    # doctor reads upstream to plan the bump: its rehearsed body compares the pins, the .pte schema and the
    # components as the body made from `update --plan-file` does, and never says the upstream was not read
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    code, out, err = run_cli(capsys, "doctor", "--repo", template, "--upstream", tags)
    assert code == 0
    assert "    - ✅ **Pins = upstream's** at `v1.5.1`: `executorch==1.5.1` (the tag), `torch==2.14.0` " in out
    assert ("    - ✅ **`.pte` schema**: only comments or white space changed in `schema/*.fbs` between `v1.4.0` "
            "and `v1.5.1`\n") in out
    assert ("    #### Components the template selects\n\n    2 of the 4 ExecuTorch components the template selects have "
            "upstream source files that changed") in out
    assert "    Why `v1.5.1`: it is the newest stable release tag upstream.\n" in out
    assert "| `executorch` | `1.4.0` | `1.5.1` | `release tag v1.5.1` and `version.txt` @ `v1.5.1` (`1.5.1`) |" in out
    assert "not read" not in out and "Not gathered" not in out
    assert "bump record" not in out and "stage" not in out


def test_a_project_holding_a_template_is_not_ok(tmp_path, capsys, monkeypatch, upstream_repo):
    # the bot's own clone: pins only under bot/sample/template/, thousands of mentions for review, and doctor
    # said "OK: nothing blocks the bot"
    from bot.commands.demo import copy_template
    from bot.cli import main
    repo = tmp_path / "project"
    copy_template(repo / "sample" / "template")
    (repo / "notes.md").write_text("".join(f"Step {i}: see ExecuTorch 1.4.0 build {i}.\n" for i in range(3))
                                   + "VERSION = 1.4.0\n")
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    code = main(["doctor", "--repo", str(repo), "--upstream", str(upstream_repo)])
    out = capsys.readouterr().out
    assert code == 0   # nothing blocks a run
    assert "OK: nothing blocks the bot." not in out
    assert out.rstrip().endswith("a look first.")
    assert ("  - every ExecuTorch pin is under sample/template/, none at the top of the repository: is --repo the "
            "template? (the bot reads and bumps the whole repository)") in out.splitlines()


def test_the_sample_template_is_ok(template, capsys, monkeypatch, upstream_repo):
    from bot.cli import main
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    assert main(["doctor", "--repo", str(template), "--upstream", str(upstream_repo)]) == 0
    out = capsys.readouterr().out
    assert out.rstrip().endswith("OK: nothing blocks the bot.")
    assert "would be left for review" not in out and "none at the top" not in out


def _caller(template, name: str, *extra: str, fill: bool = True):
    """The template with docs/example-caller.yml (plus the reviewer triggers ``extra``) as its caller."""
    from pathlib import Path
    root = Path(__file__).resolve().parents[2]
    text = (root / "docs" / name).read_text()
    if fill:   # as README step 1 says: the bot's owner and the commit pinned
        text = text.replace("OWNER/", "acme/").replace("@COMMIT_SHA", "@" + "0123456789abcdef" * 2 + "01234567")
    wf = template / ".github" / "workflows"
    wf.mkdir(parents=True, exist_ok=True)
    (wf / "executorch-pack-bot.yml").write_text(text)
    (wf / "ci.yml").write_text("on: push\njobs:\n  b:\n    runs-on: ubuntu-24.04\n    steps: [{run: make}]\n")


def _caller_section(out: str) -> list[str]:
    lines = out.splitlines()
    at = lines.index("## The caller")
    return lines[at + 2:lines.index("## The set-up on GitHub") - 1]


@pytest.mark.parametrize("name, want", [
    ("example-caller.yml", ".github/workflows/executorch-pack-bot.yml: bump; not added: reviewer commands, auto-merge, "
                           "dashboard (docs/reviewers.md#adding-the-reviewer-layer)"),
    ("example-caller-reviewers.yml", ".github/workflows/executorch-pack-bot.yml: bump, reviewer commands, auto-merge "
                                     "(off until automerge: on-approval in .github/executorch-pack-bot.yml), dashboard "
                                     "(off until dashboard: true in .github/executorch-pack-bot.yml)"),
])
def test_doctor_says_which_layers_the_caller_has(template, capsys, monkeypatch, upstream_repo, name, want):
    from bot.cli import main
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    _caller(template, name)
    assert main(["doctor", "--repo", str(template), "--upstream", str(upstream_repo)]) == 0
    out = capsys.readouterr().out
    assert _caller_section(out) == [want]
    assert out.rstrip().endswith("OK: nothing blocks the bot.")


def test_a_setting_whose_layer_the_caller_lacks_needs_a_look(template, capsys, monkeypatch, upstream_repo):
    from bot.cli import main
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    _caller(template, "example-caller.yml")
    (template / ".github" / "executorch-pack-bot.yml").write_text("automerge: on-approval\n")
    assert main(["doctor", "--repo", str(template), "--upstream", str(upstream_repo)]) == 0
    out = capsys.readouterr().out
    assert ("  - .github/workflows/executorch-pack-bot.yml has no `pull_request_review` trigger, so the auto-merge set "
            "in .github/executorch-pack-bot.yml (automerge: on-approval) never turns on") in out.splitlines()
    assert out.rstrip().endswith("1 item above needs a look first.")


def test_a_caller_still_holding_the_placeholders_blocks(template, capsys, monkeypatch, upstream_repo):
    from bot.cli import main
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    _caller(template, "example-caller.yml", fill=False)
    assert main(["doctor", "--repo", str(template), "--upstream", str(upstream_repo)]) == 1
    out = capsys.readouterr().out
    assert any(ln.endswith(".github/workflows/executorch-pack-bot.yml still names the placeholders of the example "
                           "caller: uses: OWNER/executorch-pack-bot/.github/workflows/executorch-pack-bot.yml@COMMIT_SHA")
               for ln in out.splitlines()), out
    assert "OK: nothing blocks the bot." not in out


def test_no_caller_yet_is_said(template, capsys, monkeypatch, upstream_repo):
    from bot.cli import main
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    assert main(["doctor", "--repo", str(template), "--upstream", str(upstream_repo)]) == 0
    assert _caller_section(capsys.readouterr().out) == [
        "no workflow under .github/workflows/ calls the bot's reusable workflow yet: the README's caller file is "
        "step 1 of the install"]
