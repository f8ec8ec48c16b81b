"""``tests/mutation/run.py --recheck``: the current test files (new ones too) are in the kept run before its
unmutated pass, and a module changed since that run is refused."""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MODULE = Path("bot/events/dashboard.py")


def load_run():
    spec = importlib.util.spec_from_file_location("mutation_run", ROOT / "tests/mutation/run.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def kept_run(tmp_path: Path) -> Path:
    work = tmp_path / "kept"
    (work / "mutants" / MODULE.parent).mkdir(parents=True)
    (work / MODULE.parent).mkdir(parents=True)
    shutil.copy2(ROOT / MODULE, work / MODULE)
    return work


def test_the_unmutated_pass_of_a_recheck_sees_the_current_test_files(tmp_path, monkeypatch):
    run = load_run()
    work = kept_run(tmp_path)
    seen = []

    def refusal(python, cwd, tests, env):
        seen.append([(Path(cwd) / t).is_file() for t in tests])
        return 1, "stopped here"
    monkeypatch.setattr(run, "unmutated_refusal", refusal)
    tests = ["tests/project/test_mutation_recheck_sees_new_test_files.py", "tests/events/test_dashboard.py"]
    assert run.main([str(MODULE), "--keep", str(work), "--recheck", "--tests", *tests]) == 1
    assert seen == [[True, True]]
    assert (work / "mutants" / tests[0]).read_bytes() == (ROOT / tests[0]).read_bytes()
    assert (work / MODULE).read_bytes() == (ROOT / MODULE).read_bytes()


def test_a_recheck_of_a_changed_module_is_refused(tmp_path, capsys):
    run = load_run()
    work = kept_run(tmp_path)
    (work / MODULE).write_text("# the module as it was\n")
    assert run.main([str(MODULE), "--keep", str(work), "--recheck", "--tests", "tests/events/test_dashboard.py"]) == 2
    assert capsys.readouterr().err == (f"run.py: {MODULE} changed since the run kept in {work}: run it again without "
                                       "--recheck\n")
    assert not (work / "tests").exists()
