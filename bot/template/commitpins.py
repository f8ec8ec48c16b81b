"""ExecuTorch pinned by commit: a SHA (and the release its comment names) in CMake, scripts and workflows.

Shapes (public CMSIS ExecuTorch templates and the way CMake, git and GitHub
Actions take a commit):

* CMake ``FetchContent_Declare`` / ``ExternalProject_Add`` / ``CPMAddPackage``
  of ExecuTorch (the call names ``executorch``): ``GIT_TAG <sha>  # v1.4.0``
  (CMake docs, FetchContent: "GIT_TAG ... a commit hash is recommended"); a
  ``GIT_TAG v1.4.0`` tag in the same block moves like any release tag;
* a git command on ExecuTorch in a script (the line, or the ``git clone`` /
  ``cd`` line above, names executorch): ``git checkout <sha>``, ``git switch
  --detach <sha>``, ``git reset --hard <sha>``, ``git fetch origin <sha>``,
  ``--branch <sha>``;
* a workflow step on ExecuTorch (``repository: pytorch/executorch`` in the
  step): ``ref: <sha>  # v1.4.0``, and ``uses: pytorch/executorch/...@<sha>``;
* a variable holding the SHA (``EXECUTORCH_COMMIT=<sha>  # v1.4.0`` in a
  script, ``set(ET_SHA <sha>)`` in CMake, ``ARG``/``ENV`` in a Dockerfile,
  ``NAME := <sha>`` in a Makefile, ``NAME: <sha>`` in a workflow ``env:``)
  whose name has ``EXECUTORCH`` or ``ET`` as a whole ``_``-separated part, or
  which one of the shapes above expands (``git checkout "$EXECUTORCH_COMMIT"``,
  ``GIT_TAG ${ET_SHA}``, ``ref: ${{ env.NAME }}``): the value moves as the
  command's own SHA would;
* any other SHA followed by a comment naming a release (``<sha>  # v1.4.0``)
  in a file that names executorch: the bot cannot see what uses it, so when
  the comment names the current release it is a blocking ``commit-pin`` item
  (a pin the bot cannot move), never a silent leftover.

A SHA is 7 to 40 hexadecimal digits holding a digit and a letter, written whole.  The
release is the first ``X.Y.Z`` of the comment after it on the same line
(``# v1.4.0``, ``// 1.4.0``), or none.  On a bump the SHA moves to the commit
the target tag names (read from upstream, annotated tags peeled:
:meth:`bot.upstream.source.UpstreamSource.tag_commit`), written as long as
before, and the comment's version moves with it.  When the bot cannot read
that commit, or cannot tell which release the SHA is (no comment, and not the
commit of the current tag), the line is a blocking ``commit-pin`` item.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from typing import Optional

from bot.model import Bump, Edit, Finding, Flag
from bot.textfile import TextDocument

#: Flag code of a commit pin the bot cannot move (blocking) or that names no release (audit).
CODE = "commit-pin"
#: Flag code of a commit pin moved although it was not on the current release (non-blocking).
DRIFT = "script-pin-drift"

#: A SHA: 7 to 40 hexadecimal digits with a digit and a letter (``--depth 1000000`` and a word such as
#: ``deadbeef`` are no commits; an all-digit short SHA is not recognised and its comment stays for review).
_HEX = r"(?P<sha>(?=[0-9a-fA-F]*[0-9])(?=[0-9]*[a-fA-F])[0-9a-fA-F]{7,40})(?![\w.\-])"
#: CMake: ``GIT_TAG <sha>`` or ``GIT_TAG v1.4.0`` (quoted or not).
_CMAKE = re.compile(r"(?<![\w])GIT_TAG[ \t]+\"?(?:" + _HEX + r"|v?(?P<tag>\d+\.\d+\.\d+(?:-?rc\d+)?)(?![\w.\-]))")
_CMAKE_CALL = re.compile(r"\b(?:FetchContent_Declare|ExternalProject_Add|CPMAddPackage|FetchContent_Populate)"
                         r"[ \t]*\(", re.I)
#: A SHA-shaped word (a candidate of the git commands below), found first: one linear pass.
_SHA_WORD = re.compile(r"(?<![\w.\-/@])[\"']?" + _HEX)
#: The text of its command before a SHA: a git command taking a commit (checkout, switch --detach,
#: reset --hard, fetch REMOTE, --branch), read on at most :data:`_BEFORE` characters of the line.
_VERB = re.compile(r"\b(?:checkout|switch|reset|fetch)\b")
_BRANCH = re.compile(r"--branch(?:=|[ \t]+)[\"']?\Z")
_BEFORE = 300


_GIT_REACH = 160
_GIT_WORD = re.compile(r"git")


def _git_command(before: str) -> Optional[str]:
    """The shape of the git command that ``before`` (the line up to a SHA) ends in, or None.

    The last ``git`` word starts the command; no ``#``, ``;``, ``&`` or ``|`` may stand between it and the
    SHA; it takes the SHA when a verb of :data:`_VERB` follows it (``"git checkout"``) or the SHA is the
    value of ``--branch``.  Linear in ``len(before)``.
    """
    i = before.rfind("git")
    while i > 0 and (before[i - 1].isalnum() or before[i - 1] in "_-"):
        i = before.rfind("git", 0, i)
    after = before[i + 3:i + 4]
    if i < 0 or (after and (after.isalnum() or after in "_-")):
        return None
    cmd = before[i:]
    if any(c in cmd for c in "#;&|"):
        return None
    if _BRANCH.search(cmd):
        return "--branch"
    verb = _VERB.search(cmd)
    return f"git {verb.group(0)}" if verb else None
#: A workflow: ``ref: <sha>`` (actions/checkout) and ``uses: pytorch/executorch...@<sha>``.
_REF = re.compile(r"^[ \t]*(?:-[ \t]+)?ref:[ \t]*[\"']?" + _HEX, re.M)
_USES = re.compile(r"\bpytorch/executorch(?:/[^@\s]*)?@" + _HEX, re.I)
#: A variable assigned a SHA: shell/bat ``[export|set|local|readonly] NAME=<sha>``, Dockerfile ``ARG|ENV NAME[= ]<sha>``,
#: Makefile ``NAME := <sha>`` (every assignment operator), CMake ``set(NAME <sha>)``, YAML ``NAME: <sha>``.
_ASSIGN = re.compile(r"^[ \t]*(?:(?:export|readonly|local|declare|set|ARG|ENV)[ \t]+|set[ \t]*\([ \t]*)?"
                     r"(?P<name>[A-Za-z_][A-Za-z0-9_]*)"
                     r"(?:[ \t]*(?:::=|:=|\?=|\+=|!=|=|:)[ \t]*|[ \t]+)[\"']?" + _HEX, re.M)
#: A variable name that says it is ExecuTorch's: ``EXECUTORCH`` or ``ET`` as a whole ``_`` part.
_ET_NAME = re.compile(r"(?:^|_)(?:EXECUTORCH|ET)(?:_|$)", re.I)
#: An expansion of a variable: ``$NAME``, ``${NAME}``, ``$(NAME)``, ``%NAME%``, ``${{ env.NAME }}``.
_EXPAND = re.compile(r"\$\{\{[ \t]*env\.(?P<e>\w+)[ \t]*\}\}|\$\{(?P<b>\w+)\}|\$\((?P<p>\w+)\)|\$(?P<d>\w+)|%(?P<w>\w+)%")
#: The value after ``GIT_TAG`` or a workflow ``ref:`` when it is a variable.
_CMAKE_VAR = re.compile(r"(?<![\w])GIT_TAG[ \t]+\"?(?=\$)")
_REF_VAR = re.compile(r"^[ \t]*(?:-[ \t]+)?ref:[ \t]*[\"']?(?=\$)", re.M)
#: A SHA followed by a comment naming a release, whatever holds it (the fallback shape).
_SHA_COMMENTED = re.compile(r"(?<![\w.\-/@])[\"']?" + _HEX + r"[\"']?[ \t]*\)?[ \t]+(?:#|//)")

#: The release a comment after the value names: ``# v1.4.0``, ``// ExecuTorch 1.4.0``.
#: The comment starts after white space (``https://`` in a URL is no comment) anywhere later on the line.
_COMMENT = re.compile(r"(?<=[ \t])(?:#|//)[^\n]*?(?<![\w.])v?(?P<cv>\d+\.\d+\.\d+(?:-?rc\d+)?)(?![\w]|\.\d)")


@dataclass(frozen=True)
class CommitPin:
    """One ExecuTorch pin by commit (or a ``GIT_TAG vX`` release tag) in a file.

    Attributes:
        start / end: span of the SHA (or of the tag's version) in the text.
        value: the SHA as written, or the version of a ``GIT_TAG vX``.
        is_tag: True for ``GIT_TAG vX`` (a release tag, no commit).
        version / vstart / vend: the release the comment names and its span, or None.
        shape: what holds it (``"GIT_TAG"``, ``"git checkout"``, ``"ref:"``, ``"uses:"``).
        line: 1-based line.
    """

    start: int
    end: int
    value: str
    is_tag: bool
    version: Optional[str]
    vstart: int
    vend: int
    shape: str
    line: int


def _line(text: str, pos: int, reach: int = _BEFORE) -> tuple[int, int]:
    """``(start, end)`` of the line holding ``pos``, each looked for at most ``reach`` characters away (a longer
    line is cut there: every rule here reads a few hundred characters around a pin, in linear time)."""
    lo = text.rfind("\n", max(0, pos - reach), pos) + 1 or max(0, pos - reach)
    hi = text.find("\n", pos, pos + reach)
    return lo, min(len(text), pos + reach) if hi == -1 else hi


def _in_cmake_call_of_executorch(text: str, pos: int) -> bool:
    """True when ``pos`` lies inside a FetchContent/ExternalProject/CPM call whose text so far names executorch
    (the call starts at most 2000 characters before)."""
    calls = list(_CMAKE_CALL.finditer(text, max(0, pos - 2000), pos))
    if not calls:
        return False
    inner = text[calls[-1].end():pos]
    return ")" not in inner and "executorch" in inner.lower()


def _steps(text: str) -> tuple[list[int], list[bool]]:
    """``(line starts, named)``: for each line of a workflow, whether its step (from the last ``- `` item line
    or blank line) names executorch up to and including that line.  One pass over the lines."""
    starts: list[int] = []
    named: list[bool] = []
    state = False
    pos = 0
    for line in text.splitlines(keepends=True):
        body = line.strip()
        if not body or body.startswith("- "):
            state = False
        state = state or "executorch" in line.lower()
        starts.append(pos)
        named.append(state)
        pos += len(line)
    return starts, named


def _comment_version(text: str, end: int) -> tuple[Optional[str], int, int]:
    _, hi = _line(text, end)
    m = _COMMENT.search(text, end, min(hi, end + _BEFORE))
    if m is None:
        return None, -1, -1
    return m.group("cv"), m.start("cv"), m.end("cv")


def find_commit_pins(doc: TextDocument, kind: str, executorch_ref) -> list[CommitPin]:
    """Every ExecuTorch commit pin of ``doc``, in file order.

    ``kind`` is ``"cmake"``, ``"workflow"`` or ``"script"`` (which shapes to look
    for); ``executorch_ref(text, pos)`` says whether the git command at ``pos``
    acts on ExecuTorch (:func:`bot.template.scripts._executorch_ref`).
    """
    text = doc.text
    low = text.lower()
    if "executorch" not in low:
        return []
    found: list[tuple[int, int, str, bool, str]] = []
    if kind == "cmake" and "git_tag" in low:
        for m in _CMAKE.finditer(text):
            if _in_cmake_call_of_executorch(text, m.start()):
                g = "sha" if m.group("sha") else "tag"
                found.append((m.start(g), m.end(g), m.group(g), g == "tag", "GIT_TAG"))
    if "git" in low:
        ours: dict[int, bool] = {}   # per line start: does the git command there act on ExecuTorch
        gits = [g.start() for g in _GIT_WORD.finditer(low)]
        for m in _SHA_WORD.finditer(text):
            i = bisect.bisect_left(gits, m.start())
            if not i or m.start() - gits[i - 1] > _GIT_REACH:
                continue      # no git word in reach before it: the common case, decided without slicing
            lo, _ = _line(text, m.start(), _GIT_REACH)
            before = text[lo:m.start()]
            shape = _git_command(before) if "git" in before else None
            if shape is None:
                continue
            if lo not in ours:
                ours[lo] = executorch_ref(text, m.start())
            if ours[lo]:
                found.append((m.start("sha"), m.end("sha"), m.group("sha"), False, shape))
    if kind == "workflow":
        steps: Optional[tuple[list[int], list[bool]]] = None
        for m in _REF.finditer(text):
            if steps is None:
                steps = _steps(text)
            i = bisect.bisect_right(steps[0], m.start("sha")) - 1
            if steps[1][i]:
                found.append((m.start("sha"), m.end("sha"), m.group("sha"), False, "ref:"))
        for m in _USES.finditer(text):
            found.append((m.start("sha"), m.end("sha"), m.group("sha"), False, "uses:"))
    found.extend(_variable_pins(text, kind, executorch_ref, {s for s, *_ in found}))
    taken = {s for s, *_ in found}
    for m in _SHA_COMMENTED.finditer(text):
        if m.start("sha") not in taken and not _another_projects(text, m.start("sha")):
            found.append((m.start("sha"), m.end("sha"), m.group("sha"), False, UNSEEN))
    out = []
    seen: set[int] = set()
    for s, e, value, is_tag, shape in sorted(found):
        if s in seen:
            continue
        seen.add(s)
        cv, cs, ce = _comment_version(text, e)
        out.append(CommitPin(s, e, value, is_tag, value if is_tag else cv, cs, ce, shape, doc.line_of(s)))
    return out


def _another_projects(text: str, pos: int) -> bool:
    """True when the SHA at ``pos`` is held by a recognised shape that takes another project's commit (a git
    command, ``GIT_TAG`` or a workflow ``ref:`` that :func:`find_commit_pins` found not to act on ExecuTorch):
    it is seen, and not ExecuTorch's."""
    lo, _ = _line(text, pos, _GIT_REACH)
    before = text[lo:pos].rstrip("\"'")
    return ("git" in before and _git_command(before) is not None) or before.rstrip().endswith("GIT_TAG") \
        or _REF.match(text, lo) is not None


