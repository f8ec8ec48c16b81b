"""The publisher's git side, compared whole: the environment git runs in (identity, the token only as a header),
git's failures, the branch head read from the remote, who made a commit, the tree and commit built in a
temporary index, the push and its refusals, the base branch, and the bump moved onto a base that moved.
"""

from __future__ import annotations

import base64
import os
import subprocess

import pytest

from bot.errors import CheckFailed, PlatformError, UsageError
from bot.github.publish import Git, current_branch
from bot.github.pushrefusal import PushRefused
from fakegithub import git
from publishcase import BOT_EMAIL, BRANCH, TITLE, TOKEN, PublishCase


@pytest.fixture
def case(fake, tmp_path):
    return PublishCase(fake, tmp_path)


# ----------------------------------------------------------------- Git
def test_git_runs_as_the_bot_with_the_token_only_in_an_extra_header(tmp_path, monkeypatch):
    monkeypatch.setenv("KEEP_ME", "1")
    monkeypatch.delenv("GITHUB_SERVER_URL", raising=False)
    env = Git(tmp_path, TOKEN, ("Pack Bot", "bot@example.invalid")).env({"GIT_INDEX_FILE": "/x"})
    basic = base64.b64encode(f"x-access-token:{TOKEN}".encode()).decode()
    mine = ("GIT_AUTHOR", "GIT_COMMITTER", "GIT_CONFIG", "GIT_TERMINAL", "GIT_INDEX", "LC_ALL", "KEEP_ME")
    assert {k: v for k, v in env.items() if k.startswith(mine)} == {
        "GIT_AUTHOR_NAME": "Pack Bot", "GIT_AUTHOR_EMAIL": "bot@example.invalid",
        "GIT_COMMITTER_NAME": "Pack Bot", "GIT_COMMITTER_EMAIL": "bot@example.invalid",
        "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C", "KEEP_ME": "1",
        "GIT_CONFIG_COUNT": "6",
        "GIT_CONFIG_KEY_0": "submodule.recurse", "GIT_CONFIG_VALUE_0": "false",
        "GIT_CONFIG_KEY_1": "fetch.recurseSubmodules", "GIT_CONFIG_VALUE_1": "false",
        "GIT_CONFIG_KEY_2": "push.recurseSubmodules", "GIT_CONFIG_VALUE_2": "no",
        "GIT_CONFIG_KEY_3": "http.extraHeader", "GIT_CONFIG_VALUE_3": "",
        "GIT_CONFIG_KEY_4": "http.https://github.com/.extraHeader", "GIT_CONFIG_VALUE_4": "",
        "GIT_CONFIG_KEY_5": "http.https://github.com/.extraHeader",
        "GIT_CONFIG_VALUE_5": f"AUTHORIZATION: basic {basic}",
        "GIT_INDEX_FILE": "/x"}


def test_git_without_a_token_sets_no_header(tmp_path, monkeypatch):
    for k in [k for k in os.environ if k.startswith("GIT_CONFIG")]:
        monkeypatch.delenv(k)
    env = Git(tmp_path, None, ("A", "a@example.invalid")).env()
    assert [env[k] for k in sorted(env) if k.startswith("GIT_CONFIG_KEY")] == [
        "submodule.recurse", "fetch.recurseSubmodules", "push.recurseSubmodules"]
    assert (env["GIT_AUTHOR_NAME"], env["GIT_COMMITTER_EMAIL"]) == ("A", "a@example.invalid")


def test_a_failing_git_command_is_a_platform_error_with_gits_last_line(case):
    g = case.pub.git
    with pytest.raises(PlatformError) as ei:
        g("rev-parse", "--verify", "no-such-ref")
    assert str(ei.value) == "git rev-parse failed: fatal: Needed a single revision"
    (case.co / "README.md").write_text("changed\n")
    with pytest.raises(PlatformError) as ei:               # no stderr at all: the exit code
        g("diff", "--quiet")
    assert str(ei.value) == "git diff failed: 1"
    assert g("diff", "--quiet", check=False) == ""
    assert g("rev-parse", "--abbrev-ref", "HEAD") == "main"
    assert g.calls[-1] == ["git", "rev-parse", "--abbrev-ref", "HEAD"]


