"""The accounting invariant over generated templates (a seeded generator, so every run checks the same ones):

* every occurrence of a tracked version in every file the bot reads is exactly one item, in one bucket
  (checked against an independent scanner written without regular expressions);
* every moved item is one edit, every review item is listed by a flag on its line;
* after applying, a second ``update`` has nothing to move and lists the same history and review lines.
"""

from __future__ import annotations

import random

import pytest

from mentionkit import update_json, write

V = "1.4.0"

#: (fragment, files it may go into).  Mentions that move, history, look-alikes and unknowns.
PROSE = [
    "Install ExecuTorch {V} before building.",
    "The solution pins `PyTorch::ExecuTorch@{V}` exactly.",
    "Run `pip install executorch=={V}` in the venv.",
    "Download https://github.com/pytorch/executorch/releases/download/v{V}/PyTorch.ExecuTorch.{V}.pack for it.",
    "See https://github.com/pytorch/executorch/archive/refs/tags/v{V}.tar.gz for ExecuTorch sources.",
    "- ExecuTorch: {V}",
    "Since ExecuTorch {V}, the operators ship inside the pack.",
    "Removed in ExecuTorch {V}: the old registration.",
    "The model ran at 22 fps, measured with ExecuTorch 1.3.0.",
    "The board pack `ARM::SSE_320_BSP@{V}` is unrelated to ExecuTorch.",
    "ExecuTorch docs also need numpy=={V} and CMSIS-Toolbox {V}.",
    "ExecuTorch look-alikes: {V}.1, 1{V}, {V}rc1, 2026.{V}, dated 2026-05-14.",
    "Other packs may use ranges such as `@~1.2.3` next to ExecuTorch.",
    "Our ExecuTorch build label is {V}.",
    "The image needs 1.4 MB of flash for ExecuTorch.",
    "Older notes mention ExecuTorch 1.2.0 as the first pack.",
]
TABLE = "| part | version |\n|---|---|\n| ExecuTorch | {V} |\n| Board BSP | {V} |\n| CMSIS-Toolbox | 2.15.0 |"
CHANGELOG = "Changelog\n---------\n\n2026-05-14\n~~~~~~~~~~\n\n- Moved the template to ExecuTorch {V}.\n- v{V} tag adopted."
SCRIPT = [
    "git clone --depth 1 --branch=v{V} https://github.com/pytorch/executorch.git",
    "git clone -b v{V} https://github.com/acme/other-tool.git",
    "export EXECUTORCH_VERSION={V}",
    "pip install executorch=={V} torch==2.13.0",
    "echo building {V}",
]
MAKE = ["EXECUTORCH_VERSION ?= {V}", "ET_PACK_VERSION := {V}", "OTHER_VERSION = {V}", "# ExecuTorch {V} build"]


def _lines(rng: random.Random, pool: list[str], k: int) -> list[str]:
    return [rng.choice(pool).replace("{V}", V) for _ in range(k)]


def generate(seed: int) -> dict[str, str]:
    """One template: the base pins plus a random mix of the fragments in several file kinds."""
    rng = random.Random(seed)
    files = {}
    readme = ["# Demo", ""]
    for _ in range(rng.randint(2, 8)):
        readme += [" ".join(_lines(rng, PROSE, rng.randint(1, 2))), ""]
    if rng.random() < 0.5:
        readme += [TABLE.replace("{V}", V), ""]
    if rng.random() < 0.5:
        readme += [CHANGELOG.replace("{V}", V), ""]
    if rng.random() < 0.5:
        readme += ["Usage", "-----", "", "Build ExecuTorch {V} from source.".replace("{V}", V), ""]
    files["README.md"] = "\n".join(readme) + "\n"
    if rng.random() < 0.6:
        files["docs/guide.rst"] = "Guide\n=====\n\n" + "\n\n".join(_lines(rng, PROSE, rng.randint(1, 4))) + "\n"
    if rng.random() < 0.6:
        files["scripts/get.sh"] = "#!/bin/sh\n" + "\n".join(_lines(rng, SCRIPT, rng.randint(1, 4))) + "\n"
    if rng.random() < 0.5:
        files["Makefile"] = "\n".join(_lines(rng, MAKE, rng.randint(1, 3))) + "\n"
    req = ["executorch==1.4.0"]
    if rng.random() < 0.5:
        req = ["# ExecuTorch 1.4.0 targets torch 2.13.0 (from the tag's pin files).", "executorch==1.4.0",
               "torch==2.13.0"]
    files["requirements.txt"] = "\n".join(req) + "\n"
    if rng.random() < 0.4:
        files["environment.yml"] = ("dependencies:\n  - pytorch=2.13.0\n  - pip:\n      - executorch==1.4.0\n")
    if rng.random() < 0.4:
        files["settings.json"] = '{"executorch": "%s", "other": "%s-beta"}\n' % (V, V)
    return files


