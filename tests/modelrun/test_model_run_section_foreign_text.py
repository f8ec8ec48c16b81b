"""What the PR section shows of a result file's foreign text.

The ``<details><summary>`` line of a failed model holds the bot's words only.  A ``<details>`` line starts an
HTML block (GFM spec, "HTML blocks", start condition 6) that runs to the next blank line: inside it a backtick is
no code span, so a model name there would render live (a mention, ``<!--`` hiding the rest of the body,
``</details>`` closing the block early).  The name comes after the blank line, as a code span.  A blank or
non-string ``packs`` entry names no pack (no empty item in "Built with").
"""

from __future__ import annotations

import json

from bot.modelrun.result import read_results
from bot.report.modelrun import modelrun_section

HOSTILE = ["@octocat <!-- hidden", "</details><img src=x>", "`x` [a](https://evil.example)"]


def test_a_failed_model_name_never_reaches_the_summary_line(tmp_path):
    for i, name in enumerate(HOSTILE):
        (tmp_path / f"{i}.json").write_text(json.dumps({
            "schema": 1, "model": name, "pack": "p", "status": "fail", "stage": "load",
            "error": "refused", "error_lines": ["E 0x20 InvalidProgram"]}))
    text = modelrun_section(read_results(tmp_path))
    lines = text.splitlines()
    summaries = [ln for ln in lines if ln.startswith("<details>")]
    assert summaries == [f"<details><summary>Row {i}: the load stage's own error</summary>" for i in (1, 2, 3)]
    for i, name in enumerate(HOSTILE):
        at = lines.index(summaries[i])
        # blank line, the name as a code span (a Markdown paragraph again), blank line, the fenced error lines
        assert lines[at + 1:at + 6] == ["", lines[at + 2], "", "```text", "E 0x20 InvalidProgram"]
        assert lines[at + 2].startswith("`") and name in lines[at + 2] and lines[at + 2].endswith("`:")


def test_blank_or_non_string_pack_entries_name_no_pack_in_the_section(tmp_path):
    (tmp_path / "m.json").write_text(json.dumps({"schema": 1, "model": "m", "pack": "p", "status": "match",
                                                 "packs": [1, None, "", "   ", " ARM::CMSIS-NN@7.0.0 (x) "]}))
    (result,) = read_results(tmp_path)
    assert result.packs == ["ARM::CMSIS-NN@7.0.0 (x)"]
    assert "Built with, besides the new pack: `ARM::CMSIS-NN@7.0.0 (x)`." in modelrun_section([result]).splitlines()

