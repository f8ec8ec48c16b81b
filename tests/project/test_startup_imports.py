"""Start-up: a command imports only what it uses (counted in a fresh interpreter, never timed).

``--version`` and ``--help`` import no command module and none of the heavy
libraries; ``update`` imports neither the GitHub stack nor lxml; ``verify-pack``
imports neither the GitHub stack nor PyYAML.  The subcommand table of
:mod:`bot.cli` lists every module of :mod:`bot.commands` with its own name and help.
"""

from __future__ import annotations

import ast
import importlib
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

from bot import cli

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("github", "lxml", "yaml", "requests", "packaging", "urllib3", "inspect", "pkgutil", "dataclasses")

#: Runs bot.cli.main(argv) and prints the exit code and the sorted module names loaded by the end
#: (imports nothing itself: the names are printed with repr and read back with ast.literal_eval).
PROBE = """
import sys
from bot import cli
try:
    rc = cli.main(sys.argv[1:])
except SystemExit as exc:
    rc = exc.code
sys.stdout.flush()
print("\\n@@" + repr([rc, sorted(sys.modules)]), file=sys.stderr)
"""


def loaded_after(*argv: str) -> tuple[int, set[str]]:
    """(exit code, names of the modules loaded) of ``executorch-pack-bot ARGV`` in a fresh interpreter."""
    proc = subprocess.run([sys.executable, "-c", PROBE, *argv], capture_output=True, text=True, cwd=ROOT,
                          timeout=120)
    rc, mods = ast.literal_eval(proc.stderr.rsplit("@@", 1)[1])
    return rc, set(mods)


def families(mods: set[str], roots) -> list[str]:
    """The modules of ``mods`` belonging to one of the top-level packages ``roots``."""
    return sorted(m for m in mods if m.split(".")[0] in roots)


@pytest.mark.parametrize("argv", [("--version",), ("--help",)])
def test_version_and_help_import_no_command_and_no_heavy_library(argv):
    rc, mods = loaded_after(*argv)
    assert rc == 0
    assert families(mods, HEAVY) == []
    assert sorted(m for m in mods if m.startswith("bot.")) == ["bot.cli", "bot.errors"]


@pytest.mark.parametrize("argv", [("--version",), ("--help",), ("-h",)])
def test_version_and_help_do_not_even_load_argparse(argv):
    rc, mods = loaded_after(*argv)
    assert rc == 0
    assert "argparse" not in mods


def test_help_without_argparse_is_argparse_s_help_at_every_width(monkeypatch):
    for width in range(40, 201):
        monkeypatch.setenv("COLUMNS", str(width))
        mine = cli.top_help(width - 2)
        if mine is None:  # the usage line would wrap: argparse lays it out
            assert width < 60
            continue
        assert mine == cli.build_parser(load=[]).format_help(), width


def test_help_prints_the_same_text_as_argparse(monkeypatch, capsys):
    monkeypatch.setenv("COLUMNS", "100")
    assert cli.main(["--help"]) == 0
    assert capsys.readouterr().out == cli.build_parser(load=[]).format_help()
    monkeypatch.setenv("COLUMNS", "30")  # too narrow for the usage line: argparse answers
    with pytest.raises(SystemExit) as exc:
        cli.main(["-h"])
    assert (exc.value.code, capsys.readouterr().out) == (0, cli.build_parser(load=[]).format_help())


def test_help_measures_the_terminal_without_shutil_and_wraps_without_textwrap():
    # shutil.get_terminal_size would pull in shutil, bz2 and lzma for one number; textwrap compiles patterns
    base = subprocess.run([sys.executable, "-c", "import sys; print(' '.join(sys.modules))"], capture_output=True,
                          text=True, cwd=ROOT).stdout.split()
    rc, mods = loaded_after("--help")
    assert rc == 0
    assert ("shutil" in mods, "textwrap" in mods) == ("shutil" in base, "textwrap" in base)


