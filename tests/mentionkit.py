"""Helpers of the mentions tests: a small template on ExecuTorch 1.4.0 and whole-result views of a run."""

from __future__ import annotations

import json
from pathlib import Path

from tests.helpers import run_cli

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
