"""Command-line entry point: ``executorch-pack-bot SUBCOMMAND ...``.

Every module in :mod:`bot.commands` is a subcommand.  A command module
defines ``NAME`` (the subcommand), ``HELP`` (one line), ``register(parser)``
(adds its arguments) and ``run(args) -> int`` (the exit code).  Command
modules import heavy libraries (PyGithub, lxml) inside ``run`` only, so that
start-up stays fast for every command.

Exit codes (DESIGN.md): 0 done or nothing to do, 1 a check failed (or the
output could not be written: a closed pipe), 2 bad usage or bad input.  A :class:`~bot.errors.BotError` is printed as one line
naming the file and line; no traceback is shown (set
``EXECUTORCH_PACK_BOT_DEBUG=1`` to see one for an unexpected error).
"""

from __future__ import annotations

import argparse
import importlib
import os
import pkgutil
import sys

from bot import __version__, inert
from bot.errors import EXIT_BAD_INPUT, EXIT_CHECK_FAILED, BotError

PROG = "executorch-pack-bot"


def _command_modules():
    import bot.commands as pkg
    mods = []
    for info in pkgutil.iter_modules(pkg.__path__):
        if info.name.startswith("_"):
            continue
        mods.append(importlib.import_module(f"bot.commands.{info.name}"))
    mods.sort(key=lambda m: (getattr(m, "ORDER", 50), m.NAME))
    return mods


def build_parser() -> argparse.ArgumentParser:
    """The full argparse parser with one subparser per command module."""
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Keep a CMSIS ExecuTorch firmware template on one ExecuTorch version.")
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for mod in _command_modules():
        p = sub.add_parser(mod.NAME, help=mod.HELP, description=getattr(mod, "DESCRIPTION", mod.HELP))
        mod.register(p)
        p.set_defaults(_run=mod.run)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Parse ``argv`` (default ``sys.argv[1:]``), run the command, return its exit code."""
    parser = build_parser()
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
        # the bot's own message may span lines (a list of disagreeing pins): each line inert and capped
        print(f"{PROG}: error: " + "\n".join(inert.lines(exc, cap=ERROR_CAP, max_lines=60)), file=sys.stderr)
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
        print(f"{PROG}: internal error: {inert.line(text, cap=ERROR_CAP)} "
              "(set EXECUTORCH_PACK_BOT_DEBUG=1 for a traceback, and please report it)", file=sys.stderr)
        return EXIT_BAD_INPUT


def entry() -> None:  # pragma: no cover - console script wrapper
    sys.exit(main())


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
