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

Exit codes (:data:`bot.errors.EXIT_CODES`, printed in every ``--help``
epilog): 0 done or nothing to do, 1 a check failed (or the output could not
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
    ("update", "update", "bump a template checkout to an ExecuTorch release (every pin, the lock file, prose)"),
    ("audit", "audit", "check that every ExecuTorch pin of a template agrees (exit 1 when they disagree or an "
                       "item is blocking)"),
    ("check", "check", "compare the template's ExecuTorch pin with upstream's releases (GitHub Actions outputs)"),
    ("fetch-pack", "fetch_pack", "download a release's pack asset (sha256 checked) and verify it"),
    ("previous-pack", "previous_pack", "find the template's current pack (its path: pack or the current tag's "
                                       "release asset) for verify-pack --baseline"),
    ("build-pack", "build_pack", "build the PyTorch::ExecuTorch pack: CMake configure, the targets the pack "
                                 "takes, build_pack.sh, compile check"),
    ("publish", "publish", "push the applied bump to the bot branch and open or update its pull request"),
    ("verify-pack", "verify_pack", "verify a PyTorch::ExecuTorch CMSIS pack (archive, manifest, headers, "
                                   "components, compile)"),
    ("run", "run", "check, update, verify the pack asset and publish (the scheduled job)"),
    ("command", "command", "answer a comment command, an approval or a dashboard tick from $GITHUB_EVENT_PATH "
                           "(GitHub Actions outputs)"),
    ("dashboard", "dashboard", "create or update the dashboard issue (dashboard: true in "
                               ".github/executorch-pack-bot.yml)"),
)


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

    epilog = exit_code_epilog()
    parser = argparse.ArgumentParser(prog=PROG, description=DESCRIPTION, epilog=epilog, formatter_class=Formatter)
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for name, _, help_text in COMMANDS:
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
    from :data:`COMMANDS` the way argparse lays it out (usage, description, the commands, the
    options), without importing argparse; None when the usage line would wrap (argparse decides).

    A test compares it with argparse's own output at every width from 40 to 200 columns.
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

    return (usage + "\n\n" + "\n".join(_wrap(DESCRIPTION, width)) + "\n\npositional arguments:\n"
            + item(2, "COMMAND", None) + "".join(item(4, name, text) for name, _, text in COMMANDS)
            + "\noptions:\n" + "".join(item(2, o, text) for o, text in options)
            + "\n" + exit_code_epilog() + "\n")


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
    args = parser.parse_args(argv)
    from bot.logstream import guarded
    with guarded():   # no line of foreign text the command prints can be a workflow command
        return _run(args)


#: Longest error message printed (characters): a message may quote a foreign value.
ERROR_CAP = 2000


def _run(args) -> int:
    try:
        return int(args._run(args) or 0)
    except BotError as exc:
        from bot import inert  # imported on an error only: its patterns cost start-up

        # the bot's own message may span lines (a list of disagreeing pins): each line inert and capped
        print(f"{PROG}: error: " + "\n".join(inert.lines(exc, cap=ERROR_CAP, max_lines=60)), file=sys.stderr)
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
        return EXIT_BAD_INPUT


def entry() -> None:  # pragma: no cover - console script wrapper
    sys.exit(main())


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
