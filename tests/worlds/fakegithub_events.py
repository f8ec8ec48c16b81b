"""The fake GitHub of tests/worlds/fakegithub.py, extended with what event handling uses (GitHub REST/GraphQL docs).

Served on top of the base fake: a user's permission on a repository
(``role_name``/``permission``), reactions on issue comments, issues with
labels (create, list with ``labels=``, edit), the repository's
``allow_auto_merge``, branch protection and ruleset rules of a branch, and
``POST /graphql`` for ``enablePullRequestAutoMerge`` /
``disablePullRequestAutoMerge`` (which set or clear the PR's
``auto_merge``, as "Get a pull request" shows it).  Pull requests carry a
``node_id`` and ``auto_merge``; ``enablePullRequestAutoMerge`` refuses an
``expectedHeadOid`` that is not the PR's head.  GraphQL ``{ viewer { login } }``
answers ``viewer`` (default ``bot_login``), the token's own account.  Issues
can be listed by ``creator``.  No route merges a pull request.

The dashboard's GraphQL query (``query DashboardState``: an issue's
``viewerDidAuthor``, ``editor``, ``body`` and its comments' ``databaseId``,
``viewerDidAuthor``, ``editor``, ``body``, 100 a page with ``pageInfo``) is
answered as GitHub does (GraphQL reference, ``Comment`` interface): the
``editor`` is null until someone edits the body, then the last editor, a
``Bot`` actor's login without the ``[bot]`` suffix REST gives it.  A write
through REST records the token's account as the editor; :meth:`edit_issue`
and :meth:`edit_comment` are a person's edit in the web UI.
"""

from __future__ import annotations

import re
from typing import Optional

from fakegithub import FakeGitHub