def test_git_output_is_decoded_and_stripped(case):
    assert case.pub.git("hash-object", "--stdin", input=b"x\n") == "587be6b4c3f93f93c489c0111bba5596147a26cb"


# ------------------------------------------------------------ identity
@pytest.mark.parametrize("name", ["", "acme", "acme/fw/x", "a b/fw", None])
def test_a_repository_name_that_is_not_owner_slash_name_is_refused(case, name):
    with pytest.raises(UsageError) as ei:
        case.publisher(name)
    assert str(ei.value) == (f"template repository {name!r} is not OWNER/NAME (set --github-repo or "
                             "GITHUB_REPOSITORY)")


def test_the_owner_is_the_part_before_the_slash(case):
    p = case.publisher("Acme.Org/fw_template-2")
    assert (p.owner, p.full_name, p.remote) == ("Acme.Org", "Acme.Org/fw_template-2", "origin")


# ------------------------------------------------------------ base branch
def test_the_base_is_the_config_or_the_checkouts_branch(fake, tmp_path):
    case = PublishCase(fake, tmp_path, base="release")
    assert case.pub.base_branch() == "release"
    case = PublishCase(fake, tmp_path / "b")
    git(case.co, "checkout", "-q", "-b", "topic")
    assert case.pub.base_branch() == "topic"
    git(case.co, "checkout", "-q", "--detach")
    with pytest.raises(UsageError) as ei:
        case.pub.base_branch()
    assert str(ei.value) == ("the template checkout is on a detached HEAD; set `base:` in "
                             ".github/executorch-pack-bot.yml")


def test_current_branch_is_none_on_a_detached_head_and_outside_a_repository(tmp_path, case, monkeypatch):
    assert current_branch(case.co) == "main"
    git(case.co, "checkout", "-q", "--detach")
    assert current_branch(case.co) is None
    (tmp_path / "plain").mkdir()
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    assert current_branch(tmp_path / "plain") is None


# ------------------------------------------------------------ remote head
def test_the_remote_head_is_the_exact_branch_only(case):
    assert case.pub._remote_head(BRANCH) is None
    git(case.tmp, "--git-dir", str(case.remote), "branch", f"x/refs/heads/{BRANCH}", "main")
    assert case.pub._remote_head(BRANCH) is None          # ls-remote also matches a longer name ending the same
    git(case.tmp, "--git-dir", str(case.remote), "branch", BRANCH, "main")
    assert case.pub._remote_head(BRANCH) == case.main()


# ------------------------------------------------------------ who made a commit
@pytest.mark.parametrize("author,committer,bots", [
    (BOT_EMAIL, BOT_EMAIL, True),                                         # commit: git, the configured author
    (BOT_EMAIL.upper(), BOT_EMAIL, True),                                 # e-mail case does not matter
    ("12345+my-app[bot]@users.noreply.github.com", "noreply@github.com", True),   # commit: api, an App's bot
    ("12345+my-app[bot]@users.noreply.github.com", "NoReply@GitHub.com", True),
    ("alice@example.com", "noreply@github.com", False),                   # a person's edit in the web editor
    (BOT_EMAIL, "alice@example.com", False),                               # the bot's commit, rebased by a person
    ("alice@example.com", BOT_EMAIL, False),
    ("12345+my-app[bot]@users.noreply.github.com", BOT_EMAIL, False),     # a bot author needs GitHub's committer
    ("my-app[bot]@users.noreply.github.com", "noreply@github.com", False),
    ("x12345+my-app[bot]@users.noreply.github.com", "noreply@github.com", False),
    ("12345+my-app[bot]@users.noreply.github.com.evil", "noreply@github.com", False),
])
def test_a_commit_is_the_bots_by_its_author_and_committer(case, author, committer, bots):
    assert case.pub._bots(author, committer) is bots


