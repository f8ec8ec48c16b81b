"""Comment commands on the bot's pull request: ``/executorch-pack-bot VERB [ARGS]``.

The verbs (:mod:`bot.events.verbs`): ``recheck``, ``rebuild``, ``recreate``
(the workflow's later jobs act, told by the step outputs), ``ignore``
[X.Y.Z] and ``unignore`` X.Y.Z (done here: :mod:`bot.events.ignored`), and
``help``.  Reactions on the comment acknowledge it: ``+1`` obeyed,
``confused`` an unknown verb or a bad argument (with the help or the
reason in a reply), ``-1`` not allowed.
"""

from __future__ import annotations

from bot import inert
from bot.errors import UsageError
from bot.events import ignored as ign
from bot.events.store import open_store
from bot.events import verbs
from bot.events.event import is_bot
from bot.events.registry import router

RUNS = {
    "recheck": "verifying the pack and auditing the template again; this pull request is refreshed when the run ends.",
    "rebuild": "building the pack on the Arm runner; this pull request is refreshed when the run ends.",
    "recreate": ("regenerating the bump on the current base branch. The branch is replaced: commits on it that are "
                 "not the bot's are discarded."),
}
NO_RECORD = ("the bot's record of this pull request (its branch, or the state it keeps in the description) names no "
             "ExecuTorch version")
NOT_ALLOWED = ("Only people with write, maintain or admin permission on this repository can give executorch-pack-bot "
               "commands; nothing was done.")


def not_allowed_marker(login: str) -> str:
    """The hidden line of the bot's one "not allowed" reply to ``login`` on a PR (the login in lower case, as
    GitHub logins are case-insensitive; only letters, digits, ``-``, ``[`` and ``]`` kept, so it cannot end the
    HTML comment)."""
    safe = "".join(c for c in login.lower() if c.isascii() and (c.isalnum() or c in "-[]"))
    return f"<!-- executorch-pack-bot:not-allowed {safe} -->"


@router.register("issue_comment", action="created")
def comment_command(event, ctx) -> None:
    """A new comment whose first line is ``/executorch-pack-bot VERB [ARGS]``, on the bot's own pull request
    (head branch on the bot's track, in this repository, body carrying the bot's fingerprint), is a command.

    It is obeyed only when its author has write, maintain or admin
    permission (asked from the API; ``author_association`` is never
    trusted); anyone else gets ``-1`` and, once per person per pull request,
    a short reply (a later command by the same person gets the reaction
    only: the bot finds its earlier reply, written by its own account, by a
    hidden line naming the person).  Comments by
    bots, comments on issues and on other pull requests, and comments
    without the prefix cost no write request.
    """
    event.obj("comment")                       # an object or absent, else exit 2
    if not event.obj("issue").get("pull_request"):
        return
    cmd = verbs.parse(event.text("comment", "body"))
    if cmd is None or is_bot(event.obj("comment", "user")) or is_bot(event.sender):
        return
    number, comment_id = event.number("issue", "number"), event.number("comment", "id")
    login = event.text("comment", "user", "login")
    if number is None or comment_id is None or not login:
        raise UsageError("the event payload has no issue.number, comment.id or comment.user.login",
                         path=event.path or None)
    pr = ctx.bot_pull(number)
    if pr is None:
        ctx.say(f"#{number} is not the bot's pull request: comment ignored")
        return
    if not ctx.is_writer(login):
        ctx.react(comment_id, "-1")
        mark = not_allowed_marker(login)
        if not any(mark in body for body in ctx.bot_comments(number)):
            ctx.reply(number, f"{NOT_ALLOWED}\n\n{mark}")
        ctx.say(f"{inert.line(login)} may not command the bot ({ctx.permission(login)} permission)")
        return
    _obey(ctx, cmd, pr, comment_id)


