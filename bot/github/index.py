"""Is ``executorch==V`` on the package index, with wheels, and do our torch/torchao pins satisfy it?

Facts: the PyPI JSON API ``GET /pypi/NAME/VERSION/json`` (warehouse docs,
"JSON API") answers 404 for an unpublished version; otherwise ``urls`` lists
the files (``packagetype`` ``"bdist_wheel"`` for wheels) and
``info.requires_dist`` the PEP 508 requirements (PyPI's metadata of executorch: 1.4.1
requires ``torch>=2.13.0a0`` and ``torchao>=0.18.0``).  The base URL is
``EXECUTORCH_PACK_BOT_INDEX_URL`` (default https://pypi.org), faked in tests.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Mapping, Optional

from packaging.requirements import InvalidRequirement, Requirement
from packaging.version import InvalidVersion, Version

from bot.model import norm

DEFAULT_INDEX = "https://pypi.org"
CHECKED = ("torch", "torchao")


@dataclass(frozen=True)
class IndexStatus:
    """The package-index check of one executorch version.

    Attributes:
        version: the executorch version asked (``"1.5.1"``).
        published: the index serves the version.
        wheels: it has at least one wheel.
        problems: one sentence per unmet requirement (``"torch 2.12.0 does not satisfy torch>=2.13.0a0"``).
        requires: the ``requires_dist`` lines checked.
        yanked: every file of the version is yanked (PEP 592; the JSON API's ``urls[].yanked``): the
            maintainers took it back, and an installer ignores it unless it is pinned exactly.
        yanked_reason: the first ``yanked_reason`` given, or "".
    """

    version: str
    published: bool
    wheels: bool
    problems: tuple[str, ...] = ()
    requires: tuple[str, ...] = field(default=())
    yanked: bool = False
    yanked_reason: str = ""
    #: the Pythons (``"3.10"``) asked about that no wheel of the version serves (see :func:`wheel_serves`)
    no_wheel_for: tuple[str, ...] = ()

    @property
    def ready(self) -> bool:
        """True when a PR may be opened: published, not yanked, with wheels, every checked pin satisfied."""
        return self.published and not self.yanked and self.wheels and not self.problems and not self.no_wheel_for

    def summary(self) -> str:
        """One line for the log and the report."""
        if not self.published:
            return f"waiting for executorch {self.version} on the package index"
        if self.yanked:
            why = f" ({self.yanked_reason})" if self.yanked_reason else ""
            return f"executorch {self.version} is yanked on the package index (PEP 592){why}; not proposed"
        if not self.wheels:
            return f"waiting for executorch {self.version} on the package index: no wheels published yet"
        if self.no_wheel_for:
            return (f"executorch {self.version} on the package index has no wheel for Python "
                    f"{', '.join(self.no_wheel_for)}, which the template states")
        if self.problems:
            return f"executorch {self.version} on the package index: " + "; ".join(self.problems)
        return f"executorch {self.version} is on the package index with wheels"


def index_url(env: Mapping[str, str] = os.environ) -> str:
    return (env.get("EXECUTORCH_PACK_BOT_INDEX_URL") or DEFAULT_INDEX).rstrip("/")


def wheel_serves(filename: str, python: str) -> bool:
    """True when the wheel ``filename`` installs on CPython ``python`` (``"3.11"``), as pip decides from its tags
    (PEP 427 file name, PEP 425 tags: ``cp311``, ``py3``/``py311``, or ``cp3X-abi3`` with X <= 11).  A name that
    does not parse serves nothing."""
    from packaging.utils import InvalidWheelFilename, parse_wheel_filename

    try:
        tags = parse_wheel_filename(filename)[3]
        major, minor = (int(x) for x in python.split(".")[:2])
    except (InvalidWheelFilename, ValueError):
        return False
    for t in tags:
        i = t.interpreter
        if i in (f"cp{major}{minor}", f"py{major}{minor}", f"py{major}"):
            return True
        if t.abi == "abi3" and i.startswith(f"cp{major}") and i[2:].isdigit() and int(i[3:] or 0) <= minor:
            return True
    return False


def _parse(response, url: str) -> tuple[tuple[str, ...], tuple[str, ...], Optional[str]]:
    """(the file names of its wheels that are not yanked, ``requires_dist`` lines, the yank: None when some file is not yanked, else
    its ``yanked_reason`` or "") of a JSON API answer (PEP 592; warehouse "JSON API": ``urls[].yanked`` and
    ``urls[].yanked_reason``).

    Raises :class:`~bot.errors.PlatformError` naming ``url`` when the answer
    is not JSON or not shaped as the warehouse docs say (``urls``: a list of
    objects; ``info.requires_dist``: null or a list of strings).
    """
    from bot.errors import PlatformError

    def bad(why: str) -> PlatformError:
        return PlatformError(f"the package index answered {url} with {why}")

    try:
        data = response.json()
    except ValueError:
        raise bad("a body that is not JSON") from None
    if not isinstance(data, dict):
        raise bad("JSON that is not an object")
    urls = data.get("urls")
    info = data.get("info")
    urls = [] if urls is None else urls
    info = {} if info is None else info
    if not isinstance(urls, list) or not all(isinstance(u, dict) for u in urls):
        raise bad("`urls` that is not a list of files")
    if not isinstance(info, dict):
        raise bad("`info` that is not an object")
    reqs = info.get("requires_dist")
    reqs = [] if reqs is None else reqs
    if not isinstance(reqs, list) or not all(isinstance(x, str) for x in reqs):
        raise bad("`info.requires_dist` that is not a list of requirement strings")
    live = [u for u in urls if u.get("yanked") is not True]
    yank = None
    if urls and not live:
        yank = next((str(u.get("yanked_reason")) for u in urls if isinstance(u.get("yanked_reason"), str)
                     and u.get("yanked_reason")), "")
    wheels = tuple(str(u.get("filename") or "") for u in live if u.get("packagetype") == "bdist_wheel")
    return wheels, tuple(reqs), yank


def check_index(version: str, pins: Mapping[str, str], *, base_url: Optional[str] = None,
                http=None, policy=None, pythons: tuple[str, ...] = ()) -> IndexStatus:
    """Ask the index about ``executorch==version`` and check ``pins`` (name -> version) against it.

    Only ``torch`` and ``torchao`` of ``pins`` are checked, against the
    unconditional requirements (no marker, or a marker true without extras).
    ``pythons``: CPython versions (``"3.10"``) the template states; one that no wheel serves
    (:func:`wheel_serves`) is in ``no_wheel_for`` (pip would build from the sdist, or find nothing).
    Raises :class:`~bot.errors.PlatformError` when the index cannot be asked.
    """
    from bot.github.client import http_get, session

    http = http or session()
    url = f"{base_url or index_url()}/pypi/executorch/{version}/json"
    r = http_get(http, url, what=f"ask the package index about executorch {version}", policy=policy, ok=(200, 404))
    if r.status_code == 404:
        return IndexStatus(version, False, False)
    wheels, reqs, yank = _parse(r, url)
    problems: list[str] = []
    want = {norm(k): v for k, v in pins.items() if norm(k) in CHECKED and v}
    for line in reqs:
        try:
            req = Requirement(line)
        except InvalidRequirement:
            continue
        name = norm(req.name)
        if name not in want:
            continue
        if req.marker is not None and not req.marker.evaluate({"extra": ""}):
            continue
        try:
            ok = req.specifier.contains(Version(want[name]), prereleases=True)
        except InvalidVersion:
            ok = False
        if not ok:
            problems.append(f"{name} {want[name]} does not satisfy {line}")
    missing = tuple(py for py in pythons if wheels and not any(wheel_serves(w, py) for w in wheels))
    return IndexStatus(version, True, bool(wheels), tuple(problems), reqs, yanked=yank is not None,
                       yanked_reason=(yank or "")[:300], no_wheel_for=missing)
