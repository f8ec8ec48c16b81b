"""``EXECUTORCH_PACK_BOT_RECORD_OPERATIONS=FILE`` records the REST operations of the whole session also when the
tests run spread over pytest-xdist workers (``-n``, as .ci/run runs them): FILE is the union of every worker's
operations, not one worker's (or the controlling process's, which sent none), and no part file is left behind."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parents[1]   # tests/

#: One documented operation per test file: each file records a request the fake answered (at import, so no
#: test's own contract check sees it).
PATHS = ["/repos/o/n/pulls", "/repos/o/n/releases", "/repos/o/n/issues", "/repos/o/n/branches"]


@pytest.mark.needs("openapi")
def test_every_worker_s_operations_reach_the_recording(tmp_path):
    for i, path in enumerate(PATHS):
        (tmp_path / f"test_part{i}.py").write_text(
            "import fakegithub\n"
            f"fakegithub.EXCHANGES.append(fakegithub.Exchange('GET', {path!r}, '', {{}}, b'', 200, {{}}, b'[]', "
            "False))\n\n\ndef test_here():\n    pass\n")
    out = tmp_path / "ops.json"
    env = {**{k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "PYTHONPATH"))},   # not a worker
           "PYTHONPATH": str(TESTS), "EXECUTORCH_PACK_BOT_RECORD_OPERATIONS": str(out)}
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "conftest", "-p", "no:cacheprovider",
                          "-n", "2", "--dist", "loadfile", *(f"test_part{i}.py" for i in range(len(PATHS)))],
                         cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout + run.stderr
    assert sorted(path for _, path in json.loads(out.read_text())) == sorted(
        p.replace("/o/n/", "/{owner}/{repo}/") for p in PATHS)
    assert sorted(p.name for p in tmp_path.glob("ops.json*")) == ["ops.json"]
