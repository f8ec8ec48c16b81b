"""``publish``: push the bump written by ``update`` and open or update its pull request.

The plan comes from ``update --plan-file FILE`` (Plan.to_json()); the new
file contents are read from the checkout (``update`` wrote them).  Nothing
is recomputed, so publish needs no upstream access.
"""

from __future__ import annotations

import argparse
from pathlib import Path

NAME = "publish"
ORDER = 40
HELP = "push the applied bump to the bot branch and open or update its pull request"


def register(p: argparse.ArgumentParser) -> None:
    from bot.commands.check import add_github_arguments
    p.add_argument("--repo", default=".", type=Path, help="the template checkout (default: .)")
    p.add_argument("--plan-file", required=True, type=Path, help="the JSON plan written by `update --plan-file`")
    p.add_argument("--pack-report", type=Path, help="Markdown from `verify-pack --markdown FILE` for the PR body")
    p.add_argument("--upstream", default="github:pytorch/executorch", metavar="github:OWNER/NAME",
                   help="for the release-notes and compare links")
    p.add_argument("--github-repo", metavar="OWNER/NAME", help="the template repository (default: $GITHUB_REPOSITORY)")
    p.add_argument("--remote", default="origin", help="git remote to push to (default: origin)")
    p.add_argument("--dry-run", action="store_true", help="print the PR title and body; push nothing")
    add_github_arguments(p)


def load_plan(repo: Path, plan_file: Path):
    """A :class:`~bot.plan.Plan` rebuilt from its JSON (contents read from the checkout).

    Raises :class:`UsageError` naming the plan file for unreadable or
    malformed JSON, and for a plan whose ``written`` key (set by ``update``)
    is false although it changes files: ``update`` ran with ``--dry-run`` or
    was blocked, so the checkout does not carry the bump.
    """
    import json

    from bot.errors import UsageError
    from bot.model import Bump, Flag
    from bot.plan import PinRow, Plan

    try:
        data = json.loads(plan_file.read_text(encoding="utf-8"))
    except OSError as exc:
        raise UsageError(f"cannot read: {exc.strerror}", path=str(plan_file)) from None
    except ValueError as exc:
        raise UsageError(f"not JSON: {exc}", path=str(plan_file), line=getattr(exc, "lineno", None)) from None
    if not isinstance(data, dict):
        raise UsageError("not a plan written by `update --plan-file` (expected a JSON object)", path=str(plan_file))
    try:
        if data.get("schema") != 1:
            raise UsageError(f"unsupported plan schema {data.get('schema')!r} (expected 1)", path=str(plan_file))
        if data.get("files") and "written" in data and data["written"] is not True:
            raise UsageError("the plan was not written to the checkout (`update` ran with --dry-run, or blocking "
                             "items stopped it): run `update --plan-file` again without --dry-run (with "
                             "--allow-flagged to let flagged items through) before publishing", path=str(plan_file))
        cur, tgt = data["current"], data["target"]
        bump = None if not tgt else Bump(cur["executorch"], tgt["executorch"], cur["pack"], tgt["pack"],
                                         cur["tag"], tgt["tag"])
        plan = Plan(repo=repo, bump=bump,
                    rows=[PinRow(r["name"], r.get("old"), r.get("new"), r.get("source", "")) for r in data["pins"]],
                    flags=[Flag(f["code"], f["message"], f.get("path"), f.get("line"), f.get("blocking", True))
                           for f in data.get("flags", [])])
        for rel in data.get("files", []):
            p = repo / _checkout_path(rel, plan_file)
            if not p.is_file():
                raise UsageError(f"the plan lists {rel} but the checkout has no such file", path=str(plan_file))
            plan.contents[rel] = p.read_bytes()
            plan.originals[rel] = plan.contents[rel]
        _check_applied(plan, data.get("edits", []), plan_file)
    except (KeyError, TypeError, AttributeError) as exc:
        raise UsageError(f"not a plan written by `update --plan-file` (missing {exc})", path=str(plan_file)) from None
    return plan


def _checkout_path(rel, plan_file: Path) -> str:
    """``rel`` when it is a plain repository-relative POSIX path (no ``..``, not absolute, not in ``.git``).

    Raises :class:`UsageError` naming the plan file otherwise: publish never
    reads, nor commits, a file outside the template checkout.
    """
    from pathlib import PurePosixPath

    from bot.errors import UsageError

    parts = PurePosixPath(rel).parts if isinstance(rel, str) else ()
    if (not parts or rel.startswith("/") or "\\" in rel or any(p in ("..", ".") for p in parts)
            or parts[0].lower() == ".git" or PurePosixPath(rel).as_posix() != rel):
        raise UsageError(f"the plan lists {rel!r}, which is not a path inside the template checkout",
                         path=str(plan_file))
    return rel


