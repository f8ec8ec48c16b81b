"""The template's optional ``.github/executorch-pack-bot.yml`` (or ``.yaml``): branch, labels, reviewers, author,
draft policy, excluded paths.

Example::

    branch: executorch-pack-bot/executorch   # or bot/executorch-{version}: one branch per version
    base: main                               # default: the checkout's current branch
    labels: [dependencies, executorch]
    reviewers: [alice, acme/firmware]        # a user, or ORG/TEAM for a team of the repository's organisation
    assignees: [alice]
    milestone: 4                             # a milestone number of the template repository
    author: "github-actions[bot] <41898282+github-actions[bot]@users.noreply.github.com>"
    draft: auto                              # auto (draft when a check failed or a blocking item is flagged), always, never
    exclude: [docs/old/*, vendor]            # globs of template paths the engine never reads (bot.engine)
    automerge: on-approval                   # off (default): an approval by a writer enables auto-merge
    merge-method: squash                     # squash (default), merge or rebase: how auto-merge merges
    dashboard: true                          # keep one dashboard issue (bot.events.dashboard)
    commit: git                              # git (push a commit made here) or api (GitHub makes and signs it)
    signoff: false                           # true: a Signed-off-by trailer with the author (DCO)
    ignore-mentions:                         # review items a person has looked at (bot.engine.ignore)
      - {path: docs/bench.md:14, reason: the model zoo's version}
    model: model/model.pte                   # the template's own model, run by run-model --template

Labels, reviewers, assignees and the milestone are decorations: GitHub may
refuse any of them (a reviewer who is not a collaborator, a label the token
cannot create) and the pull request still stands (bot.github.decorations).

Every key is optional; an unknown key, a wrong type or a bad value is a
:class:`~bot.errors.UsageError` naming the file and line.  The default
author is the GitHub Actions bot identity (GitHub docs, "GITHUB_TOKEN":
``41898282+github-actions[bot]@users.noreply.github.com``).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from bot.errors import UsageError

CONFIG_PATH = ".github/executorch-pack-bot.yml"
CONFIG_PATHS = (CONFIG_PATH, ".github/executorch-pack-bot.yaml")   # either spelling, never both
DEFAULT_BRANCH = "executorch-pack-bot/executorch"
DEFAULT_AUTHOR = ("github-actions[bot]", "41898282+github-actions[bot]@users.noreply.github.com")
#: ``commit:`` values: ``git`` pushes a commit made with git plumbing; ``api`` has GitHub create it through the
#: Git Data API (bot.github.apicommit), which GitHub signs for an App or Actions token.
COMMIT_MODES = ("git", "api")
AUTOMERGE = ("off", "on-approval")
MERGE_METHODS = ("squash", "merge", "rebase")   # GraphQL PullRequestMergeMethod, lower case
KNOWN = ("branch", "base", "labels", "reviewers", "assignees", "milestone", "author", "draft", "exclude", "automerge",
         "merge-method", "dashboard", "commit", "signoff", "ignore-mentions", "model")
_AUTHOR = re.compile(r"^\s*([^<>]+?)\s*<([^<>\s]+@[^<>\s]+)>\s*$")
_BRANCH_OK = re.compile(r"^[A-Za-z0-9._/{}-]+$")
_REF_BAD = re.compile(r"[\x00-\x20\x7f~^:?*\[\\]|\.\.|@\{|//")


def valid_branch_name(name: str) -> bool:
    """True when ``refs/heads/NAME`` is a valid git ref (the rules of ``git check-ref-format``, git docs):
    no space, control character, ``~^:?*[\\``, ``..``, ``@{`` or ``//``; no component starting with
    ``.`` or ending with ``.lock``; not starting with ``-`` or ``/``; not ending with ``/`` or ``.``; not ``@``."""
    if not name or name == "@" or _REF_BAD.search(name) or name.startswith(("-", "/")) or name.endswith(("/", ".")):
        return False
    return all(part and not part.startswith(".") and not part.endswith(".lock") for part in name.split("/"))


@dataclass(frozen=True)
class Config:
    """The validated settings (defaults when the file is absent)."""

    branch: str = DEFAULT_BRANCH
    base: Optional[str] = None
    labels: tuple[str, ...] = ()
    reviewers: tuple[str, ...] = ()
    assignees: tuple[str, ...] = ()
    milestone: Optional[int] = None
    author_name: str = DEFAULT_AUTHOR[0]
    author_email: str = DEFAULT_AUTHOR[1]
    draft: str = "auto"
    exclude: tuple[str, ...] = ()
    automerge: str = "off"
    merge_method: str = "squash"
    dashboard: bool = False
    commit: str = "git"
    signoff: bool = False
    model: Optional[str] = None
    model_line: Optional[int] = field(default=None, compare=False)
    path: Optional[str] = field(default=None, compare=False)

    def wants_draft(self, flags, check_failed: bool = False, model_failed: bool = False) -> bool:
        """Whether the PR is a draft, the one rule of ``run`` and ``publish``.

        ``flags`` are the plan's :class:`~bot.model.Flag` items.  ``auto``:
        draft when a flag is blocking (``update --allow-flagged`` let it
        through) or a pack check failed; informational items (history
        mentions, downgrades upstream asked for, leftovers) are listed in the
        body but make no draft; ``model_failed``: the model-run proof failed (a
        mismatch, a failed run, or the run-model job failed) also makes a draft.
        ``always`` / ``never``: as named.
        """
        return self.draft_reason(flags, check_failed, model_failed) is not None

    def draft_reason(self, flags, check_failed: bool = False, model_failed: bool = False) -> Optional[str]:
        """Why the PR is a draft (one clause for the PR body and a warning), or None: :meth:`wants_draft`'s rule."""
        if self.draft != "auto":
            return "the config says `draft: always`" if self.draft == "always" else None
        if check_failed:
            return "the pack failed verification"
        if model_failed:
            return "the model run on the simulated Cortex-M55 failed"
        blocking = sum(1 for f in flags if getattr(f, "blocking", True))
        if blocking:
            return f"{blocking} blocking item{'s are' if blocking != 1 else ' is'} flagged"
        return None

    @property
    def user_reviewers(self) -> tuple[str, ...]:
        """The ``reviewers`` that are users (no ``/``)."""
        return tuple(r for r in self.reviewers if "/" not in r)

    @property
    def team_reviewers(self) -> tuple[str, ...]:
        """The team slugs of the ``ORG/TEAM`` entries of ``reviewers`` (GitHub REST docs, "Request reviewers for a
        pull request": ``team_reviewers`` takes slugs of the repository owner's teams)."""
        return tuple(r.split("/", 1)[1] for r in self.reviewers if "/" in r)

    def branch_pattern(self) -> "re.Pattern":
        """A regex matching the bot's branches: :attr:`branch`, ``{version}`` standing for any version."""
        parts = self.branch.split("{version}")
        return re.compile(r"[A-Za-z0-9._-]+".join(re.escape(p) for p in parts))

    def branch_for(self, version: str) -> str:
        """The branch for a target version (``{version}`` replaced; a fixed branch is returned as is)."""
        return self.branch.replace("{version}", version)


def with_commit_mode(config: Config, mode: Optional[str]) -> Config:
    """``config`` with ``commit`` set to ``mode`` (``--commit``, the action's ``commit`` input); unchanged for None/""."""
    from dataclasses import replace

    if not mode:
        return config
    if mode not in COMMIT_MODES:
        raise UsageError(f"--commit {mode!r} is not one of {', '.join(COMMIT_MODES)}")
    return replace(config, commit=mode)


#: Bytes a settings file may hold; a real one is a few hundred (PyYAML takes seconds per MB of flow list).
MAX_CONFIG_BYTES = 1 << 20


def config_path(repo: Path) -> Optional[str]:
    """The repository-relative path of the config file (``.yml`` or ``.yaml``), or None when there is none.

    Raises :class:`UsageError` naming both when both spellings exist (which
    one wins would be a guess), and naming the file when it is there but is
    not a regular file: a symlink (which could point out of the checkout,
    and which the engine would not follow), a folder, a FIFO or a device
    would otherwise be taken for "no settings" or hang the read.
    """
    found = [rel for rel in CONFIG_PATHS if os.path.lexists(Path(repo) / rel)]
    if len(found) > 1:
        raise UsageError(f"both {found[0]} and {found[1]} exist; keep one of them", path=found[1])
    if not found:
        return None
    path = Path(repo) / found[0]
    if path.is_symlink() or not path.is_file():
        kind = "a symlink" if path.is_symlink() else "a folder" if path.is_dir() else "not a regular file"
        raise UsageError(f"is {kind}; the settings must be a regular file in the repository", path=found[0])
    return found[0]


def config_setting(repo: Path, key: str):
    """``(repository-relative path, PyYAML node of KEY's value)`` from the config file, or None when the
    file, or the key at its top level, is absent (or the file is not a mapping: :func:`load_config`
    names that).  The engine's own keys (``exclude:``, ``ignore-mentions:``) are read through this.
    Raises :class:`UsageError` as :func:`compose_config` does."""
    import yaml

    found = compose_config(repo)
    if found is None:
        return None
    rel, node = found
    if not isinstance(node, yaml.MappingNode):
        return None
    for k, value in node.value:
        if isinstance(k, yaml.ScalarNode) and k.value == key:
            return rel, value
    return None


def compose_config(repo: Path):
    """``(repository-relative path, PyYAML node)`` of the config file, or None when there is none.

    The one reader of the file's bytes for :func:`load_config` and the
    engine's ``exclude:`` (:func:`bot.engine.read.config_excludes`).  Raises
    :class:`UsageError` naming the file (and the line when known) for what
    :func:`config_path` refuses, a file over :data:`MAX_CONFIG_BYTES`, bytes
    that are not UTF-8, invalid YAML, or YAML nested too deeply for the
    parser.  The node is None for an empty file.
    """
    import yaml

    rel = config_path(repo)
    if rel is None:
        return None
    path = Path(repo) / rel
    try:
        with open(path, "rb") as fh:
            raw = fh.read(MAX_CONFIG_BYTES + 1)
    except OSError as exc:
        raise UsageError(f"cannot read: {exc.strerror}", path=rel) from None
    if len(raw) > MAX_CONFIG_BYTES:
        raise UsageError(f"larger than {MAX_CONFIG_BYTES >> 20} MiB; a settings file is a few lines", path=rel)
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[:exc.start].count(b"\n") + 1
        raise UsageError(f"not UTF-8 text (byte 0x{raw[exc.start]:02x})", path=rel, line=line) from None
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark else None
        if line is None and isinstance(getattr(exc, "position", None), int):   # a ReaderError (bad character)
            line = text[:exc.position].count("\n") + 1
        raise UsageError(f"invalid YAML: {getattr(exc, 'problem', None) or getattr(exc, 'reason', None) or exc}",
                         path=rel, line=line) from None
    except RecursionError:
        raise UsageError("invalid YAML: nested too deeply", path=rel) from None
    return rel, node


def model_path(value: str, err, node) -> str:
    """``model:``: the template's own program, a repository-relative path to a ``.pte`` file (the sample
    template ships ``model/model.pte``), in POSIX form.  Raises ``err(message, node)`` for an absolute path,
    a ``..`` component, a backslash, a control character or lone surrogate (YAML's ``"\\0"``, ``"\\ud800"``:
    the system cannot open such a name), or a name not ending in ``.pte``; whether the file exists is checked
    by ``run-model --template`` (:mod:`bot.modelrun.template`), which reads it."""
    parts = value.split("/")
    if re.search(r"[\x00-\x1f\x7f-\x9f\ud800-\udfff]", value):
        raise err(f"model: {value!r} holds a control character or a lone surrogate (not a file name a template "
                  "ships)", node)
    if value.startswith("/") or re.match(r"^[A-Za-z]:", value) or "\\" in value:
        raise err(f"model: {value!r} is not a path relative to the repository root (e.g. model/model.pte)", node)
    if ".." in parts:
        raise err(f"model: {value!r} leaves the repository (a '..' component)", node)
    if not value.endswith(".pte") or not parts[-1][:-4]:
        raise err(f"model: {value!r} is not a .pte file (an ExecuTorch program exported by the template)", node)
    return "/".join(p for p in parts if p not in ("", "."))


def load_config(repo: Path) -> Config:
    """Read ``REPO/.github/executorch-pack-bot.yml`` or ``.yaml`` (absent: defaults).

    Raises :class:`UsageError` ("FILE:LINE: ...", exit 2) for both files
    present, a file that is not a regular file or cannot be read
    (:func:`compose_config`), invalid YAML, an unknown key, a wrong type or
    a bad value.  ``exclude`` is only checked to be a list of non-empty
    strings here; the engine (:func:`bot.engine.read_template`) applies the globs.
    """
    import yaml

    found = compose_config(repo)
    if found is None:
        return Config()
    rel, node = found
    if node is None:
        return Config(path=rel)
    if not isinstance(node, yaml.MappingNode):
        raise UsageError("expected a mapping of settings", path=rel, line=node.start_mark.line + 1)

    def err(msg: str, n) -> UsageError:
        return UsageError(msg, path=rel, line=n.start_mark.line + 1)

    def scalar(key: str, v) -> str:
        if not isinstance(v, yaml.ScalarNode) or not str(v.value).strip() or v.tag == "tag:yaml.org,2002:null":
            raise err(f"{key}: expected a non-empty string", v)
        return str(v.value).strip()

    def strings(key: str, v) -> tuple[str, ...]:
        if isinstance(v, yaml.ScalarNode):
            return (scalar(key, v),)
        if not isinstance(v, yaml.SequenceNode):
            raise err(f"{key}: expected a list of strings", v)
        return tuple(scalar(key, x) for x in v.value)

    def choice(key: str, v, allowed) -> str:
        c = scalar(key, v)
        if c not in allowed:
            raise err(f"{key}: {c!r} is not one of {', '.join(allowed)}", v)
        return c

    def boolean(key: str, v) -> bool:
        if not isinstance(v, yaml.ScalarNode) or v.tag != "tag:yaml.org,2002:bool":
            raise err(f"{key}: expected true or false, got {getattr(v, 'value', '...')!r}", v)
        return str(v.value).lower() in ("true", "yes", "on")   # YAML 1.1 booleans, as PyYAML resolves them

    values: dict = {}
    seen: set[str] = set()
    for k, v in node.value:
        if not isinstance(k, yaml.ScalarNode):   # "? [a]" or "{a: 1}: x": a name must be plain text
            raise err(f"a setting name must be a word (known: {', '.join(KNOWN)})", k)
        key = str(k.value)
        if key in seen:
            raise err(f"{key}: given twice", k)
        seen.add(key)
        if key == "branch":
            b = scalar(key, v)
            unknown = re.sub(r"\{version\}", "", b)
            if "{" in unknown or "}" in unknown:
                # named as written: "bot/{{version}}" has no other {...}, only a brace too many
                shown = next((x for x in re.findall(r"\{[^{}]*\}", b) if x != "{version}"), None)
                raise err(f"branch: {shown or 'a brace'} in {b!r} is not a placeholder; "
                          "the only one is {version}, e.g. bot/executorch-{version}", v)
            if not _BRANCH_OK.match(b) or not valid_branch_name(b.replace("{version}", "1.0.0")):
                raise err(f"branch: {b!r} is not a valid branch name", v)
            values["branch"] = b
        elif key == "base":
            b = scalar(key, v)
            if not valid_branch_name(b):
                raise err(f"base: {b!r} is not a valid branch name", v)
            values["base"] = b
        elif key in ("labels", "reviewers", "assignees"):
            values[key] = strings(key, v)
            if key != "labels":
                for x, n in zip(values[key], v.value if isinstance(v, yaml.SequenceNode) else [v]):
                    bad = not re.fullmatch(r"@?[A-Za-z0-9](?:[A-Za-z0-9-]*)(?:/[A-Za-z0-9_.-]+)?", x)
                    if bad or (key == "assignees" and "/" in x):
                        raise err(f"{key}: {x!r} is not a GitHub user name"
                                  + (" or ORG/TEAM" if key == "reviewers" else ""), n)
                values[key] = tuple(x.lstrip("@") for x in values[key])
        elif key == "milestone":
            m = scalar(key, v)
            if not m.isdigit() or int(m) < 1:
                raise err(f"milestone: {m!r} is not a milestone number (the N of .../milestone/N)", v)
            values["milestone"] = int(m)
        elif key == "exclude":
            if not isinstance(v, yaml.SequenceNode):
                raise err("exclude: expected a list of path globs, e.g. [docs/old/*, vendor]", v)
            values["exclude"] = tuple(scalar(key, x) for x in v.value)
        elif key == "ignore-mentions":
            pass  # validated and applied by the engine (bot.engine.ignore), like exclude's globs
        elif key == "author":
            a = scalar(key, v)
            m = _AUTHOR.match(a)
            if not m:
                raise err(f"author: {a!r} is not 'Name <email>'", v)
            values["author_name"], values["author_email"] = m.group(1), m.group(2)
        elif key == "draft":
            values["draft"] = choice(key, v, ("auto", "always", "never"))
        elif key == "automerge":
            values["automerge"] = choice(key, v, AUTOMERGE)
        elif key == "merge-method":
            values["merge_method"] = choice(key, v, MERGE_METHODS)
        elif key == "dashboard":
            values["dashboard"] = boolean(key, v)
        elif key == "commit":
            values["commit"] = choice(key, v, COMMIT_MODES)
        elif key == "signoff":
            values["signoff"] = boolean(key, v)
        elif key == "model":
            values["model"], values["model_line"] = model_path(scalar(key, v), err, v), v.start_mark.line + 1
        else:
            raise err(f"unknown setting {key!r} (known: {', '.join(KNOWN)})", k)
    return Config(path=rel, **values)