def test_foreign_commits_name_each_commit_by_someone_else(case):
    case.publish()
    a = case.commit_by(BRANCH, "Alice", "alice@example.com", path="A.md")
    case.commit_by(BRANCH, "App", "12345+my-app[bot]@users.noreply.github.com", path="B.md",
                   committer_email="noreply@github.com")
    c = case.commit_by(BRANCH, "Carol", "carol@example.com", path="C.md", committer_email=BOT_EMAIL)
    case.pub._fetch(BRANCH, "refs/test/head")
    assert case.pub.foreign_commits(case.main(), case.head()) == [
        f"{c[:7]} Carol <carol@example.com>", f"{a[:7]} Alice <alice@example.com>"]


# ------------------------------------------------------------ tree and commit
def test_the_tree_replaces_only_the_changed_files_with_their_modes(case):
    os.chmod(case.co / "README.md", 0o755)          # the checkout of an executable file, as git checks it out
    git(case.co, "update-index", "--chmod=+x", "README.md")
    git(case.co, "commit", "-q", "-m", "exec")
    git(case.co, "push", "-q", "origin", "main")
    base = case.main()
    files = {"README.md": b"new readme\n", "docs/NEW.md": b"new\n"}
    index_before = (case.co / ".git" / "index").read_bytes()
    tree, changed = case.pub.build_tree(base, files)
    readme = git(case.co, "rev-parse", f"{tree}:README.md")
    new = git(case.co, "rev-parse", f"{tree}:docs/NEW.md")
    assert changed == {"README.md": ("100755", readme), "docs/NEW.md": ("100644", new)}
    assert git(case.co, "ls-tree", tree, "README.md").split()[0] == "100755"
    assert git(case.co, "cat-file", "-p", readme) == "new readme"
    assert git(case.co, "diff", "--name-only", base, tree).splitlines() == ["README.md", "docs/NEW.md"]
    assert (case.co / ".git" / "index").read_bytes() == index_before      # the checkout's index is untouched


def test_a_file_as_the_base_has_it_is_not_a_change(case):
    base = case.main()
    readme = (case.co / "README.md").read_bytes()
    tree, changed = case.pub.build_tree(base, {"README.md": readme})
    assert (tree, changed) == (git(case.co, "rev-parse", f"{base}^{{tree}}"), {})


def test_the_bot_never_commits_into_a_submodule(case):
    sub = "1" * 40
    git(case.co, "update-index", "--add", "--cacheinfo", f"160000,{sub},board-sdk")
    git(case.co, "commit", "-q", "-m", "submodule")
    base = git(case.co, "rev-parse", "HEAD")
    with pytest.raises(PlatformError) as ei:
        case.pub.build_tree(base, {"board-sdk": b"x\n"})
    assert str(ei.value) == "board-sdk is a submodule in the base; the bot never commits into a submodule"


@pytest.mark.parametrize("signoff,message", [
    (False, TITLE + "\n"),
    (True, f"{TITLE}\n\nSigned-off-by: github-actions[bot] <{BOT_EMAIL}>\n"),
])
def test_a_commit_is_one_commit_on_the_base_with_the_message(fake, tmp_path, signoff, message):
    case = PublishCase(fake, tmp_path, signoff=signoff)
    base = case.main()
    commit, tree = case.pub.build_commit(base, {"README.md": b"x\n"}, TITLE + "\n")
    assert git(case.co, "log", "-1", "--format=%T %P", commit) == f"{tree} {base}"
    raw = subprocess.run(["git", "cat-file", "commit", commit], cwd=case.co, capture_output=True).stdout.decode()
    assert raw.split("\n\n", 1)[1] == message
    assert case.pub.message(TITLE + "\n") == message


