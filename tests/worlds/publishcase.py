"""One :class:`bot.github.publish.Publisher` on the fake GitHub and a local bare template remote, and the whole
outcome of a call: the result, every write request sent to GitHub, the pull requests GitHub then holds, the
branch on the remote and the progress lines.

Tests compare the whole :class:`Outcome` (or whole parts of it) with the value they expect, so any change in
what the publisher decides shows up: a request more or less, a title, a body, a draft flag, a message.
Expected bodies are built here independently of the module under test (the stamp is sha256 of
``TITLE\\n\\nBODY``, GitHub's and the bot's markers are written out).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from fakegithub import TEMPLATE, fresh_checkout, git, make_template_remote

TOKEN = "ghs_PUBLISHCASESECRET77"
BRANCH = "executorch-pack-bot/executorch"
TITLE = "Bump ExecuTorch to 1.5.1"
FP = "f" * 64            # the fingerprint of the proposal the tests publish
OTHER_FP = "e" * 64      # another pin set's
PR_API = f"/repos/{TEMPLATE}"
BOT_EMAIL = "41898282+github-actions[bot]@users.noreply.github.com"   # the default author's


def fp_marker(fp: str = FP) -> str:
    """The hidden fingerprint marker of a bot PR body (bot.report)."""
    return f"<!-- executorch-pack-bot:fingerprint={fp} -->"


def proposal(text: str = "Pins move to 1.5.1.", fp: str = FP) -> str:
    """A generated PR body as ``publish`` receives it: text, then the fingerprint marker."""
    return f"{text}\n{fp_marker(fp)}\n"


def stamp(title: str, body: str) -> str:
    """The body stamp marker for ``title`` and ``body``: sha256 of ``TITLE\\n\\nBODY`` (docs/publishing.md)."""
    digest = hashlib.sha256((title + "\n\n" + body).encode()).hexdigest()
    return f"<!-- executorch-pack-bot:body={digest} -->"


def record(asked=(), refused=None) -> str:
    """The decorations record marker (bot.github.decorations.Record) for ``asked`` and ``{key: reason}``."""
    from bot.github.decorations import Record
    return Record(set(asked), dict(refused or {})).marker()


def state(version: str, **more) -> str:
    """The hidden state line the publisher writes last: the version the PR proposes (bot.events.state)."""
    import json
    return "<!-- executorch-pack-bot:state " + json.dumps({"version": version, **more}, sort_keys=True,
                                                           separators=(",", ":")) + " -->\n"


def published_body(body: str, title: str = TITLE, tail: Optional[str] = None, version: Optional[str] = None) -> str:
    """The body the bot sends for a generated ``body``: the body, its stamp, the notes and the record, then the
    hidden state recording the version the PR proposes (default: the version :meth:`PublishCase.publish` gives)."""
    version = version or "1.5.1"
    return (body.rstrip("\n") + "\n" + stamp(title, body) + "\n" + (record() + "\n" if tail is None else tail)
            + state(version))


@dataclass
class Outcome:
    """Everything one publish call did, for whole comparison."""

    result: object               # PublishResult, or the exception raised
    writes: list                 # (method, path, JSON body) of each non-GET request, in order
    progress: list               # the progress lines


class PublishCase:
    """The fake GitHub with the template repository, its bare remote (on ``main``), a checkout and a publisher.

    ``config`` keywords go to :class:`bot.config.Config`.
    """

    def __init__(self, fake, tmp: Path, **config):
        from bot.config import Config
        self.fake = fake
        self.tmp = Path(tmp)
        fake.repo(TEMPLATE)
        self.remote = make_template_remote(self.tmp)
        self.co = fresh_checkout(self.remote, self.tmp / "checkout")
        self.config = Config(**config)
        self.progress: list[str] = []
        self.pub = self.publisher()

    def publisher(self, full_name: str = TEMPLATE, **kw):
        from bot.github.client import make_github
        from bot.github.publish import Publisher
        return Publisher(make_github(TOKEN), full_name, self.co, self.config, token=TOKEN,
                         progress=self.progress.append, **kw)

    @property
    def repo(self):
        return self.fake.repo(TEMPLATE)

    def mark(self) -> int:
        """Where the next call's requests start (for :meth:`writes_since`)."""
        self.progress.clear()
        return len(self.fake.requests)

    def writes_since(self, mark: int) -> list:
        # a GraphQL query (the token's own login) is a read, though sent as a POST
        return [(s.method, s.path, s.body) for s in self.fake.requests[mark:] if s.method != "GET" and not (
            s.path == "/graphql" and str((s.body or {}).get("query", "")).lstrip().startswith("query"))]

    def publish(self, *, version: str = "1.5.1", files: Optional[dict] = None, title: str = TITLE,
                body: Optional[str] = None, fingerprint: str = FP, draft: bool = False,
                commit_message: str = TITLE + "\n", **kw) -> Outcome:
        """``Publisher.publish`` with README.md changed (by default); an exception raised is the result."""
        mark = self.mark()
        try:
            res = self.pub.publish(version=version, files=files if files is not None else {"README.md": b"bumped\n"},
                                   title=title, body=proposal() if body is None else body, fingerprint=fingerprint,
                                   draft=draft, commit_message=commit_message, **kw)
        except Exception as exc:   # noqa: BLE001 - the test compares it
            res = exc
        return Outcome(res, self.writes_since(mark), list(self.progress))

    # ------------------------------------------------------------ the remote
    def head(self, branch: str = BRANCH) -> Optional[str]:
        """The commit of ``branch`` on the remote, or None."""
        return git(self.tmp, "--git-dir", str(self.remote), "for-each-ref", "--format=%(objectname)",
                   f"refs/heads/{branch}") or None

    def main(self) -> str:
        return self.head("main")

    def show(self, rev: str, fmt: str) -> str:
        return git(self.tmp, "--git-dir", str(self.remote), "log", "-1", f"--format={fmt}", rev)

    def tree_file(self, rev: str, path: str) -> str:
        return git(self.tmp, "--git-dir", str(self.remote), "show", f"{rev}:{path}")

    def commit_by(self, branch: str, name: str, email: str, path: str = "NOTE.md", committer_email: str = "") -> str:
        """A commit by someone else on top of ``branch`` of the remote (created from main when absent)."""
        import os
        import subprocess
        work = self.tmp / f"other-{len(list(self.tmp.glob('other-*')))}"
        fresh_checkout(self.remote, work)
        start = f"origin/{branch}" if self.head(branch) else "origin/main"
        git(work, "checkout", "-q", "-b", "work", start)
        (work / path).write_text(f"{name}\n")
        git(work, "add", path)
        env = {**os.environ, "GIT_AUTHOR_NAME": name, "GIT_AUTHOR_EMAIL": email, "GIT_COMMITTER_NAME": name,
               "GIT_COMMITTER_EMAIL": committer_email or email}
        subprocess.run(["git", "commit", "-q", "-m", f"by {name}"], cwd=work, env=env, check=True,
                       capture_output=True)
        git(work, "push", "-q", "origin", f"HEAD:refs/heads/{branch}")
        return git(work, "rev-parse", "HEAD")

    def pull(self, number: int) -> dict:
        """The PR as the fake holds it, reduced to what the publisher decides."""
        p = self.repo.pulls[number]
        return {"number": p["number"], "state": p["state"], "title": p["title"], "body": p["body"],
                "head": p["head"]["ref"], "base": p["base"]["ref"], "draft": p["draft"],
                "labels": [x["name"] for x in p["labels"]]}

    def comments(self, number: int) -> list[str]:
        return [c["body"] for c in self.repo.comments.get(number, [])]
