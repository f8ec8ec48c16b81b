"""``doctor``: the install check a maintainer runs right after adding the workflow.

Three parts, each printed (and written to the job summary inside GitHub Actions):

1. **The template as a bump reads it** (:func:`bot.engine.audit`): every ExecuTorch pin found, whether they
   agree, the mentions of the current version and their buckets (moved by a bump, history, other versions,
   for review), the flagged items.
2. **A rehearsal**: the bump to the newest release (or ``--to``), planned as ``update`` plans it, and the pull
   request the bot would open for it (title and body, :func:`bot.report.render`), printed, nothing written,
   pushed or opened.  A template already on the newest release is copied to a scratch folder, moved back to
   the previous release there, and the bump from that release to the current one is rehearsed instead.
3. **The set-up on GitHub** (with a token and the template repository's name), each problem with its fix:
   the token can push, proved only by something the token itself must pass: a ``git push --dry-run`` with it to
   the repository on the GitHub server (GitHub authorizes the dry run's receive-pack request as it authorizes a
   push; :func:`prove_push`); ``permissions.push`` of "Get a repository" is the token's user's role (GitHub
   REST docs, "Get a repository": the permissions of the authenticated user), so it is shown as that, never as
   "can push", and a ``false`` there still blocks (no token can do more than its user), "Allow GitHub
   Actions to create and approve pull requests" when the bot opens its pull request with the workflow's
   ``GITHUB_TOKEN`` ("Get default workflow permissions for a repository",
   ``can_approve_pull_request_reviews``, ``default_workflow_permissions``), the rules of the base branch and
   of the bot's branch ("Get rules for a branch": ``required_signatures`` needs ``commit: api``;
   ``pull_request`` asks for reviews; ``creation``/``update``/``non_fast_forward`` on the bot's branch stop its
   push), and whether the Workflows permission is needed (the bump edits files under ``.github/workflows/``;
   GitHub refuses such a push without it, and never accepts it from ``GITHUB_TOKEN``).

The template's ``model:`` setting, when present, is read as the run-model job reads it: one it would refuse
is a blocking problem.

Exit 1 when a problem blocks the bot (pins that disagree, a ``model:`` the run-model job refuses, a setting that
refuses its push or its pull request), else 0; 2 for bad usage, 3 when GitHub or upstream cannot be reached: the
parts that could be done (the template, offline, and the rehearsal with a local ``--upstream PATH``) are printed
first, the part that could not says so ("Not rehearsed: ...", "not checked: ..."), then the error.
"""

from __future__ import annotations

import argparse
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

NAME = "doctor"
ORDER = 5
HELP = ("the install check: read the template as a bump would, rehearse the next bump's pull request (nothing "
        "opened), check the repository's settings with a token")
DESCRIPTION = (
    "Run it right after adding the workflow. It lists the ExecuTorch pins and mentions a bump would read, "
    "rehearses the bump to the newest release (or, when the template is already on it, the bump from the "
    "previous release to the current one) and prints the pull request the bot would open, without writing, "
    "pushing or opening anything, and, with a token and the repository's name, checks the settings that can "
    "stop the bot. Every problem comes with its fix.")
EXIT_CODES = (0, 1, 2, 3)

WORKFLOWS_DIR = ".github/workflows/"


@dataclass
class Problem:
    """One finding: ``what`` is wrong, ``fix`` says what to do; ``blocking`` when the bot cannot work until fixed."""

    what: str
    fix: str
    blocking: bool = True
    #: not blocking, but the verdict cannot be "OK" while it holds (what a bump would leave to people)
    attention: bool = False

    def lines(self) -> list[str]:
        mark = "!" if self.blocking else "-"
        return [f"  {mark} {self.what}", f"    fix: {self.fix}"]


