"""The Ethos-U estimates in the bump record and the PR body: kept once in the record (``npu``), read back inert,
rendered as one table per model, old against new, with the review items; a file of another shape is exit 2."""

from __future__ import annotations

import argparse
import json

import pytest

from bot.errors import UsageError
from bot.modelrun import npu
from bot.report.body import npu_section
from bot.report.record import add_npu, npu_from
from test_npu_review_items import QDQ, side


def _data(tmp_path):
    old = side(tmp_path, "old", "1.4.1", QDQ, npu_cycles=66567, total=66567, sram=55.95)
    new = side(tmp_path, "new", "1.5.0", QDQ + ("aten::sigmoid",), npu_cycles=18556, total=18556, sram=8.0)
    return {"schema": 1, "new": [new.to_json()], "old": [old.to_json()], "items": npu.compare(old, new)}


def test_the_record_keeps_the_estimates_and_the_body_shows_one_table_per_model(tmp_path):
    record = add_npu({}, json.loads(json.dumps(_data(tmp_path))))
    new, old, items = npu_from(json.loads(json.dumps(record)))
    assert new[0].npu_cycles == 18556 and old[0].sram_kib == 55.95
    text = npu_section((new, old, items))
    assert text.startswith("### Estimated on the Ethos-U (Vela, no NPU run)")
    assert text.count("| --- | ---: | ---: |") == 1
    assert "| NPU cycles | 66,567 | 18,556 |" in text
    assert "| SRAM (KiB) | 55.95 | 8.00 |" in text
    assert "- 1.4.1: Vela 5.1.0, Ethos_U55_High_End_Embedded, Shared_Sram" in text.replace("\\", "")
    assert "To review:" in text and "aten::sigmoid" in text.split("To review:")[1]
    assert npu_from({}) is None and npu_section(None) == ""


@pytest.mark.parametrize("content", ["[]", "{\"new\": 3}", "{\"new\": [{\"npu_cycles\": \"many\"}]}", "not json"])
def test_an_estimates_file_of_another_shape_is_exit_2_naming_the_option(tmp_path, content):
    from bot.commands.publish import npu_estimates
    f = tmp_path / "npu.json"
    f.write_text(content)
    with pytest.raises(UsageError, match="--npu-estimates: .*npu.json"):
        npu_estimates(argparse.Namespace(npu_estimates=f))


def test_the_option_reads_what_npu_estimate_writes(tmp_path):
    from bot.commands.publish import npu_estimates
    f = tmp_path / "npu.json"
    f.write_text(json.dumps(_data(tmp_path)))
    got = npu_estimates(argparse.Namespace(npu_estimates=f))
    assert got["new"][0]["cpu_ops"][-1] == "aten::sigmoid" and len(got["items"]) == 1
    assert npu_estimates(argparse.Namespace(npu_estimates=None)) is None


from test_publish_model_results import planned, publish  # noqa: E402,F401  (the fake world after `update`)

SECTION = "### Estimated on the Ethos-U (Vela, no NPU run)"


def _npu_section(body: str) -> str:
    return body.split(SECTION, 1)[1].split("\n### ", 1)[0]


def test_publish_and_run_render_the_same_section(planned, capsys, tmp_path, world):  # noqa: F811
    from fakegithub import UPSTREAM
    from github_world import checkout, cli

    f = tmp_path / "npu.json"
    f.write_text(json.dumps(_data(tmp_path)))
    rc, out = publish(capsys, planned, "--npu-estimates", str(f))
    assert rc == 0, out.err
    published = _npu_section(out.out)
    assert "| NPU cycles | 66,567 | 18,556 |" in published and "aten::sigmoid" in published
    rc, out = cli(capsys, "run", "--repo", str(checkout(world)), "--upstream", f"github:{UPSTREAM}", "--dry-run",
                  "--pack-index-url", "off", "--npu-estimates", str(f))
    assert SECTION in out.out, out.err
    assert _npu_section(out.out) == published
    f.write_text("[]")
    rc, out = publish(capsys, planned, "--npu-estimates", str(f))
    assert rc == 2 and f"--npu-estimates: {f}: not an npu-estimate --json file" in out.err


def test_hostile_text_in_an_estimates_file_is_inert_in_the_section(tmp_path):
    data = _data(tmp_path)
    data["new"][0]["label"] = "<img src=x> @admin [x](https://evil)"
    data["new"][0]["cpu_ops"].append("a`b|c")
    data["items"].append("<!-- hidden --> @admin #1")
    text = npu_section(npu_from({"npu": data}))
    assert "<img" not in text and "<!--" not in text and "](https" not in text
    assert "@admin" not in text                     # a zero-width space breaks the mention
    assert "``a`b|c``" in text


@pytest.mark.parametrize("shape", ["fifo", "folder", "infinite", "Infinity", "nested"])
def test_an_npu_estimates_file_that_is_no_regular_json_of_numbers_is_bad_input(tmp_path, shape):
    """A FIFO would block the read for ever; 1e400 and Infinity are read by json as inf (no estimate); nesting past
    the parser's recursion: each is the option's bad input naming the file, never an internal error."""
    import os

    from bot.commands.publish import npu_estimates
    path = tmp_path / "npu.json"
    if shape == "fifo":
        os.mkfifo(path)
    elif shape == "folder":
        path.mkdir()
    elif shape == "infinite":
        path.write_text('{"new": [{"model": "m", "npu_cycles": 1e400}], "old": [], "items": []}')
    elif shape == "Infinity":
        path.write_text('{"new": [{"model": "m", "sram_kib": Infinity}], "old": [], "items": []}')
    else:
        path.write_text("[" * 200000 + "]" * 200000)
    with pytest.raises(UsageError, match=f"--npu-estimates: {path}: not an npu-estimate --json file"):
        npu_estimates(argparse.Namespace(npu_estimates=path))