def test_the_same_commit_is_one_commit_on_the_base_with_the_tree(case):
    base = case.main()
    commit, tree = case.pub.build_commit(base, {"README.md": b"x\n"}, "m\n")
    other, _ = case.pub.build_commit(commit, {"README.md": b"x\n"}, "m\n")
    assert case.pub._same(commit, base, tree) is True
    assert case.pub._same(commit, commit, tree) is False                  # another parent
    assert case.pub._same(commit, base, base) is False                    # another tree
    assert case.pub._same(other, commit, tree) is True
    merge = git(case.co, "commit-tree", tree, "-p", base, "-p", commit, "-m", "merge")
    assert case.pub._same(merge, base, tree) is False                     # two parents


# ------------------------------------------------------------------ push
def test_a_push_the_remote_refuses_is_push_refused_with_every_line(case):
    hook = case.remote / "hooks" / "pre-receive"
    hook.write_text("#!/bin/sh\necho 'error: GH013: Repository rule violations found for refs/heads/x.'\n"
                    "echo '- Commits must have verified signatures.'\nexit 1\n")
    hook.chmod(0o755)
    commit, _ = case.pub.build_commit(case.main(), {"README.md": b"x\n"}, "m\n")
    with pytest.raises(PushRefused) as ei:
        case.pub._push(BRANCH, commit, None)
    assert ei.value.branch == BRANCH
    assert "remote: error: GH013: Repository rule violations found for refs/heads/x." in ei.value.lines


def test_a_push_that_fails_otherwise_is_a_platform_error_with_gits_lines(case):
    commit, _ = case.pub.build_commit(case.main(), {"README.md": b"x\n"}, "m\n")
    git(case.co, "remote", "set-url", "origin", str(case.tmp / "gone.git"))
    with pytest.raises(PlatformError) as ei:
        case.pub._push(BRANCH, commit, None)
    assert not isinstance(ei.value, PushRefused)
    gone = case.tmp / "gone.git"
    assert str(ei.value) == (f"git push of {BRANCH} failed:\n  fatal: '{gone}' does not appear to be a git "
                             "repository\n  fatal: Could not read from remote repository.\n  \n  Please make sure "
                             "you have the correct access rights\n  and the repository exists.").replace("\n  \n", "\n")


def test_the_push_is_leased_on_the_head_inspected(case):
    commit, _ = case.pub.build_commit(case.main(), {"README.md": b"x\n"}, "m\n")
    case.pub._push(BRANCH, commit, None)
    assert case.pub.git.calls[-1] == ["git", "push", "--quiet", f"--force-with-lease=refs/heads/{BRANCH}:",
                                      "origin", f"{commit}:refs/heads/{BRANCH}"]
    second, _ = case.pub.build_commit(case.main(), {"README.md": b"y\n"}, "m\n")
    with pytest.raises(PushRefused):                                      # the lease: the branch must not exist
        case.pub._push(BRANCH, second, None)
    case.pub._push(BRANCH, second, commit)
    assert case.head() == second


# ------------------------------------------------------------ originals and a moved base
def move_main(case, path, text):
    """A maintainer's commit on main of the remote; returns the new main fetched into the checkout."""
    work = case.tmp / f"maint-{len(list(case.tmp.glob('maint-*')))}"
    from fakegithub import fresh_checkout
    fresh_checkout(case.remote, work)
    if text is None:
        git(work, "rm", "-q", path)
    else:
        (work / path).write_text(text)
        git(work, "add", path)
    git(work, "commit", "-q", "-m", "maintainer")
    git(work, "push", "-q", "origin", "main")
    case.pub._fetch("main", "refs/executorch-pack-bot/base")
    return case.main()


def test_head_originals_are_the_committed_files_present(case):
    readme = git(case.co, "show", "HEAD:README.md").encode() + b"\n"
    (case.co / "README.md").write_text("edited in the work tree\n")
    assert case.pub.head_originals(["README.md", "nope.md"]) == {"README.md": readme}