def register(p: argparse.ArgumentParser) -> None:
    from bot.commands._options import github_repo
    from bot.commands._options import add_github_arguments
    from bot.commands._options import add_exclude_argument, add_set_argument, add_source_arguments
    p.add_argument("--repo", default=".", type=Path, help="the template checkout (default: .)")
    add_source_arguments(p)
    add_set_argument(p)
    add_exclude_argument(p)
    add_github_arguments(p)
    p.add_argument("--github-repo", metavar="OWNER/NAME", type=github_repo,
                   help="the template repository whose settings are checked (default: $GITHUB_REPOSITORY, else "
                        "the checkout's origin remote); without a token, the settings are not checked")
    p.add_argument("--workflow-token", action="store_true",
                   help="the bot will push and open its pull request with the workflow's own GITHUB_TOKEN (no "
                        "GitHub App, no EXECUTORCH_PACK_BOT_TOKEN): check what that token needs")


def run(args: argparse.Namespace) -> int:
    import sys

    from bot import actions, engine, inert
    from bot.config import load_config
    from bot.errors import TransientError
    from bot.github.client import token_from
    from bot.sources import offline_hint, open_source

    if args.to:
        from bot.versions import parse_user_version
        parse_user_version(args.to, what="--version")
    config = load_config(args.repo)
    token = token_from(args.token)
    actions.add_mask(token)
    problems: list[Problem] = []
    out: list[str] = []

    # 1. the template as a bump reads it
    result = engine.audit(args.repo, exclude=tuple(args.exclude))
    out += ["## The template", ""]
    out += _template_lines(result)
    if not result.ok:
        problems.append(Problem(
            "the template's ExecuTorch pins do not agree (or a blocking item is flagged): a bump starts from one "
            "version", "run `executorch-pack-bot audit --repo .` and make every pin name the same release"))

    problems += shape_problems(result)
    if config.model is not None:
        problems += model_problems(args.repo)

    # 2. the rehearsal
    source = open_source(args.upstream, token)
    say = lambda m: print(f"# {inert.line(m, cap=1000)}", file=sys.stderr)  # noqa: E731
    failed: list = []   # the errors of the parts that could not be done for a transient reason (exit 3 at the end)
    if result.ok:
        try:
            with offline_hint(args.upstream):
                plan, note = rehearse(args.repo, source, to=args.to, sets=engine.parse_sets(args.sets),
                                      allow_prerelease=args.allow_prerelease, exclude=tuple(args.exclude),
                                      progress=say)
        except TransientError as exc:   # upstream cannot be reached: the other parts are still printed
            failed.append(exc)
            plan, note = None, f"Not rehearsed: {exc.message}."
    else:   # the plan would refuse the template (exit 2) before the verdict could say why
        plan, note = None, ("Not rehearsed: a bump starts from one version, and the template's pins do not agree "
                            "(see the verdict).")
    out += ["", "## Rehearsal", ""]
    title = body = ""
    if plan is None or plan.bump is None:
        out.append(note)
    else:
        from bot.textreport import plan_summary
        out += [note, ""] + plan_summary(plan).rstrip("\n").splitlines()
        title, body = pr_text(plan, args.upstream, config, source=source, exclude=tuple(args.exclude))
        held = plan.blocking_flags
        if held:   # they stop no run, but the pull request opens as a draft until someone resolves them
            problems.append(Problem(
                f"the rehearsed pull request has {len(held)} blocking item{'s' * (len(held) != 1)} "
                f"({', '.join(sorted({f.code for f in held}))}): it would open as a draft until each is resolved",
                "see \"Blocking items\" in the pull request above; each says what to do", blocking=False,
                attention=True))
        out += ["", "The pull request the bot would open (nothing was opened, pushed or written):", "",
                "    " + title, ""] + ["    " + line if line else "" for line in body.splitlines()]
    workflow_files = sorted({e for e in (plan.contents if plan is not None else {}) if e.startswith(WORKFLOWS_DIR)})

    # 3. the caller workflow: which layers it has
    out += ["", "## The caller", ""]
    caller_lines, found = caller_layers(args.repo, config)
    out += caller_lines
    problems += found

    # 4. the set-up on GitHub
    out += ["", "## The set-up on GitHub", ""]
    problems += workflow_problems(workflow_files, args.workflow_token)
    full = _full_name(args)
    if not token or not full:
        out.append("not checked: " + ("no token (pass --token or set GITHUB_TOKEN)" if not token else
                                      "the repository is unknown (pass --github-repo OWNER/NAME)")
                   + "; the workflow's doctor run checks it with the bot's own token")
    else:
        try:
            checked, found = check_github(token, full, config, plan, workflow_token=args.workflow_token,
                                          repo=args.repo)
        except TransientError as exc:   # GitHub cannot be reached: said here, and the exit is 3
            failed.append(exc)
            checked, found = [f"not checked: {exc.message}"], []
        out += checked
        problems += found

    blocking = [p for p in problems if p.blocking]
    out += ["", "## Verdict", ""]
    if problems:
        out += [line for p in problems for line in p.lines()]
        out.append("")
    if blocking:
        out.append("1 problem blocks the bot" if len(blocking) == 1 else f"{len(blocking)} problems block the bot")
    elif failed:   # not "OK": a part could not be done
        out.append("Not complete: a part above could not be done (see its 'not' line); nothing else found blocks "
                   "the bot.")
    elif any(p.attention for p in problems):   # not "OK" while a bump would leave work to people
        n = sum(p.attention for p in problems)
        out.append(f"Nothing blocks the bot, but {n} item{'s' * (n != 1)} above need{'s' * (n == 1)} a look first.")
    else:
        out.append("OK: nothing blocks the bot.")
    text = "\n".join(inert.lines("\n".join(out), cap=4000, max_lines=100000))
    print(text)
    actions.append_summary(summary_markdown(problems, title, body, note))
    if failed:   # the parts that worked are printed above; the first failure is the error (exit 3)
        raise failed[0]
    return 1 if blocking else 0


