"""Foreign text reaches GitHub inert: what the fake GitHub server received (PR body, comment) and what the run
wrote (job summary, annotations) carries no live mention, issue reference, commit autolink or HTML.

The forms (GitHub docs, "Autolinked references and URLs"; GFM spec): ``@user``, ``#N``, ``GH-N``,
``owner/repo#N``, a commit SHA, HTML (``<img>``, ``<!--``), and a ``::`` workflow command in a log line.
"""

from __future__ import annotations

import re

from bot import inert
from fakegithub import TEMPLATE, add_sample_release, fresh_checkout, git, pypi_json
from test_github_refusals import the_pr, warnings, world  # noqa: F401 - the fixture and its helpers

MENTION_LINE = "| KWS | 40 fps with ExecuTorch 1.3.0, measured by @octo-placeholder (see #12) |"
REFS_LINE = ("| VWW | 30 fps with ExecuTorch 1.3.0, fixed in acme/fw-template#7 and GH-3 at "
             "0123456789abcdef0123456789abcdef01234567 <img src=x onerror=alert(1)> <!-- |")
BOT_MARKER = re.compile(r"<!-- executorch-pack-bot:[^>]*-->")
BOT_HTML = re.compile(r"</?(?:details|summary)>")   # the bot's own folding of long sections


def live(markdown: str) -> list[str]:
    """The live forms left in ``markdown`` once code spans and the bot's own hidden markers are taken out."""
    text = BOT_HTML.sub("", BOT_MARKER.sub("", markdown))
    text = re.sub(r"(`+)(?:(?!\1).)+?\1", "", text)      # code spans (GFM: a run of n backticks closes n)
    forms = [r"(?<![\w&;])@[A-Za-z0-9]", r"(?<![\w&;])#\d", r"(?i)\bGH-\d", r"[\w.-]+/[\w.-]+#\d",
             r"\b[0-9a-f]{7,}\b", r"<[A-Za-z!/]"]
    return [m.group(0) for f in forms for m in re.finditer(f, text)]


def quoted(line: str, text: str) -> bool:
    """True when ``text`` quotes ``line`` through bot/inert.py (a code span, in a table or not, or inert Markdown)."""
    return any(form in text for form in (inert.code(line), inert.code(line, in_table=True), inert.markdown(line)))


def test_the_forms_are_live_before_and_inert_after_the_neutraliser():
    assert live(MENTION_LINE) == ["@o", "#1"]
    assert sorted(live(REFS_LINE)) == sorted(["GH-3", "acme/fw-template#7", "0123456789abcdef0123456789abcdef01234567",
                                              "<i", "<!"])
    assert live(inert.markdown(MENTION_LINE)) == [] and live(inert.markdown(REFS_LINE)) == []
    assert live(inert.code(REFS_LINE, in_table=True)) == []


def _add_template_lines(world):
    co = fresh_checkout(world.remote, world.tmp / "edit")
    results = co / "documentation" / "results.md"
    results.write_text(results.read_text() + MENTION_LINE + "\n" + REFS_LINE + "\n")
    git(co, "commit", "-q", "-am", "results")
    git(co, "push", "-q", "origin", "main")


def test_template_lines_quoted_in_the_pr_body_are_inert_as_github_received_them(world, capsys):
    _add_template_lines(world)
    code, err, summary = world.run(capsys)
    assert code == 0
    (sent,) = [s.body for s in world.fake.requests if s.method == "POST" and s.path.endswith("/pulls")]
    body = sent["body"]
    assert quoted(MENTION_LINE, body) and quoted(REFS_LINE, body)       # quoted, in one of the neutraliser's forms
    assert live(body) == []
    assert live(summary) == [] and quoted(MENTION_LINE, summary)        # the job summary too


def test_a_foreign_commit_author_is_inert_in_the_comment_github_received(world, capsys):
    assert world.run(capsys)[0] == 0
    co = fresh_checkout(world.remote, world.tmp / "human")
    git(co, "checkout", "-q", "executorch-pack-bot/executorch")
    (co / "NOTES.md").write_text("mine\n")
    git(co, "add", "NOTES.md")
    git(co, "commit", "-q", "--author=@octo-placeholder see #12 <octo@example.invalid>", "-m", "mine")
    git(co, "push", "-q", "origin", "executorch-pack-bot/executorch")
    sha7 = git(co, "rev-parse", "--short=7", "HEAD")
    add_sample_release(world.fake, "v1.5.2", source_tag="v1.5.1", created_at="2026-10-01T00:00:00Z")
    world.fake.pypi[("executorch", "1.5.2")] = pypi_json("executorch", "1.5.2", requires_dist=["torch>=2.14.0a0"])
    code, err, summary = world.run(capsys)
    assert code == 0
    (sent,) = [s.body for s in world.fake.requests if s.method == "POST" and s.path.endswith("/comments")]
    assert inert.code(f"{sha7} @octo-placeholder see #12 <octo@example.invalid>") in sent["body"]
    assert live(sent["body"]) == []
    assert live(summary) == []                       # the "not pushed" line names the same author, inert


def test_a_refused_label_and_githubs_reason_are_inert_in_the_summary_body_and_annotation(world, capsys, monkeypatch):
    label = "see #12 @octo-placeholder <b>x</b>"
    reason = "Label <b>@octo-placeholder</b> refused, see acme/fw-template#7 and GH-3"
    world.fake.repo(TEMPLATE).label_refusals[label] = (422, {"message": reason,
                                                             "documentation_url": "https://docs.github.com/rest"})
    world.configure(f"labels: ['{label}']\n")
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    code, err, summary = world.run(capsys)
    assert code == 0
    pr = the_pr(world)
    item = (f"- **label not applied**: {inert.code(label)}: {inert.markdown('HTTP 422: ' + reason)} "
            "(`labels:` in `.github/executorch-pack-bot.yml`)")
    assert item in summary.splitlines() and item in pr["body"].splitlines()
    assert live(summary) == [] and live(pr["body"]) == []
    (annotation,) = [x for x in err.splitlines() if x.startswith("::warning")]
    assert annotation == (f"::warning title=executorch-pack-bot::label {label!r} not applied on #{pr['number']}: "
                          f"HTTP 422: {reason} (asked for by `labels:` in .github/executorch-pack-bot.yml; the pull "
                          "request stands)")


def test_a_workflow_command_in_foreign_text_never_starts_a_log_line(capsys):
    from bot import actions
    actions.warning("refused:\n::error::forged\n  ::set-env name=X::1", env={})
    err = capsys.readouterr().err
    assert err == "warning: refused:\n:\u200b:error::forged\n  :\u200b:set-env name=X::1\n"
