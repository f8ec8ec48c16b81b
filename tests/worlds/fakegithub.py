"""A local fake of the GitHub REST API (and of the PyPI JSON API) on 127.0.0.1, for tests and benchmarks.

Built on werkzeug (the server under pytest-httpserver); runs in a thread of
the test process.  It serves what the bot uses, shaped like GitHub's own
responses (GitHub REST docs): releases with ``Link``-header pagination and
ETags (``If-None-Match`` -> 304), release assets with ``digest`` and a
download URL, the contents API (base64), pulls with ``head=OWNER:BRANCH``
filtering exactly like GitHub (a bare branch name is ignored, so every PR
is returned: PyGithub#1566), issue comments, labels, reviewers, and
scripted faults (5xx, 429, the secondary-rate-limit 403 with Retry-After,
a truncated download).  Every request is recorded in ``requests``.  It
also serves a public CMSIS pack index at ``/pack/index.pidx`` (the
``<pdsc>`` entries of ``pack_index``) and PDSCs at ``/pack/NAME.pdsc``.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import threading
from dataclasses import dataclass, field
from typing import Optional

from werkzeug.serving import WSGIRequestHandler, make_server
from werkzeug.wrappers import Request, Response


class _QuietHandler(WSGIRequestHandler):
    def log_request(self, *args, **kwargs):  # keep test output clean
        pass


@dataclass
class Fault:
    """A scripted response: the next ``times`` requests matching ``method`` and ``path`` (regex) get it."""

    method: str
    path: str
    status: int
    body: dict = field(default_factory=dict)
    headers: dict = field(default_factory=dict)
    times: int = 1


@dataclass
class Seen:
    method: str
    path: str
    query: dict
    headers: dict
    body: object


@dataclass
class Exchange:
    """One request to a fake and its answer, as bytes (for the OpenAPI contract check, tests/worlds/openapi_contract.py)."""

    method: str
    path: str
    query_string: str
    headers: dict
    body: bytes
    status: int
    response_headers: dict
    response_body: bytes
    fault: bool   # scripted: a Fault answered it, or a test replaced the fake's router (tests/test_break_github.py)


# Session-wide recorder: every exchange of every FakeGitHub in the test session, in order.
EXCHANGES: list[Exchange] = []
STAMP = "2026-01-01T00:00:00Z"


def _num(text: str) -> int:
    """A stable positive id for a name (GitHub ids are integers)."""
    return int(hashlib.sha1(text.encode()).hexdigest()[:7], 16)


class FakeRepo:
    """State of one repository: releases, files at refs, pulls, comments."""

    def __init__(self, full_name: str):
        self.full_name = full_name
        self.owner, self.name = full_name.split("/")
        self.releases: list[dict] = []
        self.files: dict[tuple[str, str], bytes] = {}
        self.pulls: dict[int, dict] = {}
        self.comments: dict[int, list[dict]] = {}
        self.labels: dict[int, list[str]] = {}
        self.reviewers: dict[int, list[str]] = {}
        self.next_number = 1
        self.private = False   # private: the API answers 404 without a token; browser downloads always 404
        # Refusals real repositories produce (GitHub REST docs, each endpoint's 422/403):
        self.collaborators: Optional[set] = None   # users who may review or be assigned (None: anyone)
        self.teams: Optional[set] = None           # team slugs with access (None: any)
        self.drafts_supported = True               # False: POST /pulls with draft answers 422
        self.label_refusals: dict[str, tuple[int, dict]] = {}   # label name -> (status, body) GitHub answers
        self.milestones: dict[int, dict] = {}
        self.compare: dict[tuple[str, str], tuple[str, int]] = {}   # (base, head) -> (status, ahead_by)
        self.truncated_trees: set[str] = set()                      # refs whose tree listing is "truncated"
        # Git Data API and issue events (tests/worlds/fakegitdata.py): the bare repository behind the API, the
        # repository's rules ("signed-commits"), commits made through the API, ref updates, events per PR.
        self.git_dir = None
        self.rules: set[str] = set()
        self.api_commits: dict[str, dict] = {}
        self.ref_updates: list[tuple[str, str]] = []
        self.events: dict[int, list[dict]] = {}
        # Organization listing (GET /orgs/{org}/repos): the repository's topics and archived flag.
        self.topics: list[str] = []
        self.archived = False
        # Settings doctor reads: "Get rules for a branch" (branch -> rules, as repository-rule-detailed),
        # "Get default workflow permissions for a repository", and the permissions "Get a repository" shows
        # the token (None: left out, as for an App's installation token).
        self.branch_rules: dict[str, list[dict]] = {}
        self.workflow_permissions = {"default_workflow_permissions": "read", "can_approve_pull_request_reviews": False}
        self.permissions: Optional[dict] = None


class FakeGitHub:
    """The fake server.  ``start()`` returns the base URL (use it as ``GITHUB_API_URL``)."""

    def __init__(self):
        self.repos: dict[str, FakeRepo] = {}
        self.assets: dict[int, bytes] = {}
        self.asset_truncate: dict[int, int] = {}   # asset id -> serve only this many bytes, once per entry
        self.pypi: dict[tuple[str, str], dict] = {}
        self.pack_index: list[tuple[str, str, str]] = []   # (vendor, name, version) <pdsc> entries of index.pidx
        # the repositories of the token's App installation (GET /installation/repositories); None: the token is not
        # an installation's (GitHub answers 403)
        self.installation: Optional[list[str]] = None
        self.pack_pdscs: dict[str, bytes] = {}               # file name -> PDSC served under /pack/
        self.faults: list[Fault] = []
        self.requests: list[Seen] = []
        self.bot_login = "github-actions[bot]"
        self.asset_host = ""   # where the asset endpoint redirects to (another server); "" = this server
        self.off_contract = False   # True: a test serves deliberately malformed data (answers exempt from the contract)
        self._ids = 1000
        self._server = None
        self._thread = None
        self.url = ""

    # ------------------------------------------------------------------ setup
    def start(self) -> str:
        self._server = make_server("127.0.0.1", 0, self._app, threaded=True,
                                   request_handler=_QuietHandler)
        self.url = f"http://127.0.0.1:{self._server.server_port}"
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05},
                                        daemon=True)
        self._thread.start()
        return self.url

    def stop(self) -> None:
        if self._server:
            self._server.shutdown()
            self._server.server_close()

    def _id(self) -> int:
        self._ids += 1
        return self._ids

    def repo(self, full_name: str) -> FakeRepo:
        if full_name not in self.repos:
            self.repos[full_name] = FakeRepo(full_name)
        return self.repos[full_name]

    def add_release(self, full_name: str, tag: str, *, prerelease: bool = False, draft: bool = False,
                    created_at: str = "2026-01-01T00:00:00Z", assets: Optional[dict] = None,
                    digest: Optional[dict] = None, body: str = "") -> dict:
        """Add a release; ``assets`` maps file name -> bytes; ``digest`` overrides name -> digest text (None: omit)."""
        r = self.repo(full_name)
        rel_id = self._id()
        out = []
        for name, data in (assets or {}).items():
            aid = self._id()
            self.assets[aid] = data
            d = "sha256:" + hashlib.sha256(data).hexdigest()
            if digest and name in digest:
                d = digest[name]
            a = {"id": aid, "node_id": f"RA_{aid}", "name": name, "label": None, "size": len(data),
                 "state": "uploaded", "content_type": "application/octet-stream", "download_count": 0,
                 "uploader": self._user(full_name.split("/")[0]), "created_at": created_at, "updated_at": created_at,
                 "url": f"{self.url}/repos/{full_name}/releases/assets/{aid}",
                 "browser_download_url": f"{self.url}/download/{full_name}/{tag}/{name}?id={aid}",
                 "digest": d}   # null for assets uploaded before GitHub computed digests
            out.append(a)
        api = f"{self.url}/repos/{full_name}"
        rel = {"id": rel_id, "node_id": f"RE_{rel_id}", "tag_name": tag, "target_commitish": "main", "name": tag,
               "draft": draft, "prerelease": prerelease, "created_at": created_at, "published_at": created_at,
               "body": body, "author": self._user(full_name.split("/")[0]), "url": f"{api}/releases/{rel_id}",
               "assets_url": f"{api}/releases/{rel_id}/assets",
               "upload_url": f"https://uploads.github.com/repos/{full_name}/releases/{rel_id}/assets{{?name,label}}",
               "tarball_url": f"{api}/tarball/{tag}", "zipball_url": f"{api}/zipball/{tag}",
               "html_url": f"https://github.com/{full_name}/releases/tag/{tag}", "assets": out}
        r.releases.append(rel)
        return rel

    def link_git(self, full_name: str, git_dir) -> None:
        """Serve the Git Data API of ``full_name`` from the bare git repository ``git_dir`` (tests/worlds/fakegitdata.py)."""
        from pathlib import Path
        self.repo(full_name).git_dir = Path(git_dir)

    def add_file(self, full_name: str, ref: str, path: str, data: bytes) -> None:
        self.repo(full_name).files[(ref, path)] = data

    def add_pull(self, full_name: str, *, head: str, title: str, body: str = "", user: Optional[str] = None,
                 state: str = "open", merged: bool = False, base: str = "main", head_repo: Optional[str] = None,
                 number: Optional[int] = None) -> dict:
        r = self.repo(full_name)
        n = number or r.next_number
        r.next_number = max(r.next_number, n + 1)
        pr = self._pull_json(r, n, head, head_repo or full_name, base, title, body, user or self.bot_login, False)
        pr["state"] = state
        pr["merged"] = merged
        if state == "closed":
            pr["closed_at"] = STAMP
        if merged:
            pr["merged_at"] = STAMP
        r.pulls[n] = pr
        return pr

    def _pull_json(self, r, n, head, head_repo, base, title, body, user, draft):
        """``pull-request`` (also a valid ``pull-request-simple``, the shape of the list)."""
        api = f"{self.url}/repos/{r.full_name}"
        owner = head_repo.split("/")[0]
        html = f"https://github.com/{r.full_name}/pull/{n}"
        links = {"self": f"{api}/pulls/{n}", "html": html, "issue": f"{api}/issues/{n}",
                 "comments": f"{api}/issues/{n}/comments", "review_comments": f"{api}/pulls/{n}/comments",
                 "review_comment": f"{api}/pulls/comments{{/number}}", "commits": f"{api}/pulls/{n}/commits",
                 "statuses": f"{api}/statuses/{'0' * 40}"}
        return {"number": n, "id": n * 10, "node_id": f"PR_{n * 10}", "title": title, "body": body,
                "state": "open", "locked": False, "merged": False, "draft": draft, "user": self._user(user),
                "labels": [], "assignee": None, "assignees": [], "requested_reviewers": [], "requested_teams": [],
                "milestone": None, "url": f"{api}/pulls/{n}", "issue_url": f"{api}/issues/{n}", "html_url": html,
                "diff_url": f"{html}.diff", "patch_url": f"{html}.patch", "commits_url": links["commits"],
                "comments_url": links["comments"], "review_comments_url": links["review_comments"],
                "review_comment_url": links["review_comment"], "statuses_url": links["statuses"],
                "_links": {k: {"href": v} for k, v in links.items()},
                "head": {"ref": head, "label": f"{owner}:{head}", "sha": "0" * 40, "repo": self._repo_json(head_repo),
                         "user": self._user(owner)},
                "base": {"ref": base, "label": f"{r.owner}:{base}", "sha": "0" * 40,
                         "repo": self._repo_json(r.full_name), "user": self._user(r.owner)},
                "created_at": STAMP, "updated_at": STAMP, "closed_at": None, "merged_at": None,
                "merge_commit_sha": None, "author_association": "NONE", "auto_merge": None, "active_lock_reason": None,
                "mergeable": None, "mergeable_state": "unknown", "merged_by": None, "maintainer_can_modify": False,
                "comments": 0, "review_comments": 0, "commits": 1, "additions": 0, "deletions": 0,
                "changed_files": 0}

    def add_milestone(self, full_name: str, number: int, title: str) -> dict:
        """A milestone (``milestone``) of ``full_name``."""
        r = self.repo(full_name)
        a = f"{self.url}/repos/{full_name}/milestones/{number}"
        ms = {"url": a, "html_url": f"https://github.com/{full_name}/milestone/{number}", "labels_url": f"{a}/labels",
              "id": number * 100, "node_id": f"MI_{number}", "number": number, "title": title, "state": "open",
              "description": None, "creator": self._user(full_name.split("/")[0]), "open_issues": 0,
              "closed_issues": 0, "created_at": STAMP, "updated_at": STAMP, "closed_at": None, "due_on": None}
        r.milestones[number] = ms
        return ms

    # GitHub's shapes, every field the REST description requires (api.github.com.json, components/schemas).
    def _user(self, login: str, kind: str = "User") -> dict:
        """``simple-user``."""
        u = f"{self.url}/users/{login}"
        uid = _num(login)
        return {"login": login, "id": uid, "node_id": f"U_{uid}", "type": kind, "site_admin": False,
                "avatar_url": f"https://avatars.githubusercontent.com/u/{uid}?v=4", "gravatar_id": "",
                "url": u, "html_url": f"https://github.com/{login}", "followers_url": f"{u}/followers",
                "following_url": f"{u}/following{{/other_user}}", "gists_url": f"{u}/gists{{/gist_id}}",
                "starred_url": f"{u}/starred{{/owner}}{{/repo}}", "subscriptions_url": f"{u}/subscriptions",
                "organizations_url": f"{u}/orgs", "repos_url": f"{u}/repos", "events_url": f"{u}/events{{/privacy}}",
                "received_events_url": f"{u}/received_events"}

    def _repo_json(self, full: str) -> dict:
        """``full-repository`` (also a valid ``repository``, as in a pull request's head and base)."""
        a = f"{self.url}/repos/{full}"
        owner, name = full.split("/")
        r = self.repos.get(full)
        rid = _num(full)
        out = {"id": rid, "node_id": f"R_{rid}", "name": name, "full_name": full, "owner": self._user(owner),
               "private": bool(r and r.private), "html_url": f"https://github.com/{full}", "description": None,
               "fork": False, "url": a, "homepage": None, "language": None, "mirror_url": None, "license": None,
               "clone_url": f"https://github.com/{full}.git", "git_url": f"git://github.com/{full}.git",
               "ssh_url": f"git@github.com:{full}.git", "svn_url": f"https://github.com/{full}",
               "default_branch": "main", "forks": 0, "forks_count": 0, "open_issues": 0, "open_issues_count": 0,
               "stargazers_count": 0, "watchers": 0, "watchers_count": 0, "network_count": 0,
               "subscribers_count": 0, "size": 0, "has_issues": True, "has_projects": True, "has_wiki": True,
               "has_pages": False, "has_downloads": True, "has_discussions": False, "archived": False,
               "disabled": False, "pushed_at": STAMP, "created_at": STAMP, "updated_at": STAMP}
        for key, tail in (("archive_url", "/{archive_format}{/ref}"), ("assignees_url", "/assignees{/user}"),
                          ("blobs_url", "/git/blobs{/sha}"), ("branches_url", "/branches{/branch}"),
                          ("collaborators_url", "/collaborators{/collaborator}"),
                          ("comments_url", "/comments{/number}"), ("commits_url", "/commits{/sha}"),
                          ("compare_url", "/compare/{base}...{head}"), ("contents_url", "/contents/{+path}"),
                          ("contributors_url", "/contributors"), ("deployments_url", "/deployments"),
                          ("downloads_url", "/downloads"), ("events_url", "/events"), ("forks_url", "/forks"),
                          ("git_commits_url", "/git/commits{/sha}"), ("git_refs_url", "/git/refs{/sha}"),
                          ("git_tags_url", "/git/tags{/sha}"), ("hooks_url", "/hooks"),
                          ("issue_comment_url", "/issues/comments{/number}"),
                          ("issue_events_url", "/issues/events{/number}"), ("issues_url", "/issues{/number}"),
                          ("keys_url", "/keys{/key_id}"), ("labels_url", "/labels{/name}"),
                          ("languages_url", "/languages"), ("merges_url", "/merges"),
                          ("milestones_url", "/milestones{/number}"),
                          ("notifications_url", "/notifications{?since,all,participating}"),
                          ("pulls_url", "/pulls{/number}"), ("releases_url", "/releases{/id}"),
                          ("stargazers_url", "/stargazers"), ("statuses_url", "/statuses/{sha}"),
                          ("subscribers_url", "/subscribers"), ("subscription_url", "/subscription"),
                          ("tags_url", "/tags"), ("teams_url", "/teams"), ("trees_url", "/git/trees{/sha}")):
            out[key] = a + tail
        return out

    def _commit_json(self, full: str, ref: str) -> dict:
        """``commit`` (the shape of a comparison's ``base_commit``), with a stable SHA for ``ref``."""
        sha = hashlib.sha1(f"{full}@{ref}".encode()).hexdigest()
        a = f"{self.url}/repos/{full}"
        who = {"name": "ExecuTorch", "email": "executorch@example.invalid", "date": STAMP}
        return {"url": f"{a}/commits/{sha}", "sha": sha, "node_id": f"C_{sha[:12]}",
                "html_url": f"https://github.com/{full}/commit/{sha}", "comments_url": f"{a}/commits/{sha}/comments",
                "commit": {"url": f"{a}/git/commits/{sha}", "author": who, "committer": who, "message": ref,
                           "comment_count": 0, "tree": {"sha": sha, "url": f"{a}/git/trees/{sha}"}},
                "author": self._user(full.split("/")[0]), "committer": self._user(full.split("/")[0]), "parents": []}

    def _team(self, slug: str) -> dict:
        """``team``."""
        tid = _num("team/" + slug)
        t = f"{self.url}/organizations/1/team/{tid}"
        return {"id": tid, "node_id": f"T_{tid}", "slug": slug, "name": slug, "description": None,
                "permission": "push", "privacy": "closed", "notification_setting": "notifications_enabled",
                "url": t, "html_url": f"https://github.com/orgs/acme/teams/{slug}",
                "members_url": f"{t}/members{{/member}}",
                "repositories_url": f"{t}/repos", "parent": None, "type": "organization"}

    def _label(self, name: str, full: str = "") -> dict:
        """``label``."""
        lid = _num("label/" + name)
        return {"id": lid, "node_id": f"L_{lid}", "url": f"{self.url}/repos/{full}/labels/{name}", "name": name,
                "description": "", "color": "ededed", "default": False}

    def _issue_json(self, r, pr: dict) -> dict:
        """The ``issue`` view of a pull request (GitHub REST docs: every pull request is an issue)."""
        i = pr["issue_url"]
        return {"number": pr["number"], "id": pr["id"] + 1, "node_id": f"I_{pr['id'] + 1}", "title": pr["title"],
                "body": pr["body"], "state": pr["state"], "locked": False, "user": pr["user"],
                "labels": pr["labels"], "assignee": pr["assignees"][0] if pr["assignees"] else None,
                "assignees": pr["assignees"], "milestone": pr["milestone"],
                "comments": len(r.comments.get(pr["number"], [])),
                "url": i, "html_url": pr["html_url"], "labels_url": f"{i}/labels{{/name}}",
                "comments_url": f"{i}/comments", "events_url": f"{i}/events",
                "repository_url": f"{self.url}/repos/{r.full_name}", "closed_at": None, "author_association": "NONE",
                "created_at": STAMP, "updated_at": STAMP,
                "pull_request": {"url": pr["url"], "html_url": pr["html_url"], "diff_url": pr["diff_url"],
                                 "patch_url": pr["patch_url"]}}

    def open_pulls(self, full_name: str) -> list[dict]:
        return [p for p in self.repo(full_name).pulls.values() if p["state"] == "open"]

    def count(self, method: Optional[str] = None, path_re: str = "") -> int:
        return sum(1 for s in self.requests
                   if (method is None or s.method == method) and re.search(path_re, s.path))

    # ---------------------------------------------------------------- serving
    def _app(self, environ, start_response):
        req = Request(environ)
        try:
            body = req.get_json(silent=True)
        except Exception:  # noqa: BLE001
            body = None
        self.requests.append(Seen(req.method, req.path, dict(req.args),
                                  {k: v for k, v in req.headers.items()}, body))
        fault = self._fault(req)
        resp = fault or self._too_long(req, body) or self._route(req, body)
        # PyPI, the download host, GraphQL and the public pack index are not the REST API its description covers
        if not req.path.startswith(("/pypi/", "/download/", "/graphql", "/pack/")):   # /pack/: the public pack index
            EXCHANGES.append(Exchange(req.method, req.path, req.query_string.decode("latin-1"), dict(req.headers),
                                      req.get_data(cache=True), resp.status_code, dict(resp.headers),
                                      b"" if resp.direct_passthrough else resp.get_data(),
                                      # scripted: a Fault, or a test replaced the router to serve a broken answer
                                      fault is not None or "_route" in self.__dict__ or self.off_contract))
        return resp(environ, start_response)

    def _fault(self, req) -> Optional[Response]:
        for f in self.faults:
            if f.times > 0 and f.method == req.method and re.search(f.path, req.path):
                f.times -= 1
                return self._json(f.body, f.status, f.headers)
        return None

    @staticmethod
    def _json(data, status=200, headers=None) -> Response:
        return Response(json.dumps(data), status=status, headers=headers or {}, mimetype="application/json")

    @staticmethod
    def _json_etag(req, data, status=200) -> Response:
        """A JSON answer with a strong ``ETag`` of its body; ``If-None-Match`` with that tag answers 304
        (GitHub REST docs, "Best practices": conditional requests work on any GET that returns an ETag)."""
        text = json.dumps(data)
        tag = '"' + hashlib.sha1(text.encode()).hexdigest() + '"'
        if req.headers.get("If-None-Match") == tag:
            return Response(status=304, headers={"ETag": tag})
        return Response(text, status=status, headers={"ETag": tag}, mimetype="application/json")

    #: GitHub's limits on the text of an issue, a pull request and a comment: past them every create or update
    #: answers 422 Validation Failed naming the field (``body is too long (maximum is 65536 characters)``,
    #: ``title is too long (maximum is 256 characters)``), and nothing is written.
    BODY_MAX, TITLE_MAX = 65_536, 256

    def _too_long(self, req, body) -> Optional[Response]:
        """GitHub's 422 for a write to an issue, a pull request or a comment whose body or title is past its limit."""
        if req.method not in ("POST", "PATCH") or not isinstance(body, dict):
            return None
        if not re.fullmatch(r"/repos/[^/]+/[^/]+/(issues|pulls)(/\d+)?(/comments|/reviews)?|"
                            r"/repos/[^/]+/[^/]+/(issues|pulls)/comments/\d+", req.path):
            return None
        resource = "IssueComment" if "comments" in req.path else "Issue"
        for field, most in (("body", self.BODY_MAX), ("title", self.TITLE_MAX)):
            text = body.get(field)
            if isinstance(text, str) and len(text) > most:
                word = "Body" if resource == "IssueComment" and field == "body" else field
                return self._json({"message": "Validation Failed", "errors": [
                    {"resource": resource, "code": "custom", "field": field,
                     "message": f"{word} is too long (maximum is {most} characters)"}],
                    "documentation_url": "https://docs.github.com/rest"}, 422)
        return None

    def _not_found(self):
        return self._json({"message": "Not Found", "documentation_url": "https://docs.github.com/rest",
                           "status": "404"}, 404)

    def _paginate(self, req, items: list, etag: bool = False) -> Response:
        """One page of ``items`` as GitHub serves a list (REST docs, "Using pagination in the REST API"):
        ``per_page`` defaults to 30 and is at most 100 (a larger value gives 100), ``page`` from 1; the ``Link``
        header names ``next`` and ``last`` (and ``prev``/``first`` after page 1), each URL carrying every
        query parameter of the request; the last page has no ``next``."""
        from urllib.parse import urlencode

        per_page = min(max(int(req.args.get("per_page", 30)), 1), 100)
        page = max(int(req.args.get("page", 1)), 1)
        chunk = items[(page - 1) * per_page: page * per_page]
        headers = {}
        last = max(1, -(-len(items) // per_page))

        def at(n: int) -> str:
            q = {k: v for k, v in req.args.items() if k != "page"}
            q["page"] = str(n)
            return f"<{self.url}{req.path}?{urlencode(q)}>"

        rels = []
        if page < last:
            rels += [f'{at(page + 1)}; rel="next"', f'{at(last)}; rel="last"']
        if page > 1:
            rels += [f'{at(page - 1)}; rel="prev"', f'{at(1)}; rel="first"']
        if rels:
            headers["Link"] = ", ".join(rels)
        data = json.dumps(chunk)
        if etag:
            tag = '"' + hashlib.sha1(data.encode()).hexdigest() + '"'
            headers["ETag"] = tag
            if req.headers.get("If-None-Match") == tag:
                return Response(status=304, headers=headers)
        return Response(data, headers=headers, mimetype="application/json")

    def _route(self, req, body) -> Response:  # noqa: C901 - a router
        p, m = req.path, req.method
        if m == "POST" and p == "/graphql" and re.fullmatch(r"\s*query\s*\{\s*viewer\s*\{\s*login\s+__typename\s*\}\s*\}\s*",
                                                           str((body or {}).get("query", ""))):
            # GraphQL viewer: the token's account; a Bot's login without the [bot] suffix REST gives it
            bot = self.bot_login.endswith("[bot]")
            return self._json({"data": {"viewer": {"login": self.bot_login[:-5] if bot else self.bot_login,
                                                   "__typename": "Bot" if bot else "User"}}})
        if m == "GET" and (mm := re.fullmatch(r"/pypi/([^/]+)/([^/]+)/json", p)):
            d = self.pypi.get((mm.group(1).lower(), mm.group(2)))
            return self._json(d) if d else self._not_found()
        if m == "GET" and p == "/pack/index.pidx":
            return Response(pack_index_xml(self.url + "/pack/", self.pack_index), mimetype="application/xml")
        if m == "GET" and (mm := re.fullmatch(r"/pack/([^/]+\.pdsc)", p)):
            d = self.pack_pdscs.get(mm.group(1))
            return Response(d, mimetype="application/xml") if d is not None else self._not_found()
        if m == "GET" and (mm := re.fullmatch(r"/download/([^/]+/[^/]+)/([^/]+)/([^/]+)", p)):
            if mm.group(1) in self.repos and self.repos[mm.group(1)].private and "sig" not in req.args:
                return self._not_found()   # a private repository's browser_download_url needs a web session
            aid = int(req.args.get("id", 0))
            data = self.assets.get(aid)
            if data is None:
                return self._not_found()
            if aid in self.asset_truncate:
                cut = self.asset_truncate.pop(aid)
                return Response(data[:cut], headers={"Content-Length": str(len(data))},
                                mimetype="application/octet-stream", direct_passthrough=True)
            return Response(data, mimetype="application/octet-stream")
        if m == "GET" and p == "/installation/repositories":
            # GitHub REST docs, "List repositories accessible to the app installation": an installation token only
            if self.installation is None:
                return self._json({"message": "You must authenticate with an installation access token in order "
                                              "to list repositories for an installation.",
                                   "documentation_url": "https://docs.github.com/rest/apps/installations"
                                                        "#list-repositories-accessible-to-the-app-installation",
                                   "status": "403"}, 403)
            repos = [self._repo_json(full) for full in sorted(self.installation)]
            per_page = int(req.args.get("per_page", 30))
            page = int(req.args.get("page", 1))
            headers = {}
            if page * per_page < len(repos):
                headers["Link"] = (f'<{self.url}{req.path}?per_page={per_page}&page={page + 1}>; rel="next"')
            return Response(json.dumps({"total_count": len(repos),
                                        "repositories": repos[(page - 1) * per_page: page * per_page]}),
                            headers=headers, mimetype="application/json")
        if m == "GET" and (mm := re.fullmatch(r"/orgs/([^/]+)/repos", p)):
            # GitHub REST docs, "List organization repositories": minimal repositories with topics
            owner = mm.group(1).lower()
            repos = [dict(self._repo_json(full), topics=list(r.topics), archived=r.archived)
                     for full, r in sorted(self.repos.items()) if full.split("/")[0].lower() == owner
                     and (not r.private or req.headers.get("Authorization"))]
            return self._paginate(req, repos, etag=True)   # an unknown organization: 404 (undocumented; not served)
        mm = re.fullmatch(r"/repos/([^/]+/[^/]+)(/.*)?", p)
        if not mm:
            return self._not_found()
        full, rest = mm.group(1), mm.group(2) or ""
        if full not in self.repos:
            return self._not_found()
        r = self.repos[full]
        if r.private and not req.headers.get("Authorization"):
            return self._not_found()   # GitHub hides a private repository from anonymous requests
        from fakegitdata import route as git_route
        if (resp := git_route(self, r, req, m, rest, body)) is not None:
            return resp
        if m == "POST" and rest == "/releases":
            # GitHub REST docs, "Create a release": 201 with the release; its upload_url is where assets go
            # (on github.com uploads.github.com; here this server, so that a workflow under act reaches it)
            if any(x["tag_name"] == body["tag_name"] for x in r.releases):
                return self._json({"message": "Validation Failed", "errors": [
                    {"resource": "Release", "code": "already_exists", "field": "tag_name"}]}, 422)
            rel = self.add_release(full, body["tag_name"], prerelease=bool(body.get("prerelease")),
                                   draft=bool(body.get("draft")), body=body.get("body") or "")
            rel["name"] = body.get("name") or body["tag_name"]
            rel["upload_url"] = f"{self.url}/repos/{full}/releases/{rel['id']}/assets{{?name,label}}"
            return self._json(rel, 201)
        if m == "POST" and (mm := re.fullmatch(r"/releases/(\d+)/assets", rest)):
            # GitHub REST docs, "Upload a release asset": the file is the body, ?name= names it; 201 with the asset
            rel = next((x for x in r.releases if x["id"] == int(mm.group(1))), None)
            name = req.args.get("name")
            if rel is None or not name:
                return self._not_found() if rel is None else self._json({"message": "name is required"}, 422)
            data = req.get_data()
            aid = self._id()
            self.assets[aid] = data
            a = {"id": aid, "node_id": f"RA_{aid}", "name": name, "label": None, "size": len(data),
                 "state": "uploaded", "content_type": req.headers.get("Content-Type", "application/octet-stream"),
                 "download_count": 0, "uploader": self._user(full.split("/")[0]),
                 "created_at": rel["created_at"], "updated_at": rel["created_at"],
                 "url": f"{self.url}/repos/{full}/releases/assets/{aid}",
                 "browser_download_url": f"{self.url}/download/{full}/{rel['tag_name']}/{name}?id={aid}",
                 "digest": "sha256:" + hashlib.sha256(data).hexdigest()}
            rel["assets"].append(a)
            return self._json(a, 201)
        if m == "GET" and (mm := re.fullmatch(r"/releases/assets/(\d+)", rest)):
            # GitHub REST docs, "Get a release asset": Accept: application/octet-stream answers 302 to a
            # signed URL on another host (which must not get the token); otherwise the asset's JSON.
            aid = int(mm.group(1))
            found = [(rel, a) for rel in r.releases for a in rel["assets"] if a["id"] == aid]
            if not found:
                return self._not_found()
            rel, a = found[0]
            if req.headers.get("Accept") != "application/octet-stream":
                return self._json(a)
            host = self.asset_host or self.url
            loc = f"{host}/download/{full}/{rel['tag_name']}/{a['name']}?id={aid}&sig=signed"
            return Response(status=302, headers={"Location": loc})
        if m == "GET" and rest == "":
            data = self._repo_json(full)
            if r.permissions is not None:
                data["permissions"] = dict(r.permissions)
            return self._json(data)
        if m == "GET" and rest == "/actions/permissions/workflow":
            return self._json(dict(r.workflow_permissions))
        if m == "GET" and (mm := re.fullmatch(r"/rules/branches/(.+)", rest)):
            from urllib.parse import unquote
            return self._json([dict(rule, ruleset_source_type="Repository", ruleset_source=full, ruleset_id=1)
                               for rule in r.branch_rules.get(unquote(mm.group(1)), [])])
        if m == "GET" and rest == "/releases":
            rels = sorted(r.releases, key=lambda x: x["created_at"], reverse=True)
            return self._paginate(req, rels, etag=True)
        if m == "GET" and (mm := re.fullmatch(r"/releases/tags/(.+)", rest)):
            for rel in r.releases:
                if rel["tag_name"] == mm.group(1):
                    return self._json(rel)
            return self._not_found()
        if m == "GET" and (mm := re.fullmatch(r"/contents/(.+)", rest)):
            ref = req.args.get("ref", "main")
            data = r.files.get((ref, mm.group(1)))
            if data is None:
                if not any(k[0] == ref for k in r.files):
                    return self._json({"message": f"No commit found for the ref {ref}"}, 404)
                return self._not_found()
            name = mm.group(1).rsplit("/", 1)[-1]
            sha = hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()
            url = f"{self.url}{p}?ref={ref}"
            git_url = f"{self.url}/repos/{full}/git/blobs/{sha}"
            html_url = f"https://github.com/{full}/blob/{ref}/{mm.group(1)}"
            return self._json({"type": "file", "encoding": "base64", "name": name, "path": mm.group(1),
                               "size": len(data), "sha": sha, "url": url, "git_url": git_url, "html_url": html_url,
                               "download_url": f"https://raw.githubusercontent.com/{full}/{ref}/{mm.group(1)}",
                               "_links": {"self": url, "git": git_url, "html": html_url},
                               "content": base64.encodebytes(data).decode()})
        if m == "GET" and (mm := re.fullmatch(r"/git/trees/(.+)", rest)):
            # GitHub REST docs, "Get a tree": tree_sha may be a tag name; recursive=1 lists every blob
            ref = mm.group(1)
            ref = "main" if ref == "HEAD" else ref   # GitHub resolves HEAD to the default branch
            if not any(k[0] == ref for k in r.files):
                return self._not_found()
            tree = [{"path": path, "mode": "100644", "type": "blob", "sha": hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest(),
                     "size": len(data), "url": f"{self.url}/repos/{full}/git/blobs/x"}
                    for (ref_, path), data in sorted(r.files.items()) if ref_ == ref]
            return self._json_etag(req, {"sha": hashlib.sha1(ref.encode()).hexdigest(), "url": f"{self.url}{p}",
                                         "tree": tree, "truncated": ref in r.truncated_trees})
        if m == "GET" and (mm := re.fullmatch(r"/compare/(.+)\.\.\.(.+)", rest)):
            # GitHub REST docs, "Compare two commits": status ahead/behind/diverged/identical, ahead_by
            status, ahead = r.compare.get((mm.group(1), mm.group(2)), ("ahead", 1))
            html = f"https://github.com/{full}/compare/{mm.group(1)}...{mm.group(2)}"
            base = self._commit_json(full, mm.group(1))
            return self._json({"status": status, "ahead_by": ahead, "behind_by": 0, "total_commits": ahead,
                               "url": f"{self.url}{p}", "html_url": html, "permalink_url": html,
                               "diff_url": f"{html}.diff", "patch_url": f"{html}.patch", "base_commit": base,
                               "merge_base_commit": base, "commits": [], "files": []})
        if m == "GET" and rest == "/pulls":
            state = req.args.get("state", "open")
            pulls = sorted(r.pulls.values(), key=lambda x: -x["number"])
            if state != "all":
                pulls = [x for x in pulls if x["state"] == state]
            head = req.args.get("head")
            if head and ":" in head:      # GitHub ignores a head filter without "owner:"
                owner, ref = head.split(":", 1)
                pulls = [x for x in pulls if x["head"]["ref"] == ref and x["head"]["repo"]["owner"]["login"] == owner]
            if req.args.get("base"):
                pulls = [x for x in pulls if x["base"]["ref"] == req.args["base"]]
            return self._paginate(req, pulls, etag=True)
        if m == "POST" and rest == "/pulls":
            if body.get("draft") and not r.drafts_supported:
                return self._json({"message": "Validation Failed", "errors": [
                    {"resource": "PullRequest", "code": "custom",
                     "message": "Draft pull requests are not supported in this repository."}],
                    "documentation_url": "https://docs.github.com/rest/pulls/pulls#create-a-pull-request"}, 422)
            head = body.get("head", "")
            head_ref = head.split(":", 1)[-1]
            for x in r.pulls.values():
                if x["state"] == "open" and x["head"]["ref"] == head_ref and x["base"]["ref"] == body.get("base"):
                    return self._json({"message": "Validation Failed",
                                       "errors": [{"resource": "PullRequest", "code": "custom",
                                                   "message": f"A pull request already exists for {head}."}],
                                       "documentation_url": "https://docs.github.com/rest/pulls/pulls"
                                                            "#create-a-pull-request"}, 422)
            n = r.next_number
            r.next_number += 1
            pr = self._pull_json(r, n, head_ref, full, body.get("base"), body.get("title"), body.get("body", ""),
                                 self.bot_login, bool(body.get("draft")))
            r.pulls[n] = pr
            return self._json(pr, 201)
        if (mm := re.fullmatch(r"/pulls/(\d+)", rest)):
            pr = r.pulls.get(int(mm.group(1)))
            if not pr:
                return self._not_found()
            if m == "PATCH":
                for k in ("title", "body", "state"):
                    if k in body:
                        pr[k] = body[k]
            return self._json(pr)
        if m == "POST" and (mm := re.fullmatch(r"/pulls/(\d+)/requested_reviewers", rest)):
            n = int(mm.group(1))
            users, teams = body.get("reviewers", []), body.get("team_reviewers", [])
            if (r.collaborators is not None and any(u not in r.collaborators for u in users)) or \
                    (r.teams is not None and any(t not in r.teams for t in teams)):
                return self._json({"message": "Reviews may only be requested from collaborators. One or more of the "
                                              "users or teams you specified is not a collaborator of the "
                                              f"{full} repository.",
                                   "documentation_url": "https://docs.github.com/rest/pulls/review-requests"
                                                        "#request-reviewers-for-a-pull-request"}, 422)
            r.reviewers.setdefault(n, []).extend(users)
            pr = r.pulls[n]
            pr["requested_reviewers"] += [self._user(u) for u in users]
            pr["requested_teams"] += [self._team(t) for t in teams]
            return self._json(pr, 201)
        if (mm := re.fullmatch(r"/issues/(\d+)/labels", rest)) and m == "POST":
            n = int(mm.group(1))
            labels = body if isinstance(body, list) else body.get("labels", [])
            for x in labels:
                if x in r.label_refusals:
                    status, answer = r.label_refusals[x]
                    return self._json(answer, status)
            cur = r.labels.setdefault(n, [])
            cur.extend(x for x in labels if x not in cur)
            if n in r.pulls:
                r.pulls[n]["labels"] = [self._label(x, full) for x in cur]
            return self._json([self._label(x, full) for x in cur])
        if (mm := re.fullmatch(r"/issues/(\d+)/assignees", rest)) and m == "POST":
            n = int(mm.group(1))
            pr = r.pulls.get(n)
            if pr is None:
                return self._not_found()
            have = {a["login"] for a in pr["assignees"]}
            for u in body.get("assignees", []):   # GitHub leaves out, silently, users who cannot be assigned
                if (r.collaborators is None or u in r.collaborators) and u not in have:
                    pr["assignees"].append(self._user(u))
                    have.add(u)
            return self._json(self._issue_json(r, pr), 201)
        if m == "GET" and (mm := re.fullmatch(r"/milestones/(\d+)", rest)):
            ms = r.milestones.get(int(mm.group(1)))
            return self._json(ms) if ms else self._not_found()
        if m == "PATCH" and (mm := re.fullmatch(r"/issues/(\d+)", rest)):
            pr = r.pulls.get(int(mm.group(1)))
            if pr is None:
                return self._not_found()
            if "milestone" in body:
                ms = r.milestones.get(body["milestone"]) if isinstance(body["milestone"], int) else None
                if body["milestone"] is not None and ms is None:
                    return self._json({"message": "Validation Failed", "errors": [
                        {"value": body["milestone"], "resource": "Issue", "field": "milestone", "code": "invalid"}],
                        "documentation_url": "https://docs.github.com/rest/issues/issues#update-an-issue"}, 422)
                pr["milestone"] = ms
            return self._json(self._issue_json(r, pr))
        if (mm := re.fullmatch(r"/issues/(\d+)/comments", rest)):
            n = int(mm.group(1))
            cs = r.comments.setdefault(n, [])
            if m == "POST":
                cid = self._id()
                c = {"id": cid, "node_id": f"IC_{cid}", "body": body["body"], "user": self._user(self.bot_login, "Bot"),
                     "url": f"{self.url}/repos/{full}/issues/comments/{cid}",
                     "html_url": f"https://github.com/{full}/pull/{n}#issuecomment-{cid}",
                     "issue_url": f"{self.url}/repos/{full}/issues/{n}", "author_association": "NONE",
                     "created_at": STAMP, "updated_at": STAMP}
                cs.append(c)
                return self._json(c, 201)
            return self._paginate(req, cs)
        if m == "PATCH" and (mm := re.fullmatch(r"/issues/comments/(\d+)", rest)):
            cid = int(mm.group(1))
            for cs in r.comments.values():
                for c in cs:
                    if c["id"] == cid:
                        c["body"] = body["body"]
                        c["editor"] = self.bot_login   # GraphQL Comment.editor: the token's account edited it last
                        return self._json(c)
            return self._not_found()
        return self._not_found()


def pypi_json(name: str, version: str, *, wheels: bool = True, requires_dist: Optional[list] = None) -> dict:
    """A PyPI JSON API document (``/pypi/NAME/VERSION/json``) as warehouse serves it (the fields the bot reads)."""
    urls = [{"packagetype": "sdist", "filename": f"{name}-{version}.tar.gz"}]
    if wheels:
        urls.append({"packagetype": "bdist_wheel", "filename": f"{name}-{version}-cp311-cp311-linux_x86_64.whl"})
    return {"info": {"name": name, "version": version, "requires_dist": requires_dist or []}, "urls": urls}


def pack_index_xml(url: str, entries) -> bytes:
    """An ``index.pidx`` (Open-CMSIS-Pack spec, "Pack Index Files") with ``(vendor, name, version)`` entries at ``url``."""
    rows = "".join(f'    <pdsc url="{url}" vendor="{v}" name="{n}" version="{ver}"/>\n' for v, n, ver in entries)
    return ('<?xml version="1.0" encoding="UTF-8" ?>\n<index schemaVersion="1.1.0">\n  <vendor>Keil</vendor>\n'
            f'  <url>{url}</url>\n  <timestamp>2026-11-30T08:00:00+00:00</timestamp>\n  <pindex>\n{rows}'
            '  </pindex>\n</index>\n').encode()


# ---------------------------------------------------------------- test worlds
UPSTREAM = "pytorch/executorch"
TEMPLATE = "acme/fw-template"


def add_sample_release(fake: FakeGitHub, tag: str, *, source_tag: Optional[str] = None, full_name: str = UPSTREAM,
                       created_at: str = "2026-01-01T00:00:00Z", **kw) -> dict:
    """A release ``tag`` whose files are the shipped sample upstream tree of ``source_tag`` (default ``tag``)."""
    from bot.sample import UPSTREAM_DIR

    folder = UPSTREAM_DIR / (source_tag or tag)
    for p in sorted(folder.rglob("*")):
        if p.is_file() and "__pycache__" not in p.parts:
            fake.add_file(full_name, tag, p.relative_to(folder).as_posix(), p.read_bytes())
    return fake.add_release(full_name, tag, created_at=created_at, **kw)


def git(cwd, *args: str) -> str:
    """Run git in ``cwd`` with a fixed identity and no user config; return stdout."""
    import subprocess

    from bot.sample import git_env
    p = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, env=git_env())
    if p.returncode:
        raise RuntimeError(f"git {' '.join(args)}: {p.stderr}")
    return p.stdout.strip()


def make_template_remote(tmp) -> "Path":
    """A bare git repository holding the sample template (ExecuTorch 1.4.0) on ``main``."""
    from pathlib import Path

    from bot.commands.demo import copy_template
    tmp = Path(tmp)
    work = copy_template(tmp / "seed")
    git(work, "init", "-q", "-b", "main")
    git(work, "add", "-A")
    git(work, "commit", "-q", "-m", "template")
    bare = tmp / "fw-template.git"
    git(tmp, "clone", "-q", "--bare", str(work), str(bare))
    return bare


def fresh_checkout(remote, dest) -> "Path":
    """A new clone of ``remote`` (what actions/checkout gives every scheduled run)."""
    from pathlib import Path
    git(Path(dest).parent, "clone", "-q", str(remote), str(dest))
    return Path(dest)
