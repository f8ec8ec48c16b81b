"""Paths left out of a run: ``--exclude`` globs and the config file's ``exclude:`` list (either
spelling), refused when they can never match, named as the way out of an unreadable file.
"""

from __future__ import annotations

import os

from helpers import run_cli, snapshot
from helpers import update as _update


def _latin1_doc(template):
    (template / "documentation" / "old").mkdir()
    (template / "documentation" / "old" / "notes.md").write_bytes("Notes for ExecuTorch 1.4.0 \xe9t\xe9\n".encode("latin-1"))


def _audit(capsys, template, *extra):
    return run_cli(capsys, "audit", "--repo", template, *extra)


def _clean(out: str, err: str) -> None:
    assert "Traceback" not in out + err and "internal error" not in out + err, err


def test_exclude_leaves_a_latin1_doc_unread(template, upstream_repo, capsys):
    _latin1_doc(template)
    rc, _, err = _update(capsys, template, upstream_repo, "--dry-run")
    assert rc == 2 and "documentation/old/notes.md:1:" in err and "not UTF-8" in err
    before = (template / "documentation" / "old" / "notes.md").read_bytes()
    rc, out, err = _update(capsys, template, upstream_repo, "--exclude", "documentation/old")
    assert rc == 0, err
    assert (template / "documentation" / "old" / "notes.md").read_bytes() == before
    assert "PyTorch::ExecuTorch@1.5.1" in (template / "cmsis-executorch.csolution.yml").read_text()


def test_exclude_leaves_an_outside_symlink_alone(template, tmp_path, capsys):
    outside = tmp_path / "outside.cproject.yml"
    outside.write_text("project:\n  packs:\n    - pack: PyTorch::ExecuTorch@1.4.0\n")
    os.symlink(outside, template / "extra.cproject.yml")
    rc, out, _ = _audit(capsys, template, "--exclude", "*.cproject.yml", "--exclude", "./model/")
    assert rc == 0, out
    assert "symlink-outside-repo" not in out and "app/app.cproject.yml" not in out


def test_config_file_exclude_list_is_honoured(template, upstream_repo, capsys):
    _latin1_doc(template)
    (template / ".github" / "executorch-pack-bot.yml").write_text(
        "labels: [dependencies]\nexclude:\n  - documentation/old/*\n")
    rc, out, err = _update(capsys, template, upstream_repo, "--dry-run")
    assert rc == 0, err
    rc, out, err = _audit(capsys, template)
    assert rc == 0, out


def test_config_file_exclude_that_is_not_a_list_of_strings_names_the_line(template, upstream_repo, capsys):
    cfg = template / ".github" / "executorch-pack-bot.yml"
    cfg.write_text("labels: [dependencies]\nexclude: documentation/old\n")
    before = snapshot(template)
    rc, out, err = _update(capsys, template, upstream_repo)
    assert rc == 2 and ".github/executorch-pack-bot.yml:2:" in err and "exclude" in err
    assert snapshot(template) == before
    cfg.write_text("exclude:\n  - docs\n  - 3\n")
    rc, out, err = _audit(capsys, template)
    assert rc == 2 and ".github/executorch-pack-bot.yml:3:" in err and out == ""


def test_config_file_yaml_spelling_exclude_is_honoured(template, capsys):
    _latin1_doc(template)
    (template / ".github" / "executorch-pack-bot.yaml").write_text("exclude: [documentation/old]\n")
    rc, out, _ = _audit(capsys, template)
    assert rc == 0, out


def test_exclude_globs_that_can_never_match_are_refused(template, upstream_repo, capsys):
    """``--exclude /docs`` or ``../x`` matched nothing and was silently ignored: the folder the user
    meant to leave out was read (and bumped) anyway."""
    before = snapshot(template)
    for glob, why in (("/documentation", "absolute path"), ("../documentation", "'..' part"),
                      ("documentation\\results.md", "backslash")):
        rc, out, err = _update(capsys, template, upstream_repo, "--exclude", glob)
        assert rc == 2, (glob, out)
        _clean(out, err)
        assert f"--exclude {glob!r}" in err and why in err
        rc, out, err = run_cli(capsys, "audit", "--repo", template, "--exclude", glob)
        assert rc == 2 and why in err
    assert snapshot(template) == before


def test_config_exclude_glob_that_can_never_match_names_its_line(template, upstream_repo, capsys):
    (template / ".github" / "executorch-pack-bot.yml").write_text("exclude:\n  - docs/old\n  - /documentation\n")
    rc, out, err = _update(capsys, template, upstream_repo)
    assert rc == 2
    _clean(out, err)
    assert ".github/executorch-pack-bot.yml:3:" in err and "absolute path" in err


def test_exclude_of_every_pin_file_is_a_clear_error(template, upstream_repo, capsys):
    rc, out, err = _update(capsys, template, upstream_repo, "--exclude", "*.yml", "--exclude", "*.txt")
    assert rc == 2
    _clean(out, err)
    assert "no exact PyTorch::ExecuTorch pack pin" in err


def test_exclude_help_does_not_read_as_writing_the_config(capsys):
    code, out, err = run_cli(capsys, "update", "--help")
    text = " ".join(out.split())
    assert "added to the exclude: list" not in text and "which is not changed" in text


def test_non_utf8_error_names_exclude_as_a_way_out(capsys, template, upstream_repo):
    (template / "docs").mkdir()
    (template / "docs" / "old.md").write_bytes(b"ExecuTorch 1.4.0 \xe9t\xe9\n")
    code, out, err = _update(capsys, template, upstream_repo, "--dry-run")
    assert code == 2 and "docs/old.md" in err and "--exclude docs/old.md" in err