def _check_applied(plan, edits, plan_file: Path) -> None:
    """Every edit's new text is on its line in the checkout: the files are the ones `update` wrote for this plan.

    Raises :class:`UsageError` naming the first file and line that does not
    carry its edit (a stale plan, a plan from another checkout, or files
    reset since ``update``): publishing would otherwise propose a commit that
    does not match the PR's pin table.
    """
    from bot.errors import UsageError

    lines: dict[str, list[str]] = {}
    for e in edits:
        path, line, new, old = e["path"], e["line"], e["new"], e.get("old") or ""
        if path not in plan.contents:
            raise UsageError(f"the plan edits {path} but does not list it in `files`", path=str(plan_file))
        if not isinstance(line, int) or not isinstance(new, str) or "\n" in new or "\n" in old or not new:
            continue
        if path not in lines:
            lines[path] = plan.contents[path].decode("utf-8", "replace").lstrip("\ufeff").splitlines()
        text = lines[path][line - 1] if 0 < line <= len(lines[path]) else ""
        if new not in text:
            raise UsageError(f"{path}:{line} does not carry the plan's edit ({old} -> {new}); run `update "
                             "--plan-file` again on this checkout before publishing", path=str(plan_file))


def _read_report(path: Path) -> str:
    """The Markdown of ``--pack-report``; :class:`UsageError` naming the file when it cannot be read as UTF-8."""
    from bot.errors import UsageError

    try:
        return path.read_text(encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"cannot read the pack report: {exc.strerror or exc}", path=str(path)) from None
    except UnicodeDecodeError:
        raise UsageError("the pack report is not UTF-8 text", path=str(path)) from None


def run(args: argparse.Namespace) -> int:
    import sys

    from bot import actions
    from bot.config import load_config
    from bot.github import flow
    from bot.github.client import make_github, token_from
    from bot.github.publish import Publisher, current_branch, refusal_notice, repo_full_name
    from bot.report import pr_body, pr_title

    token = token_from(args.token)
    actions.add_mask(token)
    plan = load_plan(args.repo, args.plan_file)
    if plan.bump is None or plan.nothing_to_do:
        print("nothing to publish: the plan changes no file")
        return 0
    config = load_config(args.repo)   # before anything else: a bad config is the same error in a dry run
    report = flow.MarkdownReport(_read_report(args.pack_report)) if args.pack_report else None
    upstream = args.upstream.split(":", 1)[-1]
    title = pr_title(plan)
    body = pr_body(plan, upstream=upstream, pack_report=report,
                   pack_note=None if report else "No pack report was given to `publish --pack-report`.")
    draft = config.wants_draft(plan.flags, check_failed=bool(report and report.failed))
    if args.dry_run:
        base = config.base or current_branch(args.repo)
        print(f"branch: {config.branch_for(plan.bump.new_executorch)}")
        print(f"base: {base or '(the checkout has no current branch: set base: in the config)'}")
        print(f"labels: {', '.join(config.labels) or '(none)'}")
        print(f"reviewers: {', '.join(config.reviewers) or '(none)'}")
        print(f"draft: {'yes' if draft else 'no'}")
        print("\n" + title + "\n\n" + body)
        return 0
    full = repo_full_name(args.repo, args.github_repo, remote=args.remote)
    pub = Publisher(make_github(token), full, args.repo, config,
                    token=token, remote=args.remote, progress=lambda m: print(f"# {m}", file=sys.stderr))
    msg = title + "\n\n" + "\n".join(f"{r.name}: {r.old} -> {r.new}" for r in plan.rows) + "\n"
    res = pub.publish(version=plan.bump.new_executorch, files=dict(plan.contents), title=title, body=body,
                      fingerprint=plan.fingerprint(), draft=draft, commit_message=msg)
    print(f"{res.action}: #{res.number} {res.url or ''}".strip() if res.number else f"{res.action}: {res.message}")
    notice = refusal_notice(res)
    if notice:
        actions.warning(notice)
        actions.append_summary(f"- **not pushed**: {notice}\n")
    actions.set_outputs({"pr-number": res.number or "", "pr-url": res.url or "",   # the action's output names
                         "pull-request": res.number or "", "pull-request-url": res.url or "", "action": res.action})
    return 0
