"""``commit: git|api``, ``signoff:`` and the commit message, against the fake GitHub and a bare remote with push rules.

``commit: api`` has GitHub create the commit (Git Data API); the fake makes
it in the bare repository exactly as git would, signed as GitHub signs the
commits it makes for an App or Actions token, and refuses unsigned commits
when the signed-commits rule is on (for pushes: a pre-receive hook; for API
ref updates: the fake's own rule check).
"""

from __future__ import annotations

import pytest

from bot.github.pushrefusal import hint
from fakegithub import TEMPLATE
from fakegitdata import signed
from publishworld import BRANCH, World, require_signed_commits

AUTHOR = "Pack Bot <pack-bot@example.invalid>"


@pytest.fixture
def world(tmp_path, monkeypatch):
    w = World(tmp_path, monkeypatch)
    yield w
    w.fake.stop()


def _signed_rule(world):
    require_signed_commits(world.remote)
    world.fake.repo(TEMPLATE).rules.add("signed-commits")


def _writes(world):
    return [(s.method, s.path) for s in world.fake.requests if s.method != "GET"]


def test_api_commit_passes_a_signed_commits_rule_and_is_verified(world):
    _signed_rule(world)
    code, _ = world.run("--commit", "api")
    assert code == 0
    head = world.head()
    assert head is not None and signed(world.remote, head)
    assert world.fake.repo(TEMPLATE).api_commits[head]["signed"] is True
    assert world.git("log", "-1", "--format=%an <%ae>|%cn <%ce>|%P", head) == (
        "github-actions[bot] <41898282+github-actions[bot]@users.noreply.github.com>|GitHub <noreply@github.com>|"
        + world.git("rev-parse", "main"))
    assert world.fake.repo(TEMPLATE).ref_updates == [(f"refs/heads/{BRANCH}", head)]
    assert [p["head"]["ref"] for p in world.fake.open_pulls(TEMPLATE)] == [BRANCH]
    # a rerun recognises its own API commit: nothing is written
    before = len(_writes(world))
    assert world.run("--commit", "api")[0] == 0
    assert world.head() == head and len(_writes(world)) == before


def test_git_and_api_produce_the_same_tree_and_message(world):
    assert world.run()[0] == 0
    git_head = world.head()
    git_tree = world.git("rev-parse", f"{git_head}^{{tree}}")
    git_msg = world.git("log", "-1", "--format=%B", git_head)
    world.git("update-ref", "-d", f"refs/heads/{BRANCH}")
    world.fake.repo(TEMPLATE).pulls.clear()
    assert world.run("--commit", "api")[0] == 0
    api_head = world.head()
    assert api_head != git_head
    assert world.git("rev-parse", f"{api_head}^{{tree}}") == git_tree
    assert world.git("log", "-1", "--format=%B", api_head) == git_msg
    assert not signed(world.remote, git_head) and signed(world.remote, api_head)


def test_commit_api_from_the_config_file(world):
    world.commit_to_main({".github/executorch-pack-bot.yml": b"commit: api\n"})   # before the rule is on
    _signed_rule(world)
    assert world.run()[0] == 0
    assert signed(world.remote, world.head())


def test_git_push_refused_by_the_rule_then_api_as_the_hint_says(world, capsys):
    _signed_rule(world)
    code, _ = world.run()
    err = capsys.readouterr().err
    assert code == 1 and f"hint: {hint('verified-signatures', BRANCH)}" in err.splitlines()
    assert world.head() is None and world.fake.open_pulls(TEMPLATE) == []
    assert world.run("--commit", "api")[0] == 0
    assert signed(world.remote, world.head()) and len(world.fake.open_pulls(TEMPLATE)) == 1


def test_api_ref_update_refused_by_a_rule_exits_1_with_githubs_text(world, capsys):
    """The fake refuses an unsigned commit on a ref update; the bot shows GitHub's text and pushes nothing."""
    from fakegithub import Fault
    world.fake.faults.append(Fault("POST", r"/git/refs$", 422,
                                   {"message": "Repository rule violations found\n\n"
                                               "Commits must have verified signatures.\n\n"}))
    code, co = world.run("--commit", "api")
    err = capsys.readouterr().err
    assert code == 1
    assert "  Commits must have verified signatures." in err.splitlines()
    assert world.head() is None and world.fake.open_pulls(TEMPLATE) == []
    from fakegithub import git
    assert git(co, "status", "--porcelain") == ""


