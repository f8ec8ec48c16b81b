"""PyGithub construction, the retries (from the libraries), transient failures, and token masking.

Facts (GitHub REST docs, "Rate limits for the REST API"): a transient fault
is an HTTP 5xx, a 429, or a 403 that is a rate limit, which GitHub signals
by a ``Retry-After`` header or a message such as "You have exceeded a
secondary rate limit".  The retries are the libraries': PyGithub 2.x's
``GithubRetry`` (a urllib3 ``Retry`` that reads the 403's message and waits
``secondary_rate_wait`` for the secondary limit) on PyGithub's session, and
the same class on the ``requests`` adapter of downloads
(:func:`make_retry`), configured with one cap: no single wait exceeds
``EXECUTORCH_PACK_BOT_MAX_WAIT`` seconds (default 60; the tests set 0),
through ``retry_after_max``, ``backoff_max``, ``secondary_rate_wait`` and
``max_rate_limit_wait``; ``EXECUTORCH_PACK_BOT_ATTEMPTS`` tries in all.

Kept here, because neither library does it (each named in the docstring
that does it, with its test): the bound on the total wait of one operation
(``TOTAL_WAITS`` (3) times the cap: :class:`RetryPolicy`, ``BotRetry``),
and another try of a body that broke while it was read (:func:`call`,
:func:`http_get`, :func:`bot.github.assets.download_asset`).  A transient
failure that outlasts them is a :class:`~bot.errors.TransientError` (exit 3).

The token is given once to PyGithub (``Auth.Token``) and to
:func:`auth_header` for git; :func:`mask` removes it from any text
before it reaches a log line or an exception message.
"""

from __future__ import annotations

import contextvars
import functools
import os
import time
from dataclasses import dataclass, field
from typing import Callable, Mapping, Optional, TypeVar

from bot.errors import PlatformError, TransientError, UsageError

DEFAULT_API_URL = "https://api.github.com"
DEFAULT_TIMEOUT = 30.0
TOTAL_WAITS = 3   # one operation's waits add up to at most this many times the cap
T = TypeVar("T")

#: The shortest text :func:`mask` treats as a secret.  GitHub's tokens are 40 characters or more (a classic
#: token is 40 hex digits; ``ghp_``/``ghs_``/``github_pat_`` tokens are longer: GitHub docs, "About
#: authentication to GitHub", token formats), so a shorter value is a placeholder (``GITHUB_TOKEN=x`` for a
#: local try), not a secret: masking it would cut up ordinary words ("pro***y").  8 keeps a margin below any
#: real token while leaving alone the letters and short words a placeholder could be.
MIN_SECRET = 8

_SECRETS: set[str] = set()


def register_secret(secret: Optional[str]) -> None:
    """Remember a secret (the token) so :func:`mask` hides it everywhere; one shorter than :data:`MIN_SECRET`
    characters is not a real token and is not remembered."""
    if secret and len(secret) >= MIN_SECRET:
        _SECRETS.add(secret)


