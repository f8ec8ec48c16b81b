"""Closed-world accounting: every occurrence of a version the bump moves is in exactly one bucket,
shown in update's and audit's JSON and text, and a for-review item is listed until it changes or is ignored."""

from __future__ import annotations

import json

from helpers import run_cli
from mentionkit import audit_json, counts, edits, flags, left, update_json, write

README = """# Demo

Install ExecuTorch 1.4.0 with `pip install executorch==1.4.0`.

The board pack is `ARM::SSE_320_BSP@1.4.0`; we also need numpy==1.4.0 and CMSIS-Toolbox 1.4.0.
The model takes 1.4 MB.

| model | fps | note |
|---|---|---|
| ResNet-8 | 61 | measured with ExecuTorch 1.3.0 |

Our build label is 1.4.0.
"""


def test_each_occurrence_lands_in_one_bucket_with_its_rule(tmp_path, tags, capsys):
    repo = write(tmp_path / "t", {"README.md": README})
    code, data = update_json(capsys, repo, tags, "--dry-run")
    assert code == 0
    assert edits(data) == [("README.md", 3, "1.4.0", "1.5.1"), ("README.md", 3, "1.4.0", "1.5.1"),
                           ("app.csolution.yml", 3, "1.4.0", "1.5.1"), ("requirements.txt", 1, "1.4.0", "1.5.1")]
    assert left(data) == [
        ("other", "README.md", 5, "1.4.0", "another pack (ARM::SSE_320_BSP)"),
        ("other", "README.md", 5, "1.4.0", "another package (numpy)"),
        ("other", "README.md", 5, "1.4.0", "a tool version (CMSIS-Toolbox)"),
        ("other", "README.md", 6, "1.4", "a quantity (a number with a unit)"),
        ("history", "README.md", 10, "1.3.0", "history-mention"),
        ("review", "README.md", 12, "1.4.0", "review-mention"),
    ]
    assert counts(data) == (4, 1, 4, 1)
    assert data["mentions"]["version"] == "1.4.0"
    assert [(i["path"], i["line"], i["text"]) for i in data["mentions"]["review"]] == [
        ("README.md", 12, "Our build label is 1.4.0.")]
    # the review item is a non-blocking flag: the PR is still proposed
    assert flags(data, "review-mention") == [("review-mention", "README.md", 12, False)]


def test_the_text_summary_prints_the_mentions_line(tmp_path, tags, capsys):
    repo = write(tmp_path / "t", {"README.md": README})
    code, out, _ = run_cli(capsys, "update", "--repo", repo, "--upstream", tags, "--dry-run")
    assert code == 0
    assert "\nmentions of 1.4.0: 4 moved, 1 history, 4 other versions, 1 for review\n" in out


def test_the_accounting_counts_are_the_items(tmp_path, tags, capsys):
    repo = write(tmp_path / "t", {"README.md": README})
    _, data = update_json(capsys, repo, tags, "--dry-run")
    m = data["mentions"]
    assert sum(m["counts"].values()) == len(m["items"])
    for bucket, n in m["counts"].items():
        assert n == sum(1 for i in m["items"] if i["bucket"] == bucket)
    # every occurrence of a tracked version in the files is an item, each once
    spots = {(i["path"], i["line"], i["column"]) for i in m["items"]}
    assert len(spots) == len(m["items"])


def test_a_review_item_stays_in_audit_after_the_bump_until_the_line_changes(tmp_path, tags, capsys):
    repo = write(tmp_path / "t", {"README.md": "ExecuTorch notes.\n\nOur build label is 1.4.0.\n"})
    code, data = update_json(capsys, repo, tags)
    assert (code, data["written"]) == (0, True)
    assert flags(data, "review-mention") == [("review-mention", "README.md", 3, False)]
    # the template is on 1.5.1 now; the 1.4.0 left behind is an earlier release: still for review
    code, aud = audit_json(capsys, repo)
    assert (code, aud["ok"]) == (0, True)
    assert aud["mentions"]["version"] == "1.5.1"
    assert flags(aud, "review-mention") == [("review-mention", "README.md", 3, False)]
    assert left(aud) == [("review", "README.md", 3, "1.4.0", "review-mention")]
    (repo / "README.md").write_text("ExecuTorch notes.\n\nOur build label follows the pack.\n")
    code, aud = audit_json(capsys, repo)
    assert (code, flags(aud, "review-mention"), left(aud)) == (0, [], [])


def test_audit_lists_a_review_item_run_after_run_and_ignore_mentions_files_it(tmp_path, capsys):
    repo = write(tmp_path / "t", {"README.md": "ExecuTorch notes.\n\nOur build label is 1.4.0.\n"})
    for _ in range(2):
        code, aud = audit_json(capsys, repo)
        assert code == 0 and aud["ok"] is True
        assert flags(aud, "review-mention") == [("review-mention", "README.md", 3, False)]
        assert counts(aud) == (2, 0, 0, 1)
    (repo / ".github").mkdir()
    (repo / ".github" / "executorch-pack-bot.yml").write_text(
        "ignore-mentions:\n  - path: README.md:3\n    reason: the build label follows the pack by hand\n")
    code, aud = audit_json(capsys, repo)
    assert code == 0
    assert flags(aud, "review-mention") == []
    assert left(aud) == [("other", "README.md", 3, "1.4.0",
                          "ignore-mentions: the build label follows the pack by hand")]
    code, out, _ = run_cli(capsys, "audit", "--repo", repo)
    assert "\nmentions of 1.4.0: 2 a bump moves, 0 history, 1 other version, 0 for review\n" in out