#: The shape of a SHA with a release comment that no recognised command takes (the bot cannot move it).
UNSEEN = "a commit with a release comment"


def _variable_pins(text: str, kind: str, executorch_ref, taken: set[int]) -> list[tuple[int, int, str, bool, str]]:
    """The SHA-holding variables of ``text`` that are ExecuTorch's (by name, or expanded where ExecuTorch takes a
    commit: a git command on ExecuTorch, ``GIT_TAG`` in an ExecuTorch FetchContent call, a workflow ``ref:`` in
    a step naming executorch); ``taken``: SHA starts already found.  Linear in ``len(text)``."""
    assigns = [m for m in _ASSIGN.finditer(text) if m.start("sha") not in taken]
    if not assigns:
        return []
    used: set[str] = set()
    steps: list = []
    for m in _EXPAND.finditer(text):
        name = next(g for g in m.groups() if g)
        lo, _ = _line(text, m.start(), _GIT_REACH)
        before = text[lo:m.start()].rstrip("\"'")
        if "git" in before and _git_command(before) is not None and executorch_ref(text, m.start()):
            used.add(name)
        elif kind == "cmake" and before.rstrip().endswith("GIT_TAG") and _in_cmake_call_of_executorch(text, m.start()):
            used.add(name)
        elif kind == "workflow" and _REF_VAR.match(text, lo):
            if not steps:
                steps.append(_steps(text))
            starts, named = steps[0]
            if named[bisect.bisect_right(starts, m.start()) - 1]:
                used.add(name)
    out = []
    for m in assigns:
        name = m.group("name")
        if name in used or _ET_NAME.search(name):
            out.append((m.start("sha"), m.end("sha"), m.group("sha"), False, f"variable {name}"))
    return out


