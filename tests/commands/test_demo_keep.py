"""``demo --keep DIR`` and ``demo --dry-run``: where the sample is kept, what is refused, what is
cleaned up.
"""

from __future__ import annotations

from helpers import run_cli


def _clean(out: str, err: str) -> None:
    assert "Traceback" not in out + err and "internal error" not in out + err, err


def test_demo_keep_dry_run_leaves_the_pristine_sample_and_prints_the_next_commands(tmp_path, capsys):
    from bot.commands.demo import SAMPLE
    keep = tmp_path / "demo"
    rc, out, err = run_cli(capsys, "demo", "--keep", keep, "--dry-run")
    assert rc == 0, err
    assert "+    - pack: PyTorch::ExecuTorch@1.5.1" in out and "nothing applied" in out
    sample = (SAMPLE / "template" / "cmsis-executorch.csolution.yml").read_bytes()
    assert (keep / "template" / "cmsis-executorch.csolution.yml").read_bytes() == sample
    assert (keep / "executorch.git").is_dir()
    assert f"executorch-pack-bot update --repo {keep / 'template'} --upstream {keep / 'executorch.git'} --dry-run" in out
    assert (f"  executorch-pack-bot doctor --repo {keep / 'template'} --upstream {keep / 'executorch.git'}   "
            "# the install check, offline\n") in out
    rc, out, _ = run_cli(capsys, "doctor", "--repo", keep / "template", "--upstream", keep / "executorch.git")
    assert rc == 0 and out.rstrip().endswith("OK: nothing blocks the bot.")
    rc, out, _ = run_cli(capsys, "update", "--repo", keep / "template", "--upstream", keep / "executorch.git")
    assert rc == 0 and "Wrote" in out


def test_demo_dry_run_without_keep_applies_nothing_and_cleans_up(capsys):
    rc, out, err = run_cli(capsys, "demo", "--dry-run")
    assert rc == 0, err
    assert "nothing applied" in out and "Try the commands yourself" not in out


def test_demo_keep_under_a_file_is_a_usage_error(tmp_path, capsys):
    """``demo --keep FILE/sub`` was an internal error (NotADirectoryError) from mkdir."""
    (tmp_path / "afile").write_text("x")
    rc, out, err = run_cli(capsys, "demo", "--keep", tmp_path / "afile" / "sub", "--dry-run")
    assert rc == 2
    _clean(out, err)
    assert "--keep" in err and "cannot create the folder" in err
    assert (tmp_path / "afile").read_text() == "x"


def test_demo_keep_onto_a_dangling_link_is_refused(tmp_path, capsys):
    (tmp_path / "link").symlink_to(tmp_path / "nowhere")
    rc, out, err = run_cli(capsys, "demo", "--keep", tmp_path / "link", "--dry-run")
    assert rc == 2
    _clean(out, err)
    assert "already exists" in err and not (tmp_path / "nowhere").exists()


def test_demo_keep_writes_a_real_program_and_the_run_model_command_it_prints_matches_offline(tmp_path, capsys,
                                                                                            monkeypatch):
    """The sample template's model/model.pte is a placeholder: the kept demo gives a program the good pack's
    runtime runs, its expected outputs, and a run-model command that needs neither torch nor the network."""
    import json
    import shlex

    from bot.cli import main
    from bot.modelrun.host import read_expected
    keep = tmp_path / "demo"
    rc, out, err = run_cli(capsys, "demo", "--keep", keep, "--dry-run")
    assert rc == 0, err
    pte, expected = keep / "model" / "add_mul.pte", keep / "model" / "add_mul.expected.json"
    assert pte.read_bytes()[4:8] == b"ET12"
    outs = read_expected(expected)
    assert [(t.scalar_type, t.sizes, len(t.data)) for t in outs] == [(6, (2, 3), 24)]
    command = [ln.strip() for ln in out.splitlines() if ln.strip().startswith("executorch-pack-bot run-model ")]
    good = keep / "packs" / "PyTorch.ExecuTorch.1.5.1.pack"
    assert command == [f"executorch-pack-bot run-model {good} --pte {pte} --expected {expected}"]
    monkeypatch.delenv("EXECUTORCH_PACK_BOT_CACHE", raising=False)
    monkeypatch.setenv("EXECUTORCH_PACK_BOT_PACK_INDEX_URL", "off")
    code = main(shlex.split(command[0])[1:] + ["--json", str(tmp_path / "r.json"), "--work-dir", str(tmp_path / "w")])
    run_out = capsys.readouterr().out
    assert code == 0, run_out
    result = json.loads((tmp_path / "r.json").read_text())
    assert (result["status"], result["operators"]) == ("match", ["aten::add", "aten::mul"])
    assert run_out.startswith("run-model: add_mul on PyTorch.ExecuTorch.1.5.1.pack: match (bit-exact, 1 output(s))")
