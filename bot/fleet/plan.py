"""The fleet plan: every template's state, one pack per target version, one pull-request job per template.

For each entry of the fleet list (:mod:`bot.fleet.listfile`) the plan reads
the template's pins (:mod:`bot.fleet.current`: one conditional request when
nothing changed), chooses its target among upstream's stable releases (one
conditional listing for the whole fleet; a ``track`` keeps a template on a
release series: the newest ``vX.Y.Z`` of ``1.4`` for track ``1.4``; never a
downgrade, as :func:`bot.upstream.releases.select_target`), and, for a
template behind its target only, asks for the bot's pull requests on its
branch (one more conditional request, plus the issue events of a closed one
at the same version: :mod:`bot.github.lifecycle`).  For a template that
needs a pull request, the versions its reviewers ignored are read
(:mod:`bot.fleet.ignored`) and, as ``check --respect-ignored`` does, the
newest release of its track that is not ignored is its target; none newer
than its pins is a row "ignored by reviewers".  Templates are grouped
by pack version: ``X.Y.Z`` (the release's pack asset, or a build when the
release has none) or ``X.Y.Z-LABEL`` for a template on a locally built pack
(always built).  The result holds the rows (one per template and per refused
list entry) and the two matrices the fleet workflow feeds to
``strategy.matrix`` through ``fromJSON``.

Rate limits (GitHub REST docs, "Rate limits for the REST API"): each request
is retried by the bot's client (honouring ``Retry-After``); a template whose
requests still fail for a transient reason is set aside and tried again
after a pause, twice more: the pause is what GitHub's last refusal asked
for (``Retry-After``, seconds or an HTTP date, or the primary limit's
``x-ratelimit-reset``), else ``--pause`` doubling, and never over
``max_pause``; one still failing then is a row "rate limited", never a
failed fleet.  Each pause is said on stderr ("waiting N s before retrying
...: REASON").  A host that cannot be reached at all (a name that does not
resolve, a proxy that refuses: :class:`bot.github.client.Unreachable`) is
not waited for: another pass would meet the same, so the plan stops at once
(upstream's releases) or the template is a row "error".

Time (:class:`Budget`): the plan fits its own job and its token.  Every wait
of the plan, the client's retries of one request (``Retry-After``, the
secondary limit's wait) as well as the pauses between passes, is bounded by
the time the plan has left, not by a budget of its own: by default
:data:`TIME_BUDGET` seconds from its start, which the plan job's
``timeout-minutes`` (30, ``.github/workflows/executorch-pack-bot-fleet.yml``)
holds with room for its other steps, and which is well within the App
installation token's one hour (GitHub REST docs, "Create an installation
access token for an app": "expire after one hour"; the plan job mints it
first).  When the time is used up, no request waits any more and every
template not planned yet is a row "rate limited": the plan file is written and
the summary job runs, never a cancelled job.

Installation (:func:`installation_repositories`): with ``discover:`` rules the
plan asks which repositories the App installation covers (``GET
/installation/repositories``, GitHub REST docs, "List repositories accessible
to the app installation").  An organization's listing also names public
repositories outside the installation, whose pull-request job could not mint
a token: a discovered repository outside it is a row "not installed", with no
job.  A token that is not an installation's (GitHub refuses the request) plans
them as before and says it could not tell.
"""

from __future__ import annotations

import re
import sys
import time
from dataclasses import asdict, dataclass, field
from typing import Callable, Optional

from packaging.version import Version

from bot.errors import PlatformError, TransientError
from bot.fleet.current import Pins, read_pins
from bot.fleet.listfile import Entry, FleetList, Refused, repository_problem
from bot.fleet.remote import MISSING, Remote
from bot.github.client import Unreachable

#: GitHub Actions: "A matrix can generate a maximum of 256 jobs per workflow run" (docs, "Using a matrix").
MATRIX_LIMIT = 256
#: The longest pause between passes (seconds): a longer ``Retry-After`` or ``x-ratelimit-reset`` ends the plan's
#: tries (the templates are rows "rate limited", planned by the next run) rather than hold the job.
MAX_PAUSE = 900.0

#: The most the plan takes by default, waits included (seconds): 20 of the plan job's 30 minutes (timeout-minutes
#: of the fleet workflow's plan job; the checkout, the install and the upload take the rest), within the token's hour.
TIME_BUDGET = 1200.0
#: An App installation token's life (GitHub REST docs, "Create an installation access token for an app").
TOKEN_LIFE = 3600.0

# Row states (docs/fleet.md lists them)
BEHIND, UP_TO_DATE, PR_OPEN, CLOSED = "behind", "up to date", "pull request open", "closed by a person"
FOREIGN, NOT_VISIBLE, REFUSED, TEMPLATE, RATE, ERROR, DEFERRED = (
    "branch used by another pull request", "not visible", "refused entry", "template error", "rate limited",
    "error", "deferred")
