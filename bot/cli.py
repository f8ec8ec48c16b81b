"""Command-line entry point: ``executorch-pack-bot SUBCOMMAND ...``.

Every module in :mod:`bot.commands` is a subcommand, listed in :data:`COMMANDS`
(name, module, one-line help) so that ``--version`` and ``--help`` import no
command module at all (both answer without argparse: :func:`top_help` lays the
help out as argparse does), and a command imports only its own module.  A command
module defines ``NAME`` (the subcommand), ``HELP`` (one line, the same text as
its :data:`COMMANDS` row), ``register(parser)`` (adds its arguments) and
``run(args) -> int`` (the exit code).  Command modules import heavy libraries
(PyGithub, lxml, PyYAML, packaging) inside ``run`` only, so that start-up stays
fast for every command.

Exit codes (:data:`bot.errors.EXIT_CODES`; the top-level ``--help`` prints them all, a command's
``--help`` only those in :data:`COMMAND_EXIT_CODES`): 0 done or nothing to do, 1 a check failed (or the output could not
be written: a closed pipe), 2 bad usage or bad input, 3 a transient failure
outlasted the retries (nothing changed; run again).  A :class:`~bot.errors.BotError` is printed as one line
naming the file and line; no traceback is shown (set
``EXECUTORCH_PACK_BOT_DEBUG=1`` to see one for an unexpected error).
"""

from __future__ import annotations

import os
import sys

from bot import __version__
from bot.errors import EXIT_BAD_INPUT, EXIT_CHECK_FAILED, BotError, exit_code_epilog

PROG = "executorch-pack-bot"
DESCRIPTION = "Keep a CMSIS ExecuTorch firmware template on one ExecuTorch version."

#: ``(subcommand, module under bot.commands, one-line help)`` in ``--help`` order.  A test checks
#: that every module of :mod:`bot.commands` is listed here with its own ``NAME`` and ``HELP``.
COMMANDS: tuple[tuple[str, str, str], ...] = (
    ("demo", "demo", "run a complete bump offline on the shipped sample template (prints the diff and the "
                     "summary), then verify a good sample pack and the trap"),
    ("doctor", "doctor", "the install check: read the template as a bump would, rehearse the next bump's pull request "
                         "(nothing opened), check the repository's settings with a token"),
    ("audit", "audit", "check that every ExecuTorch pin of a template agrees (exit 1 when they disagree or an "
                       "item is blocking)"),
    ("update", "update", "bump a template checkout to an ExecuTorch release (every pin, the lock file, prose)"),
    ("verify-pack", "verify_pack", "verify a PyTorch::ExecuTorch CMSIS pack (archive, manifest, headers, "
                                   "components, compile)"),
    ("build-pack", "build_pack", "build the PyTorch::ExecuTorch pack: the release's flatc (or CMake), "
                                 "build_pack.sh, compile check"),
    ("run-model", "run_model", "run a .pte on a pack's runtime in QEMU's simulated Cortex-M55 (mps3-an547) and "
                               "compare with the host runtime"),
    ("npu-estimate", "npu_estimate", "lower the model suite for an Ethos-U with a venv's exporter and Vela, and "
                                     "compare Vela's estimates old against new (no NPU is run)"),
    ("check", "check", "compare the template's ExecuTorch pin with upstream's releases (GitHub Actions outputs)"),
    ("fetch-pack", "fetch_pack", "download a release's pack asset (sha256 checked) and verify it"),
    ("previous-pack", "previous_pack", "find the template's current pack (its path: pack or the current tag's "
                                       "release asset) for verify-pack --baseline"),
    ("publish", "publish", "push the applied bump to the bot branch and open or update its pull request"),
    ("run", "run", "check, update, verify the pack asset and publish (the scheduled job)"),
    ("command", "command", "answer a comment command, an approval or a dashboard tick from $GITHUB_EVENT_PATH "
                           "(GitHub Actions outputs)"),
    ("dashboard", "dashboard", "create or update the dashboard issue (dashboard: true in "
                               ".github/executorch-pack-bot.yml)"),
    ("fleet-plan", "fleet_plan", "check every template of a fleet list against upstream and emit the pack and "
                                 "pull-request matrices"),
    ("fleet-summary", "fleet_summary", "one row per template of a fleet run (job summary, optional dashboard "
                                       "issue), or record one pull-request job's result"),
)

