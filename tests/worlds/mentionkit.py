"""Helpers of the mentions tests: a small template on ExecuTorch 1.4.0 and whole-result views of a run."""

from __future__ import annotations

import json
from pathlib import Path

from helpers import run_cli

#: The smallest template: one pack pin and one Python pin of ExecuTorch 1.4.0.
BASE = {"app.csolution.yml": "solution:\n  packs:\n    - pack: PyTorch::ExecuTorch@1.4.0\n",
        "requirements.txt": "executorch==1.4.0\n"}


def write(root: Path, files: dict) -> Path:
    """Write ``BASE`` overlaid with ``files`` (a None value leaves a base file out) under ``root``."""
    for rel, text in {**BASE, **files}.items():
        if text is None:
            continue
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(text.encode())
    return root


def update_json(capsys, repo: Path, tags: Path, *extra) -> tuple[int, dict]:
    """``update --json`` (written unless ``--dry-run`` is in ``extra``): (exit code, JSON)."""
    code, out, err = run_cli(capsys, "update", "--repo", repo, "--upstream", tags, "--json", *extra)
    assert "Traceback" not in err, err
    return code, json.loads(out)


#: The edits of the base template's two pins (BASE), as :func:`edits` lists them.
PINS = [("app.csolution.yml", 3, "1.4.0", "1.5.1"), ("requirements.txt", 1, "1.4.0", "1.5.1")]


def plan(tmp_path: Path, tags: Path, capsys, files: dict) -> dict:
    """The ``update --dry-run --json`` plan of the base template plus ``files`` (exit 0 asserted)."""
    repo = write(tmp_path / "t", files)
    code, data = update_json(capsys, repo, tags, "--dry-run")
    assert code == 0, data
    return data


def audit_json(capsys, repo: Path) -> tuple[int, dict]:
    code, out, err = run_cli(capsys, "audit", "--repo", repo, "--json")
    assert "Traceback" not in err, err
    return code, json.loads(out)


def edits(data: dict) -> list[tuple]:
    """``[(path, line, old, new)]`` of a plan."""
    return [(e["path"], e["line"], e["old"], e["new"]) for e in data["edits"]]


def flags(data: dict, *codes: str) -> list[tuple]:
    """``[(code, path, line, blocking)]`` of a plan or audit (only ``codes`` when given)."""
    return [(f["code"], f["path"], f["line"], f["blocking"]) for f in data["flags"]
            if not codes or f["code"] in codes]


def left(data: dict) -> list[tuple]:
    """The accounting's items outside ``moved``: ``[(bucket, path, line, version, rule)]``."""
    return [(i["bucket"], i["path"], i["line"], i["version"], i["rule"]) for i in data["mentions"]["items"]
            if i["bucket"] != "moved"]


def counts(data: dict) -> tuple[int, int, int, int]:
    c = data["mentions"]["counts"]
    return c["moved"], c["history"], c["other"], c["review"]


# -- the accounting called directly (no CLI): a template built in memory --------------------------------

class _Manager:
    """Stands in for a manager of a loaded file: the accounting asks only its ``name`` (``"prose"`` or not)."""

    def __init__(self, name: str):
        self.name = name


def template(files: dict = None, prose: dict = None, others: dict = None, findings=()):
    """A :class:`bot.engine.read.Template` held in memory: ``files`` are loaded files of a non-prose manager,
    ``prose`` loaded files of the prose manager, ``others`` the other text candidates (str or bytes; None for
    a file that could not be read), ``findings`` the :class:`bot.model.Finding` list."""
    from bot.engine.read import Loaded, Template
    from bot.textfile import TextDocument
    loaded = [Loaded(TextDocument(p, t), [_Manager("pins")]) for p, t in (files or {}).items()]
    loaded += [Loaded(TextDocument(p, t), [_Manager("pins"), _Manager("prose")]) for p, t in (prose or {}).items()]
    tpl = Template(Path("/nonexistent-template"), files=loaded, findings=list(findings), others=list(others or {}))
    for rel, raw in (others or {}).items():
        tpl._other_cache[rel] = raw.encode() if isinstance(raw, str) else raw
    return tpl


def rows(acc) -> list[tuple]:
    """Every item of an :class:`bot.engine.mentions.Accounting`, whole:
    ``(path, line, column, version, subject, bucket, rule, text)``, in the accounting's order."""
    return [(o.path, o.line, o.column, o.version, o.subject, o.bucket, o.rule, o.text) for o in acc.items]


def assert_accounting(acc, items: list[tuple], flags=(), version: str = "1.4.0") -> None:
    """Assert the whole accounting: its items (:func:`rows`), the counts they make, the review list, the
    summary version and the ``review-mention`` flags (compared whole, as dicts)."""
    assert rows(acc) == items, (rows(acc), items)
    want = {b: sum(1 for i in items if i[5] == b) for b in ("moved", "history", "other", "review")}
    assert acc.counts() == want
    assert [(o.path, o.line, o.column) for o in acc.review] == [i[:3] for i in items if i[5] == "review"]
    assert acc.version == version
    assert [f.to_json() for f in acc.flags] == [f.to_json() for f in flags]