def model_problems(repo: Path) -> list[Problem]:
    """The template's ``model:`` setting read as the run-model job reads it (:func:`bot.modelrun.template.template_model`).

    A setting that job would refuse (a missing file, a symbolic link, a path outside the template, a file that is
    no ExecuTorch program) is one blocking :class:`Problem` naming the settings file and line; else none.
    """
    from bot.errors import UsageError
    from bot.modelrun.template import template_model

    try:
        template_model(repo)
    except UsageError as exc:
        return [Problem(f"{exc}: the run-model job refuses it (exit 2) and the bump gets no model run",
                        "point model: in .github/executorch-pack-bot.yml at the template's .pte (a path inside "
                        "the repository), or remove the key")]
    return []


def rehearse(repo: Path, source, *, to: Optional[str], sets: dict, allow_prerelease: bool,
             exclude: tuple[str, ...], progress=None):
    """``(plan, sentence)``: the plan of the bump to ``to`` (default: the newest release) of ``repo``, nothing
    written; when that bump has nothing to do, the plan of the bump to the current release from the one
    before it, made on a scratch copy of the template moved back to that release (removed afterwards).
    ``plan`` is None when there is no earlier release to move back to (the sentence says so)."""
    import shutil
    import tempfile

    from bot import engine
    from bot.errors import BotError, TransientError
    from packaging.version import InvalidVersion, Version

    from bot.upstream.releases import stable_tags
    from bot.versions import stable_version

    plan = engine.plan(repo, source, to=to, sets=sets, allow_prerelease=allow_prerelease, progress=progress,
                       exclude=exclude)
    if plan.bump is not None and not plan.nothing_to_do:
        return plan, (f"The next bump: ExecuTorch {plan.bump.old_executorch} -> {plan.bump.new_executorch} "
                      f"(the template's pin to {'the release asked for' if to else 'the newest stable release'}).")
    current = plan.bump.new_executorch if plan.bump is not None else None
    try:
        cur = Version(current) if current else None
    except InvalidVersion:
        cur = None
    earlier = [t for t in stable_tags(source.tags(), set(source.prereleases()))
               if cur is not None and stable_version(t) < cur]
    if not earlier:
        return None, ("The template is on the newest release and upstream has no earlier stable release to "
                      "rehearse from: nothing to rehearse.")
    previous = earlier[-1]
    scratch = Path(tempfile.mkdtemp(prefix="executorch-pack-bot-doctor-"))
    try:
        copy = scratch / "template"
        shutil.copytree(repo, copy, symlinks=True, ignore=shutil.ignore_patterns(".git"))
        back = engine.plan(copy, source, to=previous, sets=sets, exclude=exclude, allow_downgrade=True)
        engine.apply(back)
        again = engine.plan(copy, source, to=current, sets=sets, allow_prerelease=allow_prerelease, exclude=exclude)
        again.repo = Path(repo)   # the files it names are the template's
    except TransientError:
        raise                              # GitHub or the network: exit 3, as for the plan above
    except (BotError, OSError) as exc:   # the scratch copy is doctor's own doing: not a fault of the install
        return None, (f"The template is on the newest release, ExecuTorch {current}: nothing to bump. The bump from "
                      f"the previous release, {previous.lstrip('v')}, could not be rehearsed on a scratch copy "
                      f"({exc}); the next release will be the first bump.")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return again, (f"The template is already on the newest release, ExecuTorch {current}: nothing to bump. "
                   f"Rehearsed instead: the bump from the previous release, {previous.lstrip('v')}, to {current}, "
                   "on a scratch copy moved back to it (the pull request below shows what a bump looks like; "
                   "the next real one starts from " + current + ").")


