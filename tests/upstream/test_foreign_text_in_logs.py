"""Upstream and pack text printed to the log can start no workflow command and stays one capped line.

Hostile inputs are built here: an upstream ``torch_pin.py`` whose pin is a
multi-line expression holding ``::error`` / ``##[add-mask]`` lines, a
mention and ``<!--``; a URL pin and a range carrying the same.  The Actions
runner reads a line as a command when it starts with ``::`` after white
space, or holds ``##[`` anywhere (GitHub docs, "Workflow commands for GitHub
Actions"; the runner's ``ActionCommand``).
"""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

from bot import actions, inert
from bot.logstream import CommandSafeStream, guarded
from helpers import run_cli

HOSTILE = '\n::error file=README.md,line=1::spoofed annotation\n  ::add-mask::x ##[warning]legacy\n@org/team <!--'


def _is_command(line: str) -> bool:
    return line.lstrip().startswith("::") or "##[" in line


def _lines(text: str) -> list[str]:
    return re.split(r"\r\n|\r|\n", text)


def write(root: Path, tag: str, path: str, text: str) -> None:
    p = root / tag / path
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text)


def test_multiline_torch_pin_expression_prints_as_one_capped_flag_line(tags, template, capsys):
    write(tags, "v1.5.1", "torch_pin.py",
          f'TORCH_VERSION = ("2.14.0" if FLAG else """{HOSTILE}""" + "{"x" * 5000}")\n')
    code, out, err = run_cli(capsys, "update", "--repo", template, "--upstream", str(tags), "--version", "1.5.1",
                             "--dry-run")
    assert code == 0, err
    assert [ln for ln in _lines(out + err) if _is_command(ln)] == []
    flagged = [ln for ln in _lines(out) if ln.endswith("[source-unusable]")]
    assert len(flagged) == 1
    want = ("  - torch_pin.py: torch: torch_pin.py TORCH_VERSION @ v1.5.1 is \"2.14.0\" if FLAG else \"\"\" "
            "::error file=README.md,line=1::spoofed annotation   ::add-mask::x ##\u200b[warning]legacy "
            "@org/team <!--\"\"\" + \"xxx")
    assert flagged[0].startswith(want)
    assert inert.ELLIPSIS + ", not a version string; using 2.14.0 from install_requirements.py @ v1.5.1" in flagged[0]
    assert len(flagged[0]) < 800


def test_url_and_range_pins_are_quoted_as_one_capped_line(tags):
    from bot.upstream.pins import resolve_pinset
    from bot.upstream.source import DirectorySource
    write(tags, "v1.5.1", "backends/arm/requirements-arm-tosa.txt",
          "tosa-tools @ git+https://e.invalid/t.git@v1#egg=tosa-tools" + "%0A::error::x" * 200 + "\n"
          "ml_dtypes >= 0.5" + " " * 3000 + ", <1\n")
    target = resolve_pinset(DirectorySource(tags), "v1.5.1")
    reasons = {p.name: p.reason for p in target.tosa}
    for name in ("tosa-tools", "ml-dtypes"):
        assert "\n" not in reasons[name] and len(reasons[name]) < 400, reasons[name]


def test_stream_guard_breaks_foreign_commands_but_not_the_bots_own(monkeypatch):
    raw = io.StringIO()
    g = CommandSafeStream(raw)
    print("plan\n::error::spoof\r  ::set-output name=pack::/etc/passwd\nok ##[add-mask]x", file=g)
    g.write(":")                 # a line start that could still become '::' is held, even on flush
    g.flush()
    g.write(":stop-commands::t\n")
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    actions.error("bad\n::error::nested", file="a.txt", line=3, out=g)
    g.drain()
    got = _lines(raw.getvalue())
    assert got == ["plan", ":\u200b:error::spoof", "  :\u200b:set-output name=pack::/etc/passwd",
                   "ok ##\u200b[add-mask]x", ":\u200b:stop-commands::t",
                   "::error file=a.txt,line=3::bad%0A:\u200b:error::nested", ""]


def test_cli_wraps_stdout_and_stderr_for_the_whole_command(capsys):
    import sys
    with guarded():
        assert isinstance(sys.stdout, CommandSafeStream) and isinstance(sys.stderr, CommandSafeStream)
        print("::warning::from a subcommand")
        print("::error::to stderr", file=sys.stderr)
    out, err = capsys.readouterr()
    assert out == ":\u200b:warning::from a subcommand\n" and err == ":\u200b:error::to stderr\n"


@pytest.mark.parametrize("raw, want", [
    ("a ##[error]b", "a ##\u200b[error]b"),
    ("::x", ":\u200b:x"),
    ("x::y", "x::y"),
])
def test_line_breaks_both_command_forms(raw, want):
    assert inert.line(raw) == want


def test_log_safe_keeps_every_line_and_its_end():
    text = "--- a\n+::error::x\r\n ::warning::y\n##[group]z"
    assert inert.log_safe(text) == "--- a\n+::error::x\r\n :\u200b:warning::y\n##\u200b[group]z"
