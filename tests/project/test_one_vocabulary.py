"""One word per idea across the commands: ``--version`` names the ExecuTorch release (update, check, run,
doctor, as fetch-pack, build-pack and verify-pack and the action's ``version`` input), ``--output-dir`` the
folder a command writes into (build-pack, fetch-pack, previous-pack), ``--allow-flagged`` /
``--stop-on-flagged`` what update and run do with a blocking item.  The old spellings (``--to``, ``--dest``)
still work, with one note on stderr."""

from __future__ import annotations

import json
import re

import pytest

from helpers import run_cli

NOTE_TO = "executorch-pack-bot: note: --to is deprecated, use --version (--to still works)\n"
NOTE_DEST = "executorch-pack-bot: note: --dest is deprecated, use --output-dir (--dest still works)\n"


def _plan(capsys, template, tags, *argv):
    code, out, err = run_cli(capsys, "update", "--repo", template, "--upstream", tags, "--json", "--dry-run", *argv)
    return code, json.loads(out) if out.strip() else None, err


def test_version_and_the_old_to_choose_the_same_target(capsys, template, tags):
    code, new, err = _plan(capsys, template, tags, "--version", "1.5.1")
    assert code == 0 and err == ""
    code, old, err = _plan(capsys, template, tags, "--to", "1.5.1")
    assert code == 0 and err == NOTE_TO
    assert new == old and new["target"]["executorch"] == "1.5.1"


def test_a_bad_version_names_the_option(capsys, template, tags):
    code, out, err = run_cli(capsys, "update", "--repo", template, "--upstream", tags, "--version", "1.5")
    assert (code, err) == (2, "executorch-pack-bot: error: --version: '1.5' is not a release version "
                              "(expected X.Y.Z, vX.Y.Z or X.Y.Z-rcN)\n")


@pytest.mark.parametrize("command", ["update", "check", "run", "doctor"])
def test_every_target_picking_command_lists_version_and_hides_to(capsys, command):
    code, out, err = run_cli(capsys, command, "--help")
    assert code == 0 and "--version X.Y.Z" in out and not re.search(r"--to\b(?!ken)", out)


def test_output_dir_and_the_old_dest_of_previous_pack(capsys, template, tmp_path):
    from bot.sample import UPSTREAM_DIR
    code, out, err = run_cli(capsys, "previous-pack", "--repo", template, "--output-dir", tmp_path / "a",
                             "--upstream", UPSTREAM_DIR)
    assert code == 0 and err == ""
    code, out, err = run_cli(capsys, "previous-pack", "--repo", template, "--dest", tmp_path / "b",
                             "--upstream", UPSTREAM_DIR)
    assert code == 0 and err == NOTE_DEST
    assert sorted(p.name for p in (tmp_path / "a").iterdir()) == sorted(p.name for p in (tmp_path / "b").iterdir())


def test_output_dir_is_required(capsys, template):
    code, out, err = run_cli(capsys, "previous-pack", "--repo", template)
    assert code == 2 and "--output-dir" in err


@pytest.mark.parametrize("command", ["update", "run"])
def test_update_and_run_take_the_same_two_flagged_words(capsys, command):
    code, out, err = run_cli(capsys, command, "--help")
    options = " ".join(out[out.index("options:"):].split())
    default = "--allow-flagged" if command == "run" else "--stop-on-flagged"
    other = "--stop-on-flagged" if command == "run" else "--allow-flagged"
    for option in (default, other):
        text = options[options.index(option + " "):]
        text = text[:text.index(" --", 3)]
        assert text.endswith("(the default)") == (option == default), text


def _blocking(template):
    """A pin the bot does not manage (a uv constraint below the target): a blocking item."""
    (template / "pyproject.toml").write_text('[project]\nname = "fw"\nversion = "0"\n\n'
                                             '[tool.uv]\nconstraint-dependencies = ["executorch<1.5"]\n')


def test_update_stops_on_a_blocking_item_by_default_and_with_stop_on_flagged(capsys, template, tags):
    from helpers import snapshot
    _blocking(template)
    before = snapshot(template)
    for extra in ((), ("--stop-on-flagged",)):
        code, out, err = run_cli(capsys, "update", "--repo", template, "--upstream", tags, *extra)
        assert code == 1 and "Nothing written" in out and snapshot(template) == before
    code, out, err = run_cli(capsys, "update", "--repo", template, "--upstream", tags, "--allow-flagged")
    assert code == 0 and "Wrote 11 files." in out


def test_allow_and_stop_cannot_be_given_together(capsys, template):
    code, out, err = run_cli(capsys, "update", "--repo", template, "--allow-flagged", "--stop-on-flagged")
    assert code == 2 and "not allowed with argument" in err
