"""The Pythons a template states (``.python-version``, workflow ``python-version:``, ``requires-
python``) checked against the target's ``requires-python``.
"""

from __future__ import annotations

import json

from helpers import update as _update

WORKFLOW = '''name: ci
on: push
jobs:
  test:
    strategy:
      matrix:
        python-version:
          - "3.9"
          - "3.12"
        py: ["3.16", "3.11"]
        include:
          - py: "3.8"
    runs-on: ubuntu-latest
    steps:
      - uses: actions/setup-python@v5
        with:
          python-version: ${{ matrix.python-version }}
      - uses: actions/setup-python@v5
        with:
          python-version: ${{ matrix.py }}
      - uses: actions/setup-python@v5
        with:
          python-version: |
            3.7
            3.12
'''


def _flags(out: str, code: str) -> list[dict]:
    return [f for f in json.loads(out)["flags"] if f["code"] == code]


def test_stated_pythons_outside_the_targets_requires_python_are_flagged(template, upstream_repo, capsys):
    (template / ".python-version").write_text("3.9\n")
    wf = template / ".github" / "workflows" / "build.yml"
    wf.write_text(wf.read_text().replace(
        "      - uses: actions/checkout@v4\n",
        "      - uses: actions/checkout@v4\n      - uses: actions/setup-python@v5\n        with:\n"
        "          python-version: '3.12'\n      - run: echo\n        env:\n"
        "          python-version: [\"3.12\", \"3.16\"]\n", 1))
    (template / "pyproject.toml").write_text('[project]\nname = "t"\nrequires-python = ">=3.8,<3.13"\n')
    rc, out, err = _update(capsys, template, upstream_repo, "--json")
    assert rc == 0, err
    py = [f for f in json.loads(out)["flags"] if f["code"] == "requires-python"]
    # flags are listed sorted by (path, line)
    assert [(f["path"], f["line"], f["blocking"]) for f in py] == [
        (".github/workflows/build.yml", 16, False), (".python-version", 1, False), ("pyproject.toml", 3, False)]
    assert "Python 3.9 is outside executorch 1.5.1's requires-python '>=3.10,<3.15'" in py[1]["message"]
    assert "3.16" in py[0]["message"] and "3.8, 3.9" in py[2]["message"]


def test_workflow_python_lists_matrices_and_block_scalars_are_checked(template, upstream_repo, capsys):
    """Only one-line ``python-version: X`` / ``[X, Y]`` values were read: a block list, a matrix key
    used through ``${{ matrix.py }}`` and setup-python's multi-line input were never checked."""
    (template / ".github" / "workflows" / "ci.yml").write_text(WORKFLOW)
    rc, out, err = _update(capsys, template, upstream_repo, "--dry-run", "--json")
    assert rc == 0, err
    got = [(f["line"], f["message"].split(" is outside")[0]) for f in _flags(out, "requires-python")
           if f["path"] == ".github/workflows/ci.yml"]
    assert got == [(8, "Python 3.9"), (10, "Python 3.16"), (12, "Python 3.8"), (24, "Python 3.7")]


def test_pyproject_requires_python_line_is_the_key_not_a_comment(template, upstream_repo, capsys):
    (template / "pyproject.toml").write_text('# requires-python must follow ExecuTorch\n[project]\nname = "t"\n'
                                             'requires-python = ">=3.8"\n')
    (template / ".python-version").write_text("\ufeff3.9\n")
    rc, out, err = _update(capsys, template, upstream_repo, "--dry-run", "--json")
    assert rc == 0, err
    got = sorted((f["path"], f["line"]) for f in _flags(out, "requires-python") if f["path"])
    assert got == [(".python-version", 1), ("pyproject.toml", 4)]
