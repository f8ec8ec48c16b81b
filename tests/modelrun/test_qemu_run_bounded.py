"""run-model's QEMU stage is bounded and its output read defensively: a runaway printer is stopped at
MAX_OUTPUT, a hang at the time limit, and a malformed runner line is a failed execute stage, never a crash."""

from __future__ import annotations

import time

import pytest

from bot.cli import main
from bot.modelrun import StageError
from bot.modelrun import qemu as q


def _fake_qemu(tmp_path, body: str):
    exe = tmp_path / "fake-qemu"
    exe.write_text("#!/bin/sh\n" + body + "\n")
    exe.chmod(0o755)
    return str(exe)


def test_an_image_printing_without_end_is_stopped_at_the_output_cap(tmp_path, monkeypatch):
    monkeypatch.setattr(q, "MAX_OUTPUT", 1 << 20)
    exe = _fake_qemu(tmp_path, "echo ET_BOOT; exec yes ET_LOG spam")
    with pytest.raises(StageError) as info:
        q.run_image(tmp_path / "x.elf", timeout=60, qemu=exe)
    assert (info.value.stage, info.value.message) == ("execute", "the image printed more than 1 MiB: stopped")
    assert info.value.lines == ["ET_BOOT", "ET_LOG spam", "ET_LOG spam"]


def test_an_image_that_never_exits_is_stopped_at_the_time_limit(tmp_path):
    exe = _fake_qemu(tmp_path, "echo ET_BOOT; echo ET_LOADED; exec sleep 600")
    start = time.monotonic()
    with pytest.raises(StageError) as info:
        q.run_image(tmp_path / "x.elf", timeout=1, qemu=exe)
    assert time.monotonic() - start < 30
    assert (info.value.stage, info.value.message) == (
        "execute", "the runner stopped before printing every output (stopped at the time limit of 1 s)")


@pytest.mark.parametrize("bad", ["ET_TICKS many", "ET_TICKS " + "9" * 5000, "ET_OUT 0 6",
                                 "ET_OUT 0 6 2,x 00", "ET_OUT 0 6 2 zz\x1b[31m"])
def test_a_malformed_runner_line_fails_the_execute_stage_naming_it(bad):
    with pytest.raises(StageError) as info:
        q.parse_lines(["ET_BOOT", "ET_LOADED", bad, "ET_DONE"])
    assert info.value.stage == "execute"
    assert info.value.message.startswith("the runner printed a line it does not write: " + bad[:20].replace("\x1b", "\ufffd"))
    assert "\x1b" not in info.value.message


@pytest.mark.parametrize("value", ["inf", "nan", "0"])
def test_a_timeout_that_is_not_a_finite_positive_number_is_refused(tmp_path, capsys, value):
    assert main(["run-model", str(tmp_path), "--pte", str(tmp_path / "m.pte"), "--timeout", value]) == 2
    assert "is not a positive number of seconds" in capsys.readouterr().err