def findings(doc: TextDocument, pins: list[CommitPin]) -> list[Finding]:
    """``Finding(kind="commit-pin", name="executorch", version=<the release named, or None>)`` per commit pin
    (a ``GIT_TAG vX`` release tag is no commit pin)."""
    out = []
    for p in pins:
        if p.is_tag:
            continue
        lo, hi = _line(doc.text, p.start, 160)
        out.append(Finding(doc.path, p.line, CODE, "executorch", p.version, True, doc.text[lo:hi].strip()[:160]))
    return out


def update(doc: TextDocument, bump: Bump, pins: list[CommitPin]) -> tuple[list[Edit], list[Flag]]:
    """The edits moving each commit pin of ``pins`` to the target release, and the items for the others.

    See the module docstring.  A pin already on the target commit only gets a
    stale comment fixed; nothing moves when the bump keeps the ExecuTorch version.
    """
    edits: list[Edit] = []
    flags: list[Flag] = []
    olds = {bump.old_executorch, bump.old_pack}
    news = {bump.new_executorch, bump.new_pack}

    def new_form(v: str) -> str:
        return bump.new_pack if v == bump.old_pack and v != bump.old_executorch else bump.new_executorch

    def move_comment(p: CommitPin, why: str) -> None:
        if p.version is not None and p.version not in news and not p.is_tag:
            edits.append(Edit(doc.path, p.vstart, p.vend, p.version, new_form(p.version) if p.version in olds
                              else bump.new_executorch, p.line, "script", why))

    for p in pins:
        where = f"{p.shape} {p.value[:12]}" + (f" (# {p.version})" if p.version and not p.is_tag else "")
        if p.is_tag:
            if p.version in olds and p.version not in news:
                edits.append(Edit(doc.path, p.start, p.end, p.value, new_form(p.value), p.line, "script",
                                  f"GIT_TAG of the ExecuTorch release tag v{p.value}"))
            continue
        sha = p.value.lower()
        if p.shape == UNSEEN:
            if p.version in olds and p.version not in news:
                flags.append(Flag(CODE, f"ExecuTorch is pinned by commit here ({where}), and the bot does not see "
                                  f"which command takes the commit, so it cannot move it: pin the commit of "
                                  f"{bump.new_tag}{f' ({bump.new_commit})' if bump.new_commit else ''} by hand, "
                                  f"with its comment", path=doc.path, line=p.line))
            continue
        on_new = bool(bump.new_commit) and bump.new_commit.startswith(sha)
        if on_new:
            move_comment(p, f"the comment of {where} names the release of commit {sha[:12]}, {bump.new_tag}")
            continue
        if bump.old_executorch == bump.new_executorch:
            continue
        on_old = bool(bump.old_commit) and bump.old_commit.startswith(sha)
        if not bump.new_commit:
            note = f" ({bump.commit_note})" if bump.commit_note else ""
            flags.append(Flag(CODE, f"ExecuTorch is pinned by commit here ({where}); the bot could not read the "
                              f"commit of {bump.new_tag} from upstream{note}: set it by hand to the commit "
                              f"{bump.new_tag} names, with its comment", path=doc.path, line=p.line))
            continue
        if p.version is None and not on_old:
            known = f", and it is not the commit of {bump.old_tag} ({bump.old_commit[:12]})" if bump.old_commit else ""
            flags.append(Flag(CODE, f"ExecuTorch is pinned by commit here ({where}) with no release in a comment"
                              f"{known}: the bot cannot tell which release it is; pin the commit of {bump.new_tag} "
                              f"({bump.new_commit}) by hand, with a `# {bump.new_tag}` comment",
                              path=doc.path, line=p.line))
            continue
        why = f"commit of the ExecuTorch release tag {bump.new_tag} ({p.shape})"
        edits.append(Edit(doc.path, p.start, p.end, p.value, bump.new_commit[:len(p.value)], p.line, "script", why))
        move_comment(p, f"the comment of {where} names the release of the commit")
        if p.version is not None and p.version not in olds:
            flags.append(Flag(DRIFT, f"{where}: the comment names {p.version}, not the current {bump.old_executorch}; "
                              f"moved to the commit of {bump.new_tag} too", path=doc.path, line=p.line,
                              blocking=False))
        elif bump.old_commit and not on_old:
            flags.append(Flag(DRIFT, f"{where}: not the commit of {bump.old_tag} ({bump.old_commit[:12]}) its "
                              f"comment names; moved to the commit of {bump.new_tag} too", path=doc.path,
                              line=p.line, blocking=False))
    return edits, flags