#: The commands the reusable workflow runs as its steps; ``--help`` lists them apart from the commands a
#: person runs (the others in :data:`COMMANDS`).
WORKFLOW_STEPS = frozenset({"check", "fetch-pack", "previous-pack", "publish", "run", "command", "dashboard",
                            "fleet-plan", "fleet-summary"})

#: The exit codes each command can return (``--help`` shows only these): 1 needs a check that can fail,
#: 3 a request to GitHub, the package index or a download.
COMMAND_EXIT_CODES: dict[str, tuple[int, ...]] = {
    "demo": (0, 1, 2), "doctor": (0, 1, 2, 3), "audit": (0, 1, 2), "update": (0, 1, 2, 3),
    "verify-pack": (0, 1, 2), "build-pack": (0, 1, 2), "run-model": (0, 1, 2), "npu-estimate": (0, 1, 2), "check": (0, 2, 3), "fetch-pack": (0, 1, 2, 3),
    "previous-pack": (0, 1, 2, 3), "publish": (0, 1, 2, 3), "run": (0, 1, 2, 3), "command": (0, 1, 2, 3),
    "dashboard": (0, 2, 3), "fleet-plan": (0, 2, 3), "fleet-summary": (0, 2, 3),
}

#: A command's own lines under its exit codes.
EXIT_CODE_NOTES = {"build-pack": "  N  a failing build step's own exit code (CMake, build_pack.sh)"}


def deprecated_alias(parser, old: str, new: str, **kwargs) -> None:
    """Register ``old`` as a hidden, still working spelling of option ``new`` on ``parser`` (an argparse
    parser): it stores into ``kwargs["dest"]`` as ``new`` does (``nargs=0`` with ``const``: a switch) and prints
    one note on stderr, ``executorch-pack-bot: note: OLD is deprecated, use NEW (OLD still works)``.
    ``--help`` lists ``new`` only."""
    import argparse

    class Deprecated(argparse.Action):
        def __call__(self, parser, namespace, values, option_string=None):
            print(f"{PROG}: note: {old} is deprecated, use {new} ({old} still works)", file=sys.stderr)
            setattr(namespace, self.dest, self.const if self.nargs == 0 else values)

    parser.add_argument(old, action=Deprecated, help=argparse.SUPPRESS, **kwargs)


def add_output_dir(parser, help_text: str) -> None:
    """``--output-dir DIR`` (required; a :class:`~pathlib.Path` in ``args.output_dir``): the folder a command
    writes into, one word in every command (``build-pack``, ``fetch-pack``, ``previous-pack``); ``--dest``,
    the old spelling of two of them, still works with a note (:func:`deprecated_alias`)."""
    from pathlib import Path

    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--output-dir", dest="output_dir", type=Path, metavar="DIR", help=help_text)
    deprecated_alias(group, "--dest", "--output-dir", dest="output_dir", type=Path)


def command_module(name: str):
    """The module of the subcommand ``name`` (a :data:`COMMANDS` name), imported now."""
    import importlib
    module = next(mod for cmd, mod, _ in COMMANDS if cmd == name)
    return importlib.import_module(f"bot.commands.{module}")


def requested_command(argv: list[str]) -> str | None:
    """The subcommand ``argv`` names: its first word not starting with ``-`` when that is a
    :data:`COMMANDS` name (the top-level parser has options without values only), else None."""
    names = {cmd for cmd, _, _ in COMMANDS}
    for arg in argv:
        if arg == "--":
            return None
        if not arg.startswith("-"):
            return arg if arg in names else None
    return None