def pr_text(plan, upstream_spec: str, config, *, source=None, exclude: tuple[str, ...] = ()) -> tuple[str, str]:
    """``(title, body)`` of the pull request the bot would open for ``plan``, made as the workflow makes it: the
    bump record ``update --plan-file`` writes (upstream evidence read from ``source``, the upstream doctor was
    given; None: not read), extended with no pack (doctor neither fetches nor verifies one) and rendered by the
    one renderer ``publish`` uses (:func:`bot.report.record.render_record`)."""
    from bot.report import pr_title
    from bot.report.evidence import PackProvenance, gather
    from bot.report.record import add_pack, record_of, render_record

    upstream = upstream_spec.split(":", 1)[-1] if upstream_spec.startswith("github:") else "pytorch/executorch"
    name = getattr(source, "full_name", None) or upstream
    spec = upstream_spec if upstream_spec.startswith("github:") else None
    branch = config.branch_for(plan.bump.new_executorch)
    evidence = gather(plan, source, upstream=name, upstream_spec=spec, exclude=exclude, env={})
    record = record_of(plan, evidence, upstream_spec=upstream_spec, upstream_ran=source is not None)
    add_pack(record, PackProvenance(), None, note="doctor fetches and verifies no pack; the workflow's run does.")
    rendered = render_record(record, repo=plan.repo, contents=plan.contents, upstream=upstream, base=config.base,
                             branch=branch, env={})
    from bot.report.record import blocked_by
    return pr_title(plan, blocked_by(record)), rendered.body


def workflow_problems(paths: list[str], workflow_token: bool) -> list[Problem]:
    """The Workflows permission: a push that changes files under ``.github/workflows/`` needs it (GitHub docs,
    "Permissions required for GitHub Apps": Workflows; the git-refs operations' second permission set), and
    ``GITHUB_TOKEN`` can never be given it."""
    if not paths:
        return []
    names = ", ".join(paths[:5]) + (" ..." if len(paths) > 5 else "")
    if workflow_token:
        return [Problem(f"the bump edits {names}, and GitHub never lets the workflow's GITHUB_TOKEN push a change "
                        "under .github/workflows/",
                        "use a GitHub App (or a fine-grained token) with Workflows: read and write "
                        "(docs/github-app.md), or keep those files out with `exclude: [.github/workflows]` in "
                        ".github/executorch-pack-bot.yml")]
    return [Problem(f"the bump edits {names}: the bot's token needs Workflows: read and write (a GitHub App: also "
                    "pass app-workflows-permission: true)",
                    "grant Workflows: read and write to the App or token, or keep those files out with "
                    "`exclude: [.github/workflows]` in .github/executorch-pack-bot.yml", blocking=False)]


def push_verdict(returncode: int, stderr: str) -> Optional[bool]:
    """What a ``git push --dry-run`` with the token says: True (accepted), False (GitHub refused the token: HTTP
    403/401, "Permission to OWNER/NAME.git denied", "Write access to repository not granted", a rule's
    refusal), None (it says nothing of the token: the network, a missing repository, another failure)."""
    from bot.github.pushrefusal import is_refusal

    if returncode == 0:
        return True
    low = stderr.lower()
    if (re.search(r"returned error: 40[13]\b", low) or "permission to" in low and "denied" in low
            or "write access to repository not granted" in low or "authentication failed" in low or is_refusal(stderr)):
        return False
    return None