def test_help_wraps_at_spaces_within_the_width():
    assert cli._wrap("one  two\nthree four", 9) == ["one two", "three", "four"]
    assert cli._wrap("a verylongword b", 4) == ["a", "verylongword", "b"]
    assert cli._wrap("   ", 10) == []


def test_update_help_loads_its_own_module_only():
    rc, mods = loaded_after("update", "--help")
    assert rc == 0
    assert sorted(m for m in mods if m.startswith("bot.commands.") and not m.startswith("bot.commands._")) == [
        "bot.commands.update"]   # no other command; bot.commands._options (the shared options) is not one
    assert families(mods, ("github", "lxml", "requests", "urllib3")) == []


def test_update_dry_run_imports_no_github_stack_and_no_lxml(tmp_path):
    from bot.commands.demo import copy_template
    from bot.sample import build_upstream_repo
    tpl = copy_template(tmp_path / "template")
    upstream = build_upstream_repo(tmp_path / "upstream")
    rc, mods = loaded_after("update", "--repo", str(tpl), "--upstream", str(upstream), "--dry-run")
    assert rc in (0, 1)
    assert families(mods, ("github", "lxml", "requests", "urllib3")) == []
    assert sorted(m for m in mods if m.startswith("bot.commands.") and not m.startswith("bot.commands._")) == [
        "bot.commands.update"]   # no other command; bot.commands._options (the shared options) is not one
    assert sorted(m for m in mods if m.startswith(("bot.pack", "bot.github"))) == []
    assert sorted(m for m in mods if m in ("json", "tempfile")) == []  # only for --json/--plan-file and writes


def test_verify_pack_imports_no_github_stack_and_no_yaml(tmp_path):
    from bot.sample.packgen import make_pack
    pack = make_pack(tmp_path / "p")
    rc, mods = loaded_after("verify-pack", "--version", "1.5.1", str(pack))
    assert rc == 0
    assert families(mods, ("github", "requests", "urllib3", "yaml")) == []
    assert "lxml" in {m.split(".")[0] for m in mods}
    assert families(mods, ("json", "hashlib")) == []


def test_update_dry_run_builds_no_json_and_hashes_no_fingerprint(tmp_path):
    from bot.commands.demo import copy_template
    from bot.sample import build_upstream_repo
    tpl = copy_template(tmp_path / "template")
    upstream = build_upstream_repo(tmp_path / "upstream")
    argv = ("update", "--repo", str(tpl), "--upstream", str(upstream), "--dry-run")
    rc, mods = loaded_after(*argv)
    assert rc == 0
    assert families(mods, ("hashlib", "json")) == []
    rc, mods = loaded_after(*argv, "--json")   # the JSON carries the plan's fingerprint: a sha256
    assert rc == 0
    assert families(mods, ("hashlib", "json")) == ["hashlib", "json", "json.decoder", "json.encoder",
                                                   "json.scanner"]


def test_command_table_lists_every_command_module_with_its_own_name_and_help():
    import bot.commands as pkg
    modules = sorted(i.name for i in pkgutil.iter_modules(pkg.__path__) if not i.name.startswith("_"))
    assert sorted(mod for _, mod, _ in cli.COMMANDS) == modules
    for name, mod, help_text in cli.COMMANDS:
        m = importlib.import_module(f"bot.commands.{mod}")
        assert (m.NAME, m.HELP) == (name, help_text)
    orders = [getattr(importlib.import_module(f"bot.commands.{mod}"), "ORDER", 50) for _, mod, _ in cli.COMMANDS]
    assert orders == sorted(orders)


def test_requested_command_is_the_first_word():
    assert cli.requested_command(["update", "--repo", "x"]) == "update"
    assert cli.requested_command(["--help"]) is None
    assert cli.requested_command(["-h", "verify-pack"]) == "verify-pack"
    assert cli.requested_command(["nope", "update"]) is None
    assert cli.requested_command(["--", "update"]) is None