def build_parser(load: "list[str] | tuple[str, ...] | None" = None):
    """The argparse parser with one subparser per command.

    ``load`` names the commands whose modules are imported and whose arguments
    are registered (default: all of them); the others are listed with their
    help only, which is all ``--help`` needs.
    """
    import argparse

    class Formatter(argparse.HelpFormatter):
        """argparse's formatter without its start-up cost: the terminal width is read without
        :mod:`shutil` (and its bz2/lzma imports): ``$COLUMNS``, else the terminal of stdout, else 80
        columns; text is wrapped at spaces by :func:`_wrap` instead of :mod:`textwrap` (whose
        patterns take longer to compile than the whole help takes to print)."""

        def __init__(self, prog, indent_increment=2, max_help_position=24, width=None):
            super().__init__(prog, indent_increment, max_help_position,
                             _terminal_columns() - 2 if width is None else width)

        def _split_lines(self, text, width):
            return _wrap(text, width)

        def _fill_text(self, text, width, indent):
            if text.startswith("exit codes:"):   # the exit-code table (the epilog) keeps its lines
                return "".join(indent + line + "\n" for line in text.splitlines())
            return "\n".join(indent + line for line in _wrap(text, width - len(indent)))

    class Parser(argparse.ArgumentParser):
        """The top-level parser: its help is :func:`top_help` (the commands in two groups), argparse's own
        layout only where the usage line would wrap."""

        def format_help(self):
            return top_help(_terminal_columns() - 2) or super().format_help()

    parser = Parser(prog=PROG, description=DESCRIPTION, epilog=exit_code_epilog(), formatter_class=Formatter)
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=argparse.ArgumentParser)
    sub.required = True
    for name, _, help_text in COMMANDS:
        epilog = exit_code_epilog(COMMAND_EXIT_CODES[name], EXIT_CODE_NOTES.get(name, ""))
        if name not in ("publish", "run"):   # only they open pull requests
            epilog = epilog.replace(" (also: a pull request opened with some decorations refused)", "")
        if load is not None and name not in load:
            sub.add_parser(name, help=help_text, epilog=epilog, formatter_class=Formatter)
            continue
        mod = command_module(name)
        p = sub.add_parser(name, help=help_text, description=getattr(mod, "DESCRIPTION", help_text),
                           epilog=epilog, formatter_class=Formatter)
        mod.register(p)
        p.set_defaults(_run=mod.run)
    return parser


def _wrap(text: str, width: int) -> list[str]:
    """``text`` with its runs of white space made one space, cut into lines of at most ``width``
    characters at spaces (a longer word stays whole on its own line)."""
    lines: list[str] = []
    line = ""
    for word in text.split():
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    if line:
        lines.append(line)
    return lines


def top_help(width: int) -> str | None:
    """The text of ``executorch-pack-bot --help`` for a terminal ``width - 2`` columns wide, built
    from :data:`COMMANDS` in argparse's layout (usage, description, the commands a person runs, the
    workflow's steps (:data:`WORKFLOW_STEPS`), the options, every exit code), without importing argparse;
    None when the usage line would wrap (argparse then lays out its own help).  The top-level parser of
    :func:`build_parser` answers ``-h`` with this text too.
    """
    usage = f"usage: {PROG} [-h] [--version] COMMAND ..."
    if len(usage) > width:
        return None
    options = (("-h, --help", "show this help message and exit"),
               ("--version", "show program's version number and exit"))
    longest = max(max(len(n) for n, _, _ in COMMANDS), len("COMMAND"), *(len(o) for o, _ in options)) + 2
    help_position = min(longest + 2, min(24, max(width - 20, 4)))
    help_width = max(width - help_position, 11)

    def item(indent: int, header: str, text: str | None) -> str:
        if not text:
            return f"{' ' * indent}{header}\n"
        lines = _wrap(text, help_width)
        room = help_position - indent - 2
        out = (f"{' ' * indent}{header:<{room}}  {lines[0]}\n" if len(header) <= room
               else f"{' ' * indent}{header}\n{' ' * help_position}{lines[0]}\n")
        return out + "".join(f"{' ' * help_position}{line}\n" for line in lines[1:])

    person = "".join(item(2, name, text) for name, _, text in COMMANDS if name not in WORKFLOW_STEPS)
    steps = "".join(item(2, name, text) for name, _, text in COMMANDS if name in WORKFLOW_STEPS)
    return (usage + "\n\n" + "\n".join(_wrap(DESCRIPTION, width))
            + "\n\ncommands you run:\n" + person
            + "\nthe workflow's steps (.github/workflows/executorch-pack-bot.yml runs them):\n" + steps
            + "\noptions:\n" + "".join(item(2, o, text) for o, text in options)
            + f"\n{PROG} COMMAND --help shows a command's options and the exit codes it can return.\n\n"
            + exit_code_epilog() + "\n")


def _terminal_columns() -> int:
    """``$COLUMNS`` when it is a positive number, else the width of stdout's terminal, else 80
    (the rule of :func:`shutil.get_terminal_size`)."""
    try:
        columns = int(os.environ.get("COLUMNS", ""))
        if columns > 0:
            return columns
    except ValueError:
        pass
    try:
        return os.get_terminal_size(sys.__stdout__.fileno()).columns or 80
    except (AttributeError, ValueError, OSError):
        return 80


