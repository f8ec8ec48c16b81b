"""Reading a template for the engine: scan the checkout, load each candidate file, extract every finding.

:func:`read_template` is the one entry: it applies the ``--exclude`` globs and
the config file's ``exclude:`` list, decodes each file the scan hands over
(:mod:`bot.template.scan`), and asks its managers (:mod:`bot.template`) for
findings.  Which template files pin what: public CMSIS ExecuTorch templates such as Arm-Examples/CMSIS-Executorch.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional

from bot.errors import TemplateError, UsageError
from bot.model import Finding, Flag, norm
from bot.template import scan as scanmod
from bot.template.interface import Manager
from bot.template.locks import lock_missing_pack_flags
from bot.template.submodules import submodule_flags
from bot.textfile import TextDocument
from bot.textreport import plural

PACK = "PyTorch::ExecuTorch"
#: Finding kinds that pin the ExecuTorch version (prose only mentions it).
PIN_KINDS = ("pack-pin", "lock", "requirement", "unmanaged-requirement")
#: Finding kinds of Python requirements: rewritten ones, and constraints the bot only reads
#: (``unmanaged-requirement``: a pyproject.toml Poetry/uv/build constraint, see bot.template.pyproject).
REQUIREMENT_KINDS = ("requirement", "unmanaged-requirement")

#: Called with one-line progress messages.
Progress = Callable[[str], None]


@dataclass
class Loaded:
    """A template file read for planning: its document and the managers that handle it."""

    doc: TextDocument
    managers: list[Manager]


@dataclass
class Template:
    """What a scan of the checkout found: loaded files, every finding, and scan flags.

    ``exclude`` are the globs in force; ``others`` the text-file candidates no
    manager handles (searched for leftovers after planning), less the files git
    found quiet (:meth:`others_for` adds them back when a search needs them).
    """

    repo: Path
    files: list[Loaded] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    flags: list[Flag] = field(default_factory=list)
    exclude: tuple[str, ...] = ()
    others: list[str] = field(default_factory=list)
    #: folders never scanned (scan.SKIP_DIRS and friends) that exist in this template
    skipped_dirs: list[str] = field(default_factory=list)
    #: Python lock files (uv.lock, poetry.lock ...), never rewritten (bot.template.locks)
    python_locks: list[str] = field(default_factory=list)
    #: bytes of the ``others`` read so far (:meth:`other_bytes`); None for a file that could not be read
    _other_cache: dict = field(default_factory=dict, repr=False, compare=False)
    #: every file the walk would list in ``others``, in its order, quiet ones included (:mod:`bot.quietfiles`)
    _walk_others: list = field(default_factory=list, repr=False, compare=False)
    #: files left unread because git found them quiet; those the walk reads only to look for a "."
    _quiet: frozenset = field(default=frozenset(), repr=False, compare=False)
    _quiet_prose: frozenset = field(default=frozenset(), repr=False, compare=False)

    #: git's run when its answer was not there by the end of the read, and how long to wait for it then
    _git: object = field(default=None, repr=False, compare=False)
    _git_wait: float = field(default=0.0, repr=False, compare=False)

    def _use_quiet(self, quiet: frozenset) -> None:
        """Leave the quiet files out of :attr:`others` (read later, after planning, if at all)."""
        if quiet:
            self._quiet = quiet
            self.others = [rel for rel in self.others if rel not in quiet]

    def others_for(self, versions) -> list[str]:
        """The :attr:`others` to search for the version texts ``versions``, in walk order.

        Quiet files (never opened: :mod:`bot.quietfiles`) hold no version of the shape
        :func:`~bot.quietfiles.versions_have_quiet_shape` checks; when one of ``versions``
        has another shape, they are searched too, exactly as the walk lists them.
        """
        from bot.quietfiles import versions_have_quiet_shape
        if self._git is not None:   # git answered after the files were read: its answer is used now
            git, self._git = self._git, None
            self._use_quiet(git.result(self._git_wait) or frozenset())
        if not self._quiet or versions_have_quiet_shape(versions):
            return self.others
        return [rel for rel in self._walk_others
                if rel not in self._quiet_prose or _walk_lists_prose(self.other_bytes(rel))]

    def other_bytes(self, rel: str) -> Optional[bytes]:
        """The bytes of one of :attr:`others` (read once, then cached).

        The checks after planning (leftovers, the mentions accounting) search the
        same files; each is read from disk once.  Raises :class:`TemplateError`
        naming the file (and ``--exclude``) when it cannot be read: a file the
        accounting cannot see could hide an occurrence, so it is never skipped.
        """
        if rel not in self._other_cache:
            try:
                with open(os.path.join(os.fspath(self.repo), rel), "rb") as fh:
                    self._other_cache[rel] = fh.read()
            except OSError as exc:
                raise TemplateError(f"cannot read: {exc.strerror}; make it readable" + _exclude_way_out(rel),
                                    path=rel) from None
        return self._other_cache[rel]

    def executorch_pins(self, unmanaged: bool = True) -> list[Finding]:
        """Exact ExecuTorch pins: pack entries, the lock file, and ``executorch==`` requirements.

        ``unmanaged=False`` leaves out the pins the bot flags but cannot edit (a
        pyproject.toml Poetry/uv constraint): ``update`` does not let them decide the
        current version, so one edited by hand before the bump does not stop it.
        """
        kinds = REQUIREMENT_KINDS if unmanaged else ("requirement",)
        out = []
        for f in self.findings:
            if f.kind in ("pack-pin", "lock") and f.name == PACK and f.version and f.exact:
                out.append(f)
            elif f.kind in kinds and norm(f.name) == "executorch" and f.version and f.exact:
                out.append(f)
        return out


def _walk_lists_prose(raw: bytes) -> bool:
    """True when :func:`read_template` lists a prose-only file of these bytes in ``others``: it names no
    ExecuTorch and holds a "." (the byte filter leaves out a quiet file that names ExecuTorch)."""
    return b"." in raw and not scanmod.mentions_executorch(raw)


#: The optional config file of the template (owned by :mod:`bot.config`); the engine reads its ``exclude`` key.
CONFIG_PATH = ".github/executorch-pack-bot.yml"


def config_excludes(repo: Path) -> tuple[str, ...]:
    """The ``exclude:`` globs of ``REPO/.github/executorch-pack-bot.yml`` (or ``.yaml``; absent file or key: ``()``).

    Read through :func:`bot.config.config_setting` (the other keys are
    :mod:`bot.config`'s to validate).  Raises :class:`UsageError` naming the
    file and line when the file is not a regular file, too large, not UTF-8
    YAML, or when ``exclude`` is not a list of non-empty strings.
    """
    import yaml

    from bot.config import config_setting

    found = config_setting(repo, "exclude")
    if found is None:
        return ()
    rel, value = found
    if not isinstance(value, yaml.SequenceNode):
        raise UsageError("exclude: expected a list of path globs, e.g. [docs/old/*, vendor-docs]",
                         path=rel, line=value.start_mark.line + 1)
    out = []
    for item in value.value:
        if not (isinstance(item, yaml.ScalarNode) and item.tag == "tag:yaml.org,2002:str" and item.value.strip()):
            raise UsageError("exclude: every item must be a non-empty string (a path glob)",
                             path=rel, line=item.start_mark.line + 1)
        problem = scanmod.exclude_problem(item.value)
        if problem:
            raise UsageError(f"exclude: {item.value!r} {problem}", path=rel, line=item.start_mark.line + 1)
        out.append(item.value)
    return tuple(out)


def _exclude_way_out(rel: str) -> str:
    """The second way out of an unreadable file: leaving it out of the run."""
    return f", or leave it out with --exclude {rel} (or an exclude: entry in {CONFIG_PATH})"


#: The byte-level filter of prose files (:func:`read_template`); False reads every one (tests compare both).
BYTE_FILTER = True
#: Ask ``git grep`` which files need not be opened (:mod:`bot.quietfiles`); False walks and reads
#: every file (tests compare both; the same happens when git is missing or fails).
GIT_QUIET_FILES = True
#: Seconds to wait for git before the first file is read; None: read from the start and use git's answer
#: from the moment it is there; the files no manager handles are searched after planning, and git is
#: waited for then at most as long as the walk took (when git is slower, the machine is busy).
GIT_WAIT: Optional[float] = None

#: C/C++ sources and headers: searched for ``#define ET_..._VERSION "X"`` leftovers even without the word ExecuTorch.
_C_SUFFIXES = (".c", ".cc", ".cpp", ".cxx", ".h", ".hh", ".hpp", ".hxx")


#: What :func:`_read_one` answers for a prose file the byte filter leaves out (:data:`BYTE_FILTER`).
HELD_BACK = ("held back",)


def _read_one(root: str, rel: str, mgrs: list[Manager], byte_filter: Optional[bool] = None):
    """Read one file the walk found: None (nothing in it for the plan), ``("other", raw)`` (prose without
    the word ExecuTorch, searched after planning), :data:`HELD_BACK` (left out by the byte filter) or
    ``("loaded", Loaded, findings)``; ``byte_filter`` overrides :data:`BYTE_FILTER`.

    Raises :class:`TemplateError` naming the file for a file that cannot be read, or that is not text
    and holds pins or names ExecuTorch (see :func:`read_template`).
    """
    try:
        # plain os.path and open(): pathlib's per-call overhead shows on thousands of files
        with open(os.path.join(root, rel), "rb") as fh:
            raw = fh.read()
    except OSError as exc:
        raise TemplateError(f"cannot read: {exc.strerror}", path=rel) from None
    prose_only = all(m.name == "prose" for m in mgrs)
    if prose_only and not scanmod.mentions_executorch(raw):
        # prose without the word ExecuTorch holds no mention for the managers; it is still searched
        # after planning (leftovers such as #define ET_VERSION "X", and the mentions accounting,
        # which sees every file read), from the bytes read here.  A file without a "." holds no
        # version (X.Y at least), so there is nothing to search in it.
        return ("other", raw) if b"." in raw else None
    bad = scanmod.unreadable_text(raw)
    if bad is not None:
        # Binary or wide text: skipped, unless it holds pins (a pin manager's file) or
        # names ExecuTorch: leaving those behind would be a silent, partial bump.
        if any(m.name in scanmod.PIN_MANAGERS for m in mgrs) or scanmod.mentions_executorch(raw):
            raise TemplateError(bad[0] + _exclude_way_out(rel), path=rel, line=bad[1])
        return None
    if prose_only and (BYTE_FILTER if byte_filter is None else byte_filter) and not scanmod.may_name_version(raw):
        # readable ASCII text without a digit.digit: no version of that shape, so no mention, edit or
        # occurrence of one (a template pinning a version of another shape loads it: _load_held_back)
        return HELD_BACK
    try:
        doc = TextDocument.from_bytes(rel, raw)
    except TemplateError as exc:
        if b"executorch" not in raw.lower() and not any(m.name in scanmod.PIN_MANAGERS for m in mgrs):
            return None
        raise TemplateError(exc.message + _exclude_way_out(rel), path=exc.path, line=exc.line) from None
    findings: list[Finding] = []
    for m in mgrs:
        findings.extend(m.extract(doc))
    return ("loaded", Loaded(doc, mgrs), findings)


def _load_held_back(tpl: Template, root: str, candidates: list[tuple[str, list[Manager]]]) -> None:
    """Load the prose files the byte filter left out (and the quiet ones git spared, that the filter
    would leave out) into ``tpl.files``, in path order, as the walk without the filter loads them.

    Called when a version the template pins has no digit, dot, digit (a conda ``- pytorch=2`` pins
    ``2``): a restatement of it or an occurrence the accounting counts may then be in such a file.
    Raises :class:`TemplateError` as :func:`_read_one` does.
    """
    added, findings = [], []
    for rel, mgrs in candidates:
        res = _read_one(root, rel, mgrs, byte_filter=False)
        if res is not None and res[0] == "loaded":
            added.append(res[1])
            findings.extend(res[2])
    if added:
        order = {loaded.doc.path: i for i, loaded in enumerate(sorted(tpl.files + added, key=lambda x: x.doc.path))}
        tpl.files = sorted(tpl.files + added, key=lambda loaded: loaded.doc.path)
    if findings:   # none of the forms finds a version without a digit.digit; kept in file order all the same
        tpl.findings = sorted(tpl.findings + findings, key=lambda f: order[f.path])


def _begin(repo: Path, sc, globs: tuple[str, ...], progress: Optional[Progress], read_early: bool):
    """The :class:`Template` before its files are read (scan flags, submodules, progress line), and with
    ``read_early`` the outcome of reading every file a pin or script manager handles (read whatever git
    says, so while it works): ``{index in sc.files: outcome of _read_one, or the exception it raised}``."""
    tpl = Template(repo=repo, flags=list(sc.flags), exclude=globs, others=list(sc.others),
                   skipped_dirs=list(sc.skipped_dirs), python_locks=list(sc.python_locks))
    tpl.flags.extend(submodule_flags(repo, sc.submodules))     # listed once each, never scanned for edits
    if progress:
        progress(f"scanned {plural(len(sc.files), 'candidate file')} ({plural(sc.skipped, 'other file')} skipped"
                 + (f", {plural(len(sc.skipped_dirs), 'folder')} not scanned: "
                    + ", ".join(d + "/" for d in sc.skipped_dirs[:5])
                    + (", ..." if len(sc.skipped_dirs) > 5 else "") if sc.skipped_dirs else "")
                 + (f", {plural(sc.excluded, 'path')} excluded" if sc.excluded else "") + ")")
    early: dict[int, object] = {}
    if read_early:
        root = os.fspath(repo)
        for i, (rel, mgrs) in enumerate(sc.files):
            if not all(m.name == "prose" for m in mgrs):
                try:
                    early[i] = _read_one(root, rel, mgrs)
                except Exception as exc:   # raised in its turn: the first error in path order is the one shown
                    early[i] = exc
    return tpl, early


def read_template(repo: Path, progress: Optional[Progress] = None, exclude: tuple[str, ...] = ()) -> Template:
    """Scan ``repo`` and extract every finding.

    ``exclude`` globs (``--exclude``) and the config file's ``exclude:`` list
    name paths that are not read at all (:func:`bot.template.scan.excluded`).

    Raises :class:`UsageError` when ``repo`` is not a directory and
    :class:`TemplateError` (file and line) for a file that cannot be decoded
    or parsed.  A file that is not UTF-8 text (another encoding, UTF-16, NUL
    bytes) is skipped only when it can hold neither a pin (no pin manager
    handles it) nor an ExecuTorch mention (no ``executorch`` in it, any case);
    otherwise it is refused, never silently left behind.

    Byte-level filter (:data:`BYTE_FILTER`), before any decode or pattern: a
    file only the prose manager handles is not loaded when it does not name
    ExecuTorch, or when it is readable ASCII text without a digit, dot, digit
    sequence (:func:`bot.template.scan.may_name_version`): every version form
    the bot reads, moves or counts holds one, so such a file can yield no
    finding, edit, flag or counted occurrence.  When a version the template
    pins has another shape (a conda ``- pytorch=2`` pins ``2``), the files
    left out are loaded after all (:func:`_load_held_back`).

    Quiet files (:data:`GIT_QUIET_FILES`, :mod:`bot.quietfiles`): while
    the tree is walked, ``git grep`` lists the ASCII files without a digit,
    dot, digit; such a file the prose manager alone would read, or that no
    manager handles, is never opened.
    """
    repo = Path(repo)
    if not repo.is_dir():
        raise UsageError(f"--repo {repo}: not a directory")
    for glob in exclude:
        problem = scanmod.exclude_problem(glob)
        if problem:
            raise UsageError(f"--exclude {glob!r} {problem}")
    git = None
    if GIT_QUIET_FILES:
        from bot.quietfiles import QuietFiles, take
        git = take(repo, BYTE_FILTER) or QuietFiles(os.fspath(repo), BYTE_FILTER)   # runs while the tree is walked
    started = time.perf_counter()
    try:
        globs = scanmod.normalise_excludes(tuple(exclude) + config_excludes(repo))
        sc = scanmod.discover(repo, exclude=globs)
        walked = time.perf_counter() - started
        tpl, early = _begin(repo, sc, globs, progress, read_early=git is not None)
    except BaseException:
        if git is not None:
            git.cancel()
        raise
    root = os.fspath(repo)
    # git's answer is used from the moment it is there (files read before are read as the walk reads
    # them, with the same outcome); GIT_WAIT waits for it before the first file instead
    quiet: Optional[frozenset] = None
    if git is not None and GIT_WAIT is not None:
        quiet = git.result(GIT_WAIT) or frozenset()
    quiet_prose: list[str] = []
    held_back: list[tuple[str, list[Manager]]] = []   # prose files the byte filter left out
    quiet_prose_mgrs: dict[str, list[Manager]] = {}
    walk_prose: list[str] = []   # prose files the walk would add to others (quiet ones: if they hold a ".")
    prose_others: list[str] = []
    for i, (rel, mgrs) in enumerate(sc.files):
        if quiet is None and git is not None and git.done():
            quiet = git.result(0) or frozenset()
        if i in early:
            res = early[i]
            if isinstance(res, Exception):
                raise res
        elif quiet and rel in quiet and all(m.name == "prose" for m in mgrs):
            # ASCII without a digit.digit (git grep, bot.quietfiles): the walk would find no mention
            # and list it in others at most, where no version of the quiet shape is found
            quiet_prose.append(rel)
            quiet_prose_mgrs[rel] = mgrs
            walk_prose.append(rel)
            continue
        else:
            res = _read_one(root, rel, mgrs)
        if res is None:
            continue
        if res is HELD_BACK:
            held_back.append((rel, mgrs))
            continue
        if res[0] == "other":
            prose_others.append(rel)
            tpl._other_cache[rel] = res[1]
            walk_prose.append(rel)
            continue
        tpl.files.append(res[1])
        tpl.findings.extend(res[2])
    tpl.others = list(sc.others) + prose_others
    if git is not None:
        tpl._quiet_prose = frozenset(quiet_prose)
        tpl._walk_others = list(sc.others) + walk_prose
        if quiet is not None:
            tpl._use_quiet(quiet)
        else:
            # only files no manager handles are left to spare, read after planning: git's answer is
            # taken then (Template.others_for), waiting at most as long as the walk took
            tpl._git, tpl._git_wait = git, max(0.02, walked)
    from bot.quietfiles import versions_have_quiet_shape
    if (held_back or quiet_prose) and not versions_have_quiet_shape([f.version for f in tpl.findings if f.version]):
        _load_held_back(tpl, root, held_back + [(rel, quiet_prose_mgrs[rel]) for rel in quiet_prose])
    tpl.flags.extend(Flag("pack-id-case", f"{f.text.strip()!r}: the pack ID is {PACK} (CMSIS compares it "
                          "with its letter case); the bot does not rewrite this entry: correct it by hand",
                          path=f.path, line=f.line, blocking=True)
                     for f in tpl.findings if f.kind == "pack-id-case")
    paths = [loaded.doc.path for loaded in tpl.files]
    tpl.flags.extend(lock_missing_pack_flags(
        tpl.findings, [p for p in paths if p.endswith((".cbuild-pack.yml", ".cbuild-pack.yaml"))],
        [p for p in paths if p.endswith((".csolution.yml", ".csolution.yaml"))]))
    return tpl
