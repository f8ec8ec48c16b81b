"""The mutation runner (tests/mutation/run.py) under mutmut 3.8.1: the ``[tool.mutmut]`` table it writes loads
without a warning (mutmut's warning about a deprecated key reaches the stderr of every test's subprocess that imports
a mutated module, and tests assert that stderr), and a test that runs ``guest()`` in the process running the tests
leaves it no child subreaper (mutmut waits for any child and looks its pid up among its own workers: an adopted
orphan was a KeyError that ended the run)."""

from __future__ import annotations

import importlib.util
import warnings
from pathlib import Path

import pytest

from bot.contain import guest
from conftest import _process_flags, process_flags_kept

ROOT = Path(__file__).resolve().parents[2]


def load_run():
    spec = importlib.util.spec_from_file_location("mutation_run", ROOT / "tests/mutation/run.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_the_mutmut_table_loads_without_a_warning(tmp_path, monkeypatch):
    configuration = pytest.importorskip("mutmut.configuration")   # mutmut is not in the test extras
    run = load_run()
    tests = ["tests/core/test_contained_command_environment.py", "tests/workflow/test_upstream_output_is_no_workflow_command.py"]
    (tmp_path / "pyproject.toml").write_text("[project]\nname = \"x\"\n" +
                                             run.mutmut_table(Path("bot/contain.py"), ["bot", "docs", "tests"], tests))
    monkeypatch.chdir(tmp_path)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        cfg = configuration._load_config()
    assert [str(w.message) for w in seen] == []
    assert cfg.source_paths == [Path("bot/contain.py")]
    assert cfg.pytest_add_cli_args_test_selection == tests
    assert cfg.pytest_add_cli_args == ["-p", "no:cacheprovider", "-o", "addopts="]
    assert {Path("bot"), Path("docs"), Path("tests")} <= set(cfg.also_copy)


def test_a_guest_run_in_the_test_process_leaves_it_no_subreaper():
    before = _process_flags()
    if before is None:
        pytest.skip("no prctl here (not Linux)")
    with process_flags_kept():
        with guest("a test", env={}):
            pass
        assert _process_flags() == (1, 0)      # guest() made this process a subreaper, not dumpable
    assert _process_flags() == before
