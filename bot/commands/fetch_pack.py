"""``fetch-pack``: download the release asset PyTorch.ExecuTorch.V.pack, check its sha256, verify it."""

from __future__ import annotations

import argparse
from pathlib import Path

NAME = "fetch-pack"
ORDER = 35
HELP = "download a release's pack asset (sha256 checked) and verify it"


def register(p: argparse.ArgumentParser) -> None:
    from bot.commands._options import add_github_arguments
    p.add_argument("--version", dest="pack_version", required=True, metavar="V", help="ExecuTorch version (X.Y.Z)")
    from bot.cli import add_output_dir
    add_output_dir(p, "folder to write the pack into")
    p.add_argument("--upstream", default="github:pytorch/executorch", metavar="github:OWNER/NAME",
                   help="the GitHub repository whose release carries the pack asset (default: %(default)s)")
    p.add_argument("--refusal-file", type=Path, metavar="FILE",
                   help="when the asset downloads but fails verification (a check of the pack fails; warnings, "
                        "such as upstream's <url> form, still accept it): write the refusal record (JSON: asset, "
                        "URL, sha256, size, tag, failing checks, missing entries, warnings) to FILE, remove the "
                        "refused pack from --dest, print the reasons, set the step output asset-refused=true and "
                        "exit 0 (the workflow then builds the pack from the tag); when accepted: asset-refused=false "
                        "and no FILE")
    add_github_arguments(p)


def _bar(out):
    def progress(done: int, total):
        if total:
            n = int(30 * done / total)
            out.write(f"\r[{'#' * n}{'.' * (30 - n)}] {done / 1e6:.1f}/{total / 1e6:.1f} MB")
        else:
            out.write(f"\r{done / 1e6:.1f} MB")
        out.flush()
    return progress


def run(args: argparse.Namespace) -> int:
    import sys

    from bot import actions
    from bot.errors import PackError, UsageError
    from bot.github import flow
    from bot.github.assets import find_pack_asset, pack_asset_name
    from bot.github.client import token_from
    from bot.github.source import GitHubSource
    from bot.versions import parse_user_version, to_semver, version_to_tag

    if not args.upstream.startswith("github:"):
        from bot.sources import github_spec_hint
        hint = github_spec_hint(args.upstream)
        raise UsageError("--upstream: fetch-pack needs github:OWNER/NAME"
                         + (f"; use --upstream {hint}" if hint else ""))
    v = parse_user_version(args.pack_version, what="--version")
    if args.refusal_file is not None and args.refusal_file.is_dir():
        raise UsageError(f"--refusal-file {args.refusal_file}: is a directory")
    token = token_from(args.token)
    actions.add_mask(token)
    src = GitHubSource.from_spec(args.upstream, token=token)
    tag = version_to_tag(v)
    rel = src.release(tag)
    if rel is None:
        raise PackError(f"no release {tag} in {src.describe()}")
    asset = find_pack_asset(rel, str(v))
    if asset is None:
        raise PackError(f"release {tag} has no asset {pack_asset_name(str(v))}; build the pack with build-pack")
    progress = _bar(sys.stderr) if sys.stderr.isatty() else None
    path, report = flow.verify_asset(asset, to_semver(v), tag, args.output_dir, progress=progress, token=token)
    if progress:
        sys.stderr.write("\n")
    if args.refusal_file is not None:
        return _decide(args, asset, tag, to_semver(v), path, report)
    print(f"{path}")
    print(report.to_markdown())
    return 1 if report.failed else 0


def _decide(args, asset, tag: str, version: str, path: Path, report) -> int:
    """``--refusal-file``: refuse the asset (record, reasons, ``asset-refused=true``) or accept it; exit 0 both ways."""
    from bot import actions, inert
    from bot.report.refusal import refusal_lines, refusal_record, refused, write_refusal

    print(report.to_markdown())
    if not refused(report):
        print(f"{path}")
        actions.set_outputs({"asset-refused": False})
        return 0
    record = refusal_record(asset, tag, version, path, report)
    Path(path).unlink(missing_ok=True)   # never handed on as the PR's pack, even when the record cannot be written
    write_refusal(args.refusal_file, record)
    for text in refusal_lines(record):
        print(inert.line(text, cap=1000))
    actions.warning(inert.line(f"the release asset {record['asset']} of {tag} failed verification and is refused: "
                               + "; ".join(c["name"] for c in record["failing_checks"])
                               + "; the workflow builds the pack from the tag", cap=1000))
    print(f"refusal record: {args.refusal_file}")
    actions.set_outputs({"asset-refused": True})
    return 0
