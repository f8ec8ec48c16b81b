"""The composite action's shell steps, run with bash and a fake GITHUB_OUTPUT.

Each ``run:`` step of action.yml is executed the way the runner does it: the
step's ``env:`` with ``${{ inputs.* }}`` rendered from the test's inputs (the
only place expressions may appear), ``RUNNER_TEMP``, ``GITHUB_ACTION_PATH`` and a
fresh ``GITHUB_OUTPUT`` file per step.  The interpreter is a fake ``python3``
whose ``-m venv`` makes a venv holding a fake (or the real) bot, so no package
is downloaded.
"""

from __future__ import annotations

import json
import os
import re
import stat
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
ACTION = yaml.safe_load((ROOT / "action.yml").read_text())
EXPR = re.compile(r"\$\{\{\s*([^}]*?)\s*\}\}")

FAKE_PYTHON = """\
#!/usr/bin/env bash
# fake python3: only "-m venv DIR" is supported
set -euo pipefail
[ "$1" = "-m" ] && [ "$2" = "venv" ] || exit 99
mkdir -p "$3/bin"
cat > "$3/bin/python" <<'PY'
#!/usr/bin/env bash
printf '%s\\n' "$*" >> "$FAKE_PIP_LOG"
PY
cp "$FAKE_BOT" "$3/bin/executorch-pack-bot"
chmod +x "$3/bin/python" "$3/bin/executorch-pack-bot"
"""

FAKE_BOT = """\
#!{python}
import json, os, sys
with open(os.environ["FAKE_BOT_LOG"], "a") as f:
    f.write(json.dumps({{"argv": sys.argv[1:], "token": os.environ.get("GITHUB_TOKEN")}}) + "\\n")
outputs = json.loads(os.environ.get("FAKE_BOT_OUTPUTS", "{{}}"))
with open(os.environ["GITHUB_OUTPUT"], "a") as f:
    for k, v in outputs.items():
        f.write(f"{{k}}={{v}}\\n")
sys.exit(int(os.environ.get("FAKE_BOT_RC", "0")))
"""

REAL_BOT = """\
#!/usr/bin/env bash
exec {python} -m bot "$@"
"""


