"""A publishing world for tests: the fake GitHub, a local bare template remote, push rules as ``pre-receive`` hooks.

The hooks model GitHub's push rules with GitHub's own texts (a hook's output
reaches the pusher on ``remote:`` lines, as GitHub's rule messages do):

- :func:`require_signed_commits`: every new commit must carry a signature
  (a ``gpgsig`` header: what GitHub writes into the commits it creates
  through the API) or the push is refused with ``GH013`` and
  ``Commits must have verified signatures``.
- :func:`refuse_workflow_changes`: a new commit that changes a file under
  ``.github/workflows/`` is refused as GitHub refuses a token without the
  Workflows permission.
- :func:`restrict_branch_creation`: creating a branch whose name matches a
  shell glob is refused with GitHub's ruleset text.
"""

from __future__ import annotations

import itertools
import stat
from pathlib import Path

from fakegithub import (TEMPLATE, UPSTREAM, FakeGitHub, add_sample_release, fresh_checkout, git,
                        make_template_remote, pypi_json)

TOKEN = "ghs_TESTSECRET0123456789"
BRANCH = "executorch-pack-bot/executorch"

_NEW_COMMITS = r'''
zero=0000000000000000000000000000000000000000
while read old new ref; do
  [ "$new" = "$zero" ] && continue
  if [ "$old" = "$zero" ]; then range="$new --not --all"; else range="$old..$new"; fi
  for c in $(git rev-list $range); do
    CHECK
  done
done
exit 0
'''


def _hook(bare: Path, name: str, body: str) -> None:
    """Add a rule to the bare repository's ``pre-receive`` hook (every rule sees the pushed refs, in order)."""
    rules = Path(bare) / "hooks" / "rules.d"
    rules.mkdir(parents=True, exist_ok=True)
    n = len(list(rules.iterdir()))
    (rules / f"{n:02d}-{name.replace(' ', '-')}").write_text(body)
    hook = Path(bare) / "hooks" / "pre-receive"
    hook.write_text('#!/bin/sh\ninput=$(cat)\nfor r in hooks/rules.d/*; do\n'
                    '  printf "%s\\n" "$input" | sh "$r" || exit 1\ndone\nexit 0\n')
    hook.chmod(hook.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)


def require_signed_commits(bare: Path, repo: str = TEMPLATE) -> None:
    """Refuse any new commit without a signature, with GitHub's GH013 text for a ruleset."""
    check = (
        'if ! git cat-file commit "$c" | grep -q "^gpgsig "; then\n'
        f'  echo "error: GH013: Repository rule violations found for $ref."\n'
        f'  echo "Review all repository rules at https://github.com/{repo}/rules?ref=$ref"\n'
        '  echo ""\n'
        '  echo "- Commits must have verified signatures."\n'
        '  echo "  Found 1 violation:"\n'
        '  echo ""\n'
        '  echo "  $c"\n'
        '  exit 1\n'
        'fi')
    _hook(bare, "signed commits", _NEW_COMMITS.replace("CHECK", check))


def refuse_workflow_changes(bare: Path) -> None:
    """Refuse a new commit that changes ``.github/workflows/*`` (a token without the Workflows permission)."""
    check = (
        'f=$(git diff-tree --no-commit-id -r --name-only --root "$c" -- .github/workflows | head -n 1)\n'
        'if [ -n "$f" ]; then\n'
        '  echo "refusing to allow a GitHub App to create or update workflow \\`$f\\` without \\`workflows\\` '
        'permission"\n'
        '  exit 1\n'
        'fi')
    _hook(bare, "workflow files", _NEW_COMMITS.replace("CHECK", check))


def restrict_branch_creation(bare: Path, glob: str, repo: str = TEMPLATE) -> None:
    """Refuse creating a branch matching ``glob`` (``refs/heads/`` prefix implied), with GitHub's ruleset text."""
    body = (
        'zero=0000000000000000000000000000000000000000\n'
        'while read old new ref; do\n'
        f'  case "$ref" in refs/heads/{glob})\n'
        '    if [ "$old" = "$zero" ]; then\n'
        '      echo "error: GH013: Repository rule violations found for $ref."\n'
        f'      echo "Review all repository rules at https://github.com/{repo}/rules?ref=$ref"\n'
        '      echo ""\n'
        '      echo "- Cannot create ref due to creations being restricted."\n'
        '      echo ""\n'
        '      exit 1\n'
        '    fi;;\n'
        '  esac\n'
        'done\nexit 0\n')
    _hook(bare, "branch names", body)