IGNORED = "ignored by reviewers"
NOT_INSTALLED = "not installed"
UNLISTED_BUILD = "build not allowed"


class Budget:
    """The time the whole plan may take: ``seconds`` from its creation, read on ``clock`` (``time.monotonic``,
    looked up at each call so a test's virtual clock applies).

    :meth:`policy` makes the retry policy of one request (:class:`bot.github.client.RetryPolicy` from the
    environment) whose waits are also bounded by :meth:`left`: the per-request bound alone let 20 templates wait
    180 s each, past the job's ``timeout-minutes``.
    """

    def __init__(self, seconds: float = TIME_BUDGET, clock: Optional[Callable[[], float]] = None):
        self.seconds = min(float(seconds), TOKEN_LIFE)
        self.clock = clock or (lambda: time.monotonic())
        self.start = self.clock()

    def left(self) -> float:
        """Seconds the plan may still take (0 or less: used up)."""
        return self.seconds - (self.clock() - self.start)

    def policy(self):
        """A fresh :class:`~bot.github.client.RetryPolicy` for one request, bounded by this budget too."""
        from bot.github.client import RetryPolicy

        base = RetryPolicy.from_env()
        return _Bounded(attempts=base.attempts, backoff=base.backoff, max_wait=base.max_wait,
                        sleep=lambda s: time.sleep(s) if s > 0 else None, budget=self)


def _bounded_class():
    from bot.github.client import RetryPolicy

    @dataclass
    class Bounded(RetryPolicy):
        """A request's retry policy whose waits also stop at the plan's :class:`Budget`."""

        budget: Optional[Budget] = None

        def left(self) -> float:
            own = super().left()
            return own if self.budget is None else min(own, self.budget.left())

        def spend(self, seconds: float) -> bool:
            if self.budget is not None:
                if self.budget.left() <= 0:
                    return False
                seconds = min(max(0.0, seconds), self.budget.left())
            return super().spend(seconds)

    return Bounded


def _Bounded(**kw):  # noqa: N802 - a class made on first use (bot.github.client is imported lazily)
    global _BOUNDED
    if _BOUNDED is None:
        _BOUNDED = _bounded_class()
    return _BOUNDED(**kw)


_BOUNDED = None


@dataclass
class Row:
    """One line of the fleet summary: a template branch (or a refused list entry) and what the plan decided.

    ``job`` is True when a pull-request job runs for it; ``reason`` says why
    not otherwise (or what the job will do); ``line`` is the list's line; ``key`` the pull-request job's
    :func:`unique_key` (its result artifact's name), "" without a job.
    """

    template: str
    repository: str = ""
    branch: str = ""
    track: str = ""
    current: str = ""
    target: str = ""
    pack_version: str = ""
    state: str = ""
    reason: str = ""
    pr_url: str = ""
    pr_state: str = ""
    bot_branch: str = ""
    job: bool = False
    line: int = 0
    key: str = ""


@dataclass
class Plan:
    """The fleet plan: rows in list order, the pack and pull-request matrices, and the request counts."""

    rows: list[Row] = field(default_factory=list)
    packs: list[dict] = field(default_factory=list)
    pulls: list[dict] = field(default_factory=list)
    builds: list[dict] = field(default_factory=list)
    requests: int = 0
    conditional: int = 0
    not_modified: int = 0
    upstream: str = ""

    def matrix(self, items: list[dict]) -> dict:
        """``{"include": items}``: what ``strategy.matrix: ${{ fromJSON(...) }}`` takes."""
        return {"include": items}

    def to_json(self) -> dict:
        """The plan file ``fleet-summary`` reads: rows, matrices, counts."""
        return {"format": 1, "upstream": self.upstream, "rows": [asdict(r) for r in self.rows],
                "packs": self.packs, "builds": self.builds, "pull-requests": self.pulls,
                "requests": {"sent": self.requests, "conditional": self.conditional, "not-modified": self.not_modified,
                             "templates": sum(1 for r in self.rows if r.state != REFUSED)}}


def job_key(repository: str, branch: Optional[str]) -> str:
    """A name part safe for an artifact and a job name: ``acme-traffic-counter-main`` (letters, digits, ``-._``)."""
    text = f"{repository}-{branch}" if branch else repository
    return re.sub(r"[^A-Za-z0-9._-]+", "-", text.replace("/", "-")).strip("-")[:200]


