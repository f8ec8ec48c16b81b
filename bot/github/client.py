"""PyGithub construction, bounded retries for transient faults, and token masking.

Facts (GitHub REST docs, "Rate limits for the REST API"; PyGithub#2422 = CASES.md C13):
a transient fault is an HTTP 5xx, a 429, or a 403 that is a rate limit,
which GitHub signals by a ``Retry-After`` header or a message such as
"You have exceeded a secondary rate limit".  PyGithub raises a plain
``GithubException`` (not ``RateLimitExceededException``) for the secondary
limit, so faults are classified by status, headers and message, never by
exception class.  Waits honour ``Retry-After`` but never exceed a cap
(``EXECUTORCH_PACK_BOT_MAX_WAIT`` seconds, default 60; the tests set 0),
and one operation waits at most ``TOTAL_WAITS`` (3) times that cap in all
(default 180 s): then it gives up, even with attempts left.

The token is given once to PyGithub (``Auth.Token``) and to
:func:`auth_header` for git; :func:`mask` removes it from any text
before it reaches a log line or an exception message.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Optional, TypeVar

from bot.errors import PlatformError, TransientError, UsageError

DEFAULT_API_URL = "https://api.github.com"
DEFAULT_TIMEOUT = 30.0
UNCHANGED = "nothing was changed; the run can be repeated"   # ends every transient failure (exit 3)
TOTAL_WAITS = 3   # one operation's waits add up to at most this many times the cap
T = TypeVar("T")

_SECRETS: set[str] = set()


def register_secret(secret: Optional[str]) -> None:
    """Remember a secret (the token) so :func:`mask` hides it everywhere."""
    if secret:
        _SECRETS.add(secret)


def mask(text: str) -> str:
    """``text`` with every registered secret replaced by ``***``."""
    for s in _SECRETS:
        if s:
            text = text.replace(s, "***")
    return text


def token_from(arg: Optional[str], env: Mapping[str, str] = os.environ) -> Optional[str]:
    """The token from ``--token`` or ``GITHUB_TOKEN`` (None: anonymous public reads); registered for masking."""
    tok = (arg or env.get("GITHUB_TOKEN") or "").strip() or None
    register_secret(tok)
    return tok


def api_url(env: Mapping[str, str] = os.environ) -> str:
    """The REST base URL: ``GITHUB_API_URL`` (GitHub Enterprise, the fake server) or api.github.com.

    Raises :class:`~bot.errors.UsageError` when the variable is not an
    ``http(s)://HOST[/PATH]`` URL.
    """
    from urllib.parse import urlsplit

    url = (env.get("GITHUB_API_URL") or DEFAULT_API_URL).strip().rstrip("/")
    try:
        parts = urlsplit(url)
        parts.port   # noqa: B018 - raises ValueError for a port that is not a number
        ok = parts.scheme in ("http", "https") and bool(parts.hostname) and not parts.query and not parts.fragment
    except ValueError:
        ok = False
    if not ok:
        raise UsageError(mask(f"GITHUB_API_URL={url!r} is not an http(s)://HOST URL"))
    return url


def env_number(env: Mapping[str, str], name: str, default: float, *, integer: bool = False,
               minimum: float = 0) -> float:
    """The number in environment variable ``name`` (``default`` when unset or empty).

    Raises :class:`~bot.errors.UsageError` naming the variable when the value
    is not a finite number (a whole number with ``integer``) of at least ``minimum``.
    """
    import math

    raw = (env.get(name) or "").strip()
    if not raw:
        return default
    try:
        value = int(raw) if integer else float(raw)
    except ValueError:
        value = None
    if value is None or not math.isfinite(value) or value < minimum:
        kind = "a whole number" if integer else "a number of seconds"
        raise UsageError(f"{name}={raw!r} is not {kind} of at least {minimum:g}")
    return value


def _is_rate_limit_message(message: str) -> bool:
    m = (message or "").lower()
    return ("rate limit" in m or "please retry your request again later" in m
            or "wait a few minutes before you try again" in m)


@dataclass
class RetryPolicy:
    """When and how long to wait before retrying a request.

    Attributes:
        attempts: total tries (first one included).
        backoff: base of the exponential backoff in seconds (``backoff * 2**n``).
        max_wait: cap in seconds on any single wait, ``Retry-After`` included.
        sleep: the sleeping function (tests pass a recorder).
        waits: the seconds waited so far by the operation using this policy;
            their sum never exceeds :attr:`max_total` (``TOTAL_WAITS * max_wait``).

    Use one policy per operation (:meth:`from_env` makes a fresh one).
    """

    attempts: int = 5
    backoff: float = 1.0
    max_wait: float = 60.0
    sleep: Callable[[float], None] = field(default=time.sleep, repr=False)
    waits: list = field(default_factory=list, repr=False)

    @classmethod
    def from_env(cls, env: Mapping[str, str] = os.environ) -> "RetryPolicy":
        """Policy with the cap from ``EXECUTORCH_PACK_BOT_MAX_WAIT`` (seconds) and attempts from
        ``EXECUTORCH_PACK_BOT_ATTEMPTS`` when set."""
        p = cls()
        p.max_wait = env_number(env, "EXECUTORCH_PACK_BOT_MAX_WAIT", p.max_wait)
        p.backoff = min(p.backoff, p.max_wait)
        p.attempts = int(env_number(env, "EXECUTORCH_PACK_BOT_ATTEMPTS", p.attempts, integer=True, minimum=1))
        return p

    @staticmethod
    def is_transient(status: Optional[int], message: str = "", headers: Optional[Mapping[str, str]] = None) -> bool:
        """True for 5xx, 429, and a 403 that carries ``Retry-After``, ``X-RateLimit-Remaining: 0`` or a
        rate-limit message (GitHub REST docs, "Rate limits for the REST API")."""
        headers = {k.lower(): v for k, v in (headers or {}).items()}
        if status is None:
            return False
        if status >= 500 or status == 429:
            return True
        if status == 403:
            return ("retry-after" in headers or str(headers.get("x-ratelimit-remaining", "")).strip() == "0"
                    or _is_rate_limit_message(message))
        return False

    def delay(self, attempt: int, headers: Optional[Mapping[str, str]] = None, now: Optional[float] = None) -> float:
        """Seconds to wait before try ``attempt + 1`` (0-based ``attempt``), capped by ``max_wait``.

        ``Retry-After`` in seconds or as an HTTP date (RFC 9110 section
        10.2.3); else, when ``X-RateLimit-Remaining`` is 0, until
        ``X-RateLimit-Reset`` (epoch seconds; GitHub REST docs); else
        exponential backoff.  ``now`` is the epoch time (default: the clock).
        """
        headers = {k.lower(): str(v) for k, v in (headers or {}).items()}
        now = time.time() if now is None else now
        wait = self.backoff * (2 ** attempt)
        ra = headers.get("retry-after", "").strip()
        reset = headers.get("x-ratelimit-reset", "").strip()
        if ra:
            wait = _retry_after(ra, now, wait)
        elif headers.get("x-ratelimit-remaining", "").strip() == "0" and reset:
            try:
                wait = float(reset) - now
            except ValueError:
                pass
        if wait != wait:   # NaN
            wait = self.max_wait
        return max(0.0, min(wait, self.max_wait))

    @property
    def max_total(self) -> float:
        """Seconds one operation may wait in all: ``TOTAL_WAITS * max_wait``."""
        return TOTAL_WAITS * self.max_wait

    def wait(self, attempt: int, headers: Optional[Mapping[str, str]] = None) -> bool:
        """Sleep before try ``attempt + 1``; False (no sleep) when the operation's total wait is used up.

        The last wait is shortened to what is left of :attr:`max_total`; the
        caller gives up on False.
        """
        d = self.delay(attempt, headers)
        left = self.max_total - sum(self.waits)
        if d > left:
            if left <= 0:
                return False
            d = left
        self.waits.append(d)
        self.sleep(d)
        return True

    def gave_up(self, what: str, tries: int, last: str) -> str:
        """The message of an operation that failed for good after ``tries`` attempts (token masked)."""
        spent = sum(self.waits)
        budget = f"; waited {spent:g} s in all, the limit" if spent and spent >= self.max_total else ""
        return mask(f"gave up trying to {what} after {tries} attempts (last: {last}){budget}; {UNCHANGED}")


def _retry_after(value: str, now: float, default: float) -> float:
    """Seconds named by a ``Retry-After`` value: delay-seconds or an HTTP date; ``default`` when unreadable."""
    from email.utils import parsedate_to_datetime

    try:
        return float(value)
    except ValueError:
        pass
    try:
        return parsedate_to_datetime(value).timestamp() - now
    except (TypeError, ValueError, IndexError, OverflowError):
        return default


def _exc_details(exc: Exception) -> tuple[Optional[int], str, dict]:
    """(status, message, headers) of a PyGithub or requests exception."""
    status = getattr(exc, "status", None)
    data = getattr(exc, "data", None)
    message = ""
    if isinstance(data, dict):
        message = str(data.get("message", ""))
        details = [e.get("message") or e.get("code") for e in data.get("errors") or () if isinstance(e, dict)]
        details = [str(d) for d in details if d]
        if details:   # a 422 "Validation Failed" says why only here (GitHub REST docs, "Client errors")
            message += " (" + "; ".join(details) + ")"
    elif data:
        message = str(data)
    headers = dict(getattr(exc, "headers", None) or {})
    return status, message, headers


def _transient_request_errors() -> tuple:
    """``requests`` faults worth retrying: the connection broke, timed out, or the body arrived damaged."""
    import requests

    return (requests.ConnectionError, requests.Timeout, requests.exceptions.ChunkedEncodingError,
            requests.exceptions.ContentDecodingError)


def call(fn: Callable[[], T], what: str, policy: Optional[RetryPolicy] = None) -> T:
    """Run ``fn()`` (one GitHub operation through PyGithub), retrying transient faults.

    ``what`` names the operation for messages ("create the pull request for
    bot/executorch-1.5.1").  Connection errors and timeouts are transient too.
    Raises :class:`PlatformError` (token masked) when the operation fails for
    good or the attempts are used up.
    """
    import requests
    from github import GithubException

    policy = policy or RetryPolicy.from_env()
    last = ""
    for attempt in range(policy.attempts):
        try:
            return fn()
        except GithubException as exc:
            status, message, headers = _exc_details(exc)
            last = f"HTTP {status}: {message or 'no message'}"
            if not policy.is_transient(status, message, headers):
                err = PlatformError(mask(f"GitHub refused to {what}: {last}"))
                err.reason = mask(last)   # GitHub's answer alone, for a decoration's warning
                raise err from None
        except requests.RequestException as exc:
            last = f"{type(exc).__name__}"
            if not isinstance(exc, _transient_request_errors()):
                raise PlatformError(mask(f"cannot {what}: {type(exc).__name__}: {exc}")) from None
            headers = None
        if attempt + 1 >= policy.attempts or not policy.wait(attempt, headers):
            raise TransientError(policy.gave_up(what, attempt + 1, last))
    raise TransientError(policy.gave_up(what, 0, "no attempt was allowed"))


def make_github(token: Optional[str] = None, base_url: Optional[str] = None, *,
                timeout: float = DEFAULT_TIMEOUT, write_pause: Optional[float] = None):
    """A ``github.Github`` for ``base_url`` (default :func:`api_url`).

    PyGithub's own retry is off (``retry=None``): :func:`call` retries whole
    operations with the policy above.  Objects are lazy (no request until a
    value is needed), so ``get_repo`` costs no request.  ``write_pause``
    seconds between writes (PyGithub's courtesy pause against secondary rate
    limits) defaults to ``EXECUTORCH_PACK_BOT_WRITE_PAUSE`` or 1.0.
    """
    from github import Auth, Github

    register_secret(token)
    base_url = base_url or api_url()
    if write_pause is None:
        write_pause = env_number(os.environ, "EXECUTORCH_PACK_BOT_WRITE_PAUSE", 1.0)
    return Github(auth=Auth.Token(token) if token else None, base_url=base_url,
                  timeout=int(max(1, timeout)), retry=None, per_page=100, lazy=True,
                  seconds_between_requests=None, seconds_between_writes=write_pause or None,
                  user_agent="executorch-pack-bot")


def http_get(session, url: str, *, what: str, policy: Optional[RetryPolicy] = None,
             headers: Optional[dict] = None, stream: bool = False, timeout: float = DEFAULT_TIMEOUT,
             ok: tuple[int, ...] = (200,), allow_redirects: bool = True):
    """GET with ``requests`` and the same retry policy; returns the response whose status is in ``ok``.

    A 404 (or other non-transient status outside ``ok``) is returned too when
    404 is in ``ok``; otherwise raises :class:`PlatformError` naming ``what``.
    ``allow_redirects=False`` returns a 3xx as is (put its status in ``ok``).
    """
    import requests

    policy = policy or RetryPolicy.from_env()
    last = ""
    for attempt in range(policy.attempts):
        try:
            r = session.get(url, headers=headers or {}, stream=stream, timeout=timeout,
                            allow_redirects=allow_redirects)
        except requests.RequestException as exc:
            last = type(exc).__name__
            if not isinstance(exc, _transient_request_errors()):
                raise PlatformError(mask(f"cannot {what}: {type(exc).__name__}: {exc}")) from None
            if attempt + 1 >= policy.attempts or not policy.wait(attempt, None):
                raise TransientError(policy.gave_up(what, attempt + 1, last))
            continue
        if r.status_code in ok:
            return r
        msg = ""
        try:
            msg = (r.json() or {}).get("message", "") if "json" in r.headers.get("content-type", "") else ""
        except ValueError:
            pass
        last = f"HTTP {r.status_code}{': ' + msg if msg else ''}"
        if not policy.is_transient(r.status_code, msg, r.headers):
            raise PlatformError(mask(f"cannot {what}: {last}"))
        r.close()
        if attempt + 1 >= policy.attempts or not policy.wait(attempt, r.headers):
            raise TransientError(policy.gave_up(what, attempt + 1, last))
    raise TransientError(policy.gave_up(what, 0, "no attempt was allowed"))


def session(token: Optional[str] = None):
    """A ``requests.Session`` with the bot's user agent (and the token for GitHub API URLs only)."""
    import requests

    s = requests.Session()
    s.headers["User-Agent"] = "executorch-pack-bot"
    if token:
        register_secret(token)
        s.headers["Authorization"] = f"Bearer {token}"
    return s