@pytest.mark.parametrize("mode", ["git", "api"])
def test_signoff_adds_the_trailer_of_the_configured_author(world, mode):
    world.commit_to_main({".github/executorch-pack-bot.yml": f"signoff: true\nauthor: {AUTHOR}\n".encode()})
    assert world.run("--commit", mode)[0] == 0
    msg = world.git("log", "-1", "--format=%B", world.head())
    assert msg.splitlines()[-1] == f"Signed-off-by: {AUTHOR}"
    assert msg.count("Signed-off-by:") == 1
    assert world.git("log", "-1", "--format=%(trailers:key=Signed-off-by,valueonly)", world.head()).strip() == AUTHOR


def test_commit_message_lists_only_changed_pins_in_words(world):
    assert world.run()[0] == 0
    msg = world.git("log", "-1", "--format=%B", world.head())
    assert msg.splitlines() == [
        "Bump ExecuTorch to 1.5.1", "",
        "- PyTorch::ExecuTorch from 1.4.0 to 1.5.1",
        "- executorch from 1.4.0 to 1.5.1",
        "- torch from 2.13.0 to 2.14.0",
        "- torchao from 0.18.0 to 0.19.0",
        "- ethos-u-vela from 5.1.0 to 5.2.0",
        "- tosa-tools from 2026.5.0 to 2026.8.0",
    ]


def test_commit_message_leaves_out_unpinned_unresolved_and_unchanged_rows():
    from bot.github.commitmsg import commit_message
    from bot.plan import PinRow
    rows = [PinRow("PyTorch::ExecuTorch", "1.4.0", "1.5.1", "tag"), PinRow("torch", None, "2.14.0", "x"),
            PinRow("torchao", "0.18.0", None, "x"), PinRow("numpy", "2.0.0", "2.0.0", "x")]
    assert commit_message("Bump ExecuTorch to 1.5.1", rows) == (
        "Bump ExecuTorch to 1.5.1\n\n- PyTorch::ExecuTorch from 1.4.0 to 1.5.1\n")
    assert commit_message("Title", rows[1:]) == "Title\n"


@pytest.mark.parametrize("text,line,message", [
    ("commit: svn\n", 1, "commit: 'svn' is not one of git, api"),
    ("branch: a/b\nsignoff: please\n", 2, "signoff: expected true or false, got 'please'"),
    ("signoff: \"true\"\n", 1, "signoff: expected true or false, got 'true'"),
    ("sign-off: true\n", 1, "unknown setting 'sign-off' (known: branch, base, labels, reviewers, assignees, "
                            "milestone, author, draft, exclude, automerge, merge-method, dashboard, commit, signoff, "
                            "ignore-mentions, model)"),
])
def test_bad_commit_and_signoff_settings_name_file_and_line(tmp_path, text, line, message):
    from bot.config import load_config
    from bot.errors import UsageError
    (tmp_path / ".github").mkdir()
    (tmp_path / ".github" / "executorch-pack-bot.yml").write_text(text)
    with pytest.raises(UsageError) as info:
        load_config(tmp_path)
    assert (info.value.path, info.value.line, info.value.message, info.value.exit_code) == (
        ".github/executorch-pack-bot.yml", line, message, 2)


def test_commit_and_signoff_settings_are_read(tmp_path):
    from bot.config import Config, load_config, with_commit_mode
    (tmp_path / ".github").mkdir()
    (tmp_path / ".github" / "executorch-pack-bot.yml").write_text("commit: api\nsignoff: yes\n")
    cfg = load_config(tmp_path)
    assert (cfg.commit, cfg.signoff) == ("api", True)
    assert with_commit_mode(cfg, "git").commit == "git" and with_commit_mode(cfg, None).commit == "api"
    assert (Config().commit, Config().signoff) == ("git", False)


def test_a_new_user_on_a_repository_with_signed_commit_and_workflow_rules_is_told_what_to_change(world, capsys):
    """Each refusal names the one thing to change; after both changes the run succeeds with a Verified commit."""
    from publishworld import refuse_workflow_changes
    _signed_rule(world)
    refuse_workflow_changes(world.remote)
    world.fake.repo(TEMPLATE).rules.add("no-workflows-permission")
    assert world.run()[0] == 1
    assert capsys.readouterr().err.splitlines()[-2] == f"hint: {hint('verified-signatures', BRANCH)}"
    world.commit_to_main({".github/executorch-pack-bot.yml": b"commit: api\n"}, past_rules=True)
    assert world.run()[0] == 1
    err = capsys.readouterr().err.splitlines()
    assert err[-2] == f"hint: {hint('workflow-permission', BRANCH)}"
    assert err[-4:-2] == [
        "executorch-pack-bot: error: GitHub's API refused to move executorch-pack-bot/executorch (commit: api); "
        "GitHub said:",
        "  GitHub refused to create the branch executorch-pack-bot/executorch: HTTP 422: refusing to allow a GitHub "
        "App to create or update workflow `.github/workflows/build.yml` without `workflows` permission"]
    assert world.head() is None and world.fake.open_pulls(TEMPLATE) == []
    world.commit_to_main({".github/executorch-pack-bot.yml": b"commit: api\nexclude: [.github/workflows]\n"},
                         past_rules=True)
    assert world.run()[0] == 0
    head = world.head()
    assert signed(world.remote, head) and len(world.fake.open_pulls(TEMPLATE)) == 1
    assert world.blob(head, ".github/workflows/build.yml") == world.blob("main", ".github/workflows/build.yml")