def test_ignore_mentions_by_glob(tmp_path, tags, capsys):
    repo = write(tmp_path / "t", {"docs/a.md": "ExecuTorch notes.\n\nlabel 1.4.0\n",
                                  "docs/b.md": "ExecuTorch notes.\n\nlabel 1.4.0\n",
                                  "README.md": "ExecuTorch notes.\n\nlabel 1.4.0\n",
                                  ".github/executorch-pack-bot.yml":
                                      "ignore-mentions:\n  - {path: 'docs/*', reason: vendored docs}\n"})
    code, data = update_json(capsys, repo, tags, "--dry-run")
    assert code == 0
    assert flags(data, "review-mention") == [("review-mention", "README.md", 3, False)]
    assert left(data) == [("review", "README.md", 3, "1.4.0", "review-mention"),
                          ("other", "docs/a.md", 3, "1.4.0", "ignore-mentions: vendored docs"),
                          ("other", "docs/b.md", 3, "1.4.0", "ignore-mentions: vendored docs")]


def _refused(capsys, repo, config: str) -> str:
    (repo / ".github").mkdir(exist_ok=True)
    (repo / ".github" / "executorch-pack-bot.yml").write_text(config)
    code, out, err = run_cli(capsys, "audit", "--repo", repo)
    assert code == 2, (out, err)
    assert "Traceback" not in err
    return err.strip()


def test_ignore_mentions_is_validated_naming_the_config_line(tmp_path, capsys):
    repo = write(tmp_path / "t", {})
    cfg = ".github/executorch-pack-bot.yml"
    assert _refused(capsys, repo, "ignore-mentions: README.md:3\n") == (
        f"executorch-pack-bot: error: {cfg}:1: ignore-mentions: expected a list of {{path, reason}} items, "
        "e.g. - {path: docs/old.md:12, reason: the model zoo's version}")
    assert _refused(capsys, repo, "labels: [a]\nignore-mentions:\n  - path: README.md:3\n") == (
        f"executorch-pack-bot: error: {cfg}:3: ignore-mentions: missing reason: every item names a path (PATH:LINE or a glob) "
        "and a reason")
    assert _refused(capsys, repo, "ignore-mentions:\n  - {path: README.md:0, reason: x}\n") == (
        f"executorch-pack-bot: error: {cfg}:2: ignore-mentions: 'README.md:0': lines are numbered from 1")
    assert _refused(capsys, repo, "ignore-mentions:\n  - {path: /etc/x.md, reason: x}\n") == (
        f"executorch-pack-bot: error: {cfg}:2: ignore-mentions: '/etc/x.md' is an absolute path; globs are relative to the "
        "repository root (docs/old, not /docs/old)")
    assert _refused(capsys, repo, "ignore-mentions:\n  - {path: a.md, reason: x, why: y}\n") == (
        f"executorch-pack-bot: error: {cfg}:2: ignore-mentions: unknown field 'why' (known: path, reason)")
    assert _refused(capsys, repo, "ignore-mentions:\n  - {path: a.md, reason: ''}\n") == (
        f"executorch-pack-bot: error: {cfg}:2: ignore-mentions: reason: expected a non-empty string")


def test_audit_json_has_the_mentions_summary(template, capsys):
    code, aud = audit_json(capsys, template)
    assert code == 0
    m = aud["mentions"]
    assert m["version"] == "1.4.0"
    assert set(m["counts"]) == {"moved", "history", "other", "review"}
    assert m["review"] == [i for i in m["items"] if i["bucket"] == "review"]
    assert json.dumps(m)  # JSON-ready


def test_the_pr_body_lists_a_review_item_for_the_reviewer(tmp_path, tags):
    from bot import engine
    from bot.report import pr_body
    from bot.upstream.source import DirectorySource

    repo = write(tmp_path / "t", {"README.md": "ExecuTorch notes.\n\nOur build label is 1.4.0.\n"})
    plan = engine.plan(repo, DirectorySource(tags))
    assert [(o.path, o.line, o.text) for o in plan.mentions.review] == [("README.md", 3, "Our build label is 1.4.0.")]
    from bot.inert import markdown
    lines = [x for x in pr_body(plan, upstream="github:pytorch/executorch").splitlines() if "review-mention" in x]
    message = ("names ExecuTorch 1.4.0 and the bot cannot tell whether it is this template's version, history or "
               "another thing's version; left as written: edit it by hand, or list it under ignore-mentions: in "
               ".github/executorch-pack-bot.yml with a reason: Our build label is 1.4.0.")
    # the item's own text says what to do: no second instruction after it
    assert lines == [f"- `review-mention` (`README.md:3`): {markdown(message)}"]


def test_a_doc_without_the_word_executorch_is_still_accounted_for(tmp_path, tags, capsys):
    """The managers skip prose that never names ExecuTorch, but its bytes were read: a bare 1.4.0 there
    is an occurrence like any other (for review), never unseen."""
    repo = write(tmp_path / "t", {"docs/notes.md": "# Notes\n\nThe label is 1.4.0.\n",
                                  "src/version.c": "/* build 1.4.0 */\n"})
    code, data = update_json(capsys, repo, tags, "--dry-run")
    assert code == 0
    assert left(data) == [("review", "docs/notes.md", 3, "1.4.0", "review-mention"),
                          ("review", "src/version.c", 1, "1.4.0", "review-mention")]
