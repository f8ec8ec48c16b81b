"""Publish a bump: one branch, one commit, one pull request, kept idempotent and never clobbering people.

Lifecycle rules (GitHub REST docs "Pulls"; PyGithub/PyGithub#1566 and #2422; a superseded bot
PR left open, as in dependabot/dependabot-core#1532, is closed; the whole table is in
docs/publishing.md):

* The branch is fixed per track (``Config.branch``, default
  ``executorch-pack-bot/executorch``) or per version when it contains
  ``{version}``.  The commit is built with git plumbing (a temporary index
  on top of the remote base branch), so the user's checkout and index are
  never touched, and pushed with ``--force-with-lease`` pinned to the
  branch head that was inspected.
* The bot's PRs are found with ``head=OWNER:BRANCH`` (GitHub ignores a bare
  branch name and returns every PR: PyGithub#1566) and every result is
  checked again: ``head.ref``, the head repository, and the hidden
  fingerprint marker in the body.  A PR without the marker is not ours and is
  never edited, commented on or closed.
* Rerun with nothing new: the branch already holds the same tree on the same
  base and the PR carries the stamp (a hidden sha256) of the same generated
  title and body, so nothing is pushed, edited or commented; a reviewer's
  edits to the PR (a ticked checkbox, a note) are kept until the bot's own
  proposal changes.
* An open PR from the bot's branch without the fingerprint (opened by a
  person, or its body edited to drop the marker): nothing is pushed to the
  branch and no second PR is attempted.
* A commit on the branch by anyone else (author or committer differs from the
  bot identity): no push; one comment on the PR, updated in place, says how
  to hand the branch back.
* A PR a person closed unmerged with the same fingerprint: the pin set is not
  proposed again; a different (newer) pin set opens a new PR.  A PR closed
  because its branch was deleted (a ``head_ref_deleted`` event before the
  ``closed`` one, :mod:`bot.github.lifecycle`) is not a rejection: the next
  run proposes the same pins again.  A merged PR never blocks anything: when
  the last PR of the branch was merged, commits by others left on the branch
  (a squash merge keeps them there) no longer stop the bot from reusing it.
  The whole table is in docs/publishing.md.
* Superseded PRs (per-version branches) and PRs made obsolete because the
  base already is on the target are closed with a comment.
* PR creation that fails for good deletes the branch this run created, so
  nothing half-made is left; a branch left by an earlier run is reused.
  A repository without draft pull requests is not such a failure: the PR is
  opened as a regular one whose body says why it would be a draft.
* Labels, reviewers, assignees and the milestone are decorations: a refusal
  never fails the publish (bot.github.decorations); it is reported in
  ``PublishResult.refusals`` and recorded in the PR body, run after run.

The token reaches git only through ``GIT_CONFIG_*`` environment variables
(an ``http.<GitHub server URL>/.extraHeader``: git sends it to that server
only, git-config docs, ``http.<url>.*``), never in a URL, an argument or a
log line.  No git command of the bot recurses into submodules
(``submodule.recurse``, ``fetch.recurseSubmodules``,
``push.recurseSubmodules`` off): a submodule's remote, wherever it is, is
never contacted.
"""

from __future__ import annotations

import base64
import os
import re
import stat
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional

from bot.config import Config
from bot.errors import CheckFailed, PlatformError, TransientError, UsageError
from bot.events.ignored import closed_by_ignore
from bot.github.standing import closed_by_withdrawal
from bot.events.state import carry as carry_state
from bot.events.state import load as load_state
from bot.events.state import proposed_version
from bot.events.state import replace as replace_state
from bot.github import decorations, pages
from bot.github.apicommit import create_commit, move_branch
from bot.github.client import call, mask
from bot.github.commitmsg import signed_off
from bot.github.lifecycle import last_pull_merged, rejected
from bot.github.pushrefusal import PushRefused, is_refusal
from bot.github.rebase import rebase_text, worktree_text
from bot.inert import code as inert_code
from bot.inert import lines as inert_lines
from bot.limits import fit
from bot.report import parse_fingerprint

DRAFT_KEY = decorations.DRAFT
GITHUB_COMMITTER = "noreply@github.com"      # the committer of commits GitHub makes (web editor, API)
_BOT_EMAIL = re.compile(r"\d+\+[a-z0-9-]+\[bot\]@users\.noreply\.github\.com")
FOREIGN_MARKER = "<!-- executorch-pack-bot:foreign-commits -->"
#: Where the whole report is when the PR body is cut (bot.report.body: publish appends the uncut report to the job
#: summary of its run).
WHOLE_REPORT = "in the job summary of the workflow run that wrote this body"
Progress = Callable[[str], None]


@dataclass
class PublishResult:
    """What :meth:`Publisher.publish` did.

    ``action`` is one of ``"created"``, ``"updated"``, ``"unchanged"``,
    ``"closed-before"`` (same pin set closed unmerged: nothing proposed),
    ``"foreign-commits"`` (someone else committed on the branch: not pushed),
    ``"foreign-pr"`` (an open PR without the fingerprint uses the branch: not pushed).
    """

    action: str
    number: Optional[int] = None
    url: Optional[str] = None
    pushed: bool = False
    closed: list = field(default_factory=list)
    message: str = ""
    refusals: list = field(default_factory=list)   # bot.github.decorations.Refusal: decorations GitHub refused


