"""The fake GitHub's Git Data API and issue events, backed by a real bare git repository.

GitHub REST docs, "Git database" (blobs, trees, commits, references) and
"Issue events".  What the fake records is what a real server would:

- ``POST /git/blobs`` stores the bytes as given (base64 or UTF-8): the API
  applies no ``.gitattributes`` conversion.
- ``POST /git/commits`` without ``author`` and ``committer`` makes the commit
  as the token's identity, committed by ``GitHub <noreply@github.com>`` and
  signed (a ``gpgsig`` header in the commit object; ``verification.verified``
  true), as GitHub does for an App or Actions token.  With an ``author`` or
  ``committer`` given the commit is unsigned.
- Reference updates run the repository's rules (``FakeRepo.rules``): with
  ``"signed-commits"`` a commit without a signature is refused with GitHub's
  422 "Repository rule violations found"; with ``"no-workflows-permission"``
  (the token lacks the Workflows permission) a commit changing
  ``.github/workflows/`` is refused with GitHub's "refusing to allow a GitHub
  App to create or update workflow" text.
- Issue events: ``closed`` and ``head_ref_deleted`` (deleting a pull
  request's head branch closes the pull request: GitHub docs, "Deleting and
  restoring branches in a pull request").
"""

from __future__ import annotations

import base64
import subprocess
import time
from pathlib import Path
from typing import Optional

BOT_EMAIL = "41898282+github-actions[bot]@users.noreply.github.com"
SIGNATURE = ("-----BEGIN PGP SIGNATURE-----\n\nwsBcBAABCAAQBQJmZmFrZQkQ4AAAAAAAAAAAAAAAAAAAAAAAAAAA\n"
             "-----END PGP SIGNATURE-----")


def _git(git_dir: Path, *args: str, input: Optional[bytes] = None) -> bytes:
    p = subprocess.run(["git", "--git-dir", str(git_dir), *args], input=input, capture_output=True)
    if p.returncode:
        raise LookupError(p.stderr.decode(errors="replace"))
    return p.stdout


def signed(git_dir: Path, sha: str) -> bool:
    """True when commit ``sha`` carries a signature header."""
    return any(line.startswith(b"gpgsig ") for line in _git(git_dir, "cat-file", "commit", sha).split(b"\n\n")[0]
               .splitlines())


def new_commits(git_dir: Path, sha: str) -> list[str]:
    """Commits reachable from ``sha`` and from no branch of the repository (what a ref update would add)."""
    return _git(git_dir, "rev-list", sha, "--not", "--branches").decode().split()


def rule_violation(fake_repo, sha: str) -> Optional[str]:
    """GitHub's text for the first rule the commits new with ``sha`` break, or None."""
    if "signed-commits" in fake_repo.rules:
        for c in new_commits(fake_repo.git_dir, sha):
            if not signed(fake_repo.git_dir, c):
                return "Repository rule violations found\n\nCommits must have verified signatures.\n\n"
    if "no-workflows-permission" in fake_repo.rules:
        for c in new_commits(fake_repo.git_dir, sha):
            changed = _git(fake_repo.git_dir, "diff-tree", "--no-commit-id", "-r", "--name-only", "--root", c,
                           "--", ".github/workflows").decode().split()
            if changed:
                return (f"refusing to allow a GitHub App to create or update workflow `{changed[0]}` without "
                        "`workflows` permission")
    return None


DOCS_REFS = "https://docs.github.com/rest/git/refs"


def _person(p: dict, default_name: str, default_email: str) -> tuple[str, str]:
    return (p or {}).get("name") or default_name, (p or {}).get("email") or default_email


