"""While upstream code runs, the step's workflow commands are stopped: nothing it prints, by any way, is a command.

``::stop-commands::TOKEN`` makes the runner ignore every command until a
line ``::TOKEN::`` (GitHub docs, "Workflow commands for GitHub Actions").
:func:`commands` reads a step's output the way the runner does; the
containment (``python -m bot.contain --stop-commands``) and a bot process
handed the token are run for real, as the workflow runs them.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import yaml

from bot import logstream
from bot.scrubbed import scrubbed_env

ROOT = Path(__file__).resolve().parents[2]
FORGE = "echo '::error::forged'; echo '  ::set-output name=pack::/evil'; echo '::add-mask::x'; echo '##[error]old'"


def commands(out: str) -> list[tuple[str, str]]:
    """The workflow commands the runner would run from ``out``: a line starting with ``::`` after white space
    (``::NAME PROPS::DATA``), or holding ``##[NAME]``; none between ``::stop-commands::T`` and ``::T::``."""
    seen, stopped = [], None
    for line in out.splitlines():
        m = re.match(r"\s*::([^\s:]+)(?: [^:]*)?::(.*)$", line)
        legacy = re.search(r"##\[([^\]\s]+)\](.*)$", line)
        name, data = (m.group(1), m.group(2)) if m else (legacy.group(1), legacy.group(2)) if legacy else (None, None)
        if name is None:
            continue
        if stopped is not None:
            if name == stopped:
                stopped = None
            continue
        if name == "stop-commands":
            stopped = data
            continue
        seen.append((name, data))
    return seen


def contain(*args: str, env=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "bot.contain", *args], capture_output=True, text=True, timeout=60,
                          env=env, cwd=ROOT)


def test_the_reader_sees_what_the_runner_would_run():
    assert commands("::error::a\n  ::warning::b\nx ##[group]c\nno ::d::\n") == [
        ("error", "a"), ("warning", "b"), ("group", "c")]
    assert commands("::stop-commands::t1\n::error::a\n::t2::\n::t1::\n::error::b\n") == [("error", "b")]


def test_nothing_a_contained_command_prints_is_a_command():
    p = contain("--stop-commands", "--", "sh", "-c", FORGE)
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    token = lines[0].removeprefix("::stop-commands::")
    assert re.fullmatch(r"[0-9a-f]{32}", token) and lines[-1] == f"::{token}::"
    assert (p.stdout + p.stderr).count(token) == 2          # never printed but in the stop and the resume
    assert "::error::forged" in p.stdout and commands(p.stdout) == []


def test_a_leftover_process_cannot_print_after_the_resume():
    p = contain("--stop-commands", "--", "sh", "-c", "(sleep 0.5; echo '::error::late') & echo started")
    assert p.stdout.splitlines()[1:] == ["started", p.stdout.splitlines()[-1]]
    assert commands(p.stdout) == []


def test_the_stop_does_not_depend_on_the_commands_exit():
    p = contain("--stop-commands", "--", "sh", "-c", FORGE + "; exit 3")
    assert p.returncode == 3 and commands(p.stdout) == [] and p.stdout.splitlines()[-1].startswith("::")


BOT_SNIPPET = """
import subprocess, sys
from bot.logstream import adopt_stop_token, write_command
adopt_stop_token()
write_command(sys.stdout, "::warning title=executorch-pack-bot::mine")
print("::error::forged by the bot's own stdout")
subprocess.run(["sh", "-c", "echo ::error::child-$EXECUTORCH_PACK_BOT_STOP_COMMANDS-"], check=True)
write_command(sys.stderr, "::error::mine too")
"""


def test_the_bot_handed_the_token_still_issues_its_own_commands_and_its_children_get_none():
    # the runner reads a step's stdout and stderr as lines of one output: merged here as they were written
    p = subprocess.run([sys.executable, "-m", "bot.contain", "--stop-commands", "--bot", "--", sys.executable, "-c",
                        BOT_SNIPPET], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=60,
                       cwd=ROOT)
    assert p.returncode == 0, p.stdout
    assert "::error::child--" in p.stdout                  # the child did not inherit the token
    assert "::error::forged by the bot's own stdout" in p.stdout
    assert commands(p.stdout) == [("warning", "mine"), ("error", "mine too")]
    token = p.stdout.splitlines()[0].removeprefix("::stop-commands::")
    assert p.stdout.splitlines()[-1] == f"::{token}::"


def test_a_bot_that_stops_the_commands_itself_resumes_them_when_it_exits():
    env = {**os.environ, logstream.STOP_VAR: "start"}
    p = subprocess.run([sys.executable, "-c", BOT_SNIPPET.replace("write_command(sys.stderr", "write_command("
                                                                  "sys.stdout")],
                       capture_output=True, text=True, timeout=60, env=env, cwd=ROOT)
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    token = lines[0].removeprefix("::stop-commands::")
    assert re.fullmatch(r"[0-9a-f]{32}", token) and lines[-1] == f"::{token}::"
    assert commands(p.stdout) == [("warning", "mine"), ("error", "mine too")]


def test_a_value_that_is_no_token_is_dropped_and_never_inherited(monkeypatch):
    env = {logstream.STOP_VAR: "::error::x"}
    assert logstream.adopt_stop_token(env) is None and env == {}
    assert logstream.STOP_VAR not in scrubbed_env({logstream.STOP_VAR: "a" * 32, "PATH": "/bin"})


def test_a_long_command_is_cut_to_one_atomic_pipe_write(monkeypatch):
    monkeypatch.setattr(logstream, "_stop_token", "a" * 32)
    text = logstream.framed("::error::" + "é" * 5000)
    assert len(text.encode()) <= logstream.PIPE_BUF
    assert text.startswith("::" + "a" * 32 + "::\n::error::éé") and text.endswith("…\n::stop-commands::" + "a" * 32 + "\n")
    monkeypatch.setattr(logstream, "_stop_token", None)
    assert logstream.framed("::error::x") == "::error::x\n"


def _steps(doc):
    for job in doc["jobs"].values():
        yield from job.get("steps", [])
    yield from doc.get("runs", {}).get("steps", [])


def test_every_contained_step_of_the_workflow_stops_the_commands():
    doc = yaml.safe_load((ROOT / ".github/workflows/executorch-pack-bot.yml").read_text())
    runs = [s["run"] for s in _steps(doc) if "bot.contain" in s.get("run", "")]
    assert len(runs) == 4   # the two pip installs, the model runs, create_ai_layer.py and cbuild
    for run in runs:
        calls = re.findall(r"-m bot\.contain((?:\s+(?:--writable\s+\"[^\"]*\"|--[a-z-]+|\\))*)\s+--\s", run)
        assert calls and all(c.strip().startswith("--stop-commands") for c in calls), run
    action = yaml.safe_load((ROOT / "action.yml").read_text())
    script = next(s["run"] for s in action["runs"]["steps"] if s.get("id") == "bot")
    assert ("case \"$BOT_COMMAND\" in build-pack|verify-pack) export EXECUTORCH_PACK_BOT_STOP_COMMANDS=start ;; esac"
            in script)
    assert script.index("EXECUTORCH_PACK_BOT_STOP_COMMANDS=start") < script.index('exec "$bot"')