def unique_key(repository: str, branch: Optional[str], used: set) -> str:
    """:func:`job_key`, made unique among ``used`` (compared case-folded; the key is added to it): two template
    branches can share a :func:`job_key` (``acme/a-b`` and ``acme/a`` branch ``b``; branches ``x/y`` and ``x-y``;
    names cut at 200 characters), and two jobs uploading one result artifact name would clash (the second upload
    fails, and the summary would show one job's result on both rows).  A clash gets the first 8 hex digits of
    the SHA-256 of ``repository@branch`` (``repository`` case-folded, as GitHub compares names)."""
    import hashlib

    key = job_key(repository, branch)
    n = 0
    while key.lower() in used:
        digest = hashlib.sha256(f"{repository.lower()}@{branch or ''}#{n}".encode("utf-8", "surrogateescape"))
        key = f"{job_key(repository, branch)[:191]}-{digest.hexdigest()[:8]}"
        n += 1
    used.add(key.lower())
    return key


def upstream_releases(remote: Remote, upstream: str) -> list:
    """Upstream's releases (:class:`bot.github.releases.Release`), one conditional listing (100 per page)."""
    from bot.github.releases import Release

    def keep(items):
        return [{"tag_name": d.get("tag_name"), "draft": d.get("draft"), "prerelease": d.get("prerelease"),
                 "created_at": d.get("created_at"), "html_url": d.get("html_url"),
                 "assets": [{k: a.get(k) for k in ("name", "size", "digest", "browser_download_url", "url")}
                            for a in (d.get("assets") or []) if isinstance(a, dict)]}
                for d in items if isinstance(d, dict)]

    got = remote.get_pages(f"/repos/{upstream}/releases", {"per_page": 100}, what=f"list the releases of {upstream}",
                           keep=keep, check=lambda v: isinstance(v, list) and all(isinstance(d, dict) for d in v))
    if got is MISSING:
        raise PlatformError(f"cannot list the releases of {upstream}: GitHub answers 404")
    return [Release.from_json(d) for d in got]


def choose_target(releases: list, current: str, track: Optional[str],
                  ignored: tuple | list = ()) -> tuple[Optional[object], str]:
    """(the target release or None, why none): the newest stable ``vX.Y.Z`` (in ``track`` when given) that is
    not one of the ``ignored`` ``X.Y.Z`` versions, or the current version itself (None, "") when that is not
    older: the bot never proposes a downgrade (:func:`bot.upstream.releases.select_target`'s rule)."""
    from bot.versions import stable_version

    stable = [(stable_version(r.tag), r) for r in releases
              if not r.draft and not r.prerelease and stable_version(r.tag) is not None]
    if track:
        want = tuple(int(x) for x in track.split("."))
        stable = [(v, r) for v, r in stable if v.release[:len(want)] == want]
    if ignored and stable:
        stable = [(v, r) for v, r in stable if str(v) not in set(ignored)] or [(Version(current), None)]
    if not stable:
        return None, f"no stable release{' in track ' + track if track else ''} upstream"
    v, r = max(stable, key=lambda vr: vr[0])
    return (r if v > Version(current) else None), ""