def test_the_fake_signs_only_api_commits_without_author_and_refuses_unsigned_ones_under_the_rule(world):
    """What a real server records: an API commit naming an author is unsigned, and the rule refuses it."""
    import requests
    world.fake.repo(TEMPLATE).rules.add("signed-commits")
    api = f"{world.fake.url}/repos/{TEMPLATE}/git"
    base = world.git("rev-parse", "main")
    tree = world.git("rev-parse", "main^{tree}")
    unsigned = requests.post(f"{api}/commits", json={"message": "x\n", "tree": tree, "parents": [base],
                                                     "author": {"name": "A", "email": "a@example.invalid"}}).json()
    assert unsigned["verification"]["verified"] is False and unsigned["committer"]["email"] == "a@example.invalid"
    r = requests.post(f"{api}/refs", json={"ref": "refs/heads/x", "sha": unsigned["sha"]})
    assert (r.status_code, r.json()["message"]) == (
        422, "Repository rule violations found\n\nCommits must have verified signatures.\n\n")
    ok = requests.post(f"{api}/commits", json={"message": "x\n", "tree": tree, "parents": [base]}).json()
    assert ok["verification"]["verified"] is True and ok["committer"]["email"] == "noreply@github.com"
    assert requests.post(f"{api}/refs", json={"ref": "refs/heads/x", "sha": ok["sha"]}).status_code == 201
    assert world.head("x") == ok["sha"] and signed(world.remote, ok["sha"])


def test_an_api_commit_github_did_not_sign_gets_the_token_hint(world, capsys, monkeypatch):
    """If GitHub made the commit unsigned (another kind of token), the hint is about the token, not commit: api."""
    import bot.github.apicommit as apicommit
    from github import InputGitAuthor
    world.fake.repo(TEMPLATE).rules.add("signed-commits")
    real = apicommit.create_commit

    def with_author(gh_repo, git, **kw):                       # a commit GitHub does not sign
        orig = gh_repo.create_git_commit
        gh_repo.create_git_commit = lambda m, t, p: orig(m, t, p, author=InputGitAuthor("A", "a@example.invalid"))
        return real(gh_repo, git, **kw)
    monkeypatch.setattr(apicommit, "create_commit", with_author)
    monkeypatch.setattr("bot.github.publish.create_commit", with_author)
    assert world.run("--commit", "api")[0] == 1
    assert capsys.readouterr().err.splitlines()[-2] == "hint: " + hint("verified-signatures", BRANCH, "api")
    assert world.head() is None


def test_publish_dry_run_says_how_the_commit_would_be_made(world, capsys):
    from bot.cli import main
    world.commit_to_main({".github/executorch-pack-bot.yml": b"signoff: true\n"})
    co, plan = world.checkout(), world.tmp / "plan.json"
    assert main(["update", "--repo", str(co), "--upstream", "github:pytorch/executorch",
                 "--plan-file", str(plan)]) == 0
    capsys.readouterr()
    assert main(["publish", "--repo", str(co), "--plan-file", str(plan), "--dry-run", "--commit", "api"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[5:7] == ["commit: api (GitHub makes and signs it)", "signoff: yes"]
    assert world.head() is None


def test_api_branch_is_deleted_again_when_the_pull_request_cannot_be_opened(world, monkeypatch, capsys):
    from fakegithub import Fault
    monkeypatch.setenv("EXECUTORCH_PACK_BOT_ATTEMPTS", "1")
    world.fake.faults.append(Fault("POST", r"/pulls$", 422, {"message": "Validation Failed"}))
    code, _ = world.run("--commit", "api")
    assert code == 2
    assert world.head() is None and world.fake.open_pulls(TEMPLATE) == []
    assert world.fake.count("DELETE", r"/git/refs/heads/executorch-pack-bot/executorch$") == 1
    assert world.run("--commit", "api")[0] == 0 and len(world.fake.open_pulls(TEMPLATE)) == 1