def mask(text: str) -> str:
    """``text`` with every whole occurrence of a registered secret replaced by ``***``: one not preceded or
    followed by a letter, digit or ``_`` (the characters of GitHub's tokens), so a token is hidden in
    ``Bearer TOKEN``, ``x-access-token:TOKEN@host`` or a quoted value, and text that merely contains its
    characters inside a longer word is left as it is."""
    import re

    for s in sorted(_SECRETS, key=len, reverse=True):
        text = re.sub(r"(?<![A-Za-z0-9_])" + re.escape(s) + r"(?![A-Za-z0-9_])", "***", text)
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
    """The retry settings of one operation, and its ledger of waits.

    The retries themselves are the libraries' (:class:`BotRetry`: PyGithub's
    ``GithubRetry``, a urllib3 ``Retry``, on PyGithub's session and on the
    ``requests`` session of downloads).  This class holds what they are
    configured with and the one thing they do not do: bound the total time
    one operation waits (:meth:`spend`).

    Attributes:
        attempts: total tries (first one included): ``Retry(total=attempts - 1)``.
        backoff: urllib3's ``backoff_factor`` in seconds (``backoff * 2**n``).
        max_wait: cap in seconds on any single wait: ``Retry-After`` (``retry_after_max``), the
            backoff (``backoff_max``), the secondary rate limit (``secondary_rate_wait`` and
            ``max_rate_limit_wait``).
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
        rate-limit message (GitHub REST docs, "Rate limits for the REST API"): what the retries were for,
        so a final answer of this kind is a transient failure (exit 3)."""
        headers = {k.lower(): v for k, v in (headers or {}).items()}
        if status is None:
            return False
        if status >= 500 or status == 429:
            return True
        if status == 403:
            return ("retry-after" in headers or str(headers.get("x-ratelimit-remaining", "")).strip() == "0"
                    or _is_rate_limit_message(message))
        return False

    @property
    def max_total(self) -> float:
        """Seconds one operation may wait in all: ``TOTAL_WAITS * max_wait``."""
        return TOTAL_WAITS * self.max_wait

    def left(self) -> float:
        """Seconds this operation may still wait."""
        return self.max_total - sum(self.waits)

    def spend(self, seconds: float) -> bool:
        """Sleep ``seconds`` (shortened to what is left of :attr:`max_total`); False, without sleeping, when
        nothing is left.  A zero cap (the tests) never stops the retries: every wait is then 0."""
        seconds = max(0.0, seconds)
        if self.max_wait > 0:
            left = self.left()
            if left <= 0:
                return False
            seconds = min(seconds, left)
        self.waits.append(seconds)
        self.sleep(seconds)
        return True

    def again(self, attempt: int) -> bool:
        """Wait (exponential backoff, capped) before try ``attempt + 2`` of a transfer that broke while its body
        was read; False when the attempts or the total wait are used up."""
        return attempt + 1 < self.attempts and self.spend(min(self.backoff * (2 ** attempt), self.max_wait))

    def gave_up(self, what: str, tries: int, last: str) -> str:
        """The message of an operation that failed for good after ``tries`` attempts (token masked)."""
        spent = sum(self.waits)
        budget = f"; waited {spent:g} s in all, the limit" if spent and spent >= self.max_total else ""
        return mask(f"gave up trying to {what} after {tries} attempts (last: {last}){budget}")

    def transient(self, what: str, tries: int, last: str) -> TransientError:
        """The :class:`TransientError` (exit 3) of an operation that failed for good, with :meth:`gave_up`'s
        message (printed with "nothing was changed; the run can be repeated": TransientError.advice)."""
        return TransientError(self.gave_up(what, tries, last))


# The policy of the operation under way (set by call() and http_get()); the retries spend its budget.
_CURRENT: "contextvars.ContextVar[Optional[RetryPolicy]]" = contextvars.ContextVar("retry_policy", default=None)


@functools.lru_cache(maxsize=1)
def _bot_retry_class():
    from github import GithubRetry
    from urllib3.exceptions import MaxRetryError, ResponseError

    class BotRetry(GithubRetry):
        """PyGithub's ``GithubRetry`` (5xx, 403 with ``Retry-After`` or a rate-limit message, the secondary
        limit's wait) with 429 retried too, every single wait capped, and the one thing neither it nor
        urllib3's ``Retry`` does: a bound on the total time one operation waits.

        * the bound: :meth:`increment` stops (urllib3 then returns the last answer, ``raise_on_status``
          being off) once the operation's :class:`RetryPolicy` has nothing left, and :meth:`sleep` waits
          through :meth:`RetryPolicy.spend` (tests/github/test_retries_from_the_library.py:
          ``test_the_library_retry_alone_has_no_total_bound`` shows GithubRetry waiting 19 times,
          ``test_one_operation_waits_at_most_three_times_the_cap_in_total`` shows the bound);
        * the waits go through the policy's ``sleep`` so tests can record them instead of sleeping.
        """

        def increment(self, method=None, url=None, response=None, error=None, _pool=None, _stacktrace=None):
            if error is not None and unreachable_reason(error):
                # a name that does not resolve, a refused connection, a proxy that refuses: a retry finds the same
                raise MaxRetryError(_pool, url, error) from error
            new = super().increment(method, url, response, error, _pool, _stacktrace)
            policy = _CURRENT.get()
            if policy is not None and policy.max_wait > 0 and policy.left() <= 0:
                raise MaxRetryError(_pool, url, ResponseError("the operation's total wait is used up"))
            return new

        def sleep(self, response=None):
            wait = None
            if self.respect_retry_after_header and response is not None:
                wait = self.get_retry_after(response)   # capped by retry_after_max
            if not wait:
                wait = self.get_backoff_time()           # GithubRetry's secondary-limit wait included
            policy = _CURRENT.get() or RetryPolicy(max_wait=self.backoff_max)
            if not policy.spend(wait):
                raise MaxRetryError(None, "", ResponseError("the operation's total wait is used up"))

    return BotRetry


