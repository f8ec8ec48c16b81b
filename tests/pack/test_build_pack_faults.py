"""``build-pack`` in odd output folders and with failing steps: a stale pack is never reported as
built, bad output paths are refused before anything runs, a killed step says so, build output
cannot issue workflow commands.
"""

from __future__ import annotations

import os

import pytest

from bot import cli
from test_build_pack import _argv, _write_exec, et_root, fake_cmake  # noqa: F401  (fixtures)

V = "1.5.1"


PACK = f"PyTorch.ExecuTorch.{V}.pack"


def _cli(capsys, *argv) -> tuple[int, str, str]:
    rc = cli.main(list(argv))
    out, err = capsys.readouterr()
    assert "internal error" not in err and "Traceback" not in err
    return rc, out, err


def test_stale_pack_from_an_earlier_run_is_not_reported_as_built(et_root, tmp_path, fake_cmake, monkeypatch, capsys):
    stale = tmp_path / "out" / PACK
    stale.parent.mkdir()
    stale.write_bytes(b"PK\x05\x06" + bytes(18))  # an earlier (maybe trap) pack
    before = stale.read_bytes()
    monkeypatch.setenv("FAKE_PACK_NOWRITE", "1")  # build_pack.sh exits 0 without writing
    monkeypatch.setenv("GITHUB_OUTPUT", str(tmp_path / "gh_output"))
    rc, out, err = _cli(capsys, *_argv(et_root, tmp_path))
    assert rc == 1
    assert "did not write a new pack" in err and str(stale) in err
    assert f"pack: {stale}" not in out
    assert not (tmp_path / "gh_output").exists()
    assert stale.read_bytes() == before  # nothing lost


def test_a_rewritten_pack_in_a_reused_output_dir_is_fine(et_root, tmp_path, fake_cmake, capsys):
    assert cli.main(_argv(et_root, tmp_path)) == 0
    assert cli.main(_argv(et_root, tmp_path)) == 0  # the rerun writes the pack again
    assert f"pack: {tmp_path / 'out' / PACK}" in capsys.readouterr().out


@pytest.mark.parametrize("which", ["--build-dir", "--output-dir"])
def test_directory_under_a_regular_file_is_bad_input_and_nothing_is_created(et_root, tmp_path, fake_cmake,
                                                                              capsys, which):
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    argv = _argv(et_root, tmp_path)
    argv[argv.index(which) + 1] = str(blocker / "sub")
    rc, _, err = _cli(capsys, *argv)
    assert rc == 2
    assert f"{blocker} is not a directory" in err and which.strip("-").replace("-dir", "") in err
    assert not (tmp_path / "build").exists() and not (tmp_path / "out").exists()
    assert not fake_cmake.exists()  # nothing ran


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes anywhere")
def test_unwritable_output_parent_is_bad_input_before_anything_runs(et_root, tmp_path, fake_cmake, capsys):
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o555)
    try:
        argv = _argv(et_root, tmp_path)
        argv[argv.index("--output-dir") + 1] = str(ro / "out")
        rc, _, err = _cli(capsys, *argv)
    finally:
        ro.chmod(0o755)
    assert rc == 2 and "not writable" in err
    assert not (tmp_path / "build").exists() and not fake_cmake.exists()


def test_dangling_symlink_named_like_a_generated_header_counts_as_missing(et_root, tmp_path, fake_cmake,
                                                                          monkeypatch, capsys):
    build_dir = tmp_path / "build" / "stale"
    build_dir.mkdir(parents=True)
    (build_dir / "program_generated.h").symlink_to(tmp_path / "gone.h")
    monkeypatch.setenv("FAKE_CMAKE_HEADERS", "scalar_type_generated.h")
    rc, _, err = _cli(capsys, *_argv(et_root, tmp_path))
    assert rc == 1
    assert "program_generated.h" in err and "refusing to run build_pack.sh" in err


def test_step_killed_by_a_signal_says_so_and_exits_non_zero(et_root, tmp_path, monkeypatch, capsys):
    bindir = tmp_path / "bin"
    _write_exec(bindir / "cmake", "#!/bin/sh\necho configuring\nkill -9 $$\n")
    monkeypatch.setenv("PATH", f"{bindir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    rc, _, err = _cli(capsys, *_argv(et_root, tmp_path))
    assert rc == 1
    assert "step 'configure' was killed by signal 9 (SIGKILL)" in err and "| configuring" in err


def test_build_output_cannot_issue_workflow_commands_in_actions(et_root, tmp_path, monkeypatch, capsys):
    bindir = tmp_path / "bin"
    _write_exec(bindir / "cmake", "#!/bin/sh\necho '::add-mask::x'\necho '::error title=pwned::from the build'\nexit 3\n")
    monkeypatch.setenv("PATH", f"{bindir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    rc, out, _ = _cli(capsys, *_argv(et_root, tmp_path))
    assert rc == 3
    lines = out.splitlines()
    stop = next(ln for ln in lines if ln.startswith("::stop-commands::"))
    token = stop.split("::")[2]
    assert len(token) >= 32
    start, end = lines.index(stop), lines.index(f"::{token}::")
    # the build's own lines are neutralised too (bot/inert.py), inside the stop-commands span
    assert start < lines.index(":\u200b:error title=pwned::from the build") < end < lines.index("::endgroup::")
    assert not any(ln.startswith("::add-mask::") for ln in lines)
    assert lines.index("::group::configure") < start