def test_the_plan_goes_unchanged_when_the_base_did_not_move(case):
    files = {"README.md": b"x\n"}
    assert case.pub.onto_base("main", case.main(), files, None) is files
    assert case.pub.onto_base("main", case.main(), files, {}) is files
    assert case.pub.onto_base("main", case.main(), files, {"README.md": b"old\n"}) is files
    assert case.progress == []


def test_a_moved_base_with_replan_plans_again_and_keeps_files_without_originals(case):
    base = move_main(case, "OTHER.md", "other\n")
    seen = []

    def replan(sha):
        seen.append(sha)
        return {"README.md": b"replanned\n"}
    out = case.pub.onto_base("main", base, {"README.md": b"x\n", "extra.txt": b"e\n"}, {"README.md": b"r\n"}, replan)
    assert (out, seen) == ({"extra.txt": b"e\n", "README.md": b"replanned\n"}, [base])
    head = git(case.co, "rev-parse", "HEAD")
    assert case.progress == [f"main is at {base[:7]}, not at the checkout's {head[:7]}: planning the bump again on it"]


def test_a_moved_base_gets_the_plans_line_changes(case):
    original = (case.co / "README.md").read_bytes()
    lines = original.decode().splitlines(keepends=True)
    planned = ("BUMPED\n" + "".join(lines[1:])).encode()
    base = move_main(case, "README.md", "".join(lines) + "maintainer line\n")
    tosa = (case.co / "requirements-arm-tosa.txt").read_bytes()
    out = case.pub.onto_base("main", base, {"README.md": planned, "NEW.md": b"n\n",
                                            "requirements-arm-tosa.txt": b"planned\n"},
                             {"README.md": original, "requirements-arm-tosa.txt": tosa, "left-out.md": b"x\n"})
    assert out == {"README.md": ("BUMPED\n" + "".join(lines[1:]) + "maintainer line\n").encode(),
                   "NEW.md": b"n\n", "requirements-arm-tosa.txt": b"planned\n"}
    assert case.progress == ["README.md: main moved; the bump's line changes were applied to its new text"]


def test_a_file_the_new_base_deleted_or_changed_on_an_edited_line_stops_the_publish(case):
    original = (case.co / "README.md").read_bytes()
    first = original.decode().splitlines(keepends=True)
    planned = ("BUMPED\n" + "".join(first[1:])).encode()
    base = move_main(case, "README.md", "MAINTAINER\n" + "".join(first[1:]))
    with pytest.raises(CheckFailed) as ei:
        case.pub.onto_base("main", base, {"README.md": planned}, {"README.md": original})
    assert str(ei.value) == ("README.md changed on main since the plan was made, on a line the bump edits; run "
                             "`update --plan-file` again on a fresh checkout, then publish")
    base = move_main(case, "README.md", None)
    with pytest.raises(CheckFailed) as ei:
        case.pub.onto_base("main", base, {"README.md": planned}, {"README.md": original})
    assert str(ei.value) == ("README.md was deleted on main since the plan was made; run `update --plan-file` "
                             "again on a fresh checkout, then publish")


def test_a_checkout_without_a_commit_is_named_head_when_the_bump_is_planned_again(fake, tmp_path):
    case = PublishCase(fake, tmp_path)
    empty = tmp_path / "empty"
    empty.mkdir()
    git(empty, "init", "-q", "-b", "main")
    case.co = empty
    pub = case.publisher()
    out = pub.onto_base("main", "abcdef0123", {"README.md": b"x\n"}, {"README.md": b"r\n"}, lambda sha: {})
    assert (out, case.progress) == ({}, ["main is at abcdef0, not at the checkout's HEAD: planning the bump again "
                                         "on it"])


def test_a_refusal_in_bytes_that_are_not_utf8_is_still_a_refusal(case):
    hook = case.remote / "hooks" / "pre-receive"
    hook.write_text("#!/bin/sh\nprintf 'r\\377gle\\n'\nexit 1\n")
    hook.chmod(0o755)
    commit, _ = case.pub.build_commit(case.main(), {"README.md": b"x\n"}, "m\n")
    with pytest.raises(PushRefused) as ei:
        case.pub._push(BRANCH, commit, None)
    assert ei.value.lines[0] == "remote: r\ufffdgle"


