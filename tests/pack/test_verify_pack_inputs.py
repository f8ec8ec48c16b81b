"""``verify-pack``'s input files: a ``--template`` must be a folder or one layer/project file, and an
unreadable ``--baseline`` is named once in its error.

Bad input is exit 2 with one error line naming the file (as ``update --repo FILE``), before any
check runs.
"""

from __future__ import annotations

import json

import pytest

from helpers import run_cli
from packgen import make_pack

V = "1.5.1"
PROG = "executorch-pack-bot"


def test_template_that_is_an_ordinary_file_is_bad_usage(tmp_path, capsys, monkeypatch):
    pack = make_pack(tmp_path)
    (tmp_path / "notes.txt").write_text("not a template\n")
    monkeypatch.chdir(tmp_path)
    code, out, err = run_cli(capsys, "verify-pack", str(pack), "--version", V, "--template", "notes.txt")
    assert (code, out) == (2, "")
    assert err.splitlines() == [f"{PROG}: error: --template notes.txt: not a directory (the template checkout) "
                                "nor a *.clayer.yml or *.cproject.yml file"]


def test_template_that_is_one_layer_file_is_read_alone(tmp_path, capsys):
    pack = make_pack(tmp_path)
    layer = tmp_path / "ai_layer.clayer.yml"
    layer.write_text("layer:\n  components:\n    - component: Machine Learning:ExecuTorch:Runtime\n")
    code, out, err = run_cli(capsys, "verify-pack", str(pack), "--version", V, "--template", str(layer), "--json")
    assert code == 0, err
    check = next(c for c in json.loads(out)["checks"] if c["name"] == "template-components")
    assert (check["status"], check["detail"]) == (
        "pass", "all 1 ExecuTorch components the template selects are in the pack")


def test_baseline_that_is_not_a_zip_names_the_file_once(tmp_path, capsys, monkeypatch):
    pack = make_pack(tmp_path)
    (tmp_path / "empty.pack").write_bytes(b"")
    monkeypatch.chdir(tmp_path)
    code, out, err = run_cli(capsys, "verify-pack", str(pack), "--version", V, "--baseline", "empty.pack")
    assert (code, out) == (2, "")
    assert err.splitlines() == [f"{PROG}: error: empty.pack: --baseline: not a readable zip archive "
                                "(File is not a zip file)"]


@pytest.mark.parametrize("name, data", [("README.md", b"# a template\n"), ("empty.pack", b"")])
def test_a_pack_that_is_not_a_zip_archive_is_bad_input(tmp_path, capsys, monkeypatch, name, data):
    # --help promises exit 2 for unreadable input; a README given as PACK was exit 1 (an "archive" check failed)
    (tmp_path / name).write_bytes(data)
    monkeypatch.chdir(tmp_path)
    code, out, err = run_cli(capsys, "verify-pack", name, "--version", V)
    assert (code, out) == (2, "")
    assert err == (f"{PROG}: error: PACK: {name}: not a pack (not a zip archive); give the .pack file of the release "
                   "(PyTorch.ExecuTorch.X.Y.Z.pack)\n")