def main(argv: list[str] | None = None) -> int:
    """Parse ``argv`` (default ``sys.argv[1:]``), run the command, return its exit code."""
    argv = sys.argv[1:] if argv is None else list(argv)
    if "EXECUTORCH_PACK_BOT_STOP_COMMANDS" in os.environ:   # the step's stop-commands token (bot/logstream.py)
        from bot.logstream import adopt_stop_token
        adopt_stop_token()
    if argv == ["--version"]:  # the cheapest answers: no argparse at all
        print(f"{PROG} {__version__}")
        return 0
    if argv in (["--help"], ["-h"]):
        text = top_help(_terminal_columns() - 2)
        if text is not None:
            sys.stdout.write(text)
            return 0
    command = requested_command(argv)
    parser = build_parser(load=[command] if command else [])
    args, extra = parser.parse_known_args(argv)
    if extra:
        unknown_arguments(parser, args.command, extra)
    from bot.logstream import guarded
    with guarded():   # no line of foreign text the command prints can be a workflow command
        return _run(args)


def unknown_arguments(parser, command: str, extra: list[str]) -> None:
    """Refuse arguments ``command`` does not take with that command's usage (argparse would print the top-level
    one), suggesting the close option for a mistyped one (:func:`difflib.get_close_matches`, as argparse does
    for choices since Python 3.12).  Exits 2 (SystemExit, through ``ArgumentParser.error``)."""
    import argparse
    import difflib

    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices[command]
    options = [o for a in sub._actions for o in a.option_strings if o.startswith("--")]
    hints = []
    for word in extra:
        if word.startswith("-"):
            close = difflib.get_close_matches(word.split("=", 1)[0], options, n=1)
            if close:
                hints.append(f"{word}: did you mean {close[0]}?")
    sub.error("unrecognized arguments: " + " ".join(extra) + ("\n" + "\n".join(hints) if hints else ""))


#: Longest error message printed (characters): a message may quote a foreign value.
ERROR_CAP = 2000


def _run(args) -> int:
    try:
        return int(args._run(args) or 0)
    except BotError as exc:
        from bot import inert  # imported on an error only: its patterns cost start-up

        # the bot's own message may span lines (a list of disagreeing pins): each line inert and capped
        print(f"{PROG}: error: " + "\n".join(inert.lines(exc, cap=ERROR_CAP, max_lines=60)), file=sys.stderr)
        _keep_error(args, inert.line(exc, cap=ERROR_CAP))
        from bot import actions
        if actions.in_actions():   # and once as the run's annotation: the job's one ::error names the cause
            actions.error(str(exc))
        return exc.exit_code
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader went away (``| head``): the command did not finish, so it must
        # not look like a success under ``set -o pipefail``.  Point stdout at devnull
        # so the interpreter's final flush does not complain.
        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except (OSError, ValueError):
            pass
        return EXIT_CHECK_FAILED
    except Exception as exc:  # last resort: one line, never a traceback unless asked
        if os.environ.get("EXECUTORCH_PACK_BOT_DEBUG"):
            raise
        text = f"{type(exc).__name__}: {exc}"
        client = sys.modules.get("bot.github.client")   # loaded whenever a token was read: hide it
        if client is not None:
            text = client.mask(text)
        from bot import inert

        print(f"{PROG}: internal error: {inert.line(text, cap=ERROR_CAP)} "
              "(set EXECUTORCH_PACK_BOT_DEBUG=1 for a traceback, and please report it)", file=sys.stderr)
        _keep_error(args, "internal error: " + inert.line(text, cap=ERROR_CAP))
        return EXIT_BAD_INPUT


def _keep_error(args, text: str) -> None:
    """Append ``COMMAND: message`` (one inert line) to ``$EXECUTORCH_PACK_BOT_ERROR_FILE`` when it is set: a fleet
    run's pull-request job records why it failed (``fleet-summary --record --error-file``).  A file that cannot
    be written is left alone: the error is on stderr all the same."""
    path = os.environ.get("EXECUTORCH_PACK_BOT_ERROR_FILE")
    if not path:
        return
    try:
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(f"{getattr(args, 'command', '') or PROG}: {text}\n")
    except OSError:
        pass


def entry() -> None:  # pragma: no cover - console script wrapper
    sys.exit(main())


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