def make_plan(fleet: FleetList, remote: Remote, upstream: str, *, discovered: Optional[list[Entry]] = None,
              rounds: int = 3, pause: float = 60.0, sleep: Optional[Callable[[float], None]] = None,
              limit: int = MATRIX_LIMIT, max_pause: float = MAX_PAUSE, budget: Optional[Budget] = None,
              installed: Optional[set] = None) -> Plan:
    """Plan the fleet; see the module docstring.

    ``discovered`` entries (from :func:`discover`) are added after the list's
    own (a repository already listed keeps the list's branches and track).
    ``rounds`` passes at most over templates that met a transient failure;
    between passes the plan waits what GitHub asked for (:func:`pause_for`),
    else ``pause`` seconds (doubling); a wait over ``max_pause`` seconds is not
    made: the templates still refused are rows "rate limited" at once.  ``limit`` caps the
    pull-request matrix; templates beyond it are rows "deferred" (next run).
    ``budget`` (:class:`Budget`) bounds every pause by the time the plan has left; once it is used up the
    templates not planned are rows "rate limited".  ``installed`` (lower-case ``OWNER/NAME`` of the App
    installation's repositories, None: not known) makes a discovered repository outside it a row "not installed".
    Raises :class:`~bot.errors.PlatformError` or :class:`TransientError` only
    when upstream's releases cannot be listed (nothing can be planned then).
    """
    sleep = sleep or time.sleep
    for e in discovered or ():
        fleet.add(e)
    plan = Plan(upstream=upstream)
    releases = _with_resume(lambda: upstream_releases(remote, upstream), rounds, pause, sleep, max_pause, budget)
    order = {e.key: i for i, e in enumerate(fleet.entries)}
    done: dict[str, Row] = {}
    pending = []
    for e in fleet.entries:
        if installed is not None and e.source.startswith("topic ") and e.repository.lower() not in installed:
            done[e.key] = _row(e, state=NOT_INSTALLED, reason=(
                f"found by its topic, but the App installation does not cover {e.repository} (GET "
                "/installation/repositories), so its pull-request job could not get a token: add it to the "
                "installation's repositories, or remove the topic"))
        else:
            pending.append(e)
    last: dict[str, str] = {}
    tried = 0
    for attempt in range(max(1, rounds)):
        retry, hints = [], []
        tried += 1
        for entry in pending:
            if budget is not None and budget.left() <= 0:   # no request of this plan may wait any more
                retry.append(entry)
                last.setdefault(entry.key, "not asked")
                last[entry.key] += f"; the plan's {budget.seconds:g} s were used up"
                continue
            try:
                done[entry.key] = _plan_entry(remote, entry, releases, plan)
            except Unreachable as exc:   # no pause helps: a name that does not resolve, a refusing proxy
                done[entry.key] = _row(entry, state=ERROR, reason=exc.message)
            except TransientError as exc:
                retry.append(entry)
                last[entry.key] = exc.message
                hints.append(getattr(exc, "wait", None))
            except PlatformError as exc:
                done[entry.key] = _row(entry, state=ERROR, reason=str(exc))
        pending = retry
        if not pending or attempt + 1 >= rounds:
            break
        wait = pause_for(hints, pause * 2 ** attempt)
        if wait > max_pause:
            for entry in pending:
                last[entry.key] += f"; GitHub asks to wait {wait:.0f} s, more than the plan waits ({max_pause:g} s)"
            break
        if budget is not None and wait >= budget.left():
            for entry in pending:
                if "were used up" not in last[entry.key]:
                    last[entry.key] += (f"; GitHub asks to wait {wait:.0f} s, more than the {max(0, budget.left()):.0f}"
                                        f" s left of the plan's {budget.seconds:g} s")
            break
        names = ", ".join(e.label() for e in pending[:3]) + (f" and {len(pending) - 3} more" if len(pending) > 3 else "")
        _say_wait(wait, names, last[pending[0].key])
        sleep(wait)
    for entry in pending:
        done[entry.key] = _row(entry, state=RATE, reason=f"{last[entry.key]}; tried {tried} time{'s' * (tried > 1)}, "
                                                         "planned again by the next run")
    plan.rows = [done[k] for k in sorted(done, key=order.get)]
    _shared_bot_branches(plan.rows)
    plan.rows += [_refused_row(r, fleet.path) for r in fleet.refused]
    _matrices(plan, releases, limit, frozenset(e.repository.lower() for e in fleet.entries if e.source == "list"))
    plan.requests, plan.conditional, plan.not_modified = remote.requests, remote.conditional, remote.not_modified
    return plan


def _shared_bot_branches(rows: list[Row]) -> None:
    """Two branches of one repository whose pull requests would use the same bot branch: the second is not
    planned (its push would replace the first's proposal); the row says to give it its own ``branch:``."""
    first: dict[tuple[str, str], Row] = {}
    for row in rows:
        if not row.job:
            continue
        key = (row.repository.lower(), row.bot_branch)
        if key in first:
            row.job, row.state = False, ERROR
            row.reason = (f"its pull request would use the bot branch {row.bot_branch}, as {first[key].template}'s "
                          "does: give this branch its own branch: in .github/executorch-pack-bot.yml")
        else:
            first[key] = row


def pause_for(hints: list, fallback: float) -> float:
    """Seconds to pause before the next pass: the longest wait GitHub asked for in this pass's refusals
    (``hints``: :func:`bot.fleet.remote.wait_hint` values, None where the answer said nothing; ``Retry-After`` or
    the primary limit's ``x-ratelimit-reset``), else ``fallback`` (the ``--pause`` doubling each pass)."""
    asked = [h for h in hints if h is not None]
    return max(asked) if asked else fallback


def _say_wait(seconds: float, what: str, reason: str) -> None:
    """One line on stderr before a pause of the plan: "waiting N s before retrying WHAT: REASON"."""
    from bot.github.client import mask

    print(mask(f"waiting {seconds:g} s before retrying {what}: {reason}"), file=sys.stderr, flush=True)


def _with_resume(fn, rounds, pause, sleep, max_pause, budget: Optional[Budget] = None):
    """``fn()``, called again after a pause (:func:`pause_for`, said on stderr) while it fails for a transient
    reason, ``rounds`` times at most; :class:`~bot.github.client.Unreachable` is raised at once."""
    for attempt in range(max(1, rounds)):
        try:
            return fn()
        except Unreachable:
            raise
        except TransientError as exc:
            wait = pause_for([getattr(exc, "wait", None)], pause * 2 ** attempt)
            if attempt + 1 >= rounds or wait > max_pause or (budget is not None and wait >= budget.left()):
                raise
            _say_wait(wait, "the upstream releases listing", exc.message)
            sleep(wait)


