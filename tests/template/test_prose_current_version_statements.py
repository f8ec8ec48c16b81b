"""A sentence that states the version the template uses moves whole: "ExecuTorch is 1.4.0 (the pack
``PyTorch::ExecuTorch@1.4.0``, pip ``executorch==1.4.0``)." was left as "mixed" because "ExecuTorch is X"
was no form, so its bare 1.4.0 stood outside the mentions edited.  Present-tense statements are a form now;
history (a history section, a measurement, a sentence naming another release) stays history."""

from __future__ import annotations

import pytest

from mentionkit import PINS, edits, flags, plan

WHY = 'prose: a statement "ExecuTorch is X" names the current ExecuTorch 1.4.0'


def _readme(tmp_path, tags, capsys, body: str) -> dict:
    return plan(tmp_path, tags, capsys, {"README.md": "# Firmware\n\n" + body + "\n"})


def _items(data: dict, path: str = "README.md") -> list[tuple]:
    return [(i["line"], i["column"], i["version"], i["bucket"], i["rule"]) for i in data["mentions"]["items"]
            if i["path"] == path]


def test_the_sentence_restating_the_version_in_three_forms_moves_whole(tmp_path, tags, capsys):
    line = "ExecuTorch is 1.4.0 (the pack `PyTorch::ExecuTorch@1.4.0`, pip `executorch==1.4.0`)."
    data = _readme(tmp_path, tags, capsys, line)
    cols = [line.index("1.4.0") + 1, line.index("@1.4.0") + 2, line.index("==1.4.0") + 3]
    assert edits(data) == [("README.md", 3, "1.4.0", "1.5.1")] * 3 + PINS
    assert [e["why"] for e in data["edits"] if e["path"] == "README.md"] == [
        WHY, "prose: pack reference PyTorch::ExecuTorch@X names the current ExecuTorch 1.4.0",
        "prose: pip pin executorch==X names the current ExecuTorch 1.4.0"]
    assert flags(data) == []
    assert _items(data) == [(3, cols[0], "1.4.0", "moved", WHY),
                            (3, cols[1], "1.4.0", "moved", "prose: pack reference PyTorch::ExecuTorch@X names the "
                                                           "current ExecuTorch 1.4.0"),
                            (3, cols[2], "1.4.0", "moved", "prose: pip pin executorch==X names the current "
                                                           "ExecuTorch 1.4.0")]
    assert data["mentions"]["counts"] == {"moved": 5, "history": 0, "other": 0, "review": 0}


@pytest.mark.parametrize("line, n", [
    ("The ExecuTorch version is 1.4.0.", 1),
    ("ExecuTorch is pinned to v1.4.0 in this template (`executorch==1.4.0`).", 2),
    ("ExecuTorch is at 1.4.0 here.", 1),
    ("The ExecuTorch release in use is currently **1.4.0** (`PyTorch.ExecuTorch.1.4.0.pack`).", 2),
    ("executorch is now 1.4.0", 1),
    ("ExecuTorch is set to 1.4.0; the pack is `PyTorch::ExecuTorch@1.4.0`.", 2),
])
def test_other_statements_of_the_version_in_use_move(tmp_path, tags, capsys, line, n):
    data = _readme(tmp_path, tags, capsys, line)
    assert edits(data) == [("README.md", 3, "1.4.0", "1.5.1")] * n + PINS
    assert flags(data) == []
    assert {i[3] for i in _items(data)} == {"moved"}


def test_a_statement_in_a_yaml_comment_moves(tmp_path, tags, capsys):
    data = plan(tmp_path, tags, capsys, {"app.csolution.yml": (
        "# ExecuTorch is 1.4.0 here (pack PyTorch::ExecuTorch@1.4.0)\n"
        "solution:\n  packs:\n    - pack: PyTorch::ExecuTorch@1.4.0\n")})
    assert edits(data) == [("app.csolution.yml", 1, "1.4.0", "1.5.1")] * 2 + [
        ("app.csolution.yml", 4, "1.4.0", "1.5.1"), ("requirements.txt", 1, "1.4.0", "1.5.1")]
    assert flags(data) == []


def test_major_minor_statement_moves_only_with_major_minor(tmp_path, tags, capsys):
    data = _readme(tmp_path, tags, capsys, "ExecuTorch is 1.4 in this template.")
    assert edits(data) == [("README.md", 3, "1.4", "1.5")] + PINS


@pytest.mark.parametrize("body, code", [
    # a history section: never edited
    ("## Changelog\n\nExecuTorch is 1.4.0 (pack `PyTorch::ExecuTorch@1.4.0`).", "history-mention"),
    # a measurement line: history
    ("ExecuTorch is 1.4.0 and the model runs in 22 ms.", "history-mention"),
    # another ExecuTorch release named in the sentence: mixed
    ("ExecuTorch is 1.4.0 (it was ExecuTorch 1.3.0 last year).", "mixed-mention"),
    # the old version again as bare text outside the mentions: mixed, as before
    ("ExecuTorch is 1.4.0; pip installs 1.4.0.", "mixed-mention"),
])
def test_history_and_mixed_sentences_stay(tmp_path, tags, capsys, body, code):
    data = _readme(tmp_path, tags, capsys, body)
    assert edits(data) == PINS
    assert {f[0] for f in flags(data) if f[1] == "README.md"} == {code}
    assert "moved" not in {i[3] for i in _items(data)}


@pytest.mark.parametrize("line", ["ExecuTorch was 1.4.0.", "ExecuTorch is not 1.4.0 yet", "ExecuTorch isn't 1.4.0",
                                  "ExecuTorch this is 1.4.0"])
def test_past_tense_and_negations_are_no_statement(tmp_path, tags, capsys, line):
    data = _readme(tmp_path, tags, capsys, line)
    assert edits(data) == PINS
    assert [i[3] for i in _items(data)] == ["review"]
