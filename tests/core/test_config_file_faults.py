"""``.github/executorch-pack-bot.yml`` that is not a plain settings file: exit 2 naming it, for every reader.

The file is read by ``load_config`` (check, run, publish, command) and by the
engine for ``exclude:`` and ``ignore-mentions:`` (update, audit); both refuse the same things the
same way, and nothing in the checkout changes.
"""

from __future__ import annotations

import os
import shutil

import pytest

from bot.config import CONFIG_PATH, load_config
from bot.engine import config_excludes
from bot.engine.ignore import ignore_entries
from bot.errors import UsageError


def _snapshot(root):
    out = {}
    for dirpath, dirnames, files in os.walk(root):
        for n in dirnames + files:
            p = os.path.join(dirpath, n)
            st = os.lstat(p)
            out[os.path.relpath(p, root)] = (st.st_mode, st.st_size, os.readlink(p) if os.path.islink(p) else
                                             (open(p, "rb").read() if os.path.isfile(p) else None))
    return out


def make(tmp_path, kind):
    repo = tmp_path / "repo"
    (repo / ".github").mkdir(parents=True)
    cfg = repo / CONFIG_PATH
    outside = tmp_path / "outside.yml"
    outside.write_text("labels: [from-outside]\n")
    if kind == "symlink out of the checkout":
        cfg.symlink_to(outside)
    elif kind == "symlink to a device":
        cfg.symlink_to("/dev/zero")
    elif kind == "dangling symlink":
        cfg.symlink_to(repo / "nowhere.yml")
    elif kind == "folder":
        cfg.mkdir()
    elif kind == "fifo":
        os.mkfifo(cfg)
    return repo


CASES = {"symlink out of the checkout": "is a symlink", "symlink to a device": "is a symlink",
         "dangling symlink": "is a symlink", "folder": "is a folder", "fifo": "is not a regular file"}


@pytest.mark.parametrize("kind", list(CASES))
@pytest.mark.parametrize("reader", [load_config, config_excludes, ignore_entries])
def test_a_config_that_is_not_a_regular_file_is_refused(tmp_path, kind, reader):
    repo = make(tmp_path, kind)
    before = _snapshot(repo)
    with pytest.raises(UsageError) as e:
        reader(repo)
    assert (str(e.value), e.value.exit_code) == (
        f"{CONFIG_PATH}: {CASES[kind]}; the settings must be a regular file in the repository", 2)
    assert _snapshot(repo) == before


@pytest.mark.parametrize("reader", [load_config, config_excludes, ignore_entries])
def test_yaml_nested_too_deeply_is_invalid_yaml_not_an_internal_error(tmp_path, reader):
    repo = make(tmp_path, "none")
    (repo / CONFIG_PATH).write_text("labels: " + "[" * 50_000 + "]" * 50_000 + "\n")
    with pytest.raises(UsageError) as e:
        reader(repo)
    assert str(e.value) == f"{CONFIG_PATH}: invalid YAML: nested too deeply"


@pytest.mark.parametrize("reader", [load_config, config_excludes])
def test_a_config_over_a_mebibyte_is_refused_unparsed(tmp_path, reader):
    repo = make(tmp_path, "none")
    (repo / CONFIG_PATH).write_text("labels: [" + "a," * (1 << 19) + "a]\n")
    with pytest.raises(UsageError) as e:
        reader(repo)
    assert str(e.value) == f"{CONFIG_PATH}: larger than 1 MiB; a settings file is a few lines"


@pytest.mark.parametrize("text, line", [("? [a]\n: 1\n", 1), ("branch: x\n{a: 1}: 2\n", 2)])
def test_a_setting_name_that_is_not_a_word_is_named_by_line(tmp_path, text, line):
    repo = make(tmp_path, "none")
    (repo / CONFIG_PATH).write_text(text)
    with pytest.raises(UsageError) as e:
        load_config(repo)
    assert (e.value.path, e.value.line, e.value.message.split(" (")[0]) == (
        CONFIG_PATH, line, "a setting name must be a word")


def test_the_cli_says_the_same_and_changes_nothing(tmp_path, capsys):
    from bot.cli import main
    from bot.sample import SAMPLE_DIR
    repo = tmp_path / "t"
    shutil.copytree(SAMPLE_DIR / "template", repo)
    (repo / ".github").mkdir(exist_ok=True)
    (repo / CONFIG_PATH).symlink_to("/etc/passwd")
    before = _snapshot(repo)
    capsys.readouterr()
    assert main(["audit", "--repo", str(repo)]) == 2
    assert capsys.readouterr().err == (f"executorch-pack-bot: error: {CONFIG_PATH}: is a symlink; the settings must "
                                       "be a regular file in the repository\n")
    assert _snapshot(repo) == before
