"""``.ci/run`` installs the Arm GNU toolchain, qemu-system-arm and ccache with apt-get only as root or through sudo; otherwise it
says which Debian packages to install and exits non-zero before anything else runs.

The script runs with a PATH of fakes only (``id``, ``sudo``, ``apt-get``, and a ``python3`` that
stops the script at the first step after the toolchain), so nothing is installed.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = "gcc-arm-none-eabi libstdc++-arm-none-eabi-newlib libnewlib-arm-none-eabi qemu-system-arm ccache cmake"
#: The exit code of the fake python3: the script got past the toolchain step.
PAST_TOOLCHAIN = 97


def _fake(bin_dir: Path, name: str, body: str) -> None:
    path = bin_dir / name
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(0o755)


@pytest.fixture
def fake_bin(tmp_path):
    """A bin folder with fakes logging to ``tmp_path/log``; real ``dirname``, ``env`` and ``cat`` beside them."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "log"
    for tool in ("dirname", "env", "cat"):
        os.symlink(shutil.which(tool), bin_dir / tool)
    _fake(bin_dir, "apt-get", f'echo "apt-get $*" >> {log}\n')
    _fake(bin_dir, "python3", f"exit {PAST_TOOLCHAIN}\n")
    return bin_dir


def _run(bin_dir: Path, uid: int, sudo: bool):
    log = bin_dir.parent / "log"
    _fake(bin_dir, "id", f"echo {uid}\n")
    if sudo:
        _fake(bin_dir, "sudo", f'echo "sudo $1" >> {log}\nexec "$@"\n')
    proc = subprocess.run([shutil.which("bash"), str(ROOT / ".ci" / "run")], capture_output=True, text=True,
                          env={"PATH": str(bin_dir), "HOME": str(bin_dir.parent)})
    return proc, (log.read_text().splitlines() if log.exists() else [])


def test_as_root_apt_get_runs_directly(fake_bin):
    proc, log = _run(fake_bin, uid=0, sudo=False)
    assert proc.returncode == PAST_TOOLCHAIN, proc.stderr
    assert log == ["apt-get update -qq", f"apt-get install -y -qq --no-install-recommends {PACKAGES}"]


def test_not_root_apt_get_runs_through_sudo(fake_bin):
    proc, log = _run(fake_bin, uid=1000, sudo=True)
    assert proc.returncode == PAST_TOOLCHAIN, proc.stderr
    assert log == ["sudo env", "apt-get update -qq",
                   "sudo env", f"apt-get install -y -qq --no-install-recommends {PACKAGES}"]


def test_not_root_without_sudo_names_the_packages_and_stops(fake_bin):
    proc, log = _run(fake_bin, uid=1000, sudo=False)
    assert proc.returncode == 1
    assert log == []  # apt-get never ran, and python3 (the next step) was not reached
    assert proc.stderr.splitlines() == [
        ".ci/run: arm-none-eabi-g++, qemu-system-arm, ccache or cmake is not installed and installing them needs root "
        "(not root, no sudo):",
        f".ci/run: install the Debian packages {PACKAGES}, then run again"]
