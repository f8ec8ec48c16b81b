#!/usr/bin/env python3
"""Mutation score of one bot module against the tests that execute it (not part of CI: too slow).

Usage::

    python tests/mutation/run.py bot/template/requirements.py [--jobs 2] [--keep DIR] [--tests FILE ...]
    python tests/mutation/run.py bot/template/requirements.py --keep DIR --recheck [--tests FILE ...]

Steps:

1. The tests that execute the module are found with coverage.py's dynamic
   contexts (``--context=test_function``: the tests whose functions ran a
   line of the module), not by import grep: the pack checks, for example, are
   reached only through ``verify_pack``.
2. The project is copied (``git ls-files``, the working tree's bytes: docs/,
   .github/ and every other tracked folder, which tests read) into a scratch
   folder whose ``pyproject.toml`` gets a ``[tool.mutmut]`` table that
   mutates only that module, copies every top-level tracked entry into
   mutmut's own copy, and runs only those test files.  The npm fixtures the
   tests read from the project's ``.venv`` (GitHub's webhook examples, REST
   description and expression evaluator) are passed by absolute path.
3. The selected tests run once, unmutated, in the scratch copy: when one
   fails, or one is skipped (a missing fixture makes tests skip in silence,
   and a skipped test kills no mutant), the run stops without a score
   (exit 1 for a failure, 2 for a skip, naming them).  Then ``mutmut run``
   (mutmut 3.x) and ``mutmut results`` there.
4. The score is printed as ``killed / (killed + survived)``, with timeouts
   counted as killed and "no tests" mutants counted as survivors, then
   each survivor's name; ``mutmut show NAME`` in the kept folder shows its
   diff.  Mutants listed in ``tests/mutation/equivalent.txt`` (``NAME  reason``,
   one a line) are reported and left out of the score.

``--sample N [--seed S]`` runs only N mutants drawn with that seed, when a
full run does not fit: the score printed is the sample's.

``--recheck`` (with ``--keep DIR`` of an earlier run of the same, unchanged
module) copies the current test files and other modules into DIR and re-runs only the
survivors, each as mutmut runs it (its ``MUTANT_UNDER_TEST``): the figure
after new tests, in minutes instead of a whole run.

Needs ``pip install mutmut==3.8.1 coverage``.  Exit 0 when the run completed
(whatever the score), 2 for bad usage, 1 when mutmut itself failed.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EQUIVALENT = Path(__file__).with_name("equivalent.txt")
FIXTURES = {   # variable the tests read -> the fixture under the project's .venv (installed by .ci/run)
    "OCTOKIT_WEBHOOKS_EXAMPLES": ".venv/webhooks-examples/node_modules/@octokit/webhooks-examples/api.github.com/"
                                 "index.json",
    "EXECUTORCH_PACK_BOT_OPENAPI_DIR": ".venv/octokit-openapi/node_modules/@octokit/openapi/generated",
    "EXECUTORCH_PACK_BOT_EXPRESSIONS": ".venv/actions-expressions/node_modules/@actions/expressions/dist/index.js",
}


def fixture_env(root: Path = ROOT) -> dict[str, str]:
    """The environment of every test run in a scratch copy: the npm fixtures by absolute path (the copy has no
    ``.venv``); a variable already set is kept."""
    env = dict(os.environ)
    for var, rel in FIXTURES.items():
        env.setdefault(var, str(root / rel))
    return env


def unmutated_refusal(python: str, cwd: Path, tests: list[str], env: dict) -> tuple[int, str]:
    """Run ``tests`` once, unmutated, in ``cwd``: ``(0, "")`` when all pass, ``(1, why)`` when one fails,
    ``(2, why)`` when one is skipped (a skipped test kills no mutant: its module must not be scored)."""
    p = subprocess.run([python, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", "-o", "addopts=", *tests],
                       cwd=cwd, env=env, capture_output=True, text=True)
    tail = "\n".join(p.stdout.strip().splitlines()[-15:])
    if p.returncode not in (0,):
        return 1, f"the unmutated tests fail in the scratch copy {cwd}:\n{tail}"
    skipped = re.search(r"(\d+) skipped", p.stdout)
    if skipped:
        reasons = "\n".join(ln for ln in p.stdout.splitlines() if ln.startswith("SKIPPED"))[:3000]
        return 2, (f"{skipped.group(1)} of the selected tests skipped in the scratch copy: refusing to score "
                   f"(install what they need: bash .ci/run)\n{reasons}")
    return 0, ""


def top_level(files: list[str]) -> list[str]:
    """The top-level entries of the tracked ``files`` (``bot``, ``docs``, ``pyproject.toml``, ...)."""
    return sorted({rel.split("/", 1)[0] for rel in files if rel.split("/", 1)[0] not in ("mutants", ".venv")})


def tests_executing(module: Path, python: str) -> list[str]:
    """Test files (``tests/test_x.py``) whose test functions execute at least one line of ``module``."""
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / ".coverage"
        rc = Path(tmp) / "coveragerc"
        rc.write_text(f"[run]\ndynamic_context = test_function\ninclude = {module}\n")
        cmd = [python, "-m", "coverage", "run", f"--rcfile={rc}", f"--data-file={data}", "-m", "pytest",
               "-q", "-p", "no:cacheprovider", "-o", "addopts=", "tests", "--ignore=tests/bench"]
        subprocess.run(cmd, cwd=ROOT, check=False, stdout=subprocess.DEVNULL)
        return _dynamic_contexts(python, data, module)


def _dynamic_contexts(python: str, data: Path, module: Path) -> list[str]:
    code = (
        "import sys, coverage\n"
        "d = coverage.CoverageData(basename=sys.argv[1]); d.read()\n"
        "files = set()\n"
        "for f in d.measured_files():\n"
        "    for ctxs in d.contexts_by_lineno(f).values():\n"
        "        files.update(c for c in ctxs if c)\n"
        "print('\\n'.join(sorted(files)))\n")
    out = subprocess.run([python, "-c", code, str(data)], capture_output=True, text=True, check=True).stdout
    found = set()
    for ctx in out.split():
        # dynamic context "test_function" names the test as module.function ("test_pack_verify.test_x")
        mod = ctx.split(".")[0] if "." in ctx else ctx
        path = next((ROOT / "tests").rglob(f"{mod}.py"), None) if mod.startswith("test_") else None
        if path is not None and path.is_file():
            found.add(path.relative_to(ROOT).as_posix())
    return sorted(found)


def copy_project(dest: Path) -> list[str]:
    """Copy every tracked or new file of the project into ``dest``; returns the top-level entries copied."""
    files = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=ROOT, capture_output=True,
                           text=True, check=True).stdout.splitlines()
    for rel in files:
        src = ROOT / rel
        if not src.is_file():
            continue
        dst = dest / rel
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, dst)
    return top_level([rel for rel in files if (ROOT / rel).exists()])


def mutmut_table(module: Path, entries: list[str], tests: list[str]) -> str:
    """The ``[tool.mutmut]`` table of the scratch copy: mutate ``module`` only (``source_paths``: mutmut 3.x warns
    on its older name ``paths_to_mutate``, and the warning reaches the stderr of every test's subprocess that
    imports a mutated module), copy the top-level ``entries``, run only ``tests``."""
    return ("\n[tool.mutmut]\n"
            f"source_paths = [\"{module.as_posix()}\"]\n"
            f"also_copy = {entries!r}\n"
            f"pytest_add_cli_args_test_selection = {tests!r}\n"
            "pytest_add_cli_args = [\"-p\", \"no:cacheprovider\", \"-o\", \"addopts=\"]\n").replace("'", '"')


def equivalent() -> dict[str, str]:
    out = {}
    if EQUIVALENT.is_file():
        for line in EQUIVALENT.read_text().splitlines():
            if line.strip() and not line.startswith("#"):
                name, _, why = line.partition(" ")
                out[name] = why.strip()
    return out


def _status(python: str, work: Path) -> dict[str, str]:
    """``mutmut results --all true`` in ``work``: mutant name -> status ("killed", "survived", ...)."""
    res = subprocess.run([python, "-m", "mutmut", "results", "--all", "true"], cwd=work,
                         capture_output=True, text=True)
    status: dict[str, str] = {}
    for line in res.stdout.splitlines():
        m = re.match(r"\s*(\S+):\s*(\w[\w ]*)$", line)
        if m:
            status[m.group(1)] = m.group(2).strip()
    return status


def copy_current(work: Path, module: Path) -> int:
    """Copy the current test files and other modules of ``bot/`` into the run kept in ``work`` (and its
    ``mutants`` copy); the mutated module stays the trampolined copy of the run.  Returns 2 (and says why)
    when ``module`` changed since that run (its mutant names depend on it), else 0."""
    if (ROOT / module).read_bytes() != (work / module).read_bytes():
        print(f"run.py: {module} changed since the run kept in {work}: run it again without --recheck",
              file=sys.stderr)
        return 2
    files = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "tests", "bot"], cwd=ROOT,
                           capture_output=True, text=True, check=True).stdout.splitlines()
    for rel in [rel for rel in files if Path(rel) != module]:
        for base in (work, work / "mutants"):
            if (ROOT / rel).is_file():
                (base / rel).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(ROOT / rel, base / rel)
    return 0


def recheck(python: str, work: Path, module: Path, tests: list[str], status: dict[str, str],
            timeout: float = 300.0) -> int:
    """Re-run the survivors of the earlier run kept in ``work`` against the CURRENT ``tests``.

    The module must be byte for byte the one mutated then (the mutant names depend on it); the
    test files are copied over the kept ones.  Each survivor runs as mutmut runs it (the
    ``MUTANT_UNDER_TEST`` variable of its trampoline); a failing test run kills it.  The other
    modules of ``bot/`` are copied too (a fix in one of them changes what the tests expect).  ``status``
    is updated in place.  Returns 2 when the module changed or the mutated copy is not the one
    imported, else 0.
    """
    if copy_current(work, module):
        return 2
    cmd = [python, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", "-o", "addopts=", *tests]

    def fails(name: str) -> bool:
        env = dict(fixture_env(), MUTANT_UNDER_TEST=name)
        try:
            return subprocess.run(cmd, cwd=work / "mutants", env=env, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL, timeout=timeout).returncode != 0
        except subprocess.TimeoutExpired:
            return True

    if not fails("fail"):  # mutmut's own check: the trampolines of the mutated copy must be the code imported
        print(f"run.py: the tests do not import the mutated copy in {work / 'mutants'}", file=sys.stderr)
        return 2
    eq = equivalent()   # left out of the score anyway; each would cost a whole pass of the tests
    for name in [n for n, st in status.items() if st in ("survived", "no tests") and n not in eq]:
        if fails(name):
            status[name] = "killed"
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("module", help="the module to mutate, e.g. bot/template/requirements.py")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2, help="mutmut --max-children")
    ap.add_argument("--keep", metavar="DIR", help="run in DIR and keep it (default: a temporary folder)")
    ap.add_argument("--tests", nargs="*", help="test files to use instead of the coverage selection")
    ap.add_argument("--sample", type=int, metavar="N",
                    help="run only N mutants drawn with --seed (when a full run does not fit): the score is "
                         "then of the sample, and says so")
    ap.add_argument("--seed", type=int, default=1, help="the seed of --sample (default 1)")
    ap.add_argument("--recheck", action="store_true",
                    help="with --keep DIR of an earlier run of the same, unchanged module: re-run only its "
                         "survivors against the current --tests (new tests included)")
    args = ap.parse_args(argv)
    module = Path(args.module)
    if not (ROOT / module).is_file() or module.suffix != ".py":
        print(f"run.py: {module}: not a Python file of this project", file=sys.stderr)
        return 2
    if args.recheck and not (args.keep and (Path(args.keep) / "mutants").is_dir()):
        print("run.py: --recheck needs --keep DIR of an earlier run", file=sys.stderr)
        return 2
    python = sys.executable
    tests = args.tests or tests_executing(module, python)
    if not tests:
        print(f"run.py: no test executes {module}", file=sys.stderr)
        return 2
    print(f"{module}: {len(tests)} test files execute it: {' '.join(tests)}", flush=True)
    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="mutation-"))
    env = fixture_env()
    if args.recheck:
        if copy_current(work, module):   # first: new test files must be there for the unmutated run
            return 2
        code, why = unmutated_refusal(python, work, tests, env)
        if code:
            print(f"run.py: {why}", file=sys.stderr)
            return code
        status = _status(python, work)
        rc = recheck(python, work, module, tests, status)
        if rc:
            return rc
        return report(module, status, work, keep=True)
    work.mkdir(parents=True, exist_ok=True)
    entries = copy_project(work)
    code, why = unmutated_refusal(python, work, tests, env)
    if code:
        print(f"run.py: {why}", file=sys.stderr)
        return code
    pyproject = work / "pyproject.toml"
    pyproject.write_text(pyproject.read_text() + mutmut_table(module, entries, tests))
    names: list[str] = []
    if args.sample:
        # mutmut generates every mutant and times the tests, then runs only the names given
        subprocess.run([python, "-m", "mutmut", "run", "--max-children", str(args.jobs), "no-such-mutant"],
                       cwd=work, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        every = sorted(_status(python, work))
        import random
        names = sorted(random.Random(args.seed).sample(every, min(args.sample, len(every))))
        print(f"{module}: a sample of {len(names)} of {len(every)} mutants (seed {args.seed})", flush=True)
    run = subprocess.run([python, "-m", "mutmut", "run", "--max-children", str(args.jobs), *names], cwd=work,
                         env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    status = _status(python, work)
    if names:
        status = {n: st for n, st in status.items() if n in set(names)}
    if run.returncode != 0 and not status:
        print(run.stderr[-3000:], file=sys.stderr)
        return 1
    return report(module, status, work, keep=bool(args.keep))


def report(module: Path, status: dict[str, str], work: Path, keep: bool) -> int:
    """Print the score and the survivors; remove ``work`` unless kept."""
    eq = equivalent()
    killed = [n for n, s in status.items() if s in ("killed", "timeout") and n not in eq]
    survived = [n for n, s in status.items() if s in ("survived", "no tests") and n not in eq]
    tested = len(killed) + len(survived)
    score = 100.0 * len(killed) / tested if tested else 0.0
    print(f"{module}: {len(status)} mutants, {len(killed)} killed, {len(survived)} survived, "
          f"{len([n for n in status if n in eq])} equivalent (listed in {EQUIVALENT.name}): score {score:.1f}%")
    for n in survived:
        print(f"  survived: {n} ({status[n]})")
    if keep:
        print(f"kept in {work}; 'mutmut show NAME' there shows a mutant")
    else:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