def test_foreign_commits_name_seven_hex_digits_whatever_core_abbrev_says(case):
    case.publish()
    a = case.commit_by(BRANCH, "Alice", "alice@example.com", path="A.md")
    git(case.co, "config", "core.abbrev", "4")
    case.pub._fetch(BRANCH, "refs/test/head")
    assert case.pub.foreign_commits(case.main(), case.head()) == [f"{a[:7]} Alice <alice@example.com>"]


def test_a_long_push_failure_is_shown_in_its_first_twenty_lines(case):
    git(case.co, "config", "core.sshCommand", "sh -c 'for i in $(seq 1 30); do echo line$i >&2; done; exit 1'")
    git(case.co, "remote", "set-url", "origin", "ssh://git.example.invalid/acme/fw.git")
    commit, _ = case.pub.build_commit(case.main(), {"README.md": b"x\n"}, "m\n")
    with pytest.raises(PlatformError) as ei:
        case.pub._push(BRANCH, commit, None)
    assert str(ei.value) == (f"git push of {BRANCH} failed:\n" + "\n".join(f"  line{i}" for i in range(1, 21))
                             + "\n  \u2026 14 more lines")          # 30 lines of ssh, 4 of git


def test_a_git_failure_in_bytes_that_are_not_utf8_is_still_reported(case):
    with pytest.raises(PlatformError) as ei:
        case.pub.git("cat-file", "-p", "HEAD:" + os.fsdecode(b"caf\xe9"))
    assert str(ei.value) == "git cat-file failed: fatal: path 'caf\ufffd' does not exist in 'HEAD'"


def test_a_new_executable_file_is_committed_executable(case):
    """--include ai_layer: a script the ai-layer job made executable (0755) arrives as 100755, as git add has it."""
    import os
    (case.co / "ai_layer" / "run.sh").write_bytes(b"#!/bin/sh\n")
    os.chmod(case.co / "ai_layer" / "run.sh", 0o755)
    (case.co / "ai_layer" / "new.yml").write_bytes(b"layer: {}\n")
    tree, changed = case.pub.build_tree(case.main(), {"ai_layer/run.sh": b"#!/bin/sh\n",
                                                      "ai_layer/new.yml": b"layer: {}\n"})
    assert {p: m for p, (m, _) in changed.items()} == {"ai_layer/run.sh": "100755", "ai_layer/new.yml": "100644"}
    assert git(case.co, "ls-tree", tree, "ai_layer/run.sh").split()[0] == "100755"


def test_publish_in_a_folder_that_is_no_git_repository_says_so(tpl, upstream_repo, tmp_path, capsys, monkeypatch):
    # it said "the template checkout is on a detached HEAD" of a folder that was never a git checkout
    from bot.cli import main
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
    plan = tmp_path / "plan.json"
    assert main(["update", "--repo", str(tpl), "--upstream", str(upstream_repo), "--plan-file", str(plan)]) == 0
    before = {p: p.read_bytes() for p in tpl.rglob("*") if p.is_file()}
    capsys.readouterr()
    assert main(["publish", "--repo", str(tpl), "--plan-file", str(plan)]) == 2
    err = capsys.readouterr().err
    assert err == (f"executorch-pack-bot: error: {tpl}: not a git repository: the bot commits and pushes from a "
                   "git checkout of the template (git clone it, then run there)\n")
    assert {p: p.read_bytes() for p in tpl.rglob("*") if p.is_file()} == before
    # a dry run only prints the pull request it would open: no checkout needed, nothing written
    assert main(["publish", "--repo", str(tpl), "--plan-file", str(plan), "--dry-run"]) == 0
    assert "Bump ExecuTorch to 1.5.1" in capsys.readouterr().out
    assert {p: p.read_bytes() for p in tpl.rglob("*") if p.is_file()} == before
