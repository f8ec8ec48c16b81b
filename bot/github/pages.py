"""The one reader of lists taken from GitHub: every page, to the end, within a stated bound.

Rule: every list the bot reads from GitHub (pull requests, issues, comments,
reviews, releases, branches, the repositories of an organization or an
installation, the events of an issue, a GraphQL connection) is read through
this module, which follows the pages to the end, stops at a stated bound,
and says when the bound cut the list short: a ``::warning`` in the job log
(:func:`bot.actions.warning`) and :attr:`Listing.complete` ``False`` in the
result.  tests/test_every_list_read_to_its_end.py finds every list call in
``bot/`` and fails on one that does not go through here.

Facts (GitHub docs):

- REST, "Using pagination in the REST API": a list answer holds at most
  ``per_page`` items (default 30, at most 100); when more follow, the
  ``Link`` header (RFC 8288) names the next page with ``rel="next"``, and
  the last page has no ``rel="next"``.  The next URL is followed as given
  (it carries every query parameter of the first request).
- GraphQL, "Using pagination in the GraphQL API": a connection is asked
  with ``first`` (at most 100) and ``after``; ``pageInfo { hasNextPage
  endCursor }`` says whether more follow and where the next page starts.
- PyGithub: ``PaginatedList`` fetches the next page (by the ``Link``
  header) lazily while it is iterated, with ``per_page`` from the
  ``Github`` object (the bot sets 100: :func:`bot.github.client.github`);
  :func:`every` iterates it and stops at the bound.

A list that repeats a page URL (or cursor) is a fault of the server, not a
long list: :class:`~bot.errors.PlatformError`.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Optional

from bot.errors import PlatformError

PER_PAGE = 100
"""GitHub's largest page, REST and GraphQL alike."""
MAX_PAGES = 100
"""The default bound: 100 pages, 10,000 items at ``per_page=100``.  A caller may state another."""


class Listing(list):
    """The items of a list read from GitHub, in GitHub's order.

    ``complete`` is False when the bound (``max_pages`` pages) stopped the
    reading before the last page; ``pages`` is how many pages were read;
    ``what`` says what was listed ("list pull requests of acme/fw").
    """

    def __init__(self, items: Iterable = (), *, complete: bool = True, pages: int = 0, what: str = ""):
        super().__init__(items)
        self.complete = complete
        self.pages = pages
        self.what = what

    @property
    def cut_note(self) -> str:
        """The sentence saying the list was cut short ("" when it is complete)."""
        if self.complete:
            return ""
        return (f"{self.what}: stopped after {self.pages} pages ({len(self)} items), the bound of this reader; "
                "later items were not read")


def _said(listing: Listing, warn: Optional[Callable[[str], None]]) -> Listing:
    if not listing.complete:
        if warn is None:
            from bot.actions import warning
            warn = warning
        warn(listing.cut_note)
    return listing


def next_link(headers: dict) -> Optional[str]:
    """The ``rel="next"`` URL of a ``Link`` header (RFC 8288), or None (the last page)."""
    link = {str(k).lower(): v for k, v in (headers or {}).items()}.get("link")
    if not link:
        return None
    for part in str(link).split(","):
        seg = part.split(";")
        if len(seg) >= 2 and any(s.strip() == 'rel="next"' for s in seg[1:]):
            return seg[0].strip().strip("<>")
    return None


def follow(first: tuple, fetch: Callable[[str], tuple], *, what: str, max_pages: int = MAX_PAGES,
           items: Callable[[Any], list] = lambda data: data,
           warn: Optional[Callable[[str], None]] = None) -> Listing:
    """Every page of a REST list answer, the first page already fetched.

    ``first`` is ``(headers, data)`` of the first page; ``fetch(url)`` gets a
    next page (the ``Link`` URL as given) and returns ``(headers, data)``;
    ``items(data)`` turns a page's JSON into its list of items (raise
    PlatformError for a page that is not a list).  Stops after ``max_pages``
    pages, warning and marking the result incomplete.  Raises
    :class:`PlatformError` when the ``Link`` header repeats a page.
    """
    hdrs, data = first
    out = Listing(items(data), pages=1, what=what)
    seen: set = set()
    nxt = next_link(hdrs)
    while nxt:
        if nxt in seen:
            raise PlatformError(f"cannot {what}: the Link header's next page repeats after {out.pages} pages")
        if out.pages >= max_pages:
            out.complete = False
            break
        seen.add(nxt)
        hdrs, data = fetch(nxt)
        out.extend(items(data))
        out.pages += 1
        nxt = next_link(hdrs)
    return _said(out, warn)