def _obey(ctx, cmd, pr, comment_id: int) -> None:
    number, verb = pr.number, cmd.verb
    is_open = pr.data.get("state", "open") == "open"
    extra = cmd.args[verbs.TAKES[verb]:] if verb in verbs.TAKES else ()
    if extra:
        # "ignore 1.5.1 1.6.0" must not ignore 1.5.1 alone, nor "recheck --force" look obeyed as asked.
        ctx.react(comment_id, "confused")
        takes = "one version X.Y.Z" if verbs.TAKES[verb] else "no argument"
        ctx.reply(number, f"`{verb}` takes {takes} (also given: {inert.code(' '.join(extra), cap=200)}); "
                          f"nothing was done.\n\n{verbs.HELP}")
        ctx.say(f"{verb} with extra arguments: nothing done")
        return
    if verb == "help":
        ctx.react(comment_id, "+1")
        ctx.reply(number, verbs.HELP)
        ctx.say(f"answered help on #{number}")
    elif verb in RUNS:
        if not is_open:
            ctx.react(comment_id, "confused")
            ctx.reply(number, f"`{verb}`: this pull request is closed; nothing was done.")
            ctx.say(f"refused {verb} on #{number}: the pull request is closed")
            return
        if pr.version is None:
            # the version comes from the bot's own record of the PR (branch, hidden state), never its title
            ctx.react(comment_id, "confused")
            ctx.reply(number, f"`{verb}`: {NO_RECORD}; nothing was done. The next scheduled run records it.")
            ctx.say(f"refused {verb} on #{number}: the bot's record of the pull request names no version")
            return
        ctx.react(comment_id, "+1")
        ctx.decide(verb, version=pr.version, pr=number)
        ctx.reply(number, f"`{verb}`: {RUNS[verb]}")
        ctx.say(f"obeyed {verb} on #{number} for ExecuTorch {pr.version}")
    elif verb in ("ignore", "unignore"):
        ctx.say(_ignore(ctx, cmd, pr, comment_id, is_open))
    else:
        ctx.react(comment_id, "confused")
        ctx.reply(number, f"Unknown command {inert.code(verb or '(none)')}.\n\n{verbs.HELP}")
        ctx.say(f"unknown verb {inert.line(verb)}")


def _ignore(ctx, cmd, pr, comment_id: int, is_open: bool) -> str:
    """``ignore [X.Y.Z]`` (default: the version this PR proposes, from the bot's record) and ``unignore X.Y.Z``;
    returns the job log line saying what was really done (refused, done, nothing to do)."""
    number, verb = pr.number, cmd.verb
    if cmd.args:
        version = verbs.version_arg(cmd.args[0])
    else:
        version = pr.version if verb == "ignore" else None
    if version is None:
        ctx.react(comment_id, "confused")
        if cmd.args or verb != "ignore":
            shown = inert.code(cmd.args[0]) if cmd.args else "no version"
            why = f"`{verb}` needs an ExecuTorch version X.Y.Z (got {shown})"
        else:
            why = f"`{verb}`: {NO_RECORD}"
        ctx.reply(number, f"{why}; nothing was done.\n\nUsage: `{verbs.PREFIX} {verb} X.Y.Z`")
        return f"refused {verb} on #{number}: no version X.Y.Z"
    store = open_store(ctx.api, ctx.config)
    entries = store.read()
    present = version in ign.versions(entries)
    undo = f"To undo, comment `{verbs.PREFIX} unignore {version}`."
    if verb == "ignore":
        close = is_open and version == pr.version
        store.write(entries + [{"version": version, "pr": number}], pr.data, close=close)
        ctx.react(comment_id, "+1")
        ctx.decide("ignore", version=version, pr=number)
        text = f"Ignoring ExecuTorch {version}: the scheduled run skips it and proposes the next newer release."
        ctx.reply(number, text + (" Closing this pull request." if close else "") + f" {undo}")
        return f"obeyed ignore on #{number}: ExecuTorch {version} ignored" + (f", #{number} closed" if close else "")
    if not present:
        ctx.react(comment_id, "+1")
        ctx.reply(number, f"ExecuTorch {version} is not ignored; nothing to do.")
        return f"unignore on #{number}: ExecuTorch {version} was not ignored; nothing done"
    store.write([e for e in entries if e["version"] != version], pr.data)
    ctx.react(comment_id, "+1")
    ctx.decide("unignore", version=version, pr=number)
    ctx.reply(number, f"ExecuTorch {version} is no longer ignored: the next run may propose it again.")
    return f"obeyed unignore on #{number}: ExecuTorch {version} no longer ignored"