REFUSED = ("foreign-commits", "foreign-pr")   # PublishResult actions where nothing was pushed on purpose


def refusal_notice(result: "PublishResult") -> Optional[str]:
    """One line for the ``::warning`` annotation and the job summary when publish refused to push, else None.

    Publishing still exits 0 then (the bot did its job: it kept someone's
    work), but the run must not look like an ordinary success.
    """
    if result.action not in REFUSED:
        return None
    where = f" (#{result.number})" if result.number else ""
    return f"executorch-pack-bot did not push{where}: {result.message}"


class Git:
    """Runs git in the template checkout with the bot identity and, for the network, the token header."""

    def __init__(self, repo: Path, token: Optional[str], author: tuple[str, str]):
        self.repo = Path(repo)
        self.token = token
        self.author = author
        self.calls: list[list[str]] = []   # argv of every call, for tests and debugging

    def env(self, extra: Optional[dict] = None) -> dict:
        """git's environment: the bot as author and committer, no prompt, no submodule recursion, and with a
        token its header for the GitHub server (``$GITHUB_SERVER_URL``, default ``https://github.com``) only."""
        e = dict(os.environ)
        e.update({"GIT_AUTHOR_NAME": self.author[0], "GIT_AUTHOR_EMAIL": self.author[1],
                  "GIT_COMMITTER_NAME": self.author[0], "GIT_COMMITTER_EMAIL": self.author[1],
                  "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C"})
        config = [("submodule.recurse", "false"), ("fetch.recurseSubmodules", "false"),
                  ("push.recurseSubmodules", "no")]
        if self.token:
            basic = base64.b64encode(f"x-access-token:{self.token}".encode()).decode()
            server = (os.environ.get("GITHUB_SERVER_URL") or "https://github.com").rstrip("/") + "/"
            # An empty value first resets any inherited list (git-config docs), unscoped and for the server.
            config += [("http.extraHeader", ""), (f"http.{server}.extraHeader", ""),
                       (f"http.{server}.extraHeader", f"AUTHORIZATION: basic {basic}")]
        e["GIT_CONFIG_COUNT"] = str(len(config))
        for i, (k, v) in enumerate(config):
            e[f"GIT_CONFIG_KEY_{i}"], e[f"GIT_CONFIG_VALUE_{i}"] = k, v
        if extra:
            e.update(extra)
        return e

    def run(self, *args: str, input: Optional[bytes] = None, env: Optional[dict] = None) -> subprocess.CompletedProcess:
        """Run ``git ARGS`` and return the completed process (stdout and stderr as bytes), whatever its exit code."""
        argv = ["git", *args]
        self.calls.append(argv)
        return subprocess.run(argv, cwd=self.repo, input=input, capture_output=True, env=self.env(env))

    def __call__(self, *args: str, input: Optional[bytes] = None, env: Optional[dict] = None,
                 check: bool = True) -> str:
        p = self.run(*args, input=input, env=env)
        if check and p.returncode != 0:
            err = p.stderr.decode("utf-8", "replace").strip().splitlines()
            raise PlatformError(mask(f"git {args[0]} failed: {err[-1] if err else p.returncode}"))
        return p.stdout.decode("utf-8", "replace").strip()