def occurrences(text: str, version: str, earlier_than=None) -> list[tuple[int, int]]:
    """``[(line, column)]`` of ``version`` (and, with ``earlier_than``, of every ``X.Y.Z`` of the same
    major below it) in ``text``, found character by character: the independent scanner."""
    out = []
    i = 0
    n = len(text)
    while i < n:
        if not text[i].isdigit() or (i and text[i - 1].isdigit()) or (i > 1 and text[i - 1] == "." and text[i - 2].isdigit()):
            i += 1
            continue
        j = i
        parts = 0
        while j < n and (text[j].isdigit() or (text[j] == "." and j + 1 < n and text[j + 1].isdigit())):
            parts += text[j] == "."
            j += 1
        cand = text[i:j]
        rest = text[j:j + 8]
        longer = (rest[:1] == "+" and rest[1:2].isalnum()) or (rest[:1] == "-" and rest[1:2].isdigit()) \
            or any(rest.lstrip(".-").startswith(p) and rest.lstrip(".-")[len(p):len(p) + 2].lstrip(".")[:1].isdigit()
                   for p in ("rc", "alpha", "beta", "pre", "a", "b", "c", "dev", "post"))
        hit = False
        if not longer:
            if cand == version:
                hit = True
            elif earlier_than and parts == 2 and cand.split(".")[0] == earlier_than.split(".")[0]:
                hit = tuple(map(int, cand.split("."))) < tuple(map(int, earlier_than.split(".")))
            # the version may also be the start of a longer dotted number: only a whole one counts
        if hit:
            line = text.count("\n", 0, i) + 1
            out.append((line, i - (text.rfind("\n", 0, i) + 1) + 1))
        i = j if j > i else i + 1
    return out


def expected(files: dict[str, str], tracked: list[dict], earlier_than: str) -> set[tuple]:
    versions = [t["version"] for t in tracked if t["version"][0].isdigit()]
    out = set()
    for path, text in files.items():
        for v in versions:
            out |= {(path, line, col, v) for line, col in occurrences(text, v)}
        out |= {(path, line, col, text.splitlines()[line - 1][col - 1:].split()[0].rstrip(".,:`|)")[:5])
                for line, col in occurrences(text, "", earlier_than)}
    return out


SEEDS = list(range(24))


@pytest.mark.parametrize("seed", SEEDS)
def test_every_occurrence_is_in_exactly_one_bucket_and_a_rerun_agrees(tmp_path, tags, capsys, seed):
    files = generate(seed)
    repo = write(tmp_path / "t", {**files, "requirements.txt": files["requirements.txt"]})
    code, data = update_json(capsys, repo, tags)
    assert code == 0, data["flags"]
    m = data["mentions"]
    items = m["items"]
    # exactly one bucket each, counts are the items
    assert {i["bucket"] for i in items} <= {"moved", "history", "other", "review"}
    assert sum(m["counts"].values()) == len(items)
    spots = [(i["path"], i["line"], i["column"]) for i in items]
    assert len(spots) == len(set(spots))
    # every occurrence found by the independent scanner is an item, and nothing else is
    all_files = {**{"app.csolution.yml": "solution:\n  packs:\n    - pack: PyTorch::ExecuTorch@1.4.0\n"}, **files}
    found = {(p, ln, c) for p, ln, c, _ in expected(all_files, m["tracked"], V)}
    assert set(spots) == found, (sorted(set(spots) - found), sorted(found - set(spots)))
    # a moved item is an edit on its line; every edit of a tracked version is a moved item
    tracked = {t["version"] for t in m["tracked"]}
    moved = sorted((i["path"], i["line"]) for i in items if i["bucket"] == "moved")
    assert moved == sorted((e["path"], e["line"]) for e in data["edits"] if e["old"] in tracked)
    # a review item is listed by a flag on its line
    flagged = {(f["path"], f["line"]) for f in data["flags"]}
    assert {(i["path"], i["line"]) for i in items if i["bucket"] == "review"} <= flagged
    assert m["review"] == [i for i in items if i["bucket"] == "review"]

    # re-run after applying: nothing to move, the same history and review lines
    code, again = update_json(capsys, repo, tags)
    assert code == 0
    assert (again["edits"], again["nothing_to_do"], again["mentions"]["counts"]["moved"]) == ([], True, 0)
    left_before = {(i["path"], i["line"]) for i in items if i["bucket"] in ("history", "review")}
    left_after = {(i["path"], i["line"]) for i in again["mentions"]["items"] if i["bucket"] in ("history", "review")}
    assert left_before == left_after
    assert {(i["path"], i["line"]) for i in items if i["bucket"] == "review"} <= \
        {(i["path"], i["line"]) for i in again["mentions"]["items"] if i["bucket"] == "review"} | \
        {(f["path"], f["line"]) for f in again["flags"] if f["code"] == "history-mention"}
