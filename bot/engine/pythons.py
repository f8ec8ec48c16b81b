"""Which Python versions a template states: ``.python-version``, workflow ``python-version:``
values (with matrix references resolved), and its own ``pyproject.toml`` ``requires-python``.

Read by the Python range check (:mod:`bot.engine.checks.python_range`).
"""

from __future__ import annotations

import re
from pathlib import Path

from bot.engine.read import Template
from bot.lazyre import lazy
from bot.template import scan as scanmod
from bot.textfile import TextDocument


_PY_VERSION_KEY = lazy(r"(?m)^[ \t-]*python-version[ \t]*:[ \t]*(?P<value>[^#\r\n]*)")
PY_VERSION = lazy(r"^\d+\.\d+(?:\.\d+)?$")


def stated_pythons(tpl: Template) -> list[tuple[str, int, str]]:
    """Every Python version or range the template states: ``[(path, line, text)]``.

    Sources: a ``.python-version`` file at the repository root (one version a
    line, pyenv's format), ``python-version:`` values in
    ``.github/workflows/*.yml`` (a scalar or a flow list; expressions such as
    ``${{ matrix.python }}`` and ``3.x`` are skipped), and ``requires-python``
    of the template's own ``pyproject.toml`` (a range).
    """
    from bot.template.prose import is_workflow

    out: list[tuple[str, int, str]] = []
    pv = Path(tpl.repo) / ".python-version"
    if not scanmod.excluded(".python-version", tpl.exclude) and pv.is_file() and not pv.is_symlink():
        try:
            for no, line in enumerate(pv.read_text(encoding="utf-8-sig").splitlines(), 1):
                value = line.split("#", 1)[0].strip()
                if PY_VERSION.match(value):
                    out.append((".python-version", no, value))
        except (OSError, UnicodeDecodeError):
            pass
    for loaded in tpl.files:
        doc = loaded.doc
        if is_workflow(doc.path) and "python-version" in doc.text:
            out.extend((doc.path, line, value) for line, value in workflow_pythons(doc))
        elif doc.path.rsplit("/", 1)[-1] == "pyproject.toml" and "requires-python" in doc.text:
            from bot.template.pyproject import load as load_toml
            from bot.template.tomltext import key_position
            project = load_toml(doc).get("project")
            spec = project.get("requires-python") if isinstance(project, dict) else None
            if isinstance(spec, str):
                at = key_position(doc.text, ["project"], "requires-python")
                out.append((doc.path, doc.line_of(at if at is not None else doc.text.find("requires-python")), spec))
    return out


_MATRIX_REF = re.compile(r"^\$\{\{\s*matrix\.([\w-]+)\s*\}\}$")


def workflow_pythons(doc: TextDocument) -> list[tuple[int, str]]:
    """``[(line, version)]`` for every Python version a GitHub Actions workflow states.

    ``python-version:`` values anywhere (``actions/setup-python``'s input, a
    matrix key): a scalar, a multi-line block scalar (one version a line, as
    setup-python reads it) or a list; ``${{ matrix.NAME }}`` is resolved to
    the values of matrix key ``NAME`` (its list and ``include:`` entries).
    Values that are not ``X.Y[.Z]`` (``3.x``, ``pypy3.10``, other
    expressions) are skipped.  Invalid YAML falls back to a line scan of
    ``python-version:`` values.
    """
    import yaml

    from bot.yamlnodes import mappings

    try:
        root = yaml.compose(doc.text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except (yaml.YAMLError, RecursionError):   # RecursionError: nested too deeply
        root = None
    if root is None:
        out = []
        for m in _PY_VERSION_KEY.finditer(doc.text):
            for item in m.group("value").strip().strip("[]").split(","):
                value = item.strip().strip("'\"")
                if PY_VERSION.match(value):
                    out.append((doc.line_of(m.start("value")), value))
        return out

    def scalars(node) -> list:
        if isinstance(node, yaml.ScalarNode):
            return [node]
        if isinstance(node, yaml.SequenceNode):
            return [x for x in node.value if isinstance(x, yaml.ScalarNode)]
        return []

    matrix: dict[str, list] = {}
    for m in mappings(root):
        for k, v in m.value:
            if isinstance(k, yaml.ScalarNode) and k.value == "matrix" and isinstance(v, yaml.MappingNode):
                for mk, mv in v.value:
                    if not isinstance(mk, yaml.ScalarNode):
                        continue
                    if mk.value in ("include", "exclude"):
                        if mk.value == "include" and isinstance(mv, yaml.SequenceNode):
                            for entry in mv.value:
                                if isinstance(entry, yaml.MappingNode):
                                    for ik, iv in entry.value:
                                        if isinstance(ik, yaml.ScalarNode):
                                            matrix.setdefault(ik.value, []).extend(scalars(iv))
                        continue
                    matrix.setdefault(mk.value, []).extend(scalars(mv))
    found: list[tuple[int, str]] = []
    for m in mappings(root):
        for k, v in m.value:
            if not (isinstance(k, yaml.ScalarNode) and k.value == "python-version"):
                continue
            nodes = scalars(v)
            if len(nodes) == 1 and nodes[0] is v:
                ref = _MATRIX_REF.match(v.value.strip())
                if ref:
                    nodes = matrix.get(ref.group(1), [])
            for node in nodes:
                first = doc.line_of(node.start_mark.index)
                if node.style in ("|", ">"):
                    first += 1  # the content starts on the line after the indicator
                for i, part in enumerate(node.value.split("\n")):
                    value = part.strip()
                    if PY_VERSION.match(value):
                        found.append((first + i if "\n" in node.value else first, value))
    return sorted(set(found))