class Publisher:
    """Branch, commit, push and pull-request operations for one template repository.

    Args:
        gh: a ``github.Github``.
        full_name: the template repository on GitHub (``"acme/fw-template"``).
        repo: the template checkout (a git work tree whose ``remote`` is that repository).
        config: the template's :class:`~bot.config.Config`.
        token: for git pushes over HTTPS (None for anonymous or local remotes).
        remote: the git remote name (default ``origin``).
        progress: called with one-line messages.
    """

    def __init__(self, gh, full_name: str, repo: Path, config: Config, *, token: Optional[str] = None,
                 remote: str = "origin", progress: Optional[Progress] = None):
        if not re.fullmatch(r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+", full_name or ""):
            raise UsageError(f"template repository {full_name!r} is not OWNER/NAME (set --github-repo or GITHUB_REPOSITORY)")
        self.gh = gh
        self.full_name = full_name
        self.owner = full_name.split("/")[0]
        self.config = config
        self.remote = remote
        self.git = Git(repo, token, (config.author_name, config.author_email))
        self.progress = progress or (lambda m: None)
        self._repo = None

    @property
    def gh_repo(self):
        if self._repo is None:
            self._repo = self.gh.get_repo(self.full_name)
        return self._repo

    # ----------------------------------------------------------------- pulls
    def _ours(self, pr, branch_re: re.Pattern) -> bool:
        """True when ``pr`` is a bot PR: head branch matches, head repo is this repo, body has the marker."""
        head = pr.head
        repo = head.repo
        return (bool(branch_re.fullmatch(head.ref or "")) and repo is not None
                and repo.full_name.lower() == self.full_name.lower() and parse_fingerprint(pr.body) is not None)

    def _branch_re(self, branch: Optional[str] = None) -> re.Pattern:
        if branch is not None:
            return re.compile(re.escape(branch))
        parts = self.config.branch.split("{version}")
        return re.compile(r"[A-Za-z0-9._-]+".join(re.escape(p) for p in parts))

    def bot_pulls(self, state: str, branch: Optional[str] = None) -> list:
        """The bot's PRs in ``state`` on ``branch`` (or on any branch of the track when None).

        One request for a fixed branch (``head=OWNER:BRANCH``); a per-version
        track lists the repository's PRs in ``state`` and filters them.
        """
        return self._pulls(state, branch)[0]

    def _pulls(self, state: str, branch: Optional[str] = None) -> tuple[list, list]:
        """(the bot's PRs, other PRs whose head is a track branch of this repository) in ``state``.

        "Other" PRs come from the same branch but carry no fingerprint: a
        person opened them from the bot's branch, or removed the marker.
        """
        fixed = branch if branch is not None else (None if "{version}" in self.config.branch else self.config.branch)
        want = self._branch_re(fixed)
        if fixed is not None:
            pulls = pages.every(self.gh_repo.get_pulls(state=state, head=f"{self.owner}:{fixed}"),
                                what=f"list pull requests of {self.full_name}", call=call)
        else:
            pulls = pages.every(self.gh_repo.get_pulls(state=state), what=f"list pull requests of {self.full_name}",
                                call=call)
        mine = [p for p in pulls if self._ours(p, want)]
        others = [p for p in pulls if p not in mine and bool(want.fullmatch(p.head.ref or ""))
                  and p.head.repo is not None and p.head.repo.full_name.lower() == self.full_name.lower()]
        return mine, others

    def close_withdrawn(self, pr, note: str) -> None:
        """Close bot PR ``pr`` because the release it proposes no longer holds (bot.github.standing): ``note`` (the
        true reason, the bot's words) as a comment, and ``closed_by: withdrawn`` in its hidden state, so the close
        is no rejection of its pins (the release is proposed again once it holds again)."""
        from bot.events.ignored import with_state
        from bot.github.standing import CLOSED_BY

        body = with_state(pr.body, closed_by=CLOSED_BY)
        call(lambda: pr.create_issue_comment(fit(note, "comment")), f"comment on #{pr.number}")
        call(lambda: pr.edit(state="closed", body=fit(body, "pull-body")), f"close #{pr.number}")
        self.progress(f"closed #{pr.number}: its release no longer holds")

    def close_obsolete(self, version: str, *, keep: Optional[int] = None, link: Optional[str] = None,
                       skip: tuple[int, ...] = (), pulls=None, notes: Optional[dict] = None) -> list[int]:
        """Close every open bot PR of the track except ``keep`` and ``skip``, with a comment; return their numbers.

        The comment links ``link`` (the PR that supersedes them) or says the
        base already is on ExecuTorch ``version``; ``notes`` (``{number: text}``) adds why a PR's own release no
        longer holds (bot.github.standing).  ``pulls``: the open bot PRs when the caller listed them already.
        """
        closed = []
        notes = notes or {}
        for pr in self.bot_pulls("open") if pulls is None else pulls:
            if pr.number == keep or pr.number in skip:
                continue
            text = (f"Superseded by {link}: closing." if link else
                    f"The base branch already is on ExecuTorch {version}; nothing left to do, closing.")
            if pr.number in notes:
                text = f"{notes[pr.number]} {text}"
            call(lambda: pr.create_issue_comment(fit(text, "comment")), f"comment on #{pr.number}")
            call(lambda: pr.edit(state="closed"), f"close #{pr.number}")
            self.progress(f"closed #{pr.number}")
            closed.append(pr.number)
        return closed

    # ------------------------------------------------------------------- git
    def _remote_head(self, branch: str) -> Optional[str]:
        out = self.git("ls-remote", "--heads", self.remote, f"refs/heads/{branch}")
        for line in out.splitlines():
            sha, ref = line.split("\t", 1)
            if ref == f"refs/heads/{branch}":
                return sha
        return None

    def base_branch(self) -> str:
        """``Config.base`` or the checkout's current branch (:class:`UsageError` on a detached HEAD)."""
        if self.config.base:
            return self.config.base
        b = current_branch(self.git.repo)
        if not b:
            require_git_checkout(self.git.repo)
            raise UsageError("the template checkout is on a detached HEAD; set `base:` in "
                             ".github/executorch-pack-bot.yml")
        return b

    def _fetch(self, branch: str, local: str) -> None:
        self.git("fetch", "--quiet", "--no-tags", self.remote, f"+refs/heads/{branch}:{local}")

    def foreign_commits(self, base_sha: str, head_sha: str) -> list[str]:
        """Commits in ``base..head`` whose author or committer is not the bot (``"SHA7 Name <email>"``)."""
        out = self.git("log", "--format=%H%x00%an%x00%ae%x00%ce", f"{base_sha}..{head_sha}")
        bad = []
        for line in out.splitlines():
            sha, an, ae, ce = line.split("\x00")
            if not self._bots(ae, ce):
                bad.append(f"{sha[:7]} {an} <{ae}>")
        return bad

    def head_originals(self, paths) -> dict[str, bytes]:
        """``{path: bytes}`` of each path as the checkout's HEAD commit has it in working-tree form (absent: left out).

        ``publish`` reads the plan's files after ``update`` wrote them; what
        that plan read is the committed text of the same files.
        """
        out = {}
        for path in paths:
            text = worktree_text(self.git, "HEAD", path)
            if text is not None:
                out[path] = text
        return out

    def onto_base(self, base: str, base_sha: str, files: dict[str, bytes], originals: Optional[dict[str, bytes]],
                  replan: Optional[Callable[[str], dict[str, bytes]]] = None) -> dict[str, bytes]:
        """``files`` as they must be committed on ``base_sha``: never a line of an older base.

        Nothing to do when ``originals`` is None or the checkout's HEAD is
        ``base_sha``.  Otherwise the base moved since the plan was made:
        with ``replan`` the bump is planned again on ``base_sha`` (its
        result replaces every planned file; files without an original, such
        as ``--include`` ones, are kept); without it, each planned file the
        new base changed gets the plan's line changes applied to the new
        base's text (:func:`bot.github.rebase.rebase_text`).  Raises
        :class:`CheckFailed` (exit 1) naming the file when the new base
        changed a line the bump edits, or deleted a planned file.
        """
        if not originals:
            return files
        head = self.git.run("rev-parse", "--verify", "--quiet", "HEAD^{commit}").stdout.decode().strip()
        if head == base_sha:
            return files
        kept = {p: data for p, data in files.items() if p not in originals}
        if replan is not None:
            self.progress(f"{base} is at {base_sha[:7]}, not at the checkout's {head[:7] or 'HEAD'}: "
                          "planning the bump again on it")
            return {**kept, **replan(base_sha)}
        out = dict(files)
        for path in sorted(originals):
            now = worktree_text(self.git, base_sha, path)
            if now == originals[path] or path not in files:
                continue
            if now is None:
                raise CheckFailed(f"{path} was deleted on {base} since the plan was made; run `update "
                                  "--plan-file` again on a fresh checkout, then publish")
            moved = rebase_text(originals[path], files[path], now)
            if moved is None:
                raise CheckFailed(f"{path} changed on {base} since the plan was made, on a line the bump "
                                  "edits; run `update --plan-file` again on a fresh checkout, then publish")
            self.progress(f"{path}: {base} moved; the bump's line changes were applied to its new text")
            out[path] = moved
        return out

    def _bots(self, author_email: str, committer_email: str) -> bool:
        """True for a commit the bot made: authored and committed as the configured author (``commit: git``),
        or authored by a GitHub bot account and committed by GitHub (``commit: api``: GitHub's
        ``noreply@github.com`` committer, a ``N+NAME[bot]@users.noreply.github.com`` author).  A person's edit
        in the web editor is committed by GitHub too, but authored by the person."""
        me = self.config.author_email.lower()
        ae, ce = author_email.lower(), committer_email.lower()
        if ae == me and ce == me:
            return True
        return ce == GITHUB_COMMITTER and bool(_BOT_EMAIL.fullmatch(ae))

    def build_tree(self, base_sha: str, files: dict[str, bytes],
                   folders: tuple[str, ...] = ()) -> tuple[str, dict[str, tuple[str, Optional[str]]]]:
        """The tree of ``base_sha`` with ``files`` replaced; returns (tree SHA, ``{path: (mode, blob)}`` of the changed ones).

        ``folders`` (``publish --include``): repository-relative paths whose content is exactly the
        ``files`` under them, as a regeneration left them: a path of the base tree under one of them that
        ``files`` does not hold is removed (``git update-index --force-remove``), and listed in the result
        as ``(its base mode, None)`` (GitHub REST "Create a tree": an entry with ``sha: null`` deletes it).

        Each blob is made the way ``git add`` would make it from the
        checkout (``git hash-object --path=PATH``: the checkout's
        ``.gitattributes`` ``text``/``eol``/filters and ``core.autocrlf``
        apply), so a file whose working tree has CRLF where the repository
        stores LF differs from the base only on the lines the bot edited.
        The mode is the one ``git add`` would record (:meth:`checkout_mode`):
        ``100755`` for a file the checkout holds as executable, ``100644``
        for one it does not, so an included file made executable (or no
        longer executable) is committed with its mode change.  Uses a
        temporary index: the checkout's index and files are not touched.
        """
        changed: dict[str, tuple[str, str]] = {}
        filemode = self.git("config", "--type=bool", "core.fileMode", check=False) != "false"
        with tempfile.TemporaryDirectory(prefix="epb-index-") as tmp:
            env = {"GIT_INDEX_FILE": str(Path(tmp) / "index")}
            self.git("read-tree", base_sha, env=env)
            for path in sorted(files):
                sha = self.git("hash-object", "-w", f"--path={path}", "--stdin", input=files[path])
                ls = self.git("ls-tree", base_sha, "--", path)
                base_mode, old = (ls.split()[0], ls.split()[2]) if ls else (None, None)
                if base_mode == "160000":
                    raise PlatformError(f"{path} is a submodule in the base; the bot never commits into a submodule")
                mode = self.checkout_mode(path, base_mode, filemode=filemode)
                if sha == old and mode == base_mode:
                    continue
                changed[path] = (mode, sha)
                self.git("update-index", "--add", "--cacheinfo", f"{mode},{sha},{path}", env=env)
            for path, mode in self.removed_under(base_sha, files, folders):
                changed[path] = (mode, None)
                self.git("update-index", "--force-remove", "--", path, env=env)
            tree = self.git("write-tree", env=env)
        return tree, changed

    def removed_under(self, base_sha: str, files, folders: tuple[str, ...]) -> list[tuple[str, str]]:
        """``[(path, mode)]`` of the files of ``base_sha``'s tree under ``folders`` that ``files`` does not hold
        (a submodule under an included folder is never removed: :class:`PlatformError`)."""
        if not folders:
            return []
        out = []
        listing = self.git.run("ls-tree", "-r", "-z", base_sha, "--", *folders).stdout.decode("utf-8", "surrogateescape")
        for entry in filter(None, listing.split("\0")):
            meta, path = entry.split("\t", 1)
            mode = meta.split()[0]
            if path in files:
                continue
            if mode == "160000":
                raise PlatformError(f"{path} is a submodule in the base; the bot never removes a submodule")
            out.append((path, mode))
        return out

    def checkout_mode(self, path: str, base_mode: Optional[str], *, filemode: bool = True) -> str:
        """The tree-entry mode ``git add`` would record for ``path``: ``"100755"`` or ``"100644"``.

        With ``core.fileMode`` true (git's default; ``filemode=True``) the
        checkout's file decides: executable by its owner (``S_IXUSR``, the bit
        git reads, git-config docs "core.fileMode") is ``100755``, else
        ``100644``.  With it false, or for a path the checkout does not hold
        as a regular file, the base's mode stays (``base_mode``; ``100644``
        for a new path).  GitHub REST docs, "Create a tree": a blob's mode is
        ``100644`` (file) or ``100755`` (executable), and both ``commit:``
        modes send this one.
        """
        fallback = base_mode if base_mode in ("100644", "100755") else "100644"
        if not filemode:
            return fallback
        try:
            st = os.lstat(self.git.repo / path)
        except OSError:
            return fallback
        if not stat.S_ISREG(st.st_mode):
            return fallback
        return "100755" if st.st_mode & stat.S_IXUSR else "100644"

    def build_commit(self, base_sha: str, files: dict[str, bytes], message: str) -> tuple[str, str]:
        """A commit on ``base_sha`` whose tree is :meth:`build_tree`'s; returns (commit, tree).

        ``signoff: true`` adds the ``Signed-off-by:`` trailer of the configured author.
        """
        tree, _changed = self.build_tree(base_sha, files)
        commit = self.git("commit-tree", tree, "-p", base_sha,
                          input=fit(self.message(message), "commit-message").encode())
        return commit, tree

    def message(self, message: str) -> str:
        """``message`` with the sign-off trailer when the config asks for one (``signoff: true``)."""
        if not self.config.signoff:
            return message
        return signed_off(message, self.config.author_name, self.config.author_email)

    # --------------------------------------------------------------- publish
    def publish(self, *, version: str, files: dict[str, bytes], title: str, body: str,
                fingerprint: str, draft: bool, commit_message: str, recreate: bool = False,
                originals: Optional[dict[str, bytes]] = None,
                replan: Optional[Callable[[str], dict[str, bytes]]] = None,
                draft_reason: str = "", folders: tuple[str, ...] = (), notes: Optional[dict] = None) -> PublishResult:
        """Push the bump and open or update its PR, following the lifecycle rules of this module.

        ``files`` are the new bytes of the changed files (working-tree form);
        ``originals`` the bytes the plan read.  When the base branch moved
        since the checkout was made, the bump goes onto the new base (see
        :meth:`onto_base`): ``replan(base_sha)`` (``run``) plans again on it,
        else the planned line changes are applied to its files.

        ``notes``: ``{number: text}`` for open bot PRs whose release no longer holds (bot.github.standing): the
        text is commented on such a PR when this publish updates it in place, or added to its closing comment
        when it is superseded.

        ``folders``: the ``--include`` paths, committed exactly as ``files`` holds them under each: a base
        file there that ``files`` lacks is deleted (:meth:`build_tree`).

        ``draft_reason`` says why ``draft`` is asked for (the PR body says it
        when the repository has no draft pull requests).  Decorations (labels,
        reviewers, assignees, milestone, draft) never raise: GitHub's refusals
        are in ``PublishResult.refusals`` (:mod:`bot.github.decorations`).

        Raises :class:`PlatformError` when GitHub or git fails for good (the
        branch this run created is deleted again), :class:`UsageError` for a
        checkout that cannot be published (detached HEAD, bad repository name).
        ``recreate`` (a writer's ``/executorch-pack-bot recreate``): the branch is
        replaced even when it holds commits by others (the push is still
        leased to the head inspected here).
        """
        branch = self.config.branch_for(version)
        base = self.base_branch()
        open_prs, foreign_prs = self._pulls("open", branch)
        if foreign_prs:
            other = foreign_prs[0]
            return PublishResult("foreign-pr", other.number, other.html_url,
                                 message=f"#{other.number} is open from branch {branch} but carries no "
                                         "executorch-pack-bot fingerprint (opened by someone else, or its body was "
                                         "edited); not pushing to its branch and not opening another pull request. "
                                         "Merge or close it to hand the branch back")
        pr = open_prs[0] if open_prs else None
        stamp = body_stamp(title, body)
        body = body.rstrip("\n") + "\n" + stamp_marker(stamp) + "\n"
        closed_prs = self.bot_pulls("closed", branch) if pr is None else []
        for old in closed_prs:
            # A PR closed by `/executorch-pack-bot ignore` does not count: the ignore list decides (bot.events.ignored).
            # Neither does one closed by deleting its branch, nor a merged one (bot.github.lifecycle), nor one the bot
            # closed because its release was withdrawn (bot.github.standing).
            if parse_fingerprint(old.body) == fingerprint and not closed_by_ignore(old.body) \
                    and not closed_by_withdrawal(old.body) and rejected(old):
                return PublishResult("closed-before", old.number, old.html_url,
                                     message=f"#{old.number} proposed the same pins and was closed unmerged; "
                                             "not proposing them again")

        self._fetch(base, "refs/executorch-pack-bot/base")
        base_sha = self.git("rev-parse", "refs/executorch-pack-bot/base")
        files = self.onto_base(base, base_sha, files, originals, replan)
        if not files:
            return PublishResult("base-has-bump", message=f"{base} already carries the bump (it moved while the "
                                                          "bot ran); nothing to propose")
        head_sha = self._remote_head(branch)
        if head_sha:
            self._fetch(branch, "refs/executorch-pack-bot/head")
            foreign = self.foreign_commits(base_sha, head_sha)
            if foreign and recreate:
                self.progress(f"recreate: replacing {len(foreign)} commit(s) by others on {branch}")
            elif foreign and pr is None and last_pull_merged(closed_prs):
                self.progress(f"{branch} has commits by others, but its last pull request was merged: reusing it")
            elif foreign:
                if pr is not None:
                    self._foreign_comment(pr, branch, foreign)
                return PublishResult("foreign-commits", pr.number if pr else None, pr.html_url if pr else None,
                                     message=f"branch {branch} has commits by others ({', '.join(foreign)}); "
                                             "not pushing" + ("" if pr else
                                                              "; no pull request is open from it: delete the "
                                                              "branch to let the bot propose again"))
        tree, changed = self.build_tree(base_sha, files, folders)
        pushed = False
        created_branch = False
        if not (head_sha and self._same(head_sha, base_sha, tree)):
            if self.config.commit == "api":
                commit = create_commit(self.gh_repo, self.git, base_sha=base_sha, tree_sha=tree, changed=changed,
                                       message=self.message(commit_message))
                move_branch(self.gh_repo, branch, commit, head_sha)
            else:
                commit = self.git("commit-tree", tree, "-p", base_sha,
                                  input=fit(self.message(commit_message), "commit-message").encode())
                self._push(branch, commit, head_sha)
            pushed = True
            created_branch = head_sha is None
            self.progress(f"pushed {branch}")

        try:
            keys = decorations.wanted(self.config)
            refused: dict[str, str] = {}
            if pr is not None:
                record = decorations.Record.parse(pr.body)
                # Edit only when the bot's own title/body changed: a reviewer's edits (a ticked checkbox, a note)
                # to an unchanged proposal are kept, and a rerun sends nothing.
                changed = parse_stamp(pr.body) != stamp
                # Ask for what the config added since; on a new proposal, also for what GitHub refused before.
                ask = [k for k in keys if k not in record.asked or (changed and k in record.refused)]
                refused = {k: record.refused[k] for k in keys if k in record.refused and k not in ask}
                if draft and DRAFT_KEY in record.refused and not pr.draft:
                    refused[DRAFT_KEY] = draft_reason or "the config asks for a draft"
                refused.update(decorations.apply(pr, self.gh_repo, ask, call, self.gh.requester))
                new_record = decorations.Record(record.asked & set(keys) | set(ask), refused)
                new_tail = decorations.tail(self._refusals(refused, pr.number), new_record)
                if changed:
                    # the reviewers' ignore list lives in the body (bot.events.state): carried over
                    full = recorded(carry_state(pr.body, body + new_tail), version)
                    call(lambda: pr.edit(title=fit(title, "title"), body=fit(full, "pull-body", whole_at=WHOLE_REPORT)),
                         f"update #{pr.number}")
                    action = "updated"
                else:
                    if new_record != record or proposed_version(self.config, _json(pr)) != version:
                        full = recorded(carry_state(pr.body, decorations.replace_tail(pr.body, _STAMP, new_tail)),
                                        version)
                        call(lambda: pr.edit(body=fit(full, "pull-body", whole_at=WHOLE_REPORT)),
                             f"update the notes of #{pr.number}")
                    action = "updated" if pushed else "unchanged"
            else:
                def first_tail() -> str:
                    return decorations.tail(self._refusals(refused, None), decorations.Record(set(keys), dict(refused)))
                try:
                    pr = self._create(base, branch, title, recorded(body + first_tail(), version), draft)
                except PlatformError as exc:
                    if not (draft and decorations.is_draft_refusal(exc)):
                        if created_branch:
                            self._delete_branch(branch)
                        raise
                    # No draft pull requests in this repository: a regular one whose body says why it would be a draft.
                    refused[DRAFT_KEY] = draft_reason or "the config asks for a draft"
                    try:
                        pr = self._create(base, branch, title, recorded(body + first_tail(), version), False)
                    except PlatformError:
                        if created_branch:
                            self._delete_branch(branch)
                        raise
                got = decorations.apply(pr, self.gh_repo, keys, call, self.gh.requester)
                if got:
                    refused.update(got)
                    full = recorded(body + decorations.tail(self._refusals(refused, pr.number),
                                                            decorations.Record(set(keys), dict(refused))), version)
                    try:
                        call(lambda: pr.edit(body=fit(full, "pull-body", whole_at=WHOLE_REPORT)),
                             f"note the refused decorations in #{pr.number}")
                    except PlatformError as exc:   # the warnings still go out; the next run asks again
                        self.progress(f"could not note the refused decorations in #{pr.number}: {exc.message}")
                action = "created"
        except TransientError as exc:
            if pushed and not created_branch:   # the branch moved: say so rather than "nothing was changed"
                exc.advice = (f"branch {branch} was pushed but its pull request was not brought up to date; "
                              "the run can be repeated")
            raise
        refusals = self._refusals(refused, pr.number)
        if pushed and action != "created":
            # An approval covers what the approver saw: a new push turns auto-merge off (bot.events.automerge).
            from bot.events.automerge import disable_after_push
            # The listing's JSON as GitHub sent it (``raw_data`` would fetch the PR again).
            if disable_after_push(self.gh, self.full_name, pr.number, getattr(pr, "_rawData", None) or {}):
                self.progress(f"auto-merge turned off on #{pr.number} (new push)")
        closed = []
        if notes and pr.number in notes:
            call(lambda: pr.create_issue_comment(fit(notes[pr.number], "comment")), f"comment on #{pr.number}")
        if "{version}" in self.config.branch:
            closed = self.close_obsolete(version, keep=pr.number, link=f"#{pr.number}", notes=notes)
        return PublishResult(action, pr.number, pr.html_url, pushed=pushed, closed=closed, refusals=refusals)

    def _create(self, base: str, branch: str, title: str, body: str, draft: bool):
        return call(lambda: self.gh_repo.create_pull(base=base, head=branch, title=fit(title, "title"),
                                                     body=fit(body, "pull-body", whole_at=WHOLE_REPORT), draft=draft),
                    f"create the pull request for {branch}")

    @staticmethod
    def _refusals(refused: dict[str, str], number: Optional[int]) -> list:
        """:class:`~bot.github.decorations.Refusal` items, the draft one first."""
        order = sorted(refused, key=lambda k: (k != DRAFT_KEY, k))
        return [decorations.Refusal(k, refused[k], number) for k in order]

    def _push(self, branch: str, commit: str, head_sha: Optional[str]) -> None:
        """``git push --force-with-lease`` of ``commit`` to ``branch``, leased on ``head_sha`` (None: must not exist).

        Raises :class:`~bot.github.pushrefusal.PushRefused` (exit 1) with every
        line git printed and the hint for a known kind when the remote refuses;
        :class:`PlatformError` with git's lines when the push fails otherwise.
        """
        lease = f"--force-with-lease=refs/heads/{branch}:{head_sha or ''}"
        p = self.git.run("push", "--quiet", lease, self.remote, f"{commit}:refs/heads/{branch}")
        if p.returncode == 0:
            return
        err = p.stderr.decode("utf-8", "replace")
        if is_refusal(err):
            raise PushRefused(branch, err)
        shown = "\n".join(f"  {ln}" for ln in inert_lines(mask(err), max_lines=20) if ln.strip())
        raise PlatformError(f"git push of {branch} failed:\n{shown}")

    def _delete_branch(self, branch: str) -> None:
        """Delete the branch this run created (best effort): through the API with ``commit: api``, else git."""
        if self.config.commit == "api":
            try:
                ref = self.gh_repo.get_git_ref(f"heads/{branch}")
                # complete it first: the lazy object's URL is the read-only /git/ref/ one, the answer's is /git/refs/
                call(lambda: ref.object and ref.delete(), f"delete the branch {branch}")
            except PlatformError as exc:
                self.progress(f"could not delete {branch}: {exc}")
            return
        self.git("push", "--quiet", self.remote, f":refs/heads/{branch}", check=False)

    def _same(self, head_sha: str, base_sha: str, tree: str) -> bool:
        """True when the remote branch is one commit on ``base_sha`` with exactly ``tree``."""
        info = self.git("log", "-1", "--format=%T %P", head_sha)
        parts = info.split()
        return len(parts) == 2 and parts[0] == tree and parts[1] == base_sha

    def _token_login(self) -> str:
        """The login of the account the token acts as (GraphQL ``viewer``: :func:`bot.events.context.viewer_login`),
        asked once per publisher; "" when GitHub names none."""
        if getattr(self, "_me", None) is None:
            from bot.events.context import Api, viewer_login
            self._me = viewer_login(Api(self.gh, self.full_name))
        return self._me

    def _foreign_comment(self, pr, branch: str, foreign: list[str]) -> None:
        """Create, or update in place, the one comment explaining how to hand the branch back."""
        text = (f"{FOREIGN_MARKER}\nThe branch {inert_code(branch)} has commits not made by executorch-pack-bot "
                f"({', '.join(inert_code(f) for f in foreign)}), so the bot will not push to it. To hand it back, "
                "delete the branch (or reset it to the bot's last commit); the next run recreates it and opens a "
                "new pull request. To keep your changes, merge or close this pull request yourself.")
        comments = pages.every(pr.get_issue_comments(), what=f"list comments of #{pr.number}", call=call)
        me = self._token_login()
        # the bot's own comment, known by its author (the token's account), never by the marker alone: anyone
        # can paste the marker into a comment
        mine = [c for c in comments if FOREIGN_MARKER in (c.body or "") and c.user is not None and me
                and c.user.login == me]
        if mine:
            if mine[0].body != text:
                call(lambda: mine[0].edit(fit(text, "comment")), f"update the comment on #{pr.number}")
        else:
            call(lambda: pr.create_issue_comment(fit(text, "comment")), f"comment on #{pr.number}")


def recorded(body: str, version: str) -> str:
    """``body`` with the version the PR proposes in its hidden state (:mod:`bot.events.state`): the bot's own
    record of what the PR proposes, read by :func:`bot.events.state.proposed_version` (comment commands, the
    fleet plan) instead of the title a person or a title convention may rewrite.  Other state keys are kept."""
    st = load_state(body) or {}
    st["version"] = version
    return replace_state(body, st)


def _json(pr) -> dict:
    """The listing's JSON of a PyGithub pull request as GitHub sent it (``raw_data`` would fetch it again)."""
    return getattr(pr, "_rawData", None) or {"head": {"ref": pr.head.ref}, "body": pr.body}


_STAMP = re.compile(r"<!--\s*executorch-pack-bot:body=([0-9a-f]{64})\s*-->")


def body_stamp(title: str, body: str) -> str:
    """sha256 hex of the title and body the bot generated (what a later run compares to decide on an edit)."""
    import hashlib

    return hashlib.sha256(f"{title}\n\n{body}".encode()).hexdigest()


def stamp_marker(stamp: str) -> str:
    """The hidden HTML comment carrying :func:`body_stamp` at the end of the PR body."""
    return f"<!-- executorch-pack-bot:body={stamp} -->"


def parse_stamp(body: Optional[str]) -> Optional[str]:
    """The last body stamp in a PR body, or None."""
    found = _STAMP.findall(body or "")
    return found[-1] if found else None


def require_git_checkout(repo: Path) -> None:
    """Raise :class:`UsageError` (exit 2) naming ``repo`` when it is not inside a git work tree
    (``git rev-parse --is-inside-work-tree``, git-rev-parse(1)): publishing commits and pushes from a checkout."""
    p = subprocess.run(["git", "rev-parse", "--is-inside-work-tree"], cwd=repo, capture_output=True, text=True)
    if p.returncode != 0 or p.stdout.strip() != "true":
        raise UsageError(f"{repo}: not a git repository: the bot commits and pushes from a git checkout of the "
                         "template (git clone it, then run there)")


def current_branch(repo: Path) -> Optional[str]:
    """The branch checked out in ``repo`` (``git symbolic-ref --short HEAD``), or None (detached, not a repository)."""
    p = subprocess.run(["git", "symbolic-ref", "--quiet", "--short", "HEAD"], cwd=repo, capture_output=True,
                       text=True)
    return p.stdout.strip() or None if p.returncode == 0 else None


def remote_repo(repo: Path, remote: str = "origin", env=os.environ) -> Optional[str]:
    """``OWNER/NAME`` named by the URL of git remote ``remote`` when it points at the GitHub server, else None.

    The server is ``GITHUB_SERVER_URL``'s host (default github.com), matched
    exactly (``notgithub.com`` is not GitHub).  Understands
    ``https://[user@]HOST/OWNER/NAME[.git][/]``, ``ssh://git@HOST[:PORT]/OWNER/NAME[.git]``
    and the scp-like ``git@HOST:OWNER/NAME[.git]``.
    """
    from urllib.parse import urlsplit

    p = subprocess.run(["git", "remote", "get-url", remote], cwd=repo, capture_output=True, text=True)
    url = p.stdout.strip()
    if p.returncode or not url:
        return None
    host = (urlsplit(env.get("GITHUB_SERVER_URL") or "https://github.com").hostname or "github.com").lower()
    m = re.fullmatch(r"[^@/:]+@([^/:]+):/?([^/]+/[^/]+?)(?:\.git)?/?", url)      # scp-like
    if m and "://" not in url:
        got_host, path = m.group(1), m.group(2)
    else:
        try:
            parts = urlsplit(url)
            got_host = parts.hostname or ""
        except ValueError:
            return None
        m = re.fullmatch(r"/([^/]+/[^/]+?)(?:\.git)?/?", parts.path)
        if parts.scheme not in ("https", "http", "ssh", "git") or not m:
            return None
        path = m.group(1)
    return path if got_host.lower() == host else None


def repo_full_name(repo: Path, arg: Optional[str] = None, env=os.environ, remote: str = "origin") -> str:
    """The template's ``OWNER/NAME``: ``--github-repo``, else ``GITHUB_REPOSITORY``, else the remote's URL.

    Raises :class:`UsageError` when none gives one, or when the remote the
    bot pushes to is a GitHub repository other than the one named (the
    branch would be pushed to one repository and the PR opened in another).
    """
    named = arg or env.get("GITHUB_REPOSITORY") or None
    pushed = remote_repo(repo, remote, env)
    if named and pushed and named.lower() != pushed.lower():
        src = "--github-repo" if arg else "GITHUB_REPOSITORY"
        raise UsageError(f"{src} names {named} but git remote {remote!r} of the checkout is {pushed}; "
                         "the branch and the pull request must be in the same repository")
    if named or pushed:
        return named or pushed
    raise UsageError("cannot tell the template's GitHub repository; pass --github-repo OWNER/NAME "
                     "or set GITHUB_REPOSITORY")
