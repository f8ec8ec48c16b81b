"""``previous-pack``: the pack the template pins now, as the baseline of ``verify-pack --baseline``.

Looks at the template's ``path:`` pack first, then the release asset of the
tag it pins now (:mod:`bot.pack.previous`); writes what it found, or why
there is none, to ``DEST/previous-pack.json``, which ``verify-pack --baseline
DEST`` reads.  In GitHub Actions the folder is written to ``$GITHUB_OUTPUT``
as ``baseline``.  Exit 0 also when there is no previous pack (the PR body says
so); 2 for bad input (a template whose pins disagree).
"""

from __future__ import annotations

import argparse
from pathlib import Path

NAME = "previous-pack"
ORDER = 36
HELP = "find the template's current pack (its path: pack or the current tag's release asset) for verify-pack --baseline"
DESCRIPTION = ("Find the pack the template pins now: the unpacked pack or .pack its path: points at, else the "
               "release asset PyTorch.ExecuTorch.V.pack of the tag it pins now (sha256 checked). Copy it into "
               "the --output-dir folder with its previous-pack.json, or record why there is none; then run verify-pack --baseline "
               "with that folder to list the operator components added, removed and changed.")


def register(p: argparse.ArgumentParser) -> None:
    from bot.commands._options import add_github_arguments
    p.add_argument("--repo", default=".", type=Path, help="the template checkout (default: .)")
    from bot.cli import add_output_dir
    add_output_dir(p, "folder for the previous pack and previous-pack.json")
    p.add_argument("--upstream", default="github:pytorch/executorch", metavar="SPEC",
                   help="where the release asset comes from (default: %(default)s)")
    add_github_arguments(p)


def run(args: argparse.Namespace) -> int:
    from bot import actions, inert
    from bot.github.client import token_from
    from bot.pack.previous import previous_pack, write_previous
    from bot.sources import open_source

    token = token_from(args.token)
    actions.add_mask(token)
    source = open_source(args.upstream, token)
    prev = previous_pack(args.repo, source, args.output_dir, token=token)
    write_previous(prev, args.output_dir)
    if prev.path is not None:
        print(inert.line(f"previous pack: {prev.path} ({prev.source})"))
    else:
        print(inert.line(prev.note))
    actions.set_outputs({"baseline": str(args.output_dir)})
    return 0