def prove_push(repo: Path, token: str, full: str, branch: str) -> tuple[Optional[bool], str]:
    """``(verdict, line)``: a ``git push --dry-run`` of the checkout's ``HEAD`` to ``branch`` of its ``origin``,
    with ``token`` (the bot's own git set-up, :class:`bot.github.publish.Git`: the token's header for
    ``$GITHUB_SERVER_URL`` only), when ``origin`` is ``full`` on that server; nothing is written (``--dry-run``:
    git asks for the refs over the receive-pack service, which GitHub authorizes as a push, and sends no pack).

    None with the reason when it proves nothing of the token: an ``origin`` elsewhere (a local path, another
    host), no ``origin``, or a failure that is not a refusal (:func:`push_verdict`)."""
    import os

    from bot import inert
    from bot.github.client import mask
    from bot.github.publish import Git

    git = Git(repo, token, ("executorch-pack-bot", "executorch-pack-bot@users.noreply.github.com"))
    p = git.run("remote", "get-url", "origin")
    url = p.stdout.decode("utf-8", "replace").strip() if p.returncode == 0 else ""
    server = (os.environ.get("GITHUB_SERVER_URL") or "https://github.com").rstrip("/")
    if not url:
        return None, "the checkout has no origin remote to try a dry-run push with the token"
    if url.rstrip("/").removesuffix(".git").lower() != f"{server}/{full}".lower():
        return None, f"the checkout's origin is not {server}/{full}, so a dry-run push would not use the token"
    # forced, as the bot's own push is (--force-with-lease): an existing bot branch is no reason to refuse
    p = git.run("push", "--dry-run", "--quiet", "origin", f"+HEAD:refs/heads/{branch}")
    err = mask(p.stderr.decode("utf-8", "replace"))
    last = next((ln for ln in reversed(err.strip().splitlines()) if ln.strip()), "")
    verdict = push_verdict(p.returncode, err)
    if verdict is True:
        return True, f"a dry-run push with the token to {server}/{full} (branch {branch}) was accepted"
    if verdict is False:
        return False, f"GitHub refused a dry-run push with the token to {server}/{full}: {inert.line(last, cap=300)}"
    return None, f"a dry-run push with the token failed for another reason: {inert.line(last, cap=300)}"