def _row(entry: Entry, **kw) -> Row:
    return Row(template=entry.label(), repository=entry.repository, branch=entry.branch or "",
               track=entry.track or "", line=entry.line, **kw)


def _refused_row(r: Refused, path: str) -> Row:
    return Row(template=r.what, state=REFUSED, reason=f"{path}:{r.line}: {r.reason}" if r.line else r.reason,
               line=r.line)


def _plan_entry(remote: Remote, entry: Entry, releases: list, plan: Plan) -> Row:
    pins: Pins = read_pins(remote, entry.repository, entry.branch)
    if pins.missing:
        return _row(entry, state=NOT_VISIBLE, reason=pins.error)
    if pins.error:
        return _row(entry, state=TEMPLATE, reason=pins.error)
    release, why = choose_target(releases, pins.current, entry.track)
    base = _row(entry, current=pins.current, bot_branch=pins.bot_branch)
    if why:
        base.state, base.reason = ERROR, why
        return base
    if release is None:
        base.state, base.target = UP_TO_DATE, pins.current
        base.pack_version = _pack_version(pins.current, pins.label)
        return base
    pulls = _aim(remote, entry, pins, base, release)
    if not base.job:
        return base
    # Behind, a pull-request job planned: the versions reviewers ignored are read now (only now: a template up to
    # date, or whose proposal is open or was closed, costs no request for them) and, as `check --respect-ignored`
    # does (bot.upstream.releases.select_target), the newest release in the track that is not ignored is the target.
    try:
        ignored, where = _ignored(remote, entry, pins, pulls)
    except PlatformError as exc:
        base.job, base.state, base.reason = False, ERROR, (
            f"{exc}; the pull request waits until the ignored versions can be read (docs/fleet.md, Ignored versions)")
        return base
    if base.target not in ignored:
        return base
    skipped = base.target
    release, _ = choose_target(releases, pins.current, entry.track, ignored=ignored)
    if release is None:
        base.job, base.state, base.pr_url, base.pr_state = False, IGNORED, "", ""
        base.reason = (f"reviewers ignored {skipped} (kept in {where}): no pull request; comment "
                       f"`/executorch-pack-bot unignore {skipped}` on a bot pull request to propose it again")
        return base
    base.job, base.pr_url, base.pr_state = False, "", ""
    _aim(remote, entry, pins, base, release)
    base.reason = f"reviewers ignored {skipped} (kept in {where}); {base.reason}"
    return base


def _aim(remote: Remote, entry: Entry, pins: Pins, row: Row, release):
    """Set ``row``'s target, pack version and bot branch for ``release`` and its PR state (:func:`_pull_state`)."""
    from bot.versions import to_semver

    target = str(Version(release.tag[1:]))
    row.target = target
    row.pack_version = f"{to_semver(target)}-{pins.label}" if pins.label else to_semver(target)
    row.bot_branch = pins.bot_branch.replace("{version}", target)
    return _pull_state(remote, entry, row.bot_branch, target, row)


def _ignored(remote: Remote, entry: Entry, pins: Pins, pulls) -> tuple[list[str], str]:
    """(the versions ``entry``'s reviewers ignored, where they are kept) (:mod:`bot.fleet.ignored`): the dashboard
    issue with ``dashboard: true``; else the bot's pull requests, the listing already read when the bot's branch
    is one fixed name, else all of them on its branch pattern (one more conditional request)."""
    from bot.config import Config
    from bot.fleet.ignored import dashboard_ignored, pulls_ignored

    if pins.dashboard:
        return dashboard_ignored(remote, entry.repository)
    if "{version}" in pins.bot_branch:
        pattern = Config(branch=pins.bot_branch).branch_pattern()
        pulls = _bot_pulls(remote, entry, {})
        pulls = [p for p in pulls if pattern.fullmatch(p["ref"])] if pulls is not MISSING else []
    return pulls_ignored(pulls or [])


def _pack_version(current: str, label: Optional[str]) -> str:
    from bot.versions import to_semver
    try:
        return f"{to_semver(current)}-{label}" if label else to_semver(current)
    except Exception:  # noqa: BLE001 - a nightly has no pack version; the row only shows it
        return ""