def echo_in_hook(bare: Path, text: str) -> None:
    """Refuse every push, printing ``text`` first (a server that echoes what it was sent)."""
    _hook(bare, "echo", f"cat >/dev/null\necho '{text}'\nexit 1\n")


class World:
    """The fake GitHub (``fake``), the bare remote (``remote``), a scratch folder (``tmp``), ``run(*args)``."""

    def __init__(self, tmp_path: Path, monkeypatch):
        self.fake = FakeGitHub()
        url = self.fake.start()
        add_sample_release(self.fake, "v1.4.0", created_at="2026-06-01T00:00:00Z")
        add_sample_release(self.fake, "v1.5.1", created_at="2026-09-01T00:00:00Z")
        self.fake.repo(TEMPLATE)
        for v in ("1.5.1", "1.5.2", "1.6.0"):
            self.fake.pypi[("executorch", v)] = pypi_json("executorch", v,
                                                          requires_dist=["torch>=2.14.0a0", "numpy"])
        self.remote = make_template_remote(tmp_path)
        self.fake.link_git(TEMPLATE, self.remote)
        self.tmp = tmp_path
        for k, v in {"GITHUB_API_URL": url, "EXECUTORCH_PACK_BOT_INDEX_URL": url,
                     "EXECUTORCH_PACK_BOT_MAX_WAIT": "0", "EXECUTORCH_PACK_BOT_WRITE_PAUSE": "0",
                     "GITHUB_REPOSITORY": TEMPLATE, "GITHUB_TOKEN": TOKEN}.items():
            monkeypatch.setenv(k, v)
        for k in ("GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY", "GITHUB_ACTIONS", "EXECUTORCH_PACK_BOT_CACHE"):
            monkeypatch.delenv(k, raising=False)
        self._n = itertools.count()

    def checkout(self, name: str = "") -> Path:
        """A fresh clone of the remote (what actions/checkout gives a run)."""
        return fresh_checkout(self.remote, self.tmp / (name or f"co{next(self._n)}"))

    def run(self, *extra: str, checkout: Path | None = None) -> tuple[int, Path]:
        """``executorch-pack-bot run`` on a fresh clone; returns (exit code, the clone)."""
        from bot.cli import main

        co = checkout or self.checkout()
        return main(["run", "--repo", str(co), "--upstream", f"github:{UPSTREAM}", *extra]), co

    def head(self, branch: str = BRANCH) -> str | None:
        """The remote's ``branch`` head SHA, or None."""
        out = self.git("for-each-ref", "--format=%(objectname)", f"refs/heads/{branch}")
        return out or None

    def git(self, *args: str) -> str:
        """git in the bare remote."""
        return git(self.tmp, "--git-dir", str(self.remote), *args)

    def blob(self, rev: str, path: str) -> bytes:
        """The bytes git stores for ``rev:path`` (no filters: what the repository holds)."""
        import subprocess
        return subprocess.run(["git", "--git-dir", str(self.remote), "cat-file", "blob", f"{rev}:{path}"],
                              capture_output=True, check=True).stdout

    def commit_to_main(self, files: dict[str, bytes], message: str = "maintainer change",
                       author: str = "Maintainer <maint@example.invalid>", *, past_rules: bool = False) -> str:
        """Push one commit writing ``files`` to ``main`` as a person; returns its SHA.

        ``past_rules``: write it into the bare repository directly (an admin bypassing the push rules).
        """
        co = self.checkout()
        for rel, data in files.items():
            p = co / rel
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_bytes(data)
            git(co, "add", rel)
        git(co, "commit", "-q", f"--author={author}", "-m", message)
        if past_rules:
            self.git("fetch", "-q", str(co), "HEAD:refs/heads/main")
        else:
            git(co, "push", "-q", "origin", "main")
        return git(co, "rev-parse", "HEAD")

    def release(self, tag: str = "v1.5.2") -> None:
        """Publish a newer upstream release (the files of v1.5.1, the version ``tag``)."""
        add_sample_release(self.fake, tag, source_tag="v1.5.1", created_at="2026-10-01T00:00:00Z")

