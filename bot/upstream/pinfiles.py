"""Parsed views of the upstream pin files: requirement files, Python modules, ``pyproject.toml``.

The files and what each pins at a tag: ExecuTorch's pin files at tags v1.0.0 to v1.4.1; which file wins
for which package: :mod:`bot.upstream.pins`.
Python is read with :mod:`ast` (never regular expressions: v1.3.x has a
commented-out ``# NIGHTLY_VERSION = ...`` line), ``pyproject.toml`` with
:mod:`tomllib`, requirement files with :mod:`packaging.requirements`.  A file
that exists but does not parse raises :class:`UpstreamError` naming the
upstream path, the tag and the line; a value that cannot be found is a
:class:`~bot.model.ResolvedPin` with a ``reason``, never an exception.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from typing import Optional

try:  # Python 3.11+
    import tomllib
except ModuleNotFoundError:  # pragma: no cover - Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

from packaging.requirements import InvalidRequirement, Requirement
from packaging.version import InvalidVersion, Version

from bot import inert
from bot.errors import UpstreamError
from bot.model import norm
from bot.template.pep508 import empty_operator_problem
from bot.template.pipjoin import COMMENT, logical_lines


@dataclass(frozen=True)
class ReqLine:
    """One requirement of a requirement file or a Python string.

    ``name`` is PEP 503 normalised; ``version`` is set only for an exact
    ``==``/``===`` pin without wildcard; ``spec`` is the specifier (or URL)
    as written; ``url`` is set for a URL/VCS pin; ``line`` is 1-based.
    """

    name: str
    version: Optional[str]
    spec: str
    url: Optional[str] = None
    line: Optional[int] = None
    via: Optional[str] = None  # the module-level constant an f-string used, if any
    problem: Optional[str] = None  # why the pin cannot be used, when the fields do not say it

    def why_unresolved(self) -> str:
        if self.problem:
            return self.problem
        if self.url:
            return f"pinned by a URL ({_quote(self.url)}), not a version"
        if not self.spec:
            return "no version pin"
        if self.spec.lstrip().startswith("=="):
            return f"no exact version ({_quote(self.name + self.spec)})"
        return f"only a range ({_quote(self.name + self.spec)})"


#: Longest upstream text quoted in a reason or flag (a pin expression, a URL, a specifier), in characters.
QUOTE_CAP = 200
#: Longest logical line of an upstream requirement file, and longest requirement string in
#: Python or TOML (characters): a real one is under 200; longer is refused, not scanned.
MAX_REQUIREMENT = 4096
#: Longest upstream pin file read (bytes): the real ones are a few kB.
MAX_UPSTREAM_FILE = 2 << 20
#: Longest ``requires-python`` (characters).
MAX_REQUIRES_PYTHON = 200


def _quote(text: object) -> str:
    """Upstream text as quoted in a reason: one line, capped at :data:`QUOTE_CAP` (:func:`bot.inert.line`)."""
    return inert.line(text, cap=QUOTE_CAP)


def _exact(req: Requirement) -> Optional[str]:
    specs = list(req.specifier)
    if len(specs) != 1 or specs[0].operator not in ("==", "===") or "*" in specs[0].version:
        return None
    try:
        # ``===`` compares text, but the bump compares and writes versions: only a
        # PEP 440 version is usable (``=== 5.2.0-custom`` or an empty ``===`` is not).
        normal = str(Version(specs[0].version))
    except InvalidVersion:
        return None
    return normal if specs[0].operator == "==" else specs[0].version


# Every pattern applied to upstream text is linear: no two quantifiers can match the same
# characters one after the other (``\s*(X)?\s*`` backtracks quadratically over a run of spaces
# when X is absent), and the ones searched (not anchored) start with a single character.
_NAME_TEXT = re.compile(r"\s*[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?")
_SPEC_TEXT = re.compile(r"^\s*[A-Za-z0-9][A-Za-z0-9._-]*\s*(?:\[[^\]]*\]\s*)?([^;]*)")


def _req_line(text: str, line: Optional[int] = None, via: Optional[str] = None) -> ReqLine:
    """Parse one PEP 508 requirement; raises InvalidRequirement.

    An operator with no version (``ethos-u-vela ===``) is an unresolved line whose
    ``problem`` says so, whatever the installed packaging accepts (see
    :mod:`bot.template.pep508`: packaging 25.x parsed ``===`` alone, 26.x refuses it).
    """
    problem = empty_operator_problem(text)
    name = _NAME_TEXT.match(text)
    if problem is not None and name is not None:
        m = _SPEC_TEXT.match(text)
        return ReqLine(norm(name.group(0).strip()), None, m.group(1).strip() if m else "", line=line, via=via,
                       problem=problem)
    req = Requirement(text)
    m = _SPEC_TEXT.match(text)
    spec = m.group(1).strip() if m else str(req.specifier)
    if req.url:
        return ReqLine(norm(req.name), None, spec, url=req.url, line=line, via=via)
    return ReqLine(norm(req.name), _exact(req), spec, line=line, via=via)


_URL_LINE = re.compile(r"^(?:git\+|hg\+|svn\+|bzr\+)?[a-z]+://", re.I)
# Per-requirement options after the requirement (pip: --hash, --config-settings ...).
_OPTIONS = re.compile(r"\s--[A-Za-z]")   # one white space: the text before it is stripped anyway


def parse_requirement_file(data: bytes, path: str, tag: str) -> list[ReqLine]:
    """Every requirement of a pip requirement file, in file order.

    Comments, blank lines and option lines (``-r``, ``--extra-index-url``,
    ``-e`` ...) are skipped; lines are joined as pip joins them
    (:func:`bot.template.pipjoin.logical_lines`: a backslash followed by spaces
    continues nothing).  A bare URL
    line (``git+https://host/tosa-tools.git@v2025.07.1#egg=tosa-tools``) is a
    URL pin named by its ``#egg=`` fragment, else by the URL's last path part.

    Raises:
        UpstreamError: not UTF-8, or a line is not a PEP 508 requirement
            (naming ``path``, the line and ``tag``).
    """
    text = _decode(data, path, tag)
    out: list[ReqLine] = []
    for start, joined, _pieces in logical_lines(text):
        if len(joined) > MAX_REQUIREMENT:
            raise UpstreamError(f"line longer than {MAX_REQUIREMENT} characters @ {tag}: not a requirement",
                                path=path, line=start)
        logical = _OPTIONS.split(COMMENT.sub("", joined), 1)[0].strip()
        if not logical or logical.startswith("-"):
            continue
        if _URL_LINE.match(logical):
            url = logical.split()[0]
            egg = re.search(r"[#&]egg=([A-Za-z0-9._-]+)", url)
            last = url.split("#")[0].rstrip("/").rsplit("/", 1)[-1].split("@")[0]
            name = egg.group(1) if egg else re.sub(r"\.git$", "", last)
            out.append(ReqLine(norm(name), None, url, url=url, line=start))
            continue
        try:
            out.append(_req_line(logical, start))
        except InvalidRequirement as exc:
            raise UpstreamError(f"not a requirement @ {tag}: {_quote(repr(logical))} ({_quote(exc)})",
                                path=path, line=start) from exc
    return out


def _decode(data: bytes, path: str, tag: str) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise UpstreamError(f"not UTF-8 text @ {tag}", path=path) from exc


@dataclass
class PythonFacts:
    """What an upstream Python file states, read with :mod:`ast` (the file is never run).

    ``constants``: module-level ``NAME = "string"`` assignments.
    ``requirements``: every string (or f-string whose placeholders are all
    module-level string constants) that is a PEP 508 requirement, in source order.
    """

    constants: dict[str, str] = field(default_factory=dict)
    requirements: list[ReqLine] = field(default_factory=list)
    #: every module-level ``NAME = <anything>`` (source text of the value), strings or not
    assigned: dict[str, str] = field(default_factory=dict)


# group 1: extras, group 2: the operator (each white-space run matched by one quantifier: linear)
_REQ_SHAPE = re.compile(r"^\s*[A-Za-z0-9][A-Za-z0-9._-]*\s*(?:(\[[^\]]*\])\s*)?(==|===|>=|<=|~=|!=|<|>|@)")


def parse_python(data: bytes, path: str, tag: str) -> PythonFacts:
    """Module-level string constants and requirement strings of a Python file.

    Raises:
        UpstreamError: the file is not UTF-8 or not valid Python (naming
            ``path``, the line and ``tag``).
    """
    text = _decode(data, path, tag)
    try:
        tree = ast.parse(text, filename=path)
    except SyntaxError as exc:
        raise UpstreamError(f"not valid Python @ {tag}: {exc.msg}", path=path, line=exc.lineno) from exc
    except (RecursionError, MemoryError):
        # CPython's parser gives up on expressions nested thousands deep (``-(-(-...))``, ``a+a+...``)
        raise UpstreamError(f"Python nested too deeply to read @ {tag}", path=path) from None
    facts = PythonFacts()
    lines = _LINE_BREAK.split(text)   # once: ast.get_source_segment splits the whole file on every call
    for node in tree.body:
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets, value = [node.target], node.value
        for t in targets:
            if isinstance(t, ast.Name):
                # quoted in a flag: a multi-line expression becomes one capped line here
                facts.assigned[t.id] = _quote(_segment(lines, value))
        if targets and isinstance(value, ast.Constant) and isinstance(value.value, str):
            for t in targets:
                if isinstance(t, ast.Name):
                    facts.constants[t.id] = value.value
    pieces: set[int] = set()   # literal parts of f-strings: read only as part of their f-string
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            pieces.update(id(v) for v in node.values)
    for node in ast.walk(tree):
        text_value, via = None, None
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in pieces:
            text_value = node.value
        elif isinstance(node, ast.JoinedStr):
            text_value, via = _render_fstring(node, facts.constants)
            if text_value is None:
                _unrenderable_fstring(node, facts)
                continue
        if text_value is None or len(text_value) > MAX_REQUIREMENT or not _REQ_SHAPE.match(text_value):
            continue
        try:
            facts.requirements.append(_req_line(text_value.strip(), node.lineno, via))
        except InvalidRequirement:
            continue
    facts.requirements.sort(key=lambda r: r.line or 0)
    return facts


def _unrenderable_fstring(node: ast.JoinedStr, facts: PythonFacts) -> None:
    """An f-string that reads like a requirement (``f"torchao=={v}"``) but whose placeholder is not a
    module-level string constant: an unresolved requirement line saying so, never a guessed value."""
    head = node.values[0] if node.values else None
    if not (isinstance(head, ast.Constant) and isinstance(head.value, str)):
        return
    shape = _REQ_SHAPE.match(head.value)
    name = _NAME_TEXT.match(head.value)
    if shape is None or name is None:
        return
    facts.requirements.append(ReqLine(
        norm(name.group(0).strip()), None, head.value[shape.end(2) - len(shape.group(2)):].strip(),
        line=node.lineno, problem="an f-string whose placeholder is not a module-level string constant"))


_LINE_BREAK = re.compile(r"\r\n|\r|\n")   # where Python's tokenizer ends a line (as ast.get_source_segment)


def _segment(lines: list[str], node: ast.expr) -> str:
    """The source text of ``node``, at most about :data:`QUOTE_CAP` characters of it (ast offsets are UTF-8 bytes)."""
    first, last = node.lineno - 1, (node.end_lineno or node.lineno) - 1
    out, size = [], 0
    for i in range(first, last + 1):
        b = lines[i].encode("utf-8")
        if i == last and node.end_col_offset is not None:
            b = b[:node.end_col_offset]
        if i == first:
            b = b[node.col_offset:]
        out.append(b.decode("utf-8", "replace"))
        size += len(out[-1])
        if size > QUOTE_CAP:
            break
    return "\n".join(out)


def _render_fstring(node: ast.JoinedStr, constants: dict[str, str]) -> tuple[Optional[str], Optional[str]]:
    parts, names = [], []
    for v in node.values:
        if isinstance(v, ast.Constant) and isinstance(v.value, str):
            parts.append(v.value)
        elif (isinstance(v, ast.FormattedValue) and isinstance(v.value, ast.Name)
              and v.value.id in constants and v.conversion == -1 and v.format_spec is None):
            parts.append(constants[v.value.id])
            names.append(v.value.id)
        else:
            return None, None
    return "".join(parts), (" ".join(names) or None)


@dataclass
class PyprojectFacts:
    """``[project]`` of upstream's pyproject.toml: dependencies, optional-dependencies (keys PEP 503 normalised), requires-python."""

    dependencies: list[ReqLine] = field(default_factory=list)
    extras: dict[str, tuple[str, list[ReqLine]]] = field(default_factory=dict)  # norm key -> (key as written, reqs)
    requires_python: Optional[str] = None


def parse_pyproject(data: bytes, path: str, tag: str) -> PyprojectFacts:
    """Read ``[project]`` with :mod:`tomllib`.

    Raises:
        UpstreamError: not TOML (with the line tomllib reports) or a dependency
            that is not a PEP 508 requirement.
    """
    text = _decode(data, path, tag)
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        m = re.search(r"line (\d+)", str(exc))
        raise UpstreamError(f"not valid TOML @ {tag}: {_quote(exc)}", path=path,
                            line=int(m.group(1)) if m else None) from exc
    except (RecursionError, MemoryError):
        # tomllib recurses once per nested array or inline table
        raise UpstreamError(f"TOML nested too deeply to read @ {tag}", path=path) from None
    project = doc.get("project") if isinstance(doc.get("project"), dict) else {}
    facts = PyprojectFacts()
    rp = project.get("requires-python")
    facts.requires_python = rp if isinstance(rp, str) else None
    if facts.requires_python is not None and len(facts.requires_python) > MAX_REQUIRES_PYTHON:
        raise UpstreamError(f"[project] requires-python is longer than {MAX_REQUIRES_PYTHON} characters @ {tag}",
                            path=path)

    def reqs(items, where: str) -> list[ReqLine]:
        out = []
        for item in items if isinstance(items, list) else []:
            if not isinstance(item, str):
                continue
            if len(item) > MAX_REQUIREMENT:
                raise UpstreamError(f"{where} has an entry longer than {MAX_REQUIREMENT} characters @ {tag}",
                                    path=path)
            try:
                out.append(_req_line(item))
            except InvalidRequirement as exc:
                raise UpstreamError(f"{where} entry {_quote(repr(item))} is not a requirement @ {tag} ({_quote(exc)})",
                                    path=path) from exc
        return out

    facts.dependencies = reqs(project.get("dependencies"), "[project.dependencies]")
    opt = project.get("optional-dependencies")
    if isinstance(opt, dict):
        for key, items in opt.items():
            facts.extras[norm(key)] = (key, reqs(items, f"[project.optional-dependencies] {key}"))
    return facts
