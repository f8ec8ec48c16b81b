"""A pack report known only as its Markdown (:class:`MarkdownReport`): what ``publish --pack-report FILE`` and
a bump record's ``report_markdown`` (:mod:`bot.report.record`) hand to the PR body's pack section."""

from __future__ import annotations


class MarkdownReport:
    """A pack report given to ``publish --pack-report FILE`` as the Markdown of ``verify-pack --markdown FILE``.

    ``publish`` runs in another job than the verification, so it only has
    that Markdown; this wraps it in the shape :func:`bot.report.pack_section`
    reads from a ``PackReport``.  ``failed`` is read from the verdict line
    ``PackReport.to_markdown()`` writes (``**Failed** for version ...``,
    bot/pack/report.py); the operator components are inside the text already.
    """

    operators_added: tuple = ()
    operators_removed: tuple = ()

    def __init__(self, text: str):
        self.text = text
        self.failed = any(line.startswith("**Failed**") for line in text.splitlines())

    def to_markdown(self) -> str:
        """The report's Markdown, as given."""
        return self.text
