"""The pull-request job puts the ai-layer job's ai_layer/ in place from a tar made in a job where template and
upstream code ran (cbuild, create_ai_layer.py): a member that is not a regular file or a folder (a hard link, which
GNU tar extracts as a link to a file of the checkout, so its content lands in the pull request; a symbolic link; a
device) or a member outside ai_layer/ is refused and nothing is put in place.  The step's own script is run here."""

from __future__ import annotations

import io
import subprocess
import tarfile
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
JOBS = yaml.safe_load((ROOT / ".github/workflows/executorch-pack-bot.yml").read_text())["jobs"]
STEP = next(s for s in JOBS["pull-request"]["steps"] if "ai-layer/ai-layer.tar" in s.get("run", ""))


def _member(tar: tarfile.TarFile, name: str, kind=tarfile.REGTYPE, data: bytes = b"x", link: str = "") -> None:
    info = tarfile.TarInfo(name)
    info.type, info.linkname = kind, link
    if kind == tarfile.REGTYPE:
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    else:
        tar.addfile(info)


def _world(tmp_path: Path, extra) -> Path:
    (tmp_path / "template/ai_layer").mkdir(parents=True)
    (tmp_path / "template/ai_layer/old.txt").write_text("before\n")
    (tmp_path / "template/secret.txt").write_text("a checkout file\n")
    (tmp_path / "ai-layer").mkdir()
    with tarfile.open(tmp_path / "ai-layer/ai-layer.tar", "w", format=tarfile.GNU_FORMAT) as tar:
        _member(tar, "ai_layer", tarfile.DIRTYPE)
        _member(tar, "ai_layer/model.h", data=b"// regenerated\n")
        extra(tar)
    return tmp_path


def _run(cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", "-e", "-c", STEP["run"]], cwd=cwd, text=True, capture_output=True)


def test_a_tar_of_files_and_folders_is_put_in_place(tmp_path):
    cwd = _world(tmp_path, lambda tar: None)
    p = _run(cwd)
    assert p.returncode == 0, p.stderr
    assert sorted(x.name for x in (cwd / "template/ai_layer").iterdir()) == ["model.h"]


@pytest.mark.parametrize("extra, others, outside", [
    # a hard link to a checkout file: GNU tar links ai_layer/leak.txt to template/secret.txt
    (lambda tar: _member(tar, "ai_layer/leak.txt", tarfile.LNKTYPE, link="secret.txt"), 1, 0),
    (lambda tar: _member(tar, "ai_layer/up", tarfile.SYMTYPE, link="../secret.txt"), 1, 0),
    (lambda tar: _member(tar, "ai_layer/dev", tarfile.CHRTYPE), 1, 0),
    (lambda tar: _member(tar, "README.md", data=b"overwritten\n"), 0, 1),
])
def test_any_other_member_is_refused_and_nothing_is_put_in_place(tmp_path, extra, others, outside):
    cwd = _world(tmp_path, extra)
    p = _run(cwd)
    assert p.returncode == 1
    assert p.stdout == (f"::error::the ai-layer job's tar holds {others} member(s) that are not regular files or "
                        f"folders and {outside} outside ai_layer/: nothing put in place\n")
    assert sorted(x.name for x in (cwd / "template/ai_layer").iterdir()) == ["old.txt"]
    assert not (cwd / "template/README.md").exists()
