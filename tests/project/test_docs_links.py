"""Every relative link in README.md and docs/*.md names a file that exists, and every ``#anchor`` names a
heading of its target (GitHub's heading slugs: lower case, punctuation dropped, spaces to hyphens)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md"] + sorted((ROOT / "docs").glob("*.md"))
_LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
_FENCE = re.compile(r"^(```|~~~).*?^\1", re.S | re.M)


def slug(heading: str) -> str:
    """GitHub's anchor of a heading: markup removed, lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"`|\*\*|\[([^\]]*)\]\([^)]*\)", r"\1", heading.strip()).lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(path: Path) -> set[str]:
    """The anchors of ``path``'s headings (a repeated heading takes -1, -2, ...)."""
    seen: dict[str, int] = {}
    out = set()
    for line in _FENCE.sub("", path.read_text(encoding="utf-8")).splitlines():
        m = re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line)
        if m:
            s = slug(m.group(1))
            n = seen.get(s, 0)
            seen[s] = n + 1
            out.add(s if n == 0 else f"{s}-{n}")
    return out


def links(path: Path) -> list[str]:
    """The relative link targets of ``path`` outside code blocks (``(…)``: a placeholder in a sample of text)."""
    return [t for t in _LINK.findall(_FENCE.sub("", path.read_text(encoding="utf-8")))
            if not re.match(r"[a-z][a-z0-9+.-]*:", t) and t not in ("…", "...")]


def test_slug_follows_github():
    assert slug("What runs where, with which token") == "what-runs-where-with-which-token"
    assert slug("The `--expected` file") == "the---expected-file"


def broken_links(doc: Path) -> list[str]:
    """The relative links of ``doc`` whose file is missing or whose #anchor names no heading of it."""
    broken = []
    for target in links(doc):
        file, _, anchor = target.partition("#")
        dest = (doc.parent / file).resolve() if file else doc
        if not dest.exists():
            broken.append(f"{target}: no such file")
        elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
            broken.append(f"{target}: no heading #{anchor} in {dest.relative_to(ROOT)}")
    return broken


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_relative_links_and_anchors_resolve(doc):
    assert broken_links(doc) == []
