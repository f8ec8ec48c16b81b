"""The fleet list: which template repositories and branches a fleet run keeps up to date.

A YAML file (docs/fleet.md)::

    templates:
      - repository: Arm-Examples/CMSIS-Executorch
        branches: [main, hackathon]      # default: the repository's default branch
      - repository: acme/traffic-counter
        track: "1.4"                     # stay on ExecuTorch 1.4.x (a pinned minor series)
    discover:
      - organization: acme
        topic: cmsis-executorch-template # every repository of acme with this topic
        track: ""                        # optional, as above

The whole file must be a mapping with ``templates:`` and/or ``discover:``
(anything else is bad input: :class:`~bot.errors.UsageError`, exit 2,
``FILE:LINE``).  One malformed entry, or a repository and branch listed
twice, does not stop the others: it becomes a :class:`Refused` row with its
reason and line.  Repository names follow GitHub's rules (owner: letters,
digits and ``-``; name: letters, digits, ``.``, ``-``, ``_``); a track is
``X`` or ``X.Y`` (the newest stable ``vX.Y.Z`` of that series is the target).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from bot.errors import UsageError

_OWNER = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$")
_NAME = re.compile(r"^[A-Za-z0-9._-]{1,100}$")
_TRACK = re.compile(r"^(0|[1-9][0-9]*)(\.(0|[1-9][0-9]*))?$")
_TOPIC = re.compile(r"^[a-z0-9][a-z0-9-]{0,49}$")   # GitHub topics: lowercase letters, digits, hyphens, <= 50
TEMPLATE_KEYS = ("repository", "branches", "branch", "track")
DISCOVER_KEYS = ("organization", "topic", "track")
MAX_ENTRIES = 5000
MAX_BYTES = 4_000_000      # 5000 entries of a few lines each fit many times over
#: Rows (templates and refused entries) a list may make: YAML aliases (``*e``) repeat an entry, and ``branches:``
#: multiplies it, without the file growing, so the count after both is bounded, not only the file's size.
MAX_ROWS = MAX_ENTRIES


@dataclass(frozen=True)
class Entry:
    """One template to keep up to date.

    ``repository`` is ``OWNER/NAME``; ``branch`` the template branch, or None
    for the repository's default branch; ``track`` ``"X"``/``"X.Y"`` or None
    (the newest stable release); ``line`` the list's line (0 for a discovered
    repository); ``source`` ``"list"`` or ``"topic ORG/TOPIC"``.
    """

    repository: str
    branch: Optional[str] = None
    track: Optional[str] = None
    line: int = 0
    source: str = "list"

    @property
    def key(self) -> str:
        """``OWNER/NAME@BRANCH`` (``@`` alone for the default branch), case-folded as GitHub compares names."""
        return f"{self.repository.lower()}@{self.branch or ''}"

    def label(self) -> str:
        """``OWNER/NAME`` or ``OWNER/NAME@BRANCH`` for rows and messages."""
        return f"{self.repository}@{self.branch}" if self.branch else self.repository


@dataclass(frozen=True)
class Discover:
    """Every repository of ``organization`` carrying ``topic`` (``GET /orgs/{org}/repos`` lists topics)."""

    organization: str
    topic: str
    track: Optional[str] = None
    line: int = 0


@dataclass(frozen=True)
class Refused:
    """A list entry that is not planned: ``what`` it was (as written, shortened), ``reason``, ``line``."""

    what: str
    reason: str
    line: int = 0


@dataclass
class FleetList:
    """What the list file says: entries in file order, discovery rules, refused entries, the file's name."""

    path: str
    entries: list[Entry] = field(default_factory=list)
    discover: list[Discover] = field(default_factory=list)
    refused: list[Refused] = field(default_factory=list)
    _by_key: dict = field(default_factory=dict, repr=False)

    def add(self, entry: Entry) -> None:
        """Add ``entry`` unless its repository and branch are there already.

        A second entry of the list for the same repository and branch is refused
        (naming the first one's line); a discovered repository already listed is
        left out without a row: the explicit entry's branches and track win.
        """
        first = self._by_key.get(entry.key)
        if first is None:
            self.entries.append(entry)
            self._by_key[entry.key] = entry
        elif entry.source == "list":
            self.refused.append(Refused(entry.label(), f"listed twice: first at {self.path}:{first.line}",
                                        entry.line))