def quiet_pygithub_logging() -> None:
    """Drop the ``StreamHandler`` PyGithub attaches to its ``github`` logger at import, at INFO
    (github/__init__.py), and raise that logger to WARNING: GithubRetry would otherwise print a raw line
    ("Retrying after 30 seconds") to stderr for every retry, outside the bot's messages, bound to whatever
    ``sys.stderr`` was when PyGithub was first imported.  Warnings still reach stderr (logging's last resort)."""
    import logging

    logger = logging.getLogger("github")
    for handler in list(logger.handlers):
        if type(handler) is logging.StreamHandler:
            logger.removeHandler(handler)
    logger.setLevel(logging.WARNING)


def make_retry(policy: Optional[RetryPolicy] = None):
    """The urllib3 ``Retry`` for PyGithub and for ``requests`` sessions, configured from ``policy``
    (default :meth:`RetryPolicy.from_env`): ``total = attempts - 1``, 429 and 5xx (and, by GithubRetry,
    the rate-limit 403s) retried for every method, every wait capped at ``max_wait``."""
    policy = policy or RetryPolicy.from_env()
    cap = policy.max_wait
    quiet_pygithub_logging()
    return _bot_retry_class()(
        total=policy.attempts - 1, backoff_factor=policy.backoff, backoff_max=cap,
        secondary_rate_wait=cap, max_rate_limit_wait=cap, retry_after_max=int(cap) if cap == int(cap) else cap,
        status_forcelist=[429, *range(500, 600)], raise_on_status=False, respect_retry_after_header=True,
        allowed_methods=None)


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
    elif data and not isinstance(data, (bytes, bytearray)):   # GithubRetry passes a body it could not read as bytes
        message = str(data)
    headers = dict(getattr(exc, "headers", None) or {})
    return status, message, headers


def _broken_body_errors() -> tuple:
    """``requests`` faults of a body that broke while it was read: urllib3's ``Retry`` has already returned
    the response then, so no library retries them."""
    import requests

    return (requests.exceptions.ChunkedEncodingError, requests.exceptions.ContentDecodingError)


def _used_up_errors() -> tuple:
    """``requests`` faults raised once the library's retries are used up (connection, timeout, retries)."""
    import requests

    return (requests.ConnectionError, requests.Timeout, requests.exceptions.RetryError)


PROXY_HINT = ("behind a proxy, set HTTPS_PROXY=http://HOST:PORT (and NO_PROXY for the hosts reached "
              "directly, such as a GitHub Enterprise server inside the network)")


def unreachable_reason(exc: BaseException) -> Optional[str]:
    """Why a connection could not even be tried, when a retry would meet the same: "the name HOST does not
    resolve (no network or no DNS)" for urllib3's ``NameResolutionError``, "the proxy refused or cannot be
    reached" for its ``ProxyError``, "the connection to HOST:PORT is refused" for a ``ConnectionRefusedError``
    under urllib3's ``NewConnectionError`` (the host answered that nothing listens on that port, or a
    firewall rejects it: seconds later it answers the same); None for anything else (a reset connection, a
    timeout, an HTTP answer), which stays retried.  Looks through ``requests``' and urllib3's wrappers
    (``args[0]``, ``reason``, ``__cause__``/``__context__``), at most 8 deep."""
    from urllib3.exceptions import NameResolutionError, NewConnectionError, ProxyError

    seen = 0
    where = "the host"
    while exc is not None and seen < 8:
        seen += 1
        if isinstance(exc, NameResolutionError):
            host = getattr(exc, "_host", None) or getattr(getattr(exc, "conn", None), "host", None) or "the host"
            return f"the name {host} does not resolve (no network, or no DNS without a proxy)"
        if isinstance(exc, ProxyError):
            return "the proxy refused the connection or cannot be reached (check HTTPS_PROXY)"
        if isinstance(exc, NewConnectionError):
            conn = getattr(exc, "conn", None)
            if getattr(conn, "host", None):
                where = f"{conn.host}:{conn.port}" if getattr(conn, "port", None) else str(conn.host)
        if isinstance(exc, ConnectionRefusedError):
            return f"the connection to {where} is refused (nothing listens there, or a firewall refuses it)"
        nxt = getattr(exc, "reason", None)
        if not isinstance(nxt, BaseException):
            nxt = exc.args[0] if exc.args and isinstance(exc.args[0], BaseException) else None
        exc = nxt or exc.__cause__ or exc.__context__
    return None


class Unreachable(TransientError):
    """GitHub (or another host) could not be reached at all: a name that does not resolve, a refused
    connection, or a proxy that refuses (exit 3, at once: no retry).  The message says what to do (:data:`PROXY_HINT`); a command that
    has an offline way (``--upstream PATH``) adds it to :attr:`hint` before the error is printed."""

    hint = PROXY_HINT

    def __str__(self) -> str:
        return f"{self.message}; {self.hint}; {self.advice}"