class FakeGitHubEvents(FakeGitHub):
    """``roles``: login -> role (``admin``, ``maintain``, ``write``, ``triage``, ``read``; others read ``read``).

    ``reactions``: comment id -> list of reaction contents.  ``settings``:
    extra fields of "Get a repository" (``allow_auto_merge``).
    ``protection``: branch -> list of required status check names (branch
    protection); ``rules``: branch -> list of ruleset-required check names.
    ``graphql``: every GraphQL request body.
    """

    def __init__(self):
        super().__init__()
        self.roles: dict[str, str] = {}
        self.reactions: dict[int, list[str]] = {}
        self.settings: dict = {"allow_auto_merge": True}
        self.protection: dict[str, list[str]] = {}
        self.rules: dict[str, list[str]] = {}
        self.graphql: list[dict] = []
        self.issues: dict[str, dict[int, dict]] = {}
        self.viewer: str = ""   # GraphQL viewer.login ("" = bot_login)
        self.viewer_bot = False  # True: viewer is a Bot whatever its login (a login answered without [bot])
        self.protection_contexts = True   # False: branch protection lists its checks under checks only
        self.protection_checks = True     # False: under contexts only (no checks key: an older server)
        self.protection_reviews: dict[str, int] = {}   # branch -> required approving reviews (branch protection)
        self.rule_extra: dict[str, list[dict]] = {}   # branch -> more ruleset rules (pull_request, merge_queue)
        self.reviews: dict[tuple[str, int], list[dict]] = {}   # (repository, PR) -> reviews, oldest first
        self.fail_paths: dict[str, int] = {}
        self.fail_messages: dict[str, str] = {}   # path -> the message of that answer   # path -> HTTP status answered instead (a token that may not read it)

    def _pull_json(self, r, n, *args):
        pr = super()._pull_json(r, n, *args)
        pr.update({"node_id": f"PR_node{n}", "auto_merge": None})
        return pr

    def add_issue(self, full_name: str, *, title: str, body: str, labels=(), user: Optional[str] = None) -> dict:
        r = self.repo(full_name)
        n = r.next_number
        r.next_number += 1
        i = f"{self.url}/repos/{full_name}/issues/{n}"
        issue = {"number": n, "id": n * 10, "node_id": f"I_node{n}", "title": title, "body": body, "state": "open",
                 "labels": [self._label(x, full_name) for x in labels],
                 "user": self._user(user or self.bot_login, "Bot" if (user or self.bot_login).endswith("[bot]")
                                    else "User"),
                 "html_url": f"https://github.com/{full_name}/issues/{n}", "url": i, "locked": False,
                 "assignee": None, "assignees": [], "milestone": None, "comments": 0, "closed_at": None,
                 "labels_url": f"{i}/labels{{/name}}", "comments_url": f"{i}/comments", "events_url": f"{i}/events",
                 "repository_url": f"{self.url}/repos/{full_name}", "author_association": "NONE",
                 "created_at": "2026-01-01T00:00:00Z", "updated_at": "2026-01-01T00:00:00Z"}
        self.issues.setdefault(full_name, {})[n] = issue
        return issue

    def edit_issue(self, full_name: str, number: int, body: str, login: str) -> dict:
        """``login`` edits the body of issue ``number`` (not a request of the bot: a person in the web UI)."""
        i = self.issues[full_name][number]
        i["body"], i["editor"] = body, login
        return i

    def edit_comment(self, full_name: str, comment_id: int, body: str, login: str) -> dict:
        """``login`` edits issue comment ``comment_id`` (a person in the web UI)."""
        c = next(c for cs in self.repo(full_name).comments.values() for c in cs if c["id"] == comment_id)
        c["body"], c["editor"] = body, login
        return c

    def add_comment(self, full_name: str, number: int, body: str, login: str) -> dict:
        """``login`` comments on issue ``number`` (a person, or another account)."""
        cid = self._id()
        c = {"id": cid, "node_id": f"IC_{cid}", "body": body,
             "user": self._user(login, "Bot" if login.endswith("[bot]") else "User"),
             "created_at": "2026-01-01T00:00:00Z", "updated_at": "2026-01-01T00:00:00Z"}
        self.repo(full_name).comments.setdefault(number, []).append(c)
        return c

    def add_review(self, full_name: str, number: int, login: str, state: str, commit_id: str = "") -> dict:
        """``login`` reviews PR ``number`` (``state``: ``APPROVED``, ``CHANGES_REQUESTED``, ``COMMENTED``), as
        "List reviews for a pull request" then shows it; returns the review."""
        rid = self._id()
        r = {"id": rid, "node_id": f"PRR_{rid}", "user": self._user(login), "body": "", "state": state.upper(),
             "commit_id": commit_id or "0" * 40, "author_association": "MEMBER", "submitted_at": "2026-01-01T00:00:00Z",
             "html_url": f"https://github.com/{full_name}/pull/{number}#pullrequestreview-{rid}",
             "pull_request_url": f"{self.url}/repos/{full_name}/pulls/{number}",
             "_links": {"html": {"href": f"https://github.com/{full_name}/pull/{number}#pullrequestreview-{rid}"},
                        "pull_request": {"href": f"{self.url}/repos/{full_name}/pulls/{number}"}}}
        self.reviews.setdefault((full_name, number), []).append(r)
        return r

    def dismiss_review(self, full_name: str, number: int, review_id: int) -> None:
        """A dismissal: the review's state becomes ``DISMISSED`` (REST "Dismiss a review for a pull request")."""
        for r in self.reviews.get((full_name, number), []):
            if r["id"] == review_id:
                r["state"] = "DISMISSED"

    def _me(self) -> str:
        """The token's account as REST names it (``NAME[bot]`` for a bot)."""
        me = self.viewer or self.bot_login
        return me + "[bot]" if self.viewer_bot and not me.endswith("[bot]") else me

    @staticmethod
    def _actor(login):
        if not login:
            return None
        bot = login.endswith("[bot]")
        return {"__typename": "Bot" if bot else "User", "login": login[:-5] if bot else login}

    def _dashboard_state(self, var: dict):
        full = f"{var.get('owner')}/{var.get('name')}"
        issue = self.issues.get(full, {}).get(var.get("number"))
        if issue is None:
            return self._json({"data": {"repository": {"issue": None}},
                               "errors": [{"type": "NOT_FOUND", "message": "Could not resolve to an Issue"}]})
        me = self._me()
        cs = self.repo(full).comments.get(issue["number"], [])
        start = int(var.get("after") or 0)
        page = cs[start:start + 100]
        more = start + 100 < len(cs)
        return self._json({"data": {"repository": {"issue": {
            "viewerDidAuthor": issue["user"]["login"] == me, "author": self._actor(issue["user"]["login"]),
            "editor": self._actor(issue.get("editor")),
            "body": issue["body"],
            # endCursor: the cursor of the page's last item, given whenever the page has one (GraphQL "Pagination")
            "comments": {"pageInfo": {"hasNextPage": more, "endCursor": str(start + len(page)) if page else None},
                         "nodes": [{"databaseId": c["id"], "viewerDidAuthor": c["user"]["login"] == me,
                                    "author": self._actor(c["user"]["login"]),
                                    "editor": self._actor(c.get("editor")), "body": c["body"]} for c in page]}}}}})

    def writes(self) -> list:
        """Every request that is not a GET, nor a GraphQL query (a GraphQL read is a POST too)."""
        return [s for s in self.requests if s.method != "GET" and not (
            s.path == "/graphql" and not str((s.body or {}).get("query", "")).lstrip().startswith("mutation"))]

    def _route(self, req, body):  # noqa: C901 - a router
        p, m = req.path, req.method
        if p == "/graphql" and m == "POST":
            return self._graphql(body or {})
        if p in self.fail_paths:
            return self._json({"message": self.fail_messages.get(p, "Resource not accessible by integration")},
                              self.fail_paths[p])
        mm = re.fullmatch(r"/repos/([^/]+/[^/]+)(/.*)?", p)
        if not mm or mm.group(1) not in self.repos:
            return super()._route(req, body)
        full, rest = mm.group(1), mm.group(2) or ""
        if m == "GET" and rest == "":
            r = self.repos[full]
            return self._json({**self._repo_json(full), **self.settings})
        if m == "GET" and (mm := re.fullmatch(r"/collaborators/([^/]+)/permission", rest)):
            role = self.roles.get(mm.group(1), "read")
            perm = {"maintain": "write", "triage": "read"}.get(role, role)
            return self._json({"permission": perm, "role_name": role,
                               "user": {**self._user(mm.group(1)), "role_name": role}})
        if m == "POST" and (mm := re.fullmatch(r"/issues/comments/(\d+)/reactions", rest)):
            self.reactions.setdefault(int(mm.group(1)), []).append(body["content"])
            rid = self._id()
            return self._json({"id": rid, "node_id": f"REA_{rid}", "content": body["content"],
                               "user": self._user(self.bot_login, "Bot"), "created_at": "2026-01-01T00:00:00Z"}, 201)
        if m == "GET" and (mm := re.fullmatch(r"/branches/([^/]+)", rest)):
            checks = self.protection.get(mm.group(1))
            b = f"{self.url}/repos/{full}/branches/{mm.group(1)}"
            data = {"name": mm.group(1), "protected": checks is not None, "protection_url": f"{b}/protection",
                    "commit": self._commit_json(full, mm.group(1)),
                    "_links": {"self": b, "html": f"https://github.com/{full}/tree/{mm.group(1)}"},
                    "protection": {"enabled": False}}
            if checks is not None:
                data["protection"] = {"enabled": True, "required_status_checks": {
                    "enforcement_level": "non_admins", "contexts": list(checks) if self.protection_contexts else [],
                    "checks": [{"context": c, "app_id": None} for c in checks]}}
                if not self.protection_checks:
                    del data["protection"]["required_status_checks"]["checks"]
                if mm.group(1) in self.protection_reviews:
                    data["protection"]["required_pull_request_reviews"] = {
                        "dismiss_stale_reviews": False, "require_code_owner_reviews": False,
                        "required_approving_review_count": self.protection_reviews[mm.group(1)]}
            return self._json(data)
        if m == "GET" and (mm := re.fullmatch(r"/rules/branches/([^/]+)", rest)):
            checks = self.rules.get(mm.group(1))
            rules = [] if not checks else [{"type": "required_status_checks", "ruleset_source_type": "Repository",
                                            "ruleset_source": full, "ruleset_id": 1, "parameters": {
                "strict_required_status_checks_policy": False,
                "required_status_checks": [{"context": c} for c in checks]}}]
            base = {"ruleset_source_type": "Repository", "ruleset_source": full, "ruleset_id": 2}
            rules += [{**r, **base} if isinstance(r, dict) else r for r in self.rule_extra.get(mm.group(1), [])]
            return self._json(rules)
        if m == "GET" and (mm := re.fullmatch(r"/pulls/(\d+)/reviews", rest)):
            # "List reviews for a pull request": chronological, paginated
            return self._paginate(req, self.reviews.get((full, int(mm.group(1))), []))
        issues = self.issues.setdefault(full, {})
        if rest == "/issues" and m == "GET":
            want = [x for x in (req.args.get("labels") or "").split(",") if x]
            state = req.args.get("state", "open")
            creator = req.args.get("creator")
            found = [i for i in issues.values() if (state == "all" or i["state"] == state)
                     and (creator is None or i["user"]["login"] == creator)
                     and all(w in [lab["name"] for lab in i["labels"]] for w in want)]
            return self._paginate(req, sorted(found, key=lambda i: -i["number"]))
        if rest == "/issues" and m == "POST":
            i = self.add_issue(full, title=body["title"], body=body.get("body", ""), labels=body.get("labels", []))
            return self._json(i, 201)
        if (mm := re.fullmatch(r"/issues/(\d+)", rest)) and int(mm.group(1)) in issues:
            i = issues[int(mm.group(1))]
            if m == "PATCH":
                for k in ("title", "body", "state"):
                    if k in body:
                        i[k] = body[k]
                if "body" in body:
                    i["editor"] = self._me()
            return self._json(i)
        return super()._route(req, body)

    def _graphql(self, body: dict):
        self.graphql.append(body)
        query, var = body.get("query", ""), body.get("variables") or {}
        if query.lstrip().startswith("query DashboardState("):
            return self._dashboard_state(var)
        if re.search(r"\bviewer\s*\{\s*login(\s+__typename)?\s*\}", query) and "mutation" not in query:
            me = self.viewer or self.bot_login
            data = {"login": me}
            if "__typename" in query:
                data["__typename"] = "Bot" if me.endswith("[bot]") or self.viewer_bot else "User"
            return self._json({"data": {"viewer": data}})
        pr = next((x for r in self.repos.values() for x in r.pulls.values() if x.get("node_id") == var.get("id")), None)
        if pr is None:
            return self._json({"data": None, "errors": [{"type": "NOT_FOUND", "message": "Could not resolve to a node"}]})
        if "enablePullRequestAutoMerge" in query:
            if not self.settings.get("allow_auto_merge"):
                return self._json({"data": None, "errors": [{"message": "Auto merge is not allowed for this repository"}]})
            if "expectedHeadOid" in query and var.get("head") != pr["head"]["sha"]:
                return self._json({"data": None, "errors": [{"type": "UNPROCESSABLE",
                                                             "message": "Head sha didn't match expected head sha"}]})
            pr["auto_merge"] = {"merge_method": var["method"].lower(), "enabled_by": self._user(self.bot_login, "Bot"),
                                 "commit_title": pr.get("title", ""), "commit_message": ""}
        elif "disablePullRequestAutoMerge" in query:
            pr["auto_merge"] = None
        else:
            return self._json({"errors": [{"message": "unknown query"}]})
        return self._json({"data": {"x": {"pullRequest": {"number": pr["number"]}}}})