def repository_problem(text: str) -> Optional[str]:
    """Why ``text`` is not ``OWNER/NAME`` by GitHub's naming rules, or None."""
    owner, sep, name = text.partition("/")
    if not sep or "/" in name:
        return f"{text!r} is not OWNER/NAME"
    if not _OWNER.fullmatch(owner) or owner.endswith("-") or "--" in owner:
        return f"{owner!r} is not a GitHub owner name (letters, digits, single hyphens)"
    if not _NAME.fullmatch(name) or name in (".", ".."):
        return f"{name!r} is not a GitHub repository name (letters, digits, '.', '-', '_')"
    return None


def track_problem(text: str) -> Optional[str]:
    """Why ``text`` is not a track (``X`` or ``X.Y``), or None."""
    return None if _TRACK.fullmatch(text) else f"track {text!r} is not X or X.Y (a release series such as 1.4)"


def load_fleet_list(path: Path) -> FleetList:
    """Read the fleet list at ``path``.

    Raises :class:`UsageError` (``FILE:LINE``) when the file cannot be read, is
    not a regular file, is larger than :data:`MAX_BYTES`, is not UTF-8 (the
    line of the first bad byte), is not YAML, is not a mapping, has an unknown top-level key, ``templates:``
    / ``discover:`` is not a list, or would make more than :data:`MAX_ROWS` rows (each branch and each YAML
    alias of an entry counted); a bad *entry* is a :class:`Refused` row instead.
    """
    import yaml

    name = str(path)
    if Path(path).exists() and not Path(path).is_file():   # a FIFO would block the read for ever
        raise UsageError("cannot read the fleet list: not a regular file", path=name)
    try:
        with open(path, "rb") as fh:
            raw = fh.read(MAX_BYTES + 1)
    except OSError as exc:
        raise UsageError(f"cannot read the fleet list: {exc.strerror or exc}", path=name) from None
    if len(raw) > MAX_BYTES:
        raise UsageError(f"more than {MAX_BYTES} bytes: not a fleet list ({MAX_ENTRIES} entries at most)", path=name)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UsageError(f"not UTF-8 text (byte 0x{raw[exc.start]:02x})", path=name,
                         line=raw.count(b"\n", 0, exc.start) + 1) from None
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except (yaml.YAMLError, RecursionError) as exc:   # RecursionError: nested too deeply
        mark = getattr(exc, "problem_mark", None)
        raise UsageError(f"not valid YAML: {getattr(exc, 'problem', None) or exc}", path=name,
                         line=mark.line + 1 if mark else None) from None
    fleet = FleetList(name)
    if root is None:
        raise UsageError("empty: expected templates: and/or discover:", path=name)
    if not isinstance(root, yaml.MappingNode):
        raise UsageError("expected a mapping with templates: and/or discover:", path=name, line=root.start_mark.line + 1)
    seen_keys = set()
    for k, v in root.value:
        key = str(k.value) if isinstance(k, yaml.ScalarNode) else "?"
        line = k.start_mark.line + 1
        if key not in ("templates", "discover"):
            raise UsageError(f"unknown key {key!r}: expected templates: and/or discover:", path=name, line=line)
        if key in seen_keys:
            raise UsageError(f"{key}: given twice", path=name, line=line)
        seen_keys.add(key)
        if v.tag == "tag:yaml.org,2002:null":
            continue
        if not isinstance(v, yaml.SequenceNode):
            raise UsageError(f"{key}: expected a list of entries", path=name, line=v.start_mark.line + 1)
        if len(v.value) > MAX_ENTRIES:
            raise UsageError(f"{key}: {len(v.value)} entries, more than {MAX_ENTRIES}", path=name,
                             line=v.start_mark.line + 1)
        for item in v.value:
            if key == "templates":
                _template_entry(fleet, item)
            else:
                _discover_entry(fleet, item)
    return fleet


def _short(node) -> str:
    """A node as written, on one line and at most 60 characters, for a refused row."""
    import yaml

    if isinstance(node, yaml.ScalarNode):
        text = str(node.value)
    elif isinstance(node, yaml.MappingNode):
        text = ", ".join(f"{k.value}: ..." if not isinstance(v, yaml.ScalarNode) else f"{k.value}: {v.value}"
                         for k, v in node.value if isinstance(k, yaml.ScalarNode))
    else:
        text = "a list"
    text = " ".join(text.split())
    return text[:57] + "..." if len(text) > 60 else text


