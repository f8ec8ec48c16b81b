"""GitHub as the fleet plan asks it: conditional GETs, a request count, and "not visible" kept apart.

Every GET goes through PyGithub's requester (auth, base URL, timeouts, and the
bot's retries: 5xx, 429 and the secondary-rate-limit 403 honouring
``Retry-After``, :func:`bot.github.client.make_retry`) inside
:func:`bot.github.client.call`; a host that cannot be reached at all (a name
that does not resolve, a refused connection, a refusing proxy) is not retried:
:class:`bot.github.client.Unreachable` at the first attempt, which the plan
does not pause for either (:mod:`bot.fleet.plan`).  A GET with a cached ETag is sent with
``If-None-Match``; a ``304 Not Modified`` reuses what the cache kept of the
earlier answer (GitHub REST docs, "Best practices for using the REST API":
a 304 does not count against the primary rate limit).  A 404 is returned as
:data:`MISSING`: GitHub answers 404 for a repository the token cannot see
(private and not installed) as for one that does not exist (GitHub REST docs,
"Troubleshooting the REST API").
"""

from __future__ import annotations

import json
from typing import Callable, Optional
from urllib.parse import urlencode

from bot.errors import PlatformError, TransientError
from bot.fleet.cache import FleetCache
from bot.github.client import RetryPolicy, call

MISSING = object()   # GitHub answered 404
MAX_PAGES = 50


def wait_hint(headers: dict, now: Optional[float] = None) -> Optional[float]:
    """Seconds GitHub asked a client to wait before its next request, from the headers of a refusal (403, 429),
    or None when they say nothing.

    GitHub REST docs, "Rate limits for the REST API" ("Exceeding the rate
    limit"): a ``retry-after`` header gives the seconds to wait (HTTP also
    allows an HTTP date there: RFC 9110, "Retry-After"; both parsed by
    urllib3's ``Retry.parse_retry_after``); otherwise, when
    ``x-ratelimit-remaining`` is ``0``, wait until ``x-ratelimit-reset``
    (UTC epoch seconds).  ``now``: epoch seconds (default the clock).  A
    header that is neither form is ignored.
    """
    import time

    from urllib3.exceptions import InvalidHeader
    from urllib3.util.retry import Retry

    low = {str(k).lower(): str(v) for k, v in (headers or {}).items()}
    if "retry-after" in low:
        try:
            return float(Retry().parse_retry_after(low["retry-after"].strip()))
        except (InvalidHeader, ValueError, OverflowError):
            pass
    if low.get("x-ratelimit-remaining", "").strip() == "0":
        reset = low.get("x-ratelimit-reset", "").strip()
        if reset.isascii() and reset.isdigit() and len(reset) <= 12:   # "²" is a digit to str.isdigit, not to int
            return max(0.0, int(reset) - (time.time() if now is None else now))
    return None


