"""``commit: api``: have GitHub create the bot's commit through the Git Data API, so that GitHub signs it.

GitHub REST docs, "Git database": create a blob per changed file
(``POST /git/blobs``), one tree on the base commit's tree
(``POST /git/trees`` with ``base_tree``), one commit on the base commit
(``POST /git/commits``), then create the branch (``POST /git/refs``) or
move it (``PATCH /git/refs/heads/BRANCH`` with ``force``).  A commit made
this way with a GitHub App installation token or the Actions
``GITHUB_TOKEN``, and without an explicit author or committer, is signed by
GitHub and shows as Verified (GitHub docs, "About commit signature
verification", section "Signature verification for bots": only with no
custom author, committer or signature information; giving ``author`` alone
makes GitHub copy it into ``committer`` and the commit stays unsigned, as
measured in fern-api/fern#16482), so
it passes a "require signed commits" rule that refuses every ``git push``
of an unsigned commit.  The author is then the token's identity (the App,
or ``github-actions[bot]``); the ``author:`` setting still names who signs
off (``signoff: true``).

The blobs sent are the ones :meth:`bot.github.publish.Publisher.build_tree`
made locally the way ``git add`` would (line-ending rules applied), and the
tree GitHub answers must be the tree built locally: both ``commit:`` modes
produce the same tree, and a mismatch is an error rather than a surprise in
the pull request.  Each tree entry carries the mode ``build_tree`` chose
from the checkout (``100644`` or ``100755``, GitHub REST docs "Create a
tree"), so an executable file stays executable through the API too.
"""

from __future__ import annotations

import base64
from typing import Optional

from bot.errors import PlatformError
from bot.github.client import call
from bot.github.pushrefusal import PushRefused, kind_of
from bot.limits import fit


def create_commit(gh_repo, git, *, base_sha: str, tree_sha: str, changed: dict[str, tuple[str, Optional[str]]],
                  message: str) -> str:
    """Create the commit through the API; return its SHA.

    Args:
        gh_repo: a PyGithub ``Repository``.
        git: the :class:`~bot.github.publish.Git` of the checkout (reads the local blobs).
        base_sha: the base commit (on GitHub already: it was fetched from there).
        tree_sha: the tree built locally, which GitHub's tree must equal.
        changed: ``{path: (mode, blob sha)}`` of every file that differs from the base; a blob sha of
            None removes the path (``publish --include`` of a folder the regeneration left without it).
        message: the commit message.

    Raises :class:`PlatformError` when GitHub fails, or answers another
    blob or tree than the local one.
    """
    from github import InputGitTreeElement

    elements = []
    for path in sorted(changed):
        mode, sha = changed[path]
        if sha is None:   # removed: GitHub REST "Create a tree", an entry with sha null deletes the path
            elements.append(InputGitTreeElement(path, mode, "blob", sha=None))
            continue
        data = git.run("cat-file", "blob", sha).stdout
        blob = call(lambda: gh_repo.create_git_blob(base64.b64encode(data).decode(), "base64"),
                    f"create the blob of {path}")
        if blob.sha != sha:
            raise PlatformError(f"GitHub stored {path} as blob {blob.sha[:12]}, not {sha[:12]} as git would")
        elements.append(InputGitTreeElement(path, mode, "blob", sha=sha))
    base = call(lambda: gh_repo.get_git_commit(base_sha), f"read the base commit {base_sha[:12]}")
    base_tree = call(lambda: gh_repo.get_git_tree(base.tree.sha), "read the base tree")
    tree = call(lambda: gh_repo.create_git_tree(elements, base_tree), "create the tree")
    if tree.sha != tree_sha:
        raise PlatformError(f"GitHub made tree {tree.sha[:12]} where git makes {tree_sha[:12]}; nothing was pushed")
    commit = call(lambda: gh_repo.create_git_commit(fit(message, "commit-message"), tree, [base]), "create the commit")
    return commit.sha


def move_branch(gh_repo, branch: str, sha: str, head_sha: Optional[str]) -> None:
    """Point ``refs/heads/BRANCH`` at ``sha``: create it when ``head_sha`` is None, else move it from ``head_sha``.

    The API has no lease: the branch is read first and must still be at
    ``head_sha`` (else :class:`PushRefused` of kind ``branch-moved``).  A
    ruleset's refusal (422 "Repository rule violations found") or another
    refusal of a known kind (a workflow file without the Workflows
    permission) is a :class:`PushRefused` carrying GitHub's text.
    """
    try:
        if head_sha is None:
            call(lambda: gh_repo.create_git_ref(f"refs/heads/{branch}", sha), f"create the branch {branch}")
            return
        ref = gh_repo.get_git_ref(f"heads/{branch}")     # lazy: the request is made by .object below
        now = call(lambda: ref.object.sha, f"read the branch {branch}")
        if now != head_sha:
            raise PushRefused(branch, f"{branch} is at {now}, not at {head_sha} (non-fast-forward)\n", via="api")
        call(lambda: ref.edit(sha=sha, force=True), f"move the branch {branch}")
    except PlatformError as exc:
        if isinstance(exc, PushRefused) or ("rule violation" not in exc.message.lower()
                                            and kind_of(exc.message) is None):
            raise
        raise PushRefused(branch, exc.message, via="api") from None