def _pull_state(remote: Remote, entry: Entry, bot_branch: str, target: str, row: Row):
    """Fill ``row``'s PR fields and decide ``row.job`` from the bot's pull requests on ``bot_branch``; returns
    the listing (:func:`_bot_pulls`), None when GitHub answered 404.

    GitHub REST docs, "List pull requests": ``head=OWNER:BRANCH`` filters by
    the head branch (a bare branch name is ignored).  A pull request is the
    bot's when its body carries the fingerprint marker and its head is in the
    template repository (as :mod:`bot.github.publish` decides).
    """
    owner = entry.repository.split("/")[0]
    pulls = _bot_pulls(remote, entry, {"head": f"{owner}:{bot_branch}"})
    if pulls is MISSING:
        row.state, row.reason = NOT_VISIBLE, f"GitHub answers 404 for the pull requests of {entry.repository}"
        return None
    from bot.config import Config
    from bot.events.state import dump, proposed_version

    track = Config(branch=bot_branch)

    def version(p) -> str:
        """What the PR proposes, from the bot's own record (its branch on a ``{version}`` track, else the version
        its hidden state records), never from its title, which people and title conventions rewrite."""
        return proposed_version(track, {"head": {"ref": p["ref"]}, "body": dump({"version": p["version"]})}) or ""

    open_ours = [p for p in pulls if p["state"] == "open" and p["ours"]]
    foreign = [p for p in pulls if p["state"] == "open" and not p["ours"]]
    if foreign:
        p = foreign[0]
        row.state, row.pr_url, row.pr_state = FOREIGN, p["url"] or "", "open"
        row.reason = (f"#{p['number']} is open from {bot_branch} without the bot's fingerprint; merge or close it to "
                      "hand the branch back")
        return pulls
    if open_ours:
        p = max(open_ours, key=lambda p: p["number"])
        row.pr_url, row.pr_state = p["url"] or "", "open"
        if version(p) == target:
            row.state, row.reason = PR_OPEN, f"#{p['number']} proposes {target}"
            return pulls
        row.state, row.job, row.reason = BEHIND, True, f"#{p['number']} proposes {version(p) or 'another version'}: update it"
        return pulls
    # a pull request closed by `/executorch-pack-bot ignore` does not count: the ignored versions decide
    # (bot.events.ignored; bot.github.publish skips it the same way)
    closed = sorted((p for p in pulls if p["ours"] and p["state"] == "closed" and not p["merged"]
                     and not p["closed_by_ignore"] and version(p) == target), key=lambda p: -p["number"])
    if closed and _closed_by_person(remote, entry.repository, closed[0]["number"]):
        p = closed[0]
        row.state, row.pr_url, row.pr_state = CLOSED, p["url"] or "", "closed"
        row.reason = f"#{p['number']} proposed {target} and was closed unmerged; a newer release opens a new one"
        return pulls
    row.state, row.job, row.reason = BEHIND, True, f"open a pull request for {target}"
    return pulls


PULL_FIELDS = {"number": int, "state": str, "merged": bool, "url": str, "version": str, "ours": bool, "ref": str,
               "closed_by_ignore": bool}


def _bot_pulls(remote: Remote, entry: Entry, params: dict):
    """The pull requests of ``entry``'s repository (``state=all``, every page, ``params`` added: ``head``), each as
    :data:`PULL_FIELDS` plus ``ignored`` (the versions of its hidden state's list, None without one); or
    :data:`MISSING` on a 404.  One conditional request per 100 pull requests (:meth:`Remote.get_pages`).  The
    kept ``version`` is the one the publisher recorded in the PR's hidden state, never the title."""
    from bot.events.ignored import closed_by_ignore
    from bot.fleet.ignored import state_versions
    from bot.report import parse_fingerprint

    def keep(items):
        return [{"number": p["number"], "state": _str(p.get("state")), "merged": p.get("merged_at") is not None,
                 "url": _str(p.get("html_url")), "version": _recorded_version(_str(p.get("body"))),
                 "ours": parse_fingerprint(_str(p.get("body"))) is not None and _head_repo(p) == entry.repository.lower(),
                 "ref": _head_ref(p), "closed_by_ignore": closed_by_ignore(_str(p.get("body"))),
                 "ignored": state_versions(_str(p.get("body")))}
                for p in items if isinstance(p, dict) and _whole(p.get("number"))]

    def check(v):
        return _typed(v, PULL_FIELDS) and all(
            p.get("ignored") is None or (isinstance(p["ignored"], list) and all(isinstance(x, str) for x in p["ignored"]))
            for p in v)

    return remote.get_pages(f"/repos/{entry.repository}/pulls", {"state": "all", "per_page": 100, **params},
                            what=f"list the pull requests of {entry.repository}", keep=keep, check=check)


def _recorded_version(body: str) -> str:
    """The ``version`` the publisher recorded in a PR body's hidden state (:func:`bot.github.publish.recorded`),
    "" when there is none."""
    from bot.events.state import load

    v = (load(body) or {}).get("version")
    return v if isinstance(v, str) else ""


def _head_ref(p: dict) -> str:
    """``head.ref`` of a pull request, "" when the answer lacks it."""
    head = p.get("head") if isinstance(p.get("head"), dict) else {}
    return _str(head.get("ref"))


