"""The shipped sample and the demo show the accounting: the mentions line and each bucket's items."""

from __future__ import annotations

from helpers import run_cli
from mentionkit import audit_json, counts, left, update_json


def test_the_sample_bump_accounts_for_every_occurrence(template, upstream_repo, capsys):
    code, data = update_json(capsys, template, upstream_repo, "--dry-run")
    assert code == 0
    assert counts(data) == (30, 4, 2, 0)
    assert left(data) == [
        ("other", "README.md", 19, "1.0.0", "a table row of another thing (Board BSP)"),
        ("history", "README.md", 21, "1.4.0", "history-mention"),
        ("history", "README.md", 23, "2.13.0", "a measurement or test claim"),
        ("other", "cmsis-executorch.csolution.yml", 15, "1.0.0", "another pack (ARM::SSE_320_BSP)"),
        ("history", "documentation/results.md", 5, "1.4.1", "history-mention"),
        ("history", "documentation/results.md", 6, "1.3.0", "history-mention"),
    ]
    assert len(data["edits"]) == 30


def test_the_sample_after_the_bump_lists_the_look_alikes_with_their_rules(template, upstream_repo, capsys):
    assert update_json(capsys, template, upstream_repo)[0] == 0
    code, aud = audit_json(capsys, template)
    assert (code, aud["ok"]) == (0, True)
    assert aud["mentions"]["version"] == "1.5.1"
    assert counts(aud) == (30, 3, 8, 0)
    assert [x for x in left(aud) if x[0] == "other" and "V2M" in x[4]] == [
        ("other", "board/Corstone-300/README.md", 3, "1.5.0", "another pack (ARM::V2M_MPS3_SSE_300_BSP)"),
        ("other", "cmsis-executorch.cbuild-pack.yml", 6, "1.5.0", "another pack (ARM::V2M_MPS3_SSE_300_BSP)"),
        ("other", "cmsis-executorch.cbuild-pack.yml", 8, "1.5.0", "another pack (ARM::V2M_MPS3_SSE_300_BSP)"),
        ("other", "cmsis-executorch.csolution.yml", 14, "1.5.0", "another pack (ARM::V2M_MPS3_SSE_300_BSP)"),
    ]
    assert ("other", "documentation/pack-provenance.md", 28, "1.4.5", "a tool version (PackChk)") in left(aud)


def test_the_demo_prints_the_mentions_lines(capsys):
    code, out, _ = run_cli(capsys, "demo")
    assert code == 0
    lines = out.splitlines()
    assert "mentions of 1.4.0: 30 moved, 4 history, 2 other versions, 0 for review" in lines
    assert ("audit after applying: mentions of 1.5.1: 30 a bump moves, 3 history, 8 other versions, 0 for review "
            "(the new pin's mentions, not the old one's)") in lines


def _listed(lines: list[str], after: str) -> dict[str, int]:
    """The demo's ``Left as written, BUCKET (N):`` blocks after the line starting with ``after``: {bucket: items}."""
    out, bucket = {}, None
    for line in lines[next(i for i, ln in enumerate(lines) if ln.startswith(after)) + 1:]:
        if line.startswith("Left as written, "):
            bucket = line[len("Left as written, "):line.rindex(" (")]
            out[bucket] = 0
            assert line.endswith(f"({int(line[line.rindex('(') + 1:-2])}):")
        elif bucket and line.startswith("  - "):
            out[bucket] += 1
        elif bucket:
            break
    return out


def test_the_demos_counts_are_the_mentions_it_lists_before_and_after_applying(capsys):
    # it said "4 history" and listed 3 flagged items; after applying "3 history, 8 other versions", none listed
    code, out, _ = run_cli(capsys, "demo")
    lines = out.splitlines()
    assert _listed(lines, "Flagged items") == {"history": 4, "another thing's version": 2}
    assert _listed(lines, "audit after applying") == {"history": 3, "another thing's version": 8}
    assert "  - README.md:23: 2.13.0 (a measurement or test claim)" in lines   # the unflagged history item