def _retry_or_raise(exc: Exception, policy: RetryPolicy, what: str, attempt: int) -> None:
    """For a ``requests`` failure of attempt ``attempt``: return when it may be repeated (a body broken
    while being read, attempts left: no library retries that); otherwise raise a transient error (exit 3)
    for a broken body or a used-up library retry, or a :class:`PlatformError` for anything else."""
    last = type(exc).__name__
    if isinstance(exc, _broken_body_errors()):
        if policy.again(attempt):
            return
        raise policy.transient(what, attempt + 1, last) from None
    reason = unreachable_reason(exc)
    if reason:
        raise Unreachable(mask(f"cannot {what}: {reason}")) from None
    if isinstance(exc, _used_up_errors()):
        raise policy.transient(what, _tries(policy), last) from None
    raise PlatformError(mask(f"cannot {what}: {type(exc).__name__}: {exc}")) from None


def _from_requester(exc: BaseException) -> bool:
    """Whether ``exc`` was raised by PyGithub's ``Requester`` itself: it reads every answer's
    ``x-ratelimit-remaining``/``-limit``/``-reset`` with ``int(float(value))`` (PyGithub ``Requester.__requestEncode``),
    so a header that is not a number ("²", "nan", "1e999") raises ValueError or OverflowError there."""
    tb = exc.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename.replace("\\", "/").endswith("github/Requester.py"):
            return True
        tb = tb.tb_next
    return False


def _tries(policy: RetryPolicy) -> int:
    """Attempts made by the operation so far: one more than the waits between them."""
    return len(policy.waits) + 1


def call(fn: Callable[[], T], what: str, policy: Optional[RetryPolicy] = None) -> T:
    """Run ``fn()`` (one GitHub operation through PyGithub) and turn its failure into the bot's errors.

    The retries are PyGithub's (:func:`make_retry` on :func:`make_github`'s session), spending ``policy``'s
    total wait; here only a body that broke while it was read is tried again: urllib3 returns the response
    before its body is read, so no library does that (tests/github/test_retries_from_the_library.py
    ``test_the_library_retry_does_not_retry_a_body_that_breaks_while_read``; the bot's retry:
    tests/test_break_github.py ``test_a_damaged_chunked_body_is_retried_not_an_internal_error``).
    ``what`` names the operation for messages ("create the pull request for bot/executorch-1.5.1").

    Raises :class:`TransientError` (exit 3) when the last answer was transient (5xx, 429, a rate limit, a
    broken connection) after the retries, :class:`PlatformError` (``reason`` = GitHub's answer) for a
    refusal; the token is masked in both.
    """
    import requests
    from github import GithubException

    policy = policy or RetryPolicy.from_env()
    token = _CURRENT.set(policy)
    try:
        for attempt in range(policy.attempts):
            try:
                return fn()
            except GithubException as exc:
                status, message, headers = _exc_details(exc)
                last = f"HTTP {status}: {message or 'no message'}"
                if policy.is_transient(status, message, headers):
                    raise policy.transient(what, _tries(policy), last) from None
                err = PlatformError(mask(f"GitHub refused to {what}: {last}"))
                err.reason = mask(last)   # GitHub's answer alone, for a decoration's warning
                raise err from None
            except requests.RequestException as exc:
                _retry_or_raise(exc, policy, what, attempt)
                continue
            except (ValueError, OverflowError) as exc:
                if not _from_requester(exc):
                    raise
                raise PlatformError(mask(f"cannot {what}: GitHub's answer has a rate-limit header "
                                         f"(x-ratelimit-*) that is not a number: {exc}")) from None
        raise policy.transient(what, 0, "no attempt was allowed")
    finally:
        _CURRENT.reset(token)


def make_github(token: Optional[str] = None, base_url: Optional[str] = None, *,
                timeout: float = DEFAULT_TIMEOUT, write_pause: Optional[float] = None):
    """A ``github.Github`` for ``base_url`` (default :func:`api_url`) retrying with :func:`make_retry`.

    Objects are lazy (no request until a value is needed), so ``get_repo``
    costs no request.  ``write_pause`` seconds between writes (PyGithub's
    courtesy pause against secondary rate limits) defaults to
    ``EXECUTORCH_PACK_BOT_WRITE_PAUSE`` or 1.0.
    """
    from github import Auth, Github

    register_secret(token)
    base_url = base_url or api_url()
    if write_pause is None:
        write_pause = env_number(os.environ, "EXECUTORCH_PACK_BOT_WRITE_PAUSE", 1.0)
    return Github(auth=Auth.Token(token) if token else None, base_url=base_url,
                  timeout=int(max(1, timeout)), retry=make_retry(), per_page=100, lazy=True,
                  seconds_between_requests=None, seconds_between_writes=write_pause or None,
                  user_agent="executorch-pack-bot")