def rest(requester, path: str, params: Optional[dict] = None, *, what: str, call: Callable,
         max_pages: int = MAX_PAGES, items: Optional[Callable[[Any], list]] = None,
         warn: Optional[Callable[[str], None]] = None) -> Listing:
    """Every item of ``GET path?params`` (``per_page=100`` unless given) through PyGithub's ``requester``
    (``requestJsonAndCheck``: auth, base URL, timeouts), each request inside ``call(fn, what)``
    (:func:`bot.github.client.call`: retries, the token masked).  ``items(data)``: a page's items (default: the
    page itself, PlatformError for an answer that is not a JSON list).  Raises PlatformError as ``call`` does."""
    params = {"per_page": PER_PAGE, **(params or {})}

    def listed(data):
        if not isinstance(data, list):
            raise PlatformError(f"cannot {what}: GitHub answered with JSON that is not a list")
        return data

    items = items or listed

    def get(url, p):
        return call(lambda: requester.requestJsonAndCheck("GET", url, parameters=p), what)

    return follow(get(path, params), lambda url: get(url, None), what=what, max_pages=max_pages, items=items,
                  warn=warn)


def every(paginated, *, what: str, call: Callable, max_items: int = MAX_PAGES * PER_PAGE,
          warn: Optional[Callable[[str], None]] = None) -> Listing:
    """Every item of a PyGithub ``PaginatedList`` (``repo.get_pulls(...)``, ``pr.get_issue_comments()``, ...),
    iterated inside ``call(fn, what)``; at most ``max_items`` items (then the result is incomplete and a
    warning says so)."""
    def read():
        got, more = [], False
        for x in paginated:
            if len(got) >= max_items:
                more = True
                break
            got.append(x)
        return got, more

    got, more = call(read, what)
    per = PER_PAGE
    return _said(Listing(got, complete=not more, pages=-(-len(got) // per) or 1, what=what), warn)


def connection(fetch: Callable[[Optional[str]], Optional[dict]], *, what: str, max_pages: int = MAX_PAGES,
               until: Optional[Callable[[list], bool]] = None,
               warn: Optional[Callable[[str], None]] = None) -> Listing:
    """Every node of a GraphQL connection.  ``fetch(after)`` asks one page (``first: 100, after: $after``, None
    for the first) and returns the connection object (``{"nodes": [...], "pageInfo": {"hasNextPage",
    "endCursor"}}``), or None when the parent object is gone (then the listing is empty).  ``until(nodes)``:
    a search that may stop once a page's nodes hold what it looks for (the listing is then complete for the
    search).  Raises PlatformError when a cursor repeats or a page claims more without a cursor."""
    out = Listing(what=what)
    after: Optional[str] = None
    seen: set = set()
    while True:
        if out.pages >= max_pages:
            out.complete = False
            break
        conn = fetch(after)
        if conn is None:
            break
        out.pages += 1
        nodes = [n for n in conn.get("nodes") or () if isinstance(n, dict)]
        out.extend(nodes)
        if until is not None and until(nodes):
            break
        info = conn.get("pageInfo") or {}
        if not info.get("hasNextPage"):
            break
        after = info.get("endCursor")
        if not isinstance(after, str) or not after or after in seen:
            raise PlatformError(f"cannot {what}: GitHub's pageInfo names no new endCursor after page {out.pages}")
        seen.add(after)
    return _said(out, warn)
