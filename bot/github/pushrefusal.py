"""A refused ``git push``: git's own reason, every ``remote:`` line, and the bot's hint for the known kinds.

When a server refuses a push, git prints the server's explanation on
``remote:`` lines (a pre-receive hook's output, GitHub's rule texts) and its
own verdict on `` ! [remote rejected] REF (REASON)`` and ``error: failed to
push some refs`` lines.  The last line alone says nothing; the reason is in
the others, so :func:`explain` keeps every line (masked, neutralised through
:func:`bot.inert.lines`) and adds one hint when the kind is known:

- ``verified-signatures``: a branch rule or ruleset requires verified
  signatures.  GitHub's texts: ``GH013: Repository rule violations found``
  with ``Commits must have verified signatures`` (rulesets) or ``GH006:
  Protected branch update failed`` with the same sentence (classic branch
  protection), GitHub docs "About protected branches" / "Available rules for
  rulesets".  Hint: ``commit: api`` (GitHub creates, and signs, the commit).
- ``workflow-permission``: the token may not create or update files under
  ``.github/workflows/``.  GitHub's text: ``refusing to allow a GitHub App
  to create or update workflow `.github/workflows/X` without `workflows`
  permission`` (``an OAuth App`` / ``a Personal Access Token`` ... ``without
  `workflow` scope`` for the other token kinds).  Hint: the Workflows
  permission, or ``--exclude .github/workflows``.
- ``branch-rule``: a ruleset on branch names refuses the bot's branch
  (``Cannot create ref due to creations being restricted``, ``Cannot update
  this protected ref``, a ref-name pattern rule).  Hint: the ``branch:`` setting.
- ``branch-moved``: the lease the bot pushes with (``--force-with-lease``
  pinned to the head it inspected) failed: someone pushed meanwhile.  Hint: run again.

A :class:`PushRefused` exits 1 (the push was tried and the server said no:
a check failed), never 2 (nothing about the input was wrong).
"""

from __future__ import annotations

import re
from typing import Optional

from bot.errors import EXIT_CHECK_FAILED, PlatformError
from bot.inert import lines as inert_lines

CONFIG_FILE = ".github/executorch-pack-bot.yml"

#: (kind, pattern over the whole of git's stderr) in the order they are tried.
KINDS: tuple[tuple[str, re.Pattern], ...] = (
    ("workflow-permission", re.compile(
        r"refusing to allow an? .{1,40}? to create or update workflow|"
        r"without [`']?workflows?[`']? (?:permission|scope)", re.I)),
    ("verified-signatures", re.compile(
        r"verified signatures?|must be signed|commit signature", re.I)),
    ("branch-rule", re.compile(
        r"creations being restricted|Cannot update this protected ref|updates being restricted|"
        r"ref name must match|branch name must match|reference name must match", re.I)),
    ("branch-moved", re.compile(r"\(stale info\)|\(fetch first\)|\(non-fast-forward\)")),
)


def kind_of(stderr: str) -> Optional[str]:
    """The known kind of a refusal (``"verified-signatures"``, ``"workflow-permission"``, ``"branch-rule"``) or None."""
    for kind, pattern in KINDS:
        if pattern.search(stderr):
            return kind
    return None


def hint(kind: Optional[str], branch: str, via: str = "git") -> Optional[str]:
    """What to change for a refusal of ``kind`` when pushing ``branch`` with ``via`` (``git`` or ``api``); None
    for an unknown kind."""
    if kind == "verified-signatures" and via == "api":
        return ("GitHub did not sign the commit it made: it signs API commits for a GitHub App installation token "
                "or the Actions GITHUB_TOKEN (GitHub docs, \"Signature verification for bots\"); use one of those "
                "as the bot's token")
    if kind == "verified-signatures":
        return ("the branch rules require verified signatures: set `commit: api` in " + CONFIG_FILE +
                " (or pass --commit api) so GitHub creates the commit through its API and signs it")
    if kind == "workflow-permission":
        return ("the bump changes a file under .github/workflows/ and the token has no Workflows permission: "
                "give the token that permission (a GitHub App or fine-grained token with Workflows: write, a "
                "classic token with the workflow scope; GITHUB_TOKEN can never have it), or leave those files "
                "out with `--exclude .github/workflows` (or `exclude: [.github/workflows]` in " + CONFIG_FILE + ")")
    if kind == "branch-rule":
        return (f"a ruleset on branch names does not let the bot push {branch}: set `branch:` in " + CONFIG_FILE +
                " to a name the rules allow, or let the bot's token create and update that branch")
    if kind == "branch-moved":
        return f"{branch} changed on the remote while the bot ran (someone pushed to it); run the bot again"
    return None


class PushRefused(PlatformError):
    """The remote refused ``git push`` (exit 1), or GitHub's API refused the branch update (``via="api"``).

    Attributes:
        branch: the branch the bot tried to push.
        kind: :func:`kind_of` the refusal, or None.
        lines: git's stderr, one neutralised, masked line each (``remote:`` lines included).
        hint: :func:`hint` for the kind, or None.
    """

    exit_code = EXIT_CHECK_FAILED

    def __init__(self, branch: str, stderr: str, *, via: str = "git"):
        from bot.github.client import mask

        self.branch = branch
        self.via = via
        self.kind = kind_of(stderr)
        # rstrip: git pads each sideband (remote:) line with spaces when stderr is not a terminal
        self.lines = [ln.rstrip() for ln in inert_lines(mask(stderr), max_lines=60) if ln.strip()]
        self.hint = hint(self.kind, branch, via)
        head = (f"git push of {branch} was refused; git said:" if via == "git" else
                f"GitHub's API refused to move {branch} (commit: api); GitHub said:")
        text = head + "\n" + "\n".join(f"  {ln}" for ln in self.lines)
        if self.hint:
            text += f"\nhint: {self.hint}"
        text += "\nNothing was pushed and the checkout is as it was."
        super().__init__(text)


def is_refusal(stderr: str) -> bool:
    """True when git's stderr shows the server refused the push (a ``remote:`` line or a rejected ref).

    A push that never reached the server (no such remote, a network error)
    has neither and is not a refusal.
    """
    return bool(re.search(r"^remote:|^\s*! \[(?:remote )?rejected\]", stderr, re.M))