def check_github(token: str, full: str, config, plan, *, workflow_token: bool,
                 repo: Optional[Path] = None) -> tuple[list[str], list[Problem]]:
    """``(lines, problems)`` of the template repository's set-up, read with ``token`` (read requests, and a
    ``git push --dry-run`` from ``repo``, :func:`prove_push`, which writes nothing)."""
    import json
    from urllib.parse import quote

    from bot import inert
    from bot.errors import PlatformError
    from bot.github import pages
    from bot.github.client import call, make_github

    checkout = repo
    gh = make_github(token)
    lines: list[str] = []
    problems: list[Problem] = []

    def get(path: str, what: str):
        return call(lambda: gh.requester.requestJsonAndCheck("GET", f"/repos/{full}{path}")[1], what)

    def shaped(value, kind: type, what: str):
        """``value`` when GitHub answered the JSON type its docs give (object or array), else None and a line."""
        if isinstance(value, kind):
            return value
        lines.append(f"{what}: GitHub answered {type(value).__name__} {inert.line(json.dumps(value)[:80], cap=80)}, "
                     f"not the JSON {'object' if kind is dict else 'array'} its REST docs give; check it by hand")
        return None

    repo = shaped(get("", f"read the repository {full}"), dict, "repository") or {}
    lines.append(f"repository: {full} (default branch {repo.get('default_branch') or '?'})")
    perms = repo.get("permissions")
    user_may = isinstance(perms, dict) and bool(perms.get("push") or perms.get("admin") or perms.get("maintain"))
    if isinstance(perms, dict) and not user_may:
        problems.append(Problem("the token cannot push to the repository (GitHub answers permissions.push: false)",
                                "give the App or token Contents: read and write and Pull requests: read and "
                                "write on this repository (docs/github-app.md)"))
    elif user_may:
        lines.append("token's user: may push (permissions.push of \"Get a repository\" is the user's role, not what "
                     "the token may do)")
    bot_branch = config.branch_for(plan.bump.new_executorch) if plan is not None and plan.bump else config.branch
    proved, why = (None, "no checkout given") if checkout is None else prove_push(checkout, token, full, bot_branch)
    if proved is True:
        lines.append(f"token: can push ({why})")
    elif proved is False:
        problems.append(Problem(f"the token may not push: {why}",
                                "a fine-grained token must have the repository's owner (the organization) as its "
                                "resource owner and Contents: read and write on it; an App must be installed on the "
                                "repository with Contents: read and write (docs/github-app.md)"))
    else:
        lines.append(f"token: push not proven ({why}); the workflow's first push proves it")

    try:
        wf = shaped(get("/actions/permissions/workflow", "read the repository's workflow permissions"), dict,
                    "workflow permissions")
    except PlatformError as exc:
        wf = None
        lines.append(f"workflow permissions: not readable with this token ({exc.reason or exc.message}); "
                     "check Settings > Actions > General by hand")
    if wf is not None:
        approve = wf.get("can_approve_pull_request_reviews")
        lines.append(f"workflow permissions: default {wf.get('default_workflow_permissions')}, Actions "
                     f"{'may' if approve else 'may not'} create pull requests")
        if workflow_token and not approve:
            problems.append(Problem("\"Allow GitHub Actions to create and approve pull requests\" is off, and the bot "
                                    "opens its pull request with GITHUB_TOKEN",
                                    "turn it on in Settings > Actions > General > Workflow permissions, or give the "
                                    "bot a GitHub App (docs/github-app.md)"))

    base = config.base or repo.get("default_branch") or "main"
    branch = config.branch_for(plan.bump.new_executorch) if plan is not None and plan.bump else config.branch
    for name, is_base in ((base, True), (branch, False)):
        try:
            # "Get rules for a branch" is a paginated list (30 a page by default): every page, one reader
            rules = pages.rest(gh.requester, f"/repos/{full}/rules/branches/{quote(name, safe='')}",
                               what=f"read the rules of branch {name}", call=call,
                               items=lambda page, n=name: shaped(page, list, f"rules of branch {n}") or [])
        except PlatformError as exc:
            if "HTTP 404" in str(exc):
                rules = []   # GitHub Enterprise Server without rulesets
            elif "HTTP 403" in str(exc):
                lines.append(f"rules of branch {name}: not readable with this token ({exc.reason or exc.message}); "
                             "check Settings > Rules by hand")
                continue
            else:
                raise
        rules = [r for r in rules if isinstance(r, dict)]
        kinds = [r.get("type") for r in rules if isinstance(r.get("type"), str)]
        lines.append(f"rules of {'the base branch' if is_base else 'the bot branch'} {name}: "
                     + (", ".join(dict.fromkeys(k for k in kinds if k)) or "none"))
        if "required_signatures" in kinds and config.commit != "api":
            problems.append(Problem(f"a rule requires signed commits on {name}, and the bot's commits are made by git "
                                    "(unsigned)",
                                    "add `commit: api` to .github/executorch-pack-bot.yml: GitHub then makes and "
                                    "signs the commit"))
        if is_base:
            for r in rules:
                if isinstance(r, dict) and r.get("type") == "pull_request":
                    params = r.get("parameters") if isinstance(r.get("parameters"), dict) else {}
                    n = params.get("required_approving_review_count")
                    n = n if isinstance(n, int) and not isinstance(n, bool) and n >= 0 else 0
                    problems.append(Problem(f"{name} needs {n} approving review{'s' if n != 1 else ''} before a merge",
                                            "ask for reviewers with `reviewers:` in .github/executorch-pack-bot.yml "
                                            "(the bot's pull request waits for them)", blocking=False))
                    break
        else:
            stop = [k for k in ("creation", "update", "non_fast_forward") if k in kinds]
            if stop:
                problems.append(Problem(f"a ruleset forbids {', '.join(stop)} on the bot branch {name}: its push "
                                        "would be refused",
                                        "leave the bot branch out of that ruleset (or add the App to its bypass list), "
                                        "or name another branch with `branch:` in .github/executorch-pack-bot.yml"))
    return lines, problems