def commit_json(fake, r, sha: str) -> dict:
    """A commit as ``GET /git/commits/{sha}`` answers it."""
    raw = _git(r.git_dir, "cat-file", "commit", sha).decode("utf-8", "replace")
    head, _, message = raw.partition("\n\n")
    fields: dict[str, list[str]] = {}
    for line in head.splitlines():
        if line.startswith(" "):
            continue
        k, _, v = line.partition(" ")
        fields.setdefault(k, []).append(v)

    def who(v: str) -> dict:
        name, _, rest = v.partition(" <")
        email, _, when = rest.partition("> ")
        stamp = int(when.split()[0]) if when else 0
        return {"name": name, "email": email, "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(stamp))}

    api = f"{fake.url}/repos/{r.full_name}/git"
    ok = "gpgsig" in fields
    html = f"https://github.com/{r.full_name}/commit"
    return {"sha": sha, "node_id": f"C_{sha[:12]}", "url": f"{api}/commits/{sha}", "html_url": f"{html}/{sha}",
            "message": message, "tree": {"sha": fields["tree"][0], "url": f"{api}/trees/{fields['tree'][0]}"},
            "parents": [{"sha": p, "url": f"{api}/commits/{p}", "html_url": f"{html}/{p}"}
                        for p in fields.get("parent", [])],
            "author": who(fields["author"][0]), "committer": who(fields["committer"][0]),
            "verification": {"verified": ok, "reason": "valid" if ok else "unsigned",
                             "signature": SIGNATURE if ok else None, "payload": None,
                             "verified_at": "2026-01-01T00:00:00Z" if ok else None}}


def ref_json(fake, r, ref: str, sha: str) -> dict:
    api = f"{fake.url}/repos/{r.full_name}/git"
    return {"ref": ref, "node_id": "REF_" + sha[:8], "url": f"{api}/{ref}",
            "object": {"sha": sha, "type": "commit", "url": f"{api}/commits/{sha}"}}


def route(fake, r, req, m: str, rest: str, body):  # noqa: C901 - a router
    """Serve ``/git/...`` (from the bare repository, when ``r`` has one) and ``/issues/N/events`` for repository
    ``r``; None when this module does not serve the request (the fake's own routes then answer it)."""
    import re

    if rest.startswith("/issues/") and rest.endswith("/events") and m == "GET":
        n = int(rest.split("/")[2])
        api_issue = f"{fake.url}/repos/{r.full_name}/issues"
        events = [{"node_id": f"E_{e.get('id', 0)}", "url": f"{api_issue}/events/{e.get('id', 0)}",
                   "commit_url": None, "commit_id": None, "performed_via_github_app": None, **e,
                   "actor": fake._user((e.get("actor") or {}).get("login", "ghost"))}   # GitHub's issue-event shape
                  for e in r.events.get(n, [])]
        return fake._paginate(req, events, etag=True)
    if not rest.startswith("/git/"):
        return None
    if r.git_dir is None:
        return None          # no bare repository behind this one: the fake's own routes answer
    api = f"{fake.url}/repos/{r.full_name}/git"
    try:
        if m == "POST" and rest == "/git/blobs":
            enc = body.get("encoding", "utf-8")
            data = base64.b64decode(body["content"]) if enc == "base64" else body["content"].encode()
            sha = _git(r.git_dir, "hash-object", "-w", "--stdin", input=data).decode().strip()
            return fake._json({"sha": sha, "url": f"{api}/blobs/{sha}"}, 201)
        if m == "GET" and (mm := re.fullmatch(r"/git/blobs/([0-9a-f]{40})", rest)):
            data = _git(r.git_dir, "cat-file", "blob", mm.group(1))
            return fake._json({"sha": mm.group(1), "size": len(data), "encoding": "base64",
                               "content": base64.b64encode(data).decode()})
        if m == "GET" and (mm := re.fullmatch(r"/git/trees/([0-9a-f]{40})", rest)):
            return fake._json(_tree_json(fake, r, mm.group(1)))
        if m == "POST" and rest == "/git/trees":
            return fake._json(_make_tree(fake, r, body), 201)
        if m == "GET" and (mm := re.fullmatch(r"/git/commits/([0-9a-f]{40})", rest)):
            return fake._json(commit_json(fake, r, mm.group(1)))
        if m == "POST" and rest == "/git/commits":
            return fake._json(commit_json(fake, r, _make_commit(fake, r, body)), 201)
        if m == "GET" and (mm := re.fullmatch(r"/git/(?:ref|refs)/(tags/.+)", rest)):
            # "Get a reference" of a tag: its object is the tag object (annotated) or the commit (lightweight)
            ref = "refs/" + mm.group(1)
            sha = _git(r.git_dir, "for-each-ref", "--format=%(objectname)", ref).decode().strip()
            if not sha:
                return fake._not_found()
            kind = _git(r.git_dir, "cat-file", "-t", sha).decode().strip()
            out = ref_json(fake, r, ref, sha)
            out["object"] = {"sha": sha, "type": kind, "url": f"{api}/{kind}s/{sha}"}
            return fake._json(out)
        if m == "GET" and (mm := re.fullmatch(r"/git/tags/([0-9a-f]{40})", rest)):
            # "Get a tag": an annotated tag object and the object it names
            raw = _git(r.git_dir, "cat-file", "tag", mm.group(1)).decode()
            head = dict(line.split(" ", 1) for line in raw.split("\n\n", 1)[0].splitlines() if " " in line)
            obj, kind = head["object"], head["type"]
            return fake._json({"node_id": "TAG_" + mm.group(1)[:8], "sha": mm.group(1), "url": f"{api}/tags/{mm.group(1)}",
                               "tag": head.get("tag", ""), "message": raw.split("\n\n", 1)[-1],
                               "tagger": {"name": "T", "email": "t@example.invalid", "date": "2026-01-01T00:00:00Z"},
                               "object": {"sha": obj, "type": kind, "url": f"{api}/{kind}s/{obj}"},
                               "verification": {"verified": False, "reason": "unsigned", "signature": None,
                                                "payload": None, "verified_at": None}})
        if m == "GET" and (mm := re.fullmatch(r"/git/(?:ref|refs)/((?:heads|tags)/.+)", rest)):
            ref = "refs/" + mm.group(1)
            sha = _git(r.git_dir, "for-each-ref", "--format=%(objectname)", ref).decode().strip()
            return fake._json(ref_json(fake, r, ref, sha)) if sha else fake._not_found()
        if m == "POST" and rest == "/git/refs":
            ref, sha = body["ref"], body["sha"]
            if _git(r.git_dir, "for-each-ref", ref).strip():
                return fake._json({"message": "Reference already exists", "documentation_url": DOCS_REFS}, 422)
            why = rule_violation(r, sha)
            if why:
                return fake._json({"message": why, "documentation_url": DOCS_REFS, "status": "422"}, 422)
            _git(r.git_dir, "update-ref", ref, sha, "0" * 40)
            r.ref_updates.append((ref, sha))
            return fake._json(ref_json(fake, r, ref, sha), 201)
        if m in ("PATCH", "DELETE") and (mm := re.fullmatch(r"/git/refs/((?:heads|tags)/.+)", rest)):
            ref = "refs/" + mm.group(1)
            old = _git(r.git_dir, "for-each-ref", "--format=%(objectname)", ref).decode().strip()
            if not old:
                return fake._json({"message": "Reference does not exist", "documentation_url": DOCS_REFS}, 422)
            if m == "DELETE":
                _git(r.git_dir, "update-ref", "-d", ref, old)
                return fake._json({}, 204)
            sha = body["sha"]
            ff = subprocess.run(["git", "--git-dir", str(r.git_dir), "merge-base", "--is-ancestor", old, sha]).returncode == 0
            if not ff and not body.get("force"):
                return fake._json({"message": "Update is not a fast forward", "documentation_url": DOCS_REFS}, 422)
            why = rule_violation(r, sha)
            if why:
                return fake._json({"message": why, "documentation_url": DOCS_REFS, "status": "422"}, 422)
            _git(r.git_dir, "update-ref", ref, sha, old)
            r.ref_updates.append((ref, sha))
            return fake._json(ref_json(fake, r, ref, sha))
    except (LookupError, KeyError, TypeError, ValueError) as exc:
        return fake._json({"message": f"Unprocessable: {exc}"}, 422)
    return None              # not a Git Data request this module serves: the fake's own routes answer


def _tree_json(fake, r, sha: str) -> dict:
    api = f"{fake.url}/repos/{r.full_name}/git"
    entries = []
    for line in _git(r.git_dir, "ls-tree", sha).decode().splitlines():
        meta, path = line.split("\t", 1)
        mode, typ, obj = meta.split()
        entries.append({"path": path, "mode": mode, "type": typ, "sha": obj, "url": f"{api}/{typ}s/{obj}"})
    return {"sha": sha, "url": f"{api}/trees/{sha}", "tree": entries, "truncated": False}


def _make_tree(fake, r, body) -> dict:
    """``POST /git/trees``: ``base_tree`` with the entries replaced (``sha: null`` deletes), nested paths allowed."""
    import tempfile

    with tempfile.TemporaryDirectory(prefix="fake-tree-") as tmp:
        env = {"GIT_INDEX_FILE": str(Path(tmp) / "index")}
        import os
        e = dict(os.environ, **env)

        def g(*args, input=None):
            p = subprocess.run(["git", "--git-dir", str(r.git_dir), *args], input=input, capture_output=True, env=e)
            if p.returncode:
                raise LookupError(p.stderr.decode(errors="replace"))
            return p.stdout.decode().strip()
        if body.get("base_tree"):
            g("read-tree", body["base_tree"])
        else:
            g("read-tree", "--empty")
        for ent in body["tree"]:
            if ent.get("sha") is None and "content" not in ent:
                # mode 0 removes the entry (git update-index --index-info; --force-remove needs a work tree)
                g("update-index", "--index-info", input=f"0 {'0' * 40}\t{ent['path']}\n".encode())
                continue
            sha = ent.get("sha")
            if sha is None:
                sha = g("hash-object", "-w", "--stdin", input=ent["content"].encode())
            g("update-index", "--add", "--cacheinfo", f"{ent['mode']},{sha},{ent['path']}")
        tree = g("write-tree")
    return _tree_json(fake, r, tree)


def _make_commit(fake, r, body) -> str:
    """``POST /git/commits``: the commit object, signed when GitHub would sign it (no author/committer given)."""
    stamp = int(time.time())
    an, ae = _person(body.get("author"), fake.bot_login, BOT_EMAIL)
    sign = not body.get("author") and not body.get("committer")
    cn, ce = ("GitHub", "noreply@github.com") if sign else _person(body.get("committer"), an, ae)
    _git(r.git_dir, "cat-file", "-e", body["tree"])
    head = [f"tree {body['tree']}"] + [f"parent {p}" for p in body.get("parents", [])]
    head += [f"author {an} <{ae}> {stamp} +0000", f"committer {cn} <{ce}> {stamp} +0000"]
    if sign:
        head.append("gpgsig " + SIGNATURE.replace("\n", "\n "))
    raw = ("\n".join(head) + "\n\n" + body["message"]).encode()
    sha = _git(r.git_dir, "hash-object", "-t", "commit", "-w", "--stdin", input=raw).decode().strip()
    r.api_commits[sha] = {"signed": sign, "author": (an, ae), "committer": (cn, ce)}
    return sha


def add_event(r, number: int, event: str, actor: str = "human", when: Optional[str] = None) -> dict:
    """Record issue event ``event`` (``closed``, ``head_ref_deleted``, ``merged``...) on pull request ``number``."""
    evs = r.events.setdefault(number, [])
    e = {"id": 9000 + sum(len(v) for v in r.events.values()), "event": event, "actor": {"login": actor},
         "commit_id": None, "created_at": when or f"2026-11-01T00:00:{len(evs):02d}Z",
         "url": f"https://api.github.invalid/events/{len(evs)}"}
    evs.append(e)
    return e