def _write_exec(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def _render(value, inputs: dict[str, str]) -> str:
    """Render the expressions the action may use in ``env:``: inputs.X and github.token."""
    def sub(m: re.Match) -> str:
        expr = m.group(1)
        if "==" in expr:   # a comparison of two of the forms below gives "true"/"false", as in Actions
            left, right = (sub(re.match(r"(.*)", part.strip())) for part in expr.split("=="))
            return str(left == right).lower()
        if expr.startswith("inputs."):
            return inputs[expr[len("inputs."):]]
        if expr == "github.token":
            return "ghs_default_token"
        raise AssertionError(f"unexpected expression in an env value: {expr}")
    return EXPR.sub(sub, str(value))


def _parse_output(path: Path) -> dict[str, str]:
    out = {}
    for line in path.read_text().splitlines():
        if "=" in line:
            k, v = line.split("=", 1)
            out[k] = v
    return out


class ActionRun:
    """Runs every step of the composite action in order; records step outputs and exit codes."""

    def __init__(self, tmp_path: Path, bot: str = "fake"):
        self.tmp = tmp_path
        self.runner_temp = tmp_path / "runner_temp"
        self.runner_temp.mkdir()
        self.bot_log = tmp_path / "bot.log"
        self.pip_log = tmp_path / "pip.log"
        fake_bot = FAKE_BOT.format(python=sys.executable) if bot == "fake" else REAL_BOT.format(python=sys.executable)
        self.fake_bot = _write_exec(tmp_path / "fakebot", fake_bot)
        self.fake_python = _write_exec(tmp_path / "bin" / "python3", FAKE_PYTHON)

    def run(self, inputs: dict[str, str], extra_env: dict[str, str] | None = None):
        full = {name: _render(spec.get("default", ""), {}) for name, spec in ACTION["inputs"].items()}
        full["python"] = str(self.fake_python)
        full.update(inputs)
        results = []
        for i, step in enumerate(ACTION["runs"]["steps"]):
            assert step["shell"] == "bash"
            out_file = self.tmp / f"output-{i}"
            out_file.write_text("")
            env = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")}
            env.update({
                "RUNNER_TEMP": str(self.runner_temp), "GITHUB_ACTION_PATH": str(ROOT),
                "GITHUB_OUTPUT": str(out_file), "FAKE_BOT_LOG": str(self.bot_log),
                "FAKE_PIP_LOG": str(self.pip_log), "FAKE_BOT": str(self.fake_bot),
            })
            env.update(extra_env or {})
            env.update({k: _render(v, full) for k, v in (step.get("env") or {}).items()})
            proc = subprocess.run(["bash", "--noprofile", "--norc", "-e", "-o", "pipefail", "-c", step["run"]],
                                  env=env, cwd=self.tmp, capture_output=True, text=True, timeout=60)
            results.append((step.get("id"), proc, _parse_output(out_file)))
            if proc.returncode != 0:
                break
        return results

    def calls(self) -> list[dict]:
        if not self.bot_log.exists():
            return []
        return [json.loads(line) for line in self.bot_log.read_text().splitlines()]


def _action_outputs(results) -> dict[str, str]:
    """Resolve the action's ``outputs:`` from the recorded step outputs."""
    steps = {sid: outs for sid, _proc, outs in results if sid}
    resolved = {}
    for name, spec in ACTION["outputs"].items():
        m = re.fullmatch(r"\$\{\{\s*steps\.([\w-]+)\.outputs\.([\w-]+)\s*\}\}", spec["value"])
        assert m, f"output {name} must mirror a step output"
        resolved[name] = steps.get(m.group(1), {}).get(m.group(2), "")
    return resolved


def test_check_outputs_are_mirrored(tmp_path):
    run = ActionRun(tmp_path)
    outputs = {"current": "1.4.0", "target": "1.5.1", "update-needed": "true", "pack-source": "build",
               "pack-url": ""}
    results = run.run({"command": "check", "repo-path": "template"},
                      {"FAKE_BOT_OUTPUTS": json.dumps(outputs)})
    assert all(proc.returncode == 0 for _sid, proc, _o in results), [p.stderr for _s, p, _o in results]
    mirrored = _action_outputs(results)
    for k, v in outputs.items():
        assert mirrored[k] == v
    (call,) = run.calls()
    assert call["argv"] == ["check", "--repo", "template", "--upstream", "github:pytorch/executorch"]
    assert call["token"] == "ghs_default_token"
    # installed from the action's own path
    assert run.pip_log.read_text().split()[-1] == str(ROOT)


def test_version_and_dry_run_map_to_flags(tmp_path):
    run = ActionRun(tmp_path)
    run.run({"command": "update", "version": "1.5.1", "dry-run": "true", "token": "ghs_app_token"})
    (call,) = run.calls()
    assert call["argv"] == ["update", "--repo", ".", "--upstream", "github:pytorch/executorch",
                            "--version", "1.5.1", "--dry-run"]
    assert call["token"] == "ghs_app_token"


def test_build_pack_gets_version_and_extra_args(tmp_path):
    run = ActionRun(tmp_path)
    run.run({"command": "build-pack", "version": "v1.5.1",
             "args": "--executorch-root executorch  --build-dir build\n--output-dir out -j 4"})
    (call,) = run.calls()
    assert call["argv"] == ["build-pack", "--version", "v1.5.1", "--executorch-root", "executorch",
                            "--build-dir", "build", "--output-dir", "out", "-j", "4"]


def test_extra_args_are_not_globbed_or_evaluated(tmp_path):
    run = ActionRun(tmp_path)
    (tmp_path / "a.pack").write_text("x")
    run.run({"command": "verify-pack", "args": "*.pack $(touch pwned) `touch pwned2` ;touch pwned3"})
    (call,) = run.calls()
    assert call["argv"] == ["verify-pack", "*.pack", "$(touch", "pwned)", "`touch", "pwned2`", ";touch", "pwned3"]
    assert not any((tmp_path / n).exists() for n in ("pwned", "pwned2", "pwned3"))


def test_hostile_version_reaches_the_bot_as_one_argument(tmp_path):
    run = ActionRun(tmp_path)
    run.run({"command": "check", "version": '1.5.1"; touch pwned; echo "'})
    (call,) = run.calls()
    assert call["argv"][-2:] == ["--version", '1.5.1"; touch pwned; echo "']
    assert not (tmp_path / "pwned").exists()


def test_real_bot_refuses_hostile_version_with_exit_2(tmp_path):
    run = ActionRun(tmp_path, bot="real")
    results = run.run({"command": "build-pack", "version": "$(touch pwned)",
                       "args": "--executorch-root e --build-dir b --output-dir o"})
    _sid, proc, _o = results[-1]
    assert proc.returncode == 2
    assert "is not a pack version" in proc.stderr
    assert not (tmp_path / "pwned").exists()


@pytest.mark.parametrize("inputs, message", [
    ({"command": "rm -rf /"}, "unknown command"),
    ({"command": "publish", "dry-run": "maybe"}, "dry-run must be true or false"),
])
def test_bad_inputs_fail_clearly(tmp_path, inputs, message):
    run = ActionRun(tmp_path)
    results = run.run(inputs)
    _sid, proc, _o = results[-1]
    assert proc.returncode == 2 and message in proc.stdout
    assert run.calls() == []


def test_bot_exit_code_is_the_step_exit_code(tmp_path):
    run = ActionRun(tmp_path)
    results = run.run({"command": "verify-pack"}, {"FAKE_BOT_RC": "1"})
    assert results[-1][1].returncode == 1


def test_install_is_skipped_when_already_installed_from_the_same_path(tmp_path):
    run = ActionRun(tmp_path)
    genv = tmp_path / "github_env"
    genv.write_text("")
    run.run({"command": "check"}, {"GITHUB_ENV": str(genv)})
    recorded = dict(ln.split("=", 1) for ln in genv.read_text().splitlines())   # the runner sets it for later steps
    run.run({"command": "publish"}, {"GITHUB_ENV": str(genv), **recorded})
    assert len(run.pip_log.read_text().splitlines()) == 2   # one install: the locked dependencies, then the bot
    assert [c["argv"][0] for c in run.calls()] == ["check", "publish"]