def http_get(session, url: str, *, what: str, policy: Optional[RetryPolicy] = None,
             headers: Optional[dict] = None, stream: bool = False, timeout: float = DEFAULT_TIMEOUT,
             ok: tuple[int, ...] = (200,), allow_redirects: bool = True):
    """GET with a :func:`session` (its adapter retries with :func:`make_retry`); the response whose status
    is in ``ok``.

    A 404 (or other non-transient status outside ``ok``) is returned too when
    404 is in ``ok``; otherwise raises :class:`PlatformError` naming ``what``
    (:class:`TransientError` when the last answer was transient).
    ``allow_redirects=False`` returns a 3xx as is (put its status in ``ok``).
    """
    import requests
    from github import GithubException

    policy = policy or RetryPolicy.from_env()
    token = _CURRENT.set(policy)
    # The session's adapter retries with make_retry(); for this call, with this policy's attempts and caps.
    adapter = session.get_adapter(url) if hasattr(session, "get_adapter") else None
    saved = getattr(adapter, "max_retries", None)
    if isinstance(saved, _bot_retry_class()):
        adapter.max_retries = make_retry(policy)
    try:
        for attempt in range(policy.attempts):
            try:
                r = session.get(url, headers=headers or {}, stream=stream, timeout=timeout,
                                allow_redirects=allow_redirects)
            except GithubException as exc:   # GithubRetry refuses a 403 that is not a rate limit this way
                status, message, hdrs = _exc_details(exc)
                last = f"HTTP {status}{': ' + message if message else ''}"
                if policy.is_transient(status, message, hdrs):
                    raise policy.transient(what, _tries(policy), last) from None
                raise PlatformError(mask(f"cannot {what}: {last}")) from None
            except requests.RequestException as exc:
                _retry_or_raise(exc, policy, what, attempt)
                continue
            if r.status_code in ok:
                return r
            msg = ""
            try:
                msg = (r.json() or {}).get("message", "") if "json" in r.headers.get("content-type", "") else ""
            except ValueError:
                pass
            r.close()
            last = f"HTTP {r.status_code}{': ' + msg if msg else ''}"
            if policy.is_transient(r.status_code, msg, r.headers):
                raise policy.transient(what, _tries(policy), last)
            raise PlatformError(mask(f"cannot {what}: {last}"))
        raise policy.transient(what, 0, "no attempt was allowed")
    finally:
        _CURRENT.reset(token)
        if isinstance(saved, _bot_retry_class()):
            adapter.max_retries = saved


def session(token: Optional[str] = None):
    """A ``requests.Session`` with the bot's user agent, :func:`make_retry` on its adapters (and the token
    for GitHub API URLs only)."""
    import requests

    from requests.adapters import HTTPAdapter

    s = requests.Session()
    s.headers["User-Agent"] = "executorch-pack-bot"
    adapter = HTTPAdapter(max_retries=make_retry())   # the same retries, caps and total bound as PyGithub's
    s.mount("https://", adapter)
    s.mount("http://", adapter)
    if token:
        register_secret(token)
        s.headers["Authorization"] = f"Bearer {token}"
    return s


class BodyTooSlow(Exception):
    """A response body did not arrive within its wall-clock budget (see :func:`body_chunks`)."""


def body_chunks(r, *, size: int, seconds: float, clock: Callable[[], float] = time.monotonic):
    """Yield the body of the streamed ``requests`` response ``r`` in chunks, for at most ``seconds`` in all.

    Read with urllib3's ``read1`` (each call returns what one receive brought,
    decoded), so the budget holds against a server that trickles a byte at a
    time just inside the per-read timeout: ``iter_content(size)`` would wait
    for a whole chunk, each byte resetting the timeout.  Raises
    :class:`BodyTooSlow` once ``seconds`` have passed; urllib3's own errors
    (a connection broken mid-body) pass through unwrapped.
    """
    start = clock()
    read1 = getattr(r.raw, "read1", None)
    chunks = (iter(lambda: read1(size, decode_content=True), b"") if read1 is not None
              else r.iter_content(size))
    for chunk in chunks:
        yield chunk
        if clock() - start > seconds:
            raise BodyTooSlow(f"took longer than {seconds:g} s")