def summary_markdown(problems: list[Problem], title: str, body: str, note: str) -> str:
    """The job summary of a doctor run: the verdict, each problem with its fix, and the rehearsed pull request
    (when there was one to rehearse: ``title`` not empty)."""
    from bot import inert

    blocking = [p for p in problems if p.blocking]
    verdict = "FAIL" if blocking else "needs a look" if any(p.attention for p in problems) else "OK"
    head = [f"## executorch-pack-bot doctor: {verdict}", ""]
    head += [f"- {'**blocks**' if p.blocking else 'note'}: {inert.markdown(p.what, cap=1000)} — fix: "
             f"{inert.markdown(p.fix, cap=1000)}" for p in problems] or ["Nothing blocks the bot."]
    text = "\n".join(head) + f"\n\n{inert.markdown(note, cap=1000)}\n"
    if title:   # the body is the bot's own rendering (render() made its foreign parts inert)
        text += f"\n### Rehearsed pull request: {inert.markdown(title, cap=300)}\n\n" + body + "\n"
    return text


#: The layers a caller can have: (name, the triggers that make it, the setting that turns it on, or None).
#: The bump is the default caller's (docs/example-caller.yml); the others are the opt-in block of
#: docs/example-caller-reviewers.yml (docs/reviewers.md#adding-the-reviewer-layer).
LAYERS = (("bump", ("schedule", "workflow_dispatch"), None),
          ("reviewer commands", ("issue_comment",), None),
          ("auto-merge", ("pull_request_review", "pull_request_target"), "automerge"),
          ("dashboard", ("issues",), "dashboard"))


def caller_layers(repo: Path, config) -> tuple[list[str], list[Problem]]:
    """The template's callers of the bot's reusable workflow (a job whose ``uses:`` names
    ``.../executorch-pack-bot.yml@REF`` in ``.github/workflows/*.yml`` or ``*.yaml``) and the layers each has,
    from its ``on:`` triggers (:data:`LAYERS`); ``(lines, problems)``.  A setting whose layer's triggers are
    missing (``automerge: on-approval`` without ``pull_request_review``, ``dashboard: true`` without
    ``issues``) is a non-blocking problem: the setting would do less than it says.  A file that cannot be
    read or parsed is said in its line, never an error (the template's CI owns its workflow files)."""
    import yaml

    folder = Path(repo) / WORKFLOWS_DIR
    files = sorted([*folder.glob("*.yml"), *folder.glob("*.yaml")]) if folder.is_dir() else []
    lines: list[str] = []
    problems: list[Problem] = []
    for path in files:
        rel = path.relative_to(repo).as_posix()
        try:
            doc = yaml.safe_load(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, yaml.YAMLError, RecursionError):
            continue
        if not isinstance(doc, dict) or not isinstance(doc.get("jobs"), dict):
            continue
        uses = [j.get("uses") for j in doc["jobs"].values() if isinstance(j, dict)]
        if not any(isinstance(u, str) and "/.github/workflows/executorch-pack-bot.yml@" in u for u in uses):
            continue
        for u in uses:
            if isinstance(u, str) and "/.github/workflows/executorch-pack-bot.yml@" in u and (
                    u.startswith("OWNER/") or u.endswith("@COMMIT_SHA")):
                problems.append(Problem(
                    f"{rel} still names the placeholders of the example caller: uses: {u}",
                    "replace OWNER with the account that holds the bot's repository and COMMIT_SHA with the full "
                    "commit SHA of the release you pin (README, step 1)"))
        on = doc.get("on", doc.get(True))   # YAML 1.1 reads a bare `on` key as True
        triggers = {on} if isinstance(on, str) else set(on or ())

        def off(setting) -> bool:   # the layer's triggers are there, but its setting is not on
            return setting == "automerge" and config.automerge != "on-approval" or \
                setting == "dashboard" and not config.dashboard
        have = [name + (f" (off until {'automerge: on-approval' if setting == 'automerge' else 'dashboard: true'} "
                        "in .github/executorch-pack-bot.yml)" if off(setting) else "")
                for name, events, setting in LAYERS if triggers & set(events)]
        lacking = [name for name, events, _ in LAYERS if not triggers & set(events)]
        lines.append(f"{rel}: {', '.join(have) or 'no layer'}"
                     + (f"; not added: {', '.join(lacking)} (docs/reviewers.md#adding-the-reviewer-layer)"
                        if lacking else ""))
        for name, events, setting in LAYERS:
            on_in_config = setting == "automerge" and config.automerge == "on-approval" or \
                setting == "dashboard" and config.dashboard
            if on_in_config and events[0] not in triggers:
                problems.append(Problem(
                    f"{rel} has no `{events[0]}` trigger, so the {name} set in .github/executorch-pack-bot.yml "
                    f"({'automerge: on-approval' if setting == 'automerge' else 'dashboard: true'}) "
                    + ("never turns on" if setting == "automerge" else "gets no \"Check now\" runs"),
                    f"add the {name} triggers of docs/example-caller-reviewers.yml to its `on:`",
                    blocking=False, attention=True))
    if not lines:
        lines.append(f"no workflow under {WORKFLOWS_DIR} calls the bot's reusable workflow yet: the README's "
                     "caller file is step 1 of the install")
    return lines, problems