class Remote:
    """Conditional GETs against one GitHub API (``gh``: a ``github.Github``), counted in :attr:`requests`.

    ``conditional`` counts the requests sent with ``If-None-Match`` and
    ``not_modified`` the 304s among them.
    """

    def __init__(self, gh, cache: FleetCache, policy: Optional[RetryPolicy] = None):
        self.gh = gh
        self.cache = cache
        self.policy = policy
        self.requests = 0
        self.conditional = 0
        self.not_modified = 0

    def _raw(self, url: str, params: Optional[dict], etag: Optional[str], what: str):
        from github import GithubException

        req = self.gh.requester
        last: dict = {}

        def once():
            self.requests += 1
            headers = {"If-None-Match": etag} if etag else None
            status, hdrs, body = req.requestJson("GET", url, parameters=params, headers=headers)
            if status in (304, 404):
                return status, hdrs, None
            if status >= 400:
                last["headers"] = hdrs
                try:
                    data = json.loads(body) if body else {}
                except ValueError:
                    data = {"message": body}
                raise GithubException(status, data, hdrs)
            try:
                return status, hdrs, json.loads(body)
            except ValueError:
                raise PlatformError(f"cannot {what}: GitHub answered HTTP {status} with a body that is not JSON") from None

        if etag:
            self.conditional += 1
        try:
            # a callable makes a fresh policy per request (bot.fleet.plan.Budget.policy: bounded by the plan's time)
            status, hdrs, data = call(once, what, self.policy() if callable(self.policy) else self.policy)
        except TransientError as exc:
            exc.wait = wait_hint(last.get("headers") or {})   # what GitHub asked for, read by the plan's pause
            raise
        if status == 304:
            self.not_modified += 1
        return status, {k.lower(): v for k, v in hdrs.items()}, data

    def _conditional(self, key: str, path: str, params: Optional[dict], what: str,
                     check: Callable[[object], bool]) -> tuple:
        """``GET path?params`` with the ETag cached under ``key`` (when ``check`` accepts its value) as
        ``If-None-Match``.  Returns ``(done, status, headers, data)``: ``done`` with ``data`` the cached value
        on a 304, or :data:`MISSING` on a 404; otherwise the fresh answer for the caller to keep.  Raises
        :class:`~bot.errors.PlatformError` for a 304 to an unconditional request."""
        cached = self.cache.etag(key)
        if cached is not None and not check(cached["value"]):
            cached = None
        status, hdrs, data = self._raw(path, params, cached["etag"] if cached else None, what)
        if status == 304 and cached is not None:
            return True, status, hdrs, cached["value"]
        if status == 304:
            raise PlatformError(f"cannot {what}: GitHub answered 304 Not Modified to an unconditional request")
        if status == 404:
            return True, status, hdrs, MISSING
        return False, status, hdrs, data

    def get(self, path: str, params: Optional[dict] = None, *, what: str,
            keep: Callable[[object], object] = lambda data: data, remember: bool = True,
            check: Callable[[object], bool] = lambda value: True):
        """``keep(JSON answer)`` of ``GET path?params``, or :data:`MISSING` for a 404.

        With an ETag cached for this request, it is sent as ``If-None-Match`` and a
        304 returns the kept value of the earlier answer; ``remember=False`` keeps
        no ETag (a file's content, cached by its blob sha instead).  A cached value that
        ``check`` refuses (a damaged or edited cache file) is not used: the request is sent
        without ``If-None-Match``.  Raises
        :class:`~bot.errors.PlatformError` for another refusal and
        :class:`~bot.errors.TransientError` when the retries are used up.
        """
        key = path + ("?" + urlencode(sorted(params.items())) if params else "")
        done, status, hdrs, data = self._conditional(key, path, params, what, check)
        if done:
            return data
        value = keep(data)
        if remember and hdrs.get("etag") and "link" not in hdrs:   # one page: the whole answer is in the kept value
            self.cache.put_etag(key, hdrs["etag"], value)
        return value

    def get_pages(self, path: str, params: dict, *, what: str, keep: Callable[[list], list],
                  check: Callable[[object], bool] = lambda value: isinstance(value, list)):
        """Every page of a list answer (``Link: rel="next"``), each page's items through ``keep``, read by the one
        reader :func:`bot.github.pages.follow` (a :class:`~bot.github.pages.Listing`: ``complete`` False and a
        warning when :data:`MAX_PAGES` cut it).

        The first page is conditional; an answer that fitted in one page is kept
        with its ETag, so a 304 returns it (a listing of several pages is asked
        again whole: page 1 unchanged says nothing of page 2).  A cached value that ``check``
        refuses is not used, as in :meth:`get`.  Returns
        :data:`MISSING` for a 404.
        """
        from bot.github import pages

        key = path + "?" + urlencode(sorted(params.items())) + "#pages"
        done, status, hdrs, data = self._conditional(key, path, params, what, check)
        if done:
            return data
        if not isinstance(data, list):
            raise PlatformError(f"cannot {what}: GitHub answered with JSON that is not a list")
        first_etag = hdrs.get("etag")

        def page(url: str):
            status, hdrs, data = self._raw(url, None, None, what)
            if status != 200 or not isinstance(data, list):
                raise PlatformError(f"cannot {what}: a later page answered HTTP {status}")
            return hdrs, data

        items = pages.follow((hdrs, data), page, what=what, max_pages=MAX_PAGES, items=lambda d: list(keep(d)))
        seen = items.pages > 1
        if first_etag and not seen:
            self.cache.put_etag(key, first_etag, items)
        return items