def _str(v) -> str:
    """A JSON string field of an answer, or "" when it is missing or of another type."""
    return v if isinstance(v, str) else ""


def _whole(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _head_repo(p: dict) -> str:
    """The lower-cased ``head.repo.full_name`` of a pull request, "" when the answer lacks it."""
    head = p.get("head") if isinstance(p.get("head"), dict) else {}
    repo = head.get("repo") if isinstance(head.get("repo"), dict) else {}
    return _str(repo.get("full_name")).lower()


def _typed(value, fields: dict) -> bool:
    """True when ``value`` is a list of objects each holding ``fields`` (``{name: type}``) with those types: the
    shape a ``keep`` function gives, checked again on a value read from the cache file."""
    return isinstance(value, list) and all(
        isinstance(item, dict) and all(isinstance(item.get(k), t) and not (t is int and isinstance(item.get(k), bool))
                                       for k, t in fields.items()) for item in value)


def _closed_by_person(remote: Remote, repository: str, number: int) -> bool:
    """:func:`bot.github.lifecycle.closed_by_branch_deletion`'s rule on the issue events (one conditional request):
    False when the head branch's deletion closed it (the pins are proposed again)."""
    events = remote.get_pages(f"/repos/{repository}/issues/{number}/events", {"per_page": 100},
                              what=f"list the events of #{number} in {repository}",
                              keep=lambda items: [{"event": _str(e.get("event")), "at": _str(e.get("created_at"))}
                                                  for e in items if isinstance(e, dict)],
                              check=lambda v: _typed(v, {"event": str, "at": str}))
    if events is MISSING:
        return True
    deleted = next((e["at"] for e in events if e["event"] == "head_ref_deleted" and e["at"]), None)
    closed = next((e["at"] for e in events if e["event"] == "closed" and e["at"]), None)
    return not (deleted is not None and (closed is None or deleted <= closed))


def _matrices(plan: Plan, releases: list, limit: int, listed: Optional[frozenset] = None) -> None:
    """The pack jobs and one pull-request job per template behind.

    A release's pack asset is fetched once per pack version, and only when GitHub publishes its digest
    (``"sha256:<hex>"``, the release asset's ``digest`` field, GitHub REST docs "Get a release asset"): that
    digest, recorded here before any job ran foreign code, travels in the pull-request job's row (``sha256``)
    and is what the pull-request job checks the downloaded pack against.  Every other pack is built, once per
    template (``build-key``: the template's own job key), from that template's own requirements: no template's
    build code runs for another's pack.  A build runs only for a repository the list names under
    ``templates:`` (``listed``: case-folded ``OWNER/NAME``; None: every row's): a repository found by
    ``discover:`` alone is a row "build not allowed" and gets no job.
    """
    from bot.github.assets import find_pack_asset
    from bot.versions import to_semver, version_to_tag

    by_tag = {r.tag: r for r in releases}
    packs: dict[str, dict] = {}
    builds: list[dict] = []
    used: set = set()
    for row in plan.rows:
        if not row.job:
            continue
        tag = version_to_tag(row.target)
        local = row.pack_version != to_semver(row.target)   # X.Y.Z-LABEL: a locally built pack
        asset = None if local else find_pack_asset(by_tag.get(tag), row.target)
        digest = _sha256_digest(asset.digest) if asset else ""
        if not digest:
            asset = None   # no digest GitHub published: nothing to check a downloaded pack against; built instead
        if asset is None and listed is not None and row.repository.lower() not in listed:
            row.job, row.state = False, UNLISTED_BUILD
            row.reason = (f"its pack {row.pack_version} must be built from its own requirements, and the fleet "
                          "builds only for repositories its list names under templates: (found by discover:)")
            continue
        if len(plan.pulls) >= limit:
            row.job, row.state = False, DEFERRED
            row.reason = f"the pull-request matrix holds {limit} jobs at most; planned again by the next run"
            continue
        row.key = unique_key(row.repository, row.branch, used)
        owner, name = row.repository.split("/", 1)
        if asset is not None:
            pack = packs.setdefault(row.pack_version, {
                "pack-version": row.pack_version, "version": row.target, "tag": tag, "source": "release-asset",
                "pack-url": asset.download_url, "sha256": digest, "artifact": f"executorch-pack-{row.pack_version}",
                "build-key": "", "template": "", "template-owner": "", "template-name": "", "branch": "",
                "templates": 0})
        else:
            pack = {"pack-version": row.pack_version, "version": row.target, "tag": tag, "source": "build",
                    "pack-url": "", "sha256": "", "artifact": f"executorch-pack-{row.pack_version}-{row.key}",
                    "build-key": row.key, "template": row.repository, "template-owner": owner,
                    "template-name": name, "branch": row.branch, "templates": 0}
            builds.append(pack)
        pack["templates"] += 1
        plan.pulls.append({"repository": row.repository, "owner": owner, "name": name, "source": pack["source"],
                           "pack-url": pack["pack-url"], "sha256": pack["sha256"],
                           "branch": row.branch, "version": row.target, "pack-version": row.pack_version,
                           "artifact": pack["artifact"], "key": row.key,
                           "current": row.current, "bot-branch": row.bot_branch})
    plan.packs = sorted([*packs.values(), *builds], key=lambda p: (Version(p["version"]), p["artifact"]))
    plan.builds = [p for p in plan.packs if p["source"] == "build"]


def _sha256_digest(value) -> str:
    """The hex of a release asset's ``digest`` (``"sha256:<64 hex>"``), "" for anything else (null: an asset
    uploaded before GitHub computed digests)."""
    if isinstance(value, str) and re.fullmatch(r"sha256:[0-9a-f]{64}", value):
        return value.removeprefix("sha256:")
    return ""


def discover(remote: Remote, fleet: FleetList) -> list[Entry]:
    """The repositories of each ``discover:`` rule: ``GET /orgs/{org}/repos`` (GitHub REST docs, "List
    organization repositories": each item carries ``topics``, ``archived`` and ``default_branch``), 100 per
    page, conditional; archived repositories are left out.  A 404 is a refused row of the list."""
    found: list[Entry] = []
    for rule in fleet.discover:
        def keep(items):
            # a name GitHub would not give (no OWNER/NAME, a '..') is left out: it would become a request path
            return [{"full_name": r["full_name"], "archived": bool(r.get("archived")),
                     "topics": [t for t in r.get("topics") if isinstance(t, str)] if isinstance(r.get("topics"), list)
                     else []}
                    for r in items if isinstance(r, dict) and isinstance(r.get("full_name"), str)
                    and repository_problem(r["full_name"]) is None]
        try:
            repos = remote.get_pages(f"/orgs/{rule.organization}/repos", {"per_page": 100, "type": "all"},
                                     what=f"list the repositories of {rule.organization}", keep=keep,
                                     check=lambda v: _typed(v, {"full_name": str, "topics": list, "archived": bool})
                                     and all(repository_problem(r["full_name"]) is None for r in v))
        except PlatformError as exc:
            fleet.refused.append(Refused(f"organization: {rule.organization}", str(exc), rule.line))
            continue
        if repos is MISSING:
            fleet.refused.append(Refused(f"organization: {rule.organization}",
                                         f"GitHub answers 404 for the organization {rule.organization}: it does not "
                                         "exist or the App is not installed there", rule.line))
            continue
        matched = [r["full_name"] for r in repos
                   if rule.topic in r["topics"] and not r["archived"] and isinstance(r["full_name"], str)]
        if not matched:
            fleet.refused.append(Refused(f"organization: {rule.organization}",
                                         f"no repository of {rule.organization} that the token can see carries the "
                                         f"topic {rule.topic} (is the App installed there?)", rule.line))
        found += [Entry(full, None, rule.track, 0, source=f"topic {rule.organization}/{rule.topic}") for full in matched]
    return found


#: Pages of ``GET /installation/repositories`` read at most (100 repositories a page: 10,000 repositories).
INSTALLATION_PAGES = 100


def installation_repositories(remote: Remote) -> tuple[Optional[set], str]:
    """``(lower-case OWNER/NAME of every repository the token's App installation covers, "")``, or ``(None, why)``
    when that cannot be told (the token is not an installation's: GitHub refuses the request; or the answer is
    not the documented shape).

    GitHub REST docs, "List repositories accessible to the app installation": ``GET /installation/repositories``
    with an installation access token answers ``{"total_count": N, "repositories": [...]}``, 100 a page at most,
    more pages by ``Link: rel="next"``; read to the end within :data:`INSTALLATION_PAGES` pages (past that: None,
    said).  Raises :class:`~bot.errors.TransientError` when the retries are used up."""
    from bot.github.releases import _next_link

    what = "list the repositories of the App installation"
    names: set = set()
    url, params = "/installation/repositories", {"per_page": 100}
    for _ in range(INSTALLATION_PAGES):
        try:
            status, hdrs, data = remote._raw(url, params, None, what)
        except PlatformError as exc:
            return None, str(exc)
        if status != 200 or not isinstance(data, dict) or not isinstance(data.get("repositories"), list):
            return None, f"cannot {what}: GitHub answered HTTP {status} without a list of repositories"
        names |= {r["full_name"].lower() for r in data["repositories"]
                  if isinstance(r, dict) and isinstance(r.get("full_name"), str)}
        url, params = _next_link(hdrs), None
        if not url:
            return names, ""
    return None, f"cannot {what}: more than {INSTALLATION_PAGES} pages"