def shape_problems(result) -> list[Problem]:
    """What a bump of this folder would leave to people, as non-blocking :class:`Problem` s: the mentions left
    for review (the pull request lists each one), and pins that all sit in one subfolder (``--repo`` may be a
    project holding a template, not the template).  ``result`` is the :class:`~bot.engine.Audit` of ``--repo``."""
    import posixpath

    out = []
    if result.mentions is not None:
        review = result.mentions.counts()["review"]
        if review:
            out.append(Problem(
                f"{review} mention{'s' * (review != 1)} of {result.mentions.version} would be left for review: the "
                "pull request lists each one for a person to resolve",
                "see them with `executorch-pack-bot audit --repo . --json` (\"review\"); leave out folders that are "
                "not the template's with `exclude:` in .github/executorch-pack-bot.yml (docs/config.md)",
                blocking=False, attention=True))
    folders = {posixpath.dirname(p.path) for p in result.pins}
    if folders and "" not in folders:
        common = posixpath.commonpath(sorted(folders))
        if common:
            out.append(Problem(
                f"every ExecuTorch pin is under {common}/, none at the top of the repository: is --repo the "
                "template? (the bot reads and bumps the whole repository)",
                f"if {common}/ is the template, it needs a repository of its own (or `exclude:` for the rest)",
                blocking=False, attention=True))
    return out


def _template_lines(result) -> list[str]:
    """The pins table, the verdict and the mentions' buckets of an :class:`~bot.engine.Audit`."""
    from bot import inert
    from bot.textreport import audit_mentions_line, flag_lines, table

    rows = [[f"{p.path}:{p.line}", p.kind, p.text or p.version or ""] for p in result.pins]
    lines = (table(["where", "kind", "pin"], rows).splitlines() if rows else ["No ExecuTorch pin found."])
    lines.append("")
    lines.append(result.headline() if result.agree and result.versions else "the pins do not agree")
    if result.mentions is not None:
        lines.append(audit_mentions_line(result.mentions))
    for f in result.stale_mentions:
        lines.append(f"  another version in prose: {inert.line(f.path, cap=300)}:{f.line}: "
                     f"{inert.line(f.text or f.version, cap=300)}")
    if result.flags:
        lines += ["", "For review:"] + flag_lines(result.flags)
    return lines


def _full_name(args) -> Optional[str]:
    """``OWNER/NAME`` of the template repository, or None when nothing names it."""
    from bot.errors import UsageError
    from bot.github.publish import repo_full_name

    try:
        return repo_full_name(args.repo, args.github_repo)
    except UsageError:
        return None