def _fields(node, allowed: tuple[str, ...]) -> tuple[dict, Optional[str]]:
    """``{key: value node}`` of a mapping entry, or the reason it is malformed."""
    import yaml

    if not isinstance(node, yaml.MappingNode):
        return {}, f"expected a mapping with {allowed[0]}:"
    out = {}
    for k, v in node.value:
        key = str(k.value) if isinstance(k, yaml.ScalarNode) else "?"
        if key not in allowed:
            return {}, f"unknown key {key!r} (known: {', '.join(allowed)})"
        if key in out:
            return {}, f"{key}: given twice"
        out[key] = v
    if allowed[0] not in out:
        return {}, f"{allowed[0]}: missing"
    return out, None


def _text(node) -> Optional[str]:
    """A non-empty scalar's text, or None."""
    import yaml

    if isinstance(node, yaml.ScalarNode) and node.tag != "tag:yaml.org,2002:null" and str(node.value).strip():
        return str(node.value).strip()
    return None


def _track(fields: dict) -> tuple[Optional[str], Optional[str]]:
    """(track or None, the reason it is malformed or None)."""
    if "track" not in fields or fields["track"].tag == "tag:yaml.org,2002:null" or fields["track"].value == "":
        return None, None
    t = _text(fields["track"])
    if t is None:
        return None, "track: expected X or X.Y"
    return t, track_problem(t)


def _room(fleet: FleetList, more: int, line: int) -> None:
    """Raise :class:`UsageError` (``FILE:LINE``) when ``more`` rows would take the list over :data:`MAX_ROWS`."""
    have = len(fleet.entries) + len(fleet.refused) + len(fleet.discover)
    if have + more > MAX_ROWS:
        raise UsageError(f"more than {MAX_ROWS} templates, discovery rules and refused entries (counting each "
                         "branch and each YAML alias): not a fleet list", path=fleet.path, line=line)


def _refuse(fleet: FleetList, refused: Refused) -> None:
    _room(fleet, 1, refused.line)
    fleet.refused.append(refused)


def _template_entry(fleet: FleetList, node) -> None:
    import yaml

    line = node.start_mark.line + 1
    fields, why = _fields(node, TEMPLATE_KEYS)
    repo = _text(fields.get("repository")) if not why else None
    if not why and repo is None:
        why = "repository: expected OWNER/NAME"
    why = why or repository_problem(repo)
    track, bad = _track(fields) if not why else (None, None)
    why = why or bad
    branches: list[Optional[str]] = [None]
    if not why and "branch" in fields and "branches" in fields:
        why = "give branch: or branches:, not both"
    if not why and ("branch" in fields or "branches" in fields):
        v = fields.get("branches", fields.get("branch"))
        items = v.value if isinstance(v, yaml.SequenceNode) else [v]
        _room(fleet, len(items), line)   # before reading each name: an alias may repeat a long list
        names = [_text(i) for i in items]
        from bot.config import valid_branch_name
        if not names or any(n is None or not valid_branch_name(n) for n in names):
            bad_name = next((i.value if isinstance(i, yaml.ScalarNode) else "a list or mapping"
                             for i, n in zip(items, names) if n is None or not valid_branch_name(n)), "")
            why = f"branches: {bad_name!r} is not a valid branch name" if names else "branches: empty list"
        else:
            branches = list(dict.fromkeys(names))
    if why:
        _refuse(fleet, Refused(_short(node), why, line))
        return
    _room(fleet, len(branches), line)
    for b in branches:
        fleet.add(Entry(repo, b, track, line))


def _discover_entry(fleet: FleetList, node) -> None:
    line = node.start_mark.line + 1
    fields, why = _fields(node, DISCOVER_KEYS)
    org = _text(fields.get("organization")) if not why else None
    topic = _text(fields.get("topic")) if not why else None
    if not why and (org is None or not _OWNER.fullmatch(org)):
        why = "organization: expected a GitHub organization name"
    if not why and (topic is None or not _TOPIC.fullmatch(topic)):
        why = "topic: expected a GitHub topic (lowercase letters, digits, hyphens; at most 50)"
    track, bad = _track(fields) if not why else (None, None)
    why = why or bad
    if why:
        _refuse(fleet, Refused(_short(node), why, line))
        return
    _room(fleet, 1, line)
    fleet.discover.append(Discover(org, topic, track, line))
